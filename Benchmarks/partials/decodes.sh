#!/usr/bin/env bash
# Where a server's cores go under K concurrent real-time streams, by kind of look: starts
# `transcribe serve --engine moonshine --max-sessions K` with TRANSCRIBE_LOG_DECODES=1, runs
# Benchmarks/serve/load.py with K clients, and sums the decode log (see README.md).
# Builds nothing: build the binary first (`swift build -c release --product transcribe`).
#
#   Benchmarks/partials/decodes.sh [path/to/transcribe] [K] [extra serve options…]
#   Benchmarks/partials/decodes.sh .build/release/transcribe 32
#
# K defaults to 32. Prints load.py's row, the server's CPU seconds in all (loading the model
# included), then a row per look: transcriptions, seconds of audio heard, CPU and wall seconds.
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

log="$(mktemp)"
server=""
cleanup() {
  if [ -n "$server" ]; then
    kill -TERM "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -f "$log"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

TRANSCRIBE_LOG_DECODES=1 "$binary" serve --engine moonshine --port 0 --max-sessions "$clients" \
  "$@" 2>"$log" &
server=$!

url=""
for _ in $(seq 1800); do   # up to 3 minutes: a debug build loads the model slowly
  url="$(sed -n 's|.*listening on \(http://[^ ]*\).*|\1|p' "$log" | head -1)"
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$log" >&2; echo "decodes.sh: the server exited" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { cat "$log" >&2; echo "decodes.sh: the server printed no address" >&2; exit 1; }

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
  "$binary, $clients streams"
python3 "$repo/Benchmarks/serve/load.py" --url "ws://${url#http://}" --clients "$clients" \
  --pid "$server" | grep '^|'
ticks="$(getconf CLK_TCK)"
read -r utime stime < <(sed 's/.*) //' "/proc/$server/stat" | awk '{print $12, $13}')
awk -v t="$ticks" -v u="$utime" -v s="$stime" 'BEGIN {
  printf "server CPU in all (model load included): %.2f s\n", (u + s) / t }'
awk '$1 == "transcribe:" && $2 == "decode" {
    n[$3]++; audio[$3] += $4; cpu[$3] += $8; wall[$3] += $11
    tn++; ta += $4; tc += $8; tw += $11
  }
  END {
    print "| look | transcriptions | audio heard (s) | CPU (s) | CPU per audio s | wall (s) |"
    print "|---|---|---|---|---|---|"
    for (look in n)
      printf "| %s | %d | %.1f | %.2f | %.3f | %.1f |\n", look, n[look], audio[look], cpu[look],
        cpu[look] / audio[look], wall[look]
    printf "| all | %d | %.1f | %.2f | %.3f | %.1f |\n", tn, ta, tc, tc / ta, tw
  }' "$log"
