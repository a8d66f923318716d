#!/usr/bin/env bash
# Benchmarks/live/run.sh - our decoder against pocketsphinx_continuous on pocketsphinx-testdata.
#
#   Benchmarks/live/run.sh              word error rate and wall time per file, both decoders
#   Benchmarks/live/run.sh --latency    also live latency through a virtual microphone
#                                       (needs scripts/virtual-mic.sh and pulseaudio)
#
# Settings (environment):
#   TRANSCRIBE    command that prints the transcript of a file; it is run as
#                 `$TRANSCRIBE [--grammar G] $INPUT_FLAG FILE`. By default this package's
#                 live-bench (built in release here), which uses SpeechClientLive. For the
#                 command-line tool: TRANSCRIBE=.build/release/transcribe INPUT_FLAG=--input
#   INPUT_FLAG    the option that precedes the file, if the command needs one
#   ENGINE        pocketsphinx (default) or moonshine: the engine ours decodes with (passed as
#                 --engine); with moonshine the grammar set is left out (a pocketsphinx feature)
#   POCKETSPHINX  the reference, default pocketsphinx_continuous
#   DATA          pocketsphinx-testdata's directory, default /usr/share/pocketsphinx/test/data
#
# Each file is one process run for both sides, so both times include loading the model.
# WER = (substitutions + deletions + insertions) / reference words, over all files of a set.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
DATA="${DATA:-/usr/share/pocketsphinx/test/data}"
POCKETSPHINX="${POCKETSPHINX:-pocketsphinx_continuous}"
HMM=/usr/share/pocketsphinx/model/en-us/en-us
LM=/usr/share/pocketsphinx/model/en-us/en-us.lm.bin
DICT=/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict

[ -r "$DATA/goforward.raw" ] || { echo "run.sh: install pocketsphinx-testdata" >&2; exit 1; }
command -v "$POCKETSPHINX" >/dev/null || { echo "run.sh: install pocketsphinx" >&2; exit 1; }
if [ -z "${TRANSCRIBE:-}" ]; then
  echo "building live-bench (release)..." >&2
  (cd "$here" && swift build -c release --product live-bench >&2)
  TRANSCRIBE="$here/.build/release/live-bench"
fi
echo "ours: $TRANSCRIBE ${INPUT_FLAG:-}" >&2
echo "reference: $POCKETSPHINX $(dpkg-query -W -f '${Version}' pocketsphinx 2>/dev/null || true)" >&2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }

ENGINE="${ENGINE:-pocketsphinx}"

# Words as the references spell them: lower case, hyphens as spaces, no punctuation, and the few
# spellings Moonshine writes differently (Mr. → mister, 10 → ten).
normalize() {
  echo "$1" | tr '[:upper:]' '[:lower:]' | tr -- '-' ' ' | tr -cd "a-z0-9' \n" \
    | sed -E 's/\bmr\b/mister/g; s/\bmrs\b/missus/g; s/\b10\b/ten/g'
}

# Word-level edit distance between two lines of text: prints "errors reference-words".
errors() {
  awk -v hyp="$(normalize "$2")" -v ref="$(normalize "$1")" 'BEGIN {
    n = split(tolower(ref), r, " "); m = split(tolower(hyp), h, " ")
    for (i = 0; i <= n; i++) d[i, 0] = i
    for (j = 0; j <= m; j++) d[0, j] = j
    for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) {
      c = d[i-1, j-1] + (r[i] != h[j]); a = d[i-1, j] + 1; b = d[i, j-1] + 1
      d[i, j] = (c < a ? (c < b ? c : b) : (a < b ? a : b))
    }
    print d[n, m], n
  }'
}

# Runs a command on a file, prints its wall time and writes its one-line transcript to $out.
timed() {
  local out="$1"; shift
  local start end
  start=$(now)
  "$@" 2>/dev/null | tr '\n' ' ' | sed 's/  */ /g; s/^ //; s/ $//' >"$out"
  end=$(now)
  echo "$end - $start" | bc -l
}

# One set: name, extra pocketsphinx args, extra TRANSCRIBE args, then "file|reference" lines.
run_set() {
  local name="$1" ps_args="$2" our_args="$3"; shift 3
  local ours_err=0 ps_err=0 words=0 ours_time=0 ps_time=0
  printf '\n== %s\n%-44s %5s %7s %7s %8s %8s\n' "$name" file words "ours" "ps" "ours s" "ps s"
  local entry file reference t_ours t_ps e_ours e_ps n
  for entry in "$@"; do
    file="${entry%%|*}"; reference="${entry#*|}"
    # shellcheck disable=SC2086
    t_ours=$(timed "$work/ours" $TRANSCRIBE $our_args ${INPUT_FLAG:-} "$file")
    # shellcheck disable=SC2086
    t_ps=$(timed "$work/ps" "$POCKETSPHINX" -hmm "$HMM" -dict "$DICT" $ps_args \
      -logfn /dev/null -infile "$file")
    read -r e_ours n < <(errors "$reference" "$(cat "$work/ours")")
    read -r e_ps _ < <(errors "$reference" "$(cat "$work/ps")")
    printf '%-44s %5d %7d %7d %8.2f %8.2f\n' "$(basename "$file")" "$n" "$e_ours" "$e_ps" \
      "$t_ours" "$t_ps"
    [ "$(cat "$work/ours")" = "$(cat "$work/ps")" ] || {
      echo "    ours: $(cat "$work/ours")"; echo "    ps:   $(cat "$work/ps")"; }
    ours_err=$((ours_err + e_ours)); ps_err=$((ps_err + e_ps)); words=$((words + n))
    ours_time=$(echo "$ours_time + $t_ours" | bc -l); ps_time=$(echo "$ps_time + $t_ps" | bc -l)
  done
  printf '%-44s %5d %6.1f%% %6.1f%% %8.2f %8.2f\n' "total (WER, wall s)" "$words" \
    "$(echo "100 * $ours_err / $words" | bc -l)" "$(echo "100 * $ps_err / $words" | bc -l)" \
    "$ours_time" "$ps_time"
}

