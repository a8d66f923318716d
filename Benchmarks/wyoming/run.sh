#!/usr/bin/env bash
# Wyoming latency benchmark (issue 26), run by hand: starts `transcribe serve --no-http
# --wyoming` with Moonshine, then times Home Assistant's sequence on a 3 s command
# (goforward.raw, 2.8 s) at real-time pace: 20 commands alone, then 2 and 4 clients at once.
#   Benchmarks/wyoming/run.sh [path/to/transcribe] [extra serve options…]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
binary="${1:-$here/../../.build/release/transcribe}"
shift || true
audio=/usr/share/pocketsphinx/test/data/goforward.raw
log="$(mktemp)"
"$binary" serve --no-http --wyoming tcp://127.0.0.1:0 --engine moonshine --max-sessions 4 \
  "$@" 2>"$log" &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 600); do
  grep -q "wyoming listening on" "$log" && break
  sleep 0.1
done
uri="$(sed -n 's/^transcribe: wyoming listening on //p' "$log" | head -1)"
echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $uri" >&2
python3 "$here/latency.py" "$uri" "$audio" --runs 20 --clients 1 | tail -1
python3 "$here/latency.py" "$uri" "$audio" --runs 5 --clients 2 | tail -1
python3 "$here/latency.py" "$uri" "$audio" --runs 5 --clients 4 | tail -1
