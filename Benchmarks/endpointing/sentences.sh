#!/usr/bin/env bash
# Benchmarks/endpointing/sentences.sh - the issue's measure of sentence endpointing: the five
# LibriVox sentences of pocketsphinx-testdata, each with one pause of digital silence put at a
# word boundary in its middle (the same places as Tests/Support/LiveTestSupport/
# ThinkingPauses.swift), through `transcribe -i`: how many utterances, and the word error rate.
#
#   Benchmarks/endpointing/sentences.sh [path/to/transcribe] [options...]
#   Benchmarks/endpointing/sentences.sh .build/release/transcribe --endpointing fixed
#
# PAUSES (default "0.8 1.2") sets the pause lengths. Prints one line per pause length.
set -euo pipefail
transcribe="${1:-.build/release/transcribe}"
shift || true
librivox=/usr/share/pocketsphinx/test/data/librivox
work="$(mktemp -d /tmp/endpointing-sentences.XXXXXX)"
trap 'rm -rf "$work"' EXIT
for pause in ${PAUSES:-0.8 1.2}; do
  : > "$work/out-$pause.txt"
  for boundary in 0870:3.45 0880:1.48 0890:2.78 0920:2.98 0930:1.68; do
    clip="${boundary%%:*}"
    at="${boundary##*:}"
    file="$work/$clip-$pause.wav"
    sox "$librivox/sense_and_sensibility_01_austen_64kb-$clip.wav" "$file" pad "$pause@$at"
    {
      printf '%s\t' "$clip"
      "$transcribe" "$@" --engine moonshine -i "$file" 2>/dev/null | tr '\n' '|'
      echo
    } >> "$work/out-$pause.txt"
  done
  python3 - "$librivox/transcription" "$work/out-$pause.txt" "$pause" "$*" <<'EOF'
import re, sys
references = {}
for line in open(sys.argv[1]):
    match = re.match(r"<s> (.*) </s> \(.*-(\d+)\)", line.strip())
    references[match.group(2)] = match.group(1).lower().split()
def words(text):
    spelled = {"mr": "mister", "mrs": "missus", "10": "ten"}
    out = []
    for word in text.lower().replace("-", " ").split():
        word = "".join(c for c in word if c.isalnum() or c == "'")
        if word:
            out.append(spelled.get(word, word))
    return out
def distance(a, b):
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        previous, row[0] = row[:], i
        for j in range(1, len(b) + 1):
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] != b[j - 1]))
    return row[len(b)]
errors = total = utterances = 0
lines = []
for line in open(sys.argv[2]):
    clip, output = line.rstrip("\n").split("\t")
    parts = [part for part in output.split("|") if part.strip()]
    utterances += len(parts)
    errors += distance(references[clip], words(" ".join(parts)))
    total += len(references[clip])
    lines.append(f"  {clip}: " + " / ".join(parts))
print(f"pause {sys.argv[3]} s, options [{sys.argv[4]}]: {utterances} utterances for 5 sentences, "
      f"WER {errors / total:.3f}")
print("\n".join(lines))
EOF
done
