#!/usr/bin/env bash
# Where a server's cores go under K concurrent real-time streams, by kind of look: starts
# `transcribe serve --engine moonshine --max-sessions K` with TRANSCRIBE_LOG_DECODES=1, runs
# Benchmarks/serve/load.py with K clients, and sums the decode log (see README.md).
# Builds nothing: build the binary first (`swift build -c release --product transcribe`).
#
#   Benchmarks/partials/decodes.sh [path/to/transcribe] [K] [extra serve options…]
#   Benchmarks/partials/decodes.sh .build/release/transcribe 32
#
# K defaults to 32. Prints load.py's row, the server's CPU seconds over the streams (and before
# them), then a row per look: transcriptions, seconds of audio heard, CPU and wall seconds.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

binary="$repo/.build/release/transcribe"
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ] && ! [[ "$1" =~ ^[0-9]+$ ]]; then
  binary="$1"
  shift
fi
clients=32
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then
  clients="$1"
  shift
fi
if [ ! -x "$binary" ]; then
  echo "decodes.sh: no executable $binary (this script builds nothing: run" \
    "\`swift build -c release --product transcribe\` first, or name a binary)" >&2
  exit 1
fi

source "$here/server.sh"
export TRANSCRIBE_LOG_DECODES=1
start_server decodes.sh "$binary" --engine moonshine --port 0 --max-sessions "$clients" "$@"

cpu_seconds() {   # the server's user + system CPU seconds so far
  local fields
  fields="$(sed 's/.*) //' "/proc/$server/stat")" || { echo "decodes.sh: the server is gone" >&2; exit 1; }
  awk -v t="$(getconf CLK_TCK)" '{ printf "%.2f", ($12 + $13) / t }' <<<"$fields"
}
# load.py's clients play pocketsphinx-testdata's LibriVox clips in turn, sorted by name.
audio="$(python3 - "$clients" <<'PY'
import glob, sys, wave
clips = sorted(glob.glob("/usr/share/pocketsphinx/test/data/librivox/*.wav"))
seconds = []
for path in clips:
    with wave.open(path) as clip:
        seconds.append(clip.getnframes() / clip.getframerate())
print(f"{sum(seconds[i % len(seconds)] for i in range(int(sys.argv[1]))):.2f}")
PY
)"

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
  "$binary, $clients streams, $audio s of audio in all"
before="$(cpu_seconds)"
python3 "$repo/Benchmarks/serve/load.py" --url "ws://${url#http://}" --clients "$clients" \
  --pid "$server" | grep '^|'
after="$(cpu_seconds)"
awk -v b="$before" -v a="$after" -v s="$audio" 'BEGIN {
  printf "server CPU over the streams: %.2f s, %.3f s per second of audio (%.2f s before them:" \
    " loading, warming up)\n", a - b, (a - b) / s, b }'
awk '$1 == "transcribe:" && $2 == "decode" {
    n[$3]++; audio[$3] += $4; cpu[$3] += $8; wall[$3] += $11
    tn++; ta += $4; tc += $8; tw += $11
  }
  END {
    if (tn == 0) {
      print "decodes.sh: the server logged no transcriptions (a build without" \
        " TRANSCRIBE_LOG_DECODES?)" > "/dev/stderr"
      exit 1
    }
    print "| look | transcriptions | audio heard (s) | CPU (s) | CPU per audio s | wall (s) |"
    print "|---|---|---|---|---|---|"
    split("partial early pause judge-early judge-late final piece", looks, " ")
    for (i = 1; i <= 7; i++) {
      look = looks[i]
      if (look in n)
        printf "| %s | %d | %.1f | %.2f | %.3f | %.1f |\n", look, n[look], audio[look],
          cpu[look], cpu[look] / audio[look], wall[look]
    }
    printf "| all | %d | %.1f | %.2f | %.3f | %.1f |\n", tn, ta, tc, tc / ta, tw
  }' "$log"
