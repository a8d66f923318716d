#!/usr/bin/env bash
# Builds the benchmark's audio: each line of sentences.tsv spoken by espeak-ng with its
# language's voice, as 16 kHz mono 16-bit WAV (OUT/ID.wav), and the references (OUT/set.tsv:
# path, language, text) for the espeak-ng set and pocketsphinx-testdata's English LibriVox clips.
#   make_set.sh OUT
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:?usage: make_set.sh OUT}"
librivox=/usr/share/pocketsphinx/test/data/librivox
mkdir -p "$out"
: >"$out/set.tsv"
while IFS=$'\t' read -r language id sentence; do
  case "$language" in '#'* | '') continue ;; esac
  espeak-ng -v "$language" -w "$out/$id.espeak.wav" "$sentence"
  sox "$out/$id.espeak.wav" -r 16000 -c 1 -b 16 "$out/$id.wav"
  rm -f "$out/$id.espeak.wav"
  printf '%s\t%s\t%s\n' "$out/$id.wav" "$language" "$sentence" >>"$out/set.tsv"
done <"$here/sentences.tsv"
# LibriVox: pocketsphinx-testdata's transcripts (one line per clip: words, then "(clip id)").
while read -r line; do
  id="${line##*(}"
  id="${id%)}"
  printf '%s\t%s\t%s\n' "$librivox/$id.wav" en "${line% (*}" >>"$out/set.tsv"
done <"$librivox/transcription"
wc -l <"$out/set.tsv" >&2
