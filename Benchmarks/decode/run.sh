#!/usr/bin/env bash
# Benchmarks/decode/run.sh - file decoding, ours against pocketsphinx_continuous -infile.
#
#   Benchmarks/decode/run.sh                 every case, 3 runs each
#   RUNS=5 Benchmarks/decode/run.sh 49s six  only some cases (49s, 10min, six, jobs1), 5 runs
#
# Cases (pocketsphinx-testdata, default en-us model, same files for both sides):
#   49s    one 49.5 s file: the five LibriVox clips twice over (sox, 49.46 s)
#   10min  one 10-minute file: that 49.5 s file 12 times, then 6.5 s of silence (600.0 s)
#   six    six short files (goforward.raw and the five clips, 27.5 s in all): ours in one call,
#          against six pocketsphinx_continuous runs one after another
#   jobs1  the 49.5 s file with ours limited to one decoder (--jobs 1)
#
# Each run alternates the two sides (A B A B ...), RUNS times; the table shows medians of:
# wall time, CPU time (user + system), peak RSS (largest process, /usr/bin/time -v), the
# real-time factor (wall / audio; < 1 is faster than real time), and the word error rate against
# the clips' transcriptions (substitutions + deletions + insertions over reference words).
# "ratio" is ours / pocketsphinx_continuous for wall time.
#
# Settings (environment):
#   ENGINE        the engine ours decodes with, passed as --engine: pocketsphinx (the default,
#                 the same model as the reference) or moonshine (ENGINE=moonshine run.sh 49s)
#   TRANSCRIBE    our command; default the release build of this repository's `transcribe`,
#                 run as `$TRANSCRIBE --engine E [--jobs N] --input F [--input F ...]`
#   INPUT_FLAG    the option before each file, default --input; empty for a command that takes
#                 files as arguments, e.g. TRANSCRIBE=Benchmarks/live/.build/release/live-bench
#                 INPUT_FLAG= (SpeechClientLive without the command-line tool)
#   JOBS          our --jobs for every case but jobs1 (default: transcribe's default, the cores)
#   POCKETSPHINX  the reference, default pocketsphinx_continuous
#   DATA          pocketsphinx-testdata's directory, default /usr/share/pocketsphinx/test/data
#   RUNS          runs per side and case, default 3
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
DATA="${DATA:-/usr/share/pocketsphinx/test/data}"
POCKETSPHINX="${POCKETSPHINX:-pocketsphinx_continuous}"
RUNS="${RUNS:-3}"
ENGINE="${ENGINE:-pocketsphinx}"
HMM=/usr/share/pocketsphinx/model/en-us/en-us
LM=/usr/share/pocketsphinx/model/en-us/en-us.lm.bin
DICT=/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict

[ -r "$DATA/goforward.raw" ] || { echo "run.sh: install pocketsphinx-testdata" >&2; exit 1; }
command -v "$POCKETSPHINX" >/dev/null || { echo "run.sh: install pocketsphinx" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "run.sh: install time (GNU time, for peak RSS)" >&2; exit 1; }
if [ -z "${TRANSCRIBE:-}" ]; then
  echo "building transcribe (release)..." >&2
  (cd "$root" && swift build -c release --product transcribe >&2)
  TRANSCRIBE="$root/.build/release/transcribe"
fi
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(49s 10min six jobs1)

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The inputs and their reference texts.
clips=()
clip_text=""
while read -r line; do
  id="${line##*(}"; id="${id%)}"
  clips+=("$DATA/librivox/$id.wav")
  clip_text="$clip_text $(echo "$line" | sed 's/<s>//; s/<\/s>.*//')"
done <"$DATA/librivox/transcription"
sox -q "${clips[@]}" "${clips[@]}" "$work/49s.wav"
text_49s="$clip_text $clip_text"
ten=()
text_10min=""
for _ in $(seq 12); do ten+=("$work/49s.wav"); text_10min="$text_10min $text_49s"; done
sox -q "${ten[@]}" "$work/10min.wav" pad 0 6.54
six=("$DATA/goforward.raw" "${clips[@]}")
text_six="go forward ten meters $clip_text"

echo "ours:      $TRANSCRIBE ${ENGINE_FLAG:---engine $ENGINE} ${JOBS:+--jobs $JOBS}"
echo "reference: $POCKETSPHINX $(dpkg-query -W -f '${Version}' pocketsphinx 2>/dev/null || true)"
echo "machine:   $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"\
" $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
echo "date:      $(date -u '+%Y-%m-%d %H:%M UTC'); load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# Words as the references spell them: lower case, hyphens as spaces, no punctuation, and the few
# spellings Moonshine writes differently (Mr. → mister, 10 → ten).
normalize() {
  echo "$1" | tr '[:upper:]' '[:lower:]' | tr -- '-' ' ' | tr -cd "a-z0-9' \n" \
    | sed -E 's/\bmr\b/mister/g; s/\bmrs\b/missus/g; s/\b10\b/ten/g'
}

# Word-level edit distance: prints "errors reference-words".
errors() {
  awk -v hyp="$(normalize "$2")" -v ref="$(normalize "$1")" 'BEGIN {
    n = split(tolower(ref), r, " "); m = split(tolower(hyp), h, " ")
    for (j = 0; j <= m; j++) prev[j] = j
    for (i = 1; i <= n; i++) {
      cur[0] = i
      for (j = 1; j <= m; j++) {
        c = prev[j-1] + (r[i] != h[j]); a = prev[j] + 1; b = cur[j-1] + 1
        cur[j] = (c < a ? (c < b ? c : b) : (a < b ? a : b))
      }
      for (j = 0; j <= m; j++) prev[j] = cur[j]
    }
    print prev[m], n
  }'
}

