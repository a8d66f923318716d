#!/usr/bin/env bash
# Benchmarks/decode/long.sh - a meeting-length recording through `transcribe -i`: wall time,
# peak memory, one utterance per sentence, and whether sentence start times drift.
#
#   Benchmarks/decode/long.sh            an hour (MINUTES=60), Moonshine, release build
#   MINUTES=30 Benchmarks/decode/long.sh
#
# The recording: pocketsphinx-testdata's five LibriVox clips, each followed by 2 s of silence,
# repeated until MINUTES are filled (sox, 16 kHz mono). Every clip is a sentence (0880 and 0890
# are one sentence in the book, but 2 s apart they are two utterances on every path).
#
# Prints: audio length, wall and CPU seconds, peak RSS (/usr/bin/time), real-time factor,
# utterances against sentences, WER over the whole text, and for each clip position the spread
# of its utterance start times over the repetitions, relative to where the clip starts in the
# file (max - min: 0 means the sentences start at the same offset from minute 1 to the end).
#
# Settings (environment): TRANSCRIBE (default this repository's release build), ENGINE
# (default moonshine), MINUTES (60), EXTRA (options added to transcribe), DATA
# (pocketsphinx-testdata's directory).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
DATA="${DATA:-/usr/share/pocketsphinx/test/data}"
ENGINE="${ENGINE:-moonshine}"
MINUTES="${MINUTES:-60}"
read -r -a extra <<<"${EXTRA:-}"

[ -r "$DATA/librivox/transcription" ] || { echo "long.sh: install pocketsphinx-testdata" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "long.sh: install time (GNU time, for peak RSS)" >&2; exit 1; }
if [ -z "${TRANSCRIBE:-}" ]; then
  echo "building transcribe (release)..." >&2
  (cd "$root" && swift build -c release --product transcribe >&2)
  TRANSCRIBE="$root/.build/release/transcribe"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

clips=()
references=()
while read -r line; do
  id="${line##*(}"; id="${id%)}"
  clips+=("$DATA/librivox/$id.wav")
  references+=("$(echo "$line" | sed 's/<s>//; s/<\/s>.*//')")
done <"$DATA/librivox/transcription"
sox -q -n -r 16000 -c 1 -b 16 "$work/gap.wav" trim 0 2
round=()
starts=()
offset=0
for clip in "${clips[@]}"; do
  sox -q "$clip" -r 16000 -c 1 -b 16 "$work/$(basename "$clip")"
  round+=("$work/$(basename "$clip")" "$work/gap.wav")
  starts+=("$offset")
  offset=$(echo "$offset + $(soxi -D "$clip") + 2" | bc -l)
done
sox -q "${round[@]}" "$work/round.wav"
round_length=$(soxi -D "$work/round.wav")
rounds=$(echo "($MINUTES * 60) / $round_length" | bc)
list=()
for _ in $(seq "$rounds"); do list+=("$work/round.wav"); done
sox -q "${list[@]}" "$work/long.wav"
audio=$(soxi -D "$work/long.wav")

echo "ours:    $TRANSCRIBE --engine $ENGINE ${extra[*]:-} --format json -i long.wav"
echo "audio:   $rounds rounds of the five clips with 2 s gaps: $(printf '%.1f' "$audio") s"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC'); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f '%e %U %S %M' -o "$work/time" \
  "$TRANSCRIBE" --engine "$ENGINE" "${extra[@]}" --format json -i "$work/long.wav" \
  >"$work/out.jsonl" 2>"$work/err.txt" || { cat "$work/err.txt" >&2; exit 1; }
read -r wall user system rss <"$work/time"

python3 - "$work/out.jsonl" "$round_length" "$rounds" "$wall" "$user" "$system" "$rss" \
  "$audio" "${starts[@]}" -- "${references[@]}" <<'EOF'
import json, re, sys
args = sys.argv[1:]
path, round_length, rounds, wall, user, system, rss, audio = args[:8]
round_length, rounds, wall, cpu, rss, audio = (
    float(round_length), int(rounds), float(wall), float(user) + float(system),
    float(rss) / 1024, float(audio))
split = args.index("--")
starts = [float(s) for s in args[8:split]]
references = args[split + 1:]
utterances = [json.loads(l) for l in open(path) if l.strip()]
utterances = [u for u in utterances if u.get("type") == "utterance"]

def words(text):
    text = text.lower().replace("-", " ")
    text = re.sub(r"[^a-z0-9' ]", " ", text)
    table = {"mr": "mister", "mrs": "missus", "10": "ten"}
    return [table.get(w, w) for w in text.split()]

def distance(a, b):
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            current[j] = min(previous[j - 1] + (a[i - 1] != b[j - 1]), previous[j] + 1,
                             current[j - 1] + 1)
        previous = current
    return previous[-1]

# Each utterance belongs to the clip whose span (start to the next start) holds its start.
spreads = {index: [] for index in range(len(starts))}
per_clip = {}
for u in utterances:
    position = u["start"] % round_length
    number = int(u["start"] // round_length)
    # (0.5 s of slack: the utterance may start in the leading edge the clip was cut with).
    index = max([i for i, s in enumerate(starts) if s <= position + 0.5] or [0])
    per_clip[(number, index)] = per_clip.get((number, index), 0) + 1
    spreads[index].append(position - starts[index])
sentences = rounds * len(starts)
one_each = sum(1 for n in per_clip.values() if n == 1)
reference = []
for _ in range(rounds):
    for r in references:
        reference += words(r)
# The whole text at once is too long for a quadratic alignment: align round by round.
chunk = sum(len(words(r)) for r in references)
errors = 0
per_round = [[] for _ in range(rounds)]
for u in utterances:
    per_round[min(rounds - 1, int(u["start"] // round_length))] += words(u["text"])
for number in range(rounds):
    errors += distance(reference[number * chunk:(number + 1) * chunk], per_round[number])
print(f"wall {wall:.1f} s, cpu {cpu:.1f} s, peak RSS {rss:.0f} MiB, real-time factor {wall / audio:.3f}")
print(f"utterances {len(utterances)} for {sentences} sentences; sentences heard as exactly one utterance: {one_each}")
print(f"WER {errors / len(reference):.4f} ({errors} errors in {len(reference)} words)")
for index, values in spreads.items():
    if values:
        print(f"clip {index + 1}: utterance start - clip start: min {min(values):.3f} max {max(values):.3f} s"
              f" (spread {max(values) - min(values):.3f} s over {len(values)} utterances)")
EOF