# goforward.raw, plus a WAV of it for pocketsphinx_continuous, which reads raw only as -infile
# when the name does not end in .wav (it does read both).
lm_set=("$DATA/goforward.raw|go forward ten meters")
while read -r line; do
  id="${line##*(}"; id="${id%)}"
  text="$(echo "$line" | sed 's/<s>//; s/<\/s>.*//; s/^ *//; s/ *$//')"
  lm_set+=("$DATA/librivox/$id.wav|$text")
done <"$DATA/librivox/transcription"
run_set "language model (en-us.lm.bin); ours: $ENGINE" "-lm $LM" "--engine $ENGINE" "${lm_set[@]}"

cards_set=()
while read -r line; do
  id="${line##*(}"; id="${id%)}"
  text="$(echo "$line" | sed 's/<s>//; s/<\/s>.*//; s/^ *//; s/ *$//')"
  cards_set+=("$DATA/cards/$id.wav|$text")
done <"$DATA/cards/cards.transcription"
[ "$ENGINE" = pocketsphinx ] && run_set "JSGF grammar (cards.gram)" "-jsgf $DATA/cards/cards.gram" \
  "--grammar $DATA/cards/cards.gram" "${cards_set[@]}"

# Throughput: all librivox files, three times over, as one 75 s file (model load is then small).
long="$work/librivox-x3.wav"
long_text=""
files=()
for _ in 1 2 3; do
  for entry in "${lm_set[@]:1}"; do files+=("${entry%%|*}"); long_text="$long_text ${entry#*|}"; done
done
sox -q "${files[@]}" "$long"
run_set "throughput: librivox x3, $(soxi -D "$long" | cut -d. -f1) s of audio; ours: $ENGINE" \
  "-lm $LM" "--engine $ENGINE" "$long|$long_text"

[ "${1:-}" = "--latency" ] || exit 0

# Live latency: the same speech played into a virtual microphone for both decoders.
mic="$root/scripts/virtual-mic.sh"
[ -x "$mic" ] || mic="${VIRTUAL_MIC_SCRIPT:-$mic}"
export VMIC_DIR="/tmp/vmic-bench-$$"
eval "$("$mic" start)"
trap 'VMIC_DIR="$VMIC_DIR" "$mic" stop >/dev/null 2>&1; rm -rf "$work" "$VMIC_DIR"' EXIT
# goforward three times with 3 s gaps: a decoder that cannot keep up falls behind in the gaps.
speech="$work/goforward-x3.wav"
sox -q -t raw -r 16000 -e signed -b 16 -c 1 "$DATA/goforward.raw" "$speech" \
  pad 0 3 repeat 2 pad 0.5 0
echo
echo "== live latency, goforward x3 with 3 s gaps, through a virtual microphone"
echo "-- ours (SpeechClientLive, live-bench --latency, $ENGINE)"
[ -x "$here/.build/release/live-bench" ] \
  || (cd "$here" && swift build -c release --product live-bench >&2)
"$here/.build/release/live-bench" --latency "$PULSE_SERVER" "$speech" "$ENGINE" | tee "$work/latency"
mapfile -t ends < <(awk -F'\t' '/^utterance/ { sub(/ends /, "", $3); sub(/ s/, "", $3); print $3 }' \
  "$work/latency")

echo "-- pocketsphinx_continuous -inmic yes (polled every 20 ms)"
stdbuf -oL "$POCKETSPHINX" -hmm "$HMM" -lm "$LM" -dict "$DICT" -inmic yes -logfn /dev/null \
  >"$work/ps-live" 2>/dev/null &
ps_pid=$!
sleep 2  # model load
start=$(now)
paplay "$speech" &
play_pid=$!
last_end="${ends[${#ends[@]}-1]}"
seen=0
while [ "$(echo "$(now) - $start < $last_end + 6" | bc -l)" = 1 ]; do
  lines=$(grep -c 'go\|forward\|ten\|meters' "$work/ps-live" 2>/dev/null || true)
  while [ "$seen" -lt "$lines" ] && [ "$seen" -lt "${#ends[@]}" ]; do
    printf 'utterance\t%d\tends %s s\tfinal %.2f s after\n' "$((seen + 1))" "${ends[$seen]}" \
      "$(echo "$(now) - $start - ${ends[$seen]}" | bc -l)"
    seen=$((seen + 1))
  done
  sleep 0.02
done
wait "$play_pid" 2>/dev/null || true
kill "$ps_pid" 2>/dev/null || true
wait "$ps_pid" 2>/dev/null || true
[ "$seen" -gt 0 ] || echo "pocketsphinx_continuous printed nothing: $(cat "$work/ps-live")"