# Runs a command under /usr/bin/time; prints "wall cpu rss_kib" and writes its words to $1.
measure() {
  local out="$1"; shift
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" 2>/dev/null \
    | grep -v '^==> .* <==$' | tr '\n' ' ' | sed 's/  */ /g; s/^ //; s/ $//' >"$out"
  awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$work/time"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# ours_cmd and ps_cmd are arrays set by each case; audio seconds and the reference text.
run_case() {
  local name="$1" audio="$2" reference="$3"
  : >"$work/ours.rows"; : >"$work/ps.rows"
  for run in $(seq "$RUNS"); do
    measure "$work/ours.txt" "${ours_cmd[@]}" >>"$work/ours.rows"
    measure "$work/ps.txt" "${ps_cmd[@]}" >>"$work/ps.rows"
    echo "  run $run: ours $(tail -1 "$work/ours.rows"), ps $(tail -1 "$work/ps.rows")" \
      "(wall s, cpu s, peak KiB)" >&2
  done
  local side rows wall cpu rss e n
  printf '\n== %s (%.1f s of audio, %d runs, load %s)\n' "$name" "$audio" "$RUNS" \
    "$(cut -d' ' -f1-3 /proc/loadavg)"
  printf '%-24s %8s %8s %9s %7s %7s\n' side "wall s" "cpu s" "peak MiB" RTF WER
  for side in ours ps; do
    rows="$work/$side.rows"
    wall=$(cut -d' ' -f1 "$rows" | median)
    cpu=$(cut -d' ' -f2 "$rows" | median)
    rss=$(cut -d' ' -f3 "$rows" | median)
    read -r e n < <(errors "$reference" "$(cat "$work/$side.txt")")
    printf '%-24s %8.2f %8.2f %9.1f %7.3f %6.1f%%\n' \
      "$([ $side = ours ] && echo "ours" || echo "pocketsphinx_continuous")" \
      "$wall" "$cpu" "$(echo "$rss / 1024" | bc -l)" "$(echo "$wall / $audio" | bc -l)" \
      "$(echo "100 * $e / $n" | bc -l)"
    eval "${side}_wall=$wall"
  done
  # shellcheck disable=SC2154
  printf '%-24s %8.2f\n' "ratio (ours / ps)" "$(echo "$ours_wall / $ps_wall" | bc -l)"
  [ "$(cat "$work/ours.txt")" = "$(cat "$work/ps.txt")" ] \
    && echo "same words as pocketsphinx_continuous" \
    || echo "words differ from pocketsphinx_continuous"
}

ps_file() { "$POCKETSPHINX" -hmm "$HMM" -lm "$LM" -dict "$DICT" -logfn /dev/null -infile "$1"; }
ps_files() { for f in "$@"; do ps_file "$f"; done; }
export -f ps_file ps_files
export POCKETSPHINX HMM LM DICT
jobs_option=()
[ -n "${JOBS:-}" ] && jobs_option=(--jobs "$JOBS")
# ENGINE_FLAG= (empty) for a command without --engine, e.g. an older build or live-bench.
read -r -a engine_option <<<"${ENGINE_FLAG---engine $ENGINE}"
jobs_option=("${engine_option[@]}" "${jobs_option[@]}")
INPUT_FLAG="${INPUT_FLAG---input}"
# Our arguments for some files: each preceded by INPUT_FLAG, if any.
inputs() { for f in "$@"; do [ -n "$INPUT_FLAG" ] && printf '%s\n' "$INPUT_FLAG"; printf '%s\n' "$f"; done; }

for name in "${cases[@]}"; do
  case "$name" in
    49s)
      mapfile -t args < <(inputs "$work/49s.wav")
      ours_cmd=("$TRANSCRIBE" "${jobs_option[@]}" "${args[@]}")
      ps_cmd=(bash -c 'ps_file "$0"' "$work/49s.wav")
      run_case "one 49.5 s file" "$(soxi -D "$work/49s.wav")" "$text_49s" ;;
    10min)
      mapfile -t args < <(inputs "$work/10min.wav")
      ours_cmd=("$TRANSCRIBE" "${jobs_option[@]}" "${args[@]}")
      ps_cmd=(bash -c 'ps_file "$0"' "$work/10min.wav")
      run_case "one 10-minute file" "$(soxi -D "$work/10min.wav")" "$text_10min" ;;
    six)
      mapfile -t args < <(inputs "${six[@]}")
      ours_cmd=("$TRANSCRIBE" "${jobs_option[@]}" "${args[@]}")
      ps_cmd=(bash -c 'ps_files "$@"' ps "${six[@]}")
      total=0
      for f in "${six[@]}"; do
        if [ "${f##*.}" = raw ]; then d=$(echo "$(stat -c %s "$f") / 32000" | bc -l)
        else d=$(soxi -D "$f"); fi
        total=$(echo "$total + $d" | bc -l)
      done
      run_case "six short files: one call vs six runs" "$total" "$text_six" ;;
    jobs1)
      mapfile -t args < <(inputs "$work/49s.wav")
      ours_cmd=("$TRANSCRIBE" "${engine_option[@]}" --jobs 1 "${args[@]}")
      ps_cmd=(bash -c 'ps_file "$0"' "$work/49s.wav")
      run_case "one 49.5 s file, ours --jobs 1" "$(soxi -D "$work/49s.wav")" "$text_49s" ;;
    *) echo "run.sh: unknown case $name (49s, 10min, six, jobs1)" >&2; exit 64 ;;
  esac
done
