#!/usr/bin/env bash
# The cost of partial results, run by hand: starts `transcribe serve --engine moonshine --port 0
# --wyoming tcp://127.0.0.1:0 --max-sessions N` and runs cost.py against it (see README.md).
# Builds nothing: build the binary first (`swift build -c release --product transcribe`).
#
#   Benchmarks/partials/run.sh [path/to/transcribe] [extra serve options…] [--streams K…]
#   RUNS=5 MAX_SESSIONS=4 Benchmarks/partials/run.sh .build/release/transcribe --vad energy
#
# The binary defaults to the repository's .build/release/transcribe. `--streams K…` (anywhere
# after the binary; the numbers that follow it) is taken out of the serve options and adds K
# concurrent real-time streams (Benchmarks/serve/load.py); N defaults to 4, or the largest K.
# RUNS (default 3): runs of the fast stream and of the upload. TRANSCRIBE_TOKEN: the server's
# token, if the extra options need one.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

binary="$repo/.build/release/transcribe"
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  binary="$1"
  shift
fi
serve_options=()
streams=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--streams" ]; then
    shift
    while [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; do streams+=("$1"); shift; done
  else
    serve_options+=("$1")
    shift
  fi
done

if [ ! -x "$binary" ]; then
  echo "run.sh: no executable $binary (this script builds nothing: run" \
    "\`swift build -c release --product transcribe\` first, or name a binary)" >&2
  exit 1
fi
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"

max_sessions="${MAX_SESSIONS:-4}"
for k in "${streams[@]}"; do
  [ -n "${MAX_SESSIONS:-}" ] || [ "$k" -le "$max_sessions" ] || max_sessions="$k"
done
options=(--engine moonshine --port 0 --wyoming tcp://127.0.0.1:0 --max-sessions "$max_sessions"
  "${serve_options[@]}")

source "$here/server.sh"
start_server run.sh "$binary" "${options[@]}"

shown_binary="${binary#"$repo"/}"
commit="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')"
git -C "$repo" diff --quiet HEAD 2>/dev/null || commit="$commit + uncommitted changes"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
  "$shown_binary (built $(date -u -r "$binary" '+%Y-%m-%d %H:%M UTC'); repository at $commit)," \
  "serve ${options[*]} → $url, $wyoming"
grep '^transcribe: serving' "$log" | sed 's/^/# /' || true

cost=(python3 "$here/cost.py" --url "$url" --wyoming "$wyoming" --pid "$server"
  --runs "${RUNS:-3}" --binary "$shown_binary" --options "${options[*]}")
[ ${#streams[@]} -eq 0 ] || cost+=(--streams "${streams[@]}")
"${cost[@]}"
