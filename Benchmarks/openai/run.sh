#!/usr/bin/env bash
# OpenAI streaming benchmark: builds a release `transcribe`, starts `transcribe serve` with the
# real model, and measures how soon `stream=true` answers a long upload (first_delta.py).
#
#   Benchmarks/openai/run.sh                  # Moonshine, a 10-minute upload, 3 runs
#   ENGINE=pocketsphinx MINUTES=5 RUNS=5 Benchmarks/openai/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"

engine="${ENGINE:-moonshine}"
minutes="${MINUTES:-10}"
runs="${RUNS:-3}"

swift build -c release --product transcribe >&2
transcribe="$(swift build -c release --show-bin-path)/transcribe"

log="$(mktemp)"
"$transcribe" serve --engine "$engine" --port 0 2>"$log" &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -f "$log"' EXIT

url=""
for _ in $(seq 600); do
  url="$(sed -n 's|.*listening on \(http://[^ ]*\).*|\1|p' "$log" | head -1)"
  [ -n "$url" ] && break
  kill -0 $server 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "run.sh: the server did not start" >&2; exit 1; }
url="${url%/}"

echo "serve: $url, --engine $engine, a $minutes-minute upload, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
python3 Benchmarks/openai/first_delta.py --url "$url" --minutes "$minutes" --runs "$runs"
