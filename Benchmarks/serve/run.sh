#!/usr/bin/env bash
# Load benchmark for `transcribe serve`: builds a release binary, starts the server with the real
# model, and runs Benchmarks/serve/load.py against it for each number of concurrent clients.
#
#   Benchmarks/serve/run.sh                 # clients 1 2 4 6, --max-sessions 4
#   MAX_SESSIONS=6 Benchmarks/serve/run.sh 1 2 4 6 8
#   ENGINE=moonshine Benchmarks/serve/run.sh 1 2 3 4   # the server's engine (default pocketsphinx)
#
# Prints a Markdown table (see Benchmarks/serve/README.md for how to read it). Needs python3 with
# `websockets` (scripts/install-dependencies.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"

levels=("$@")
[ ${#levels[@]} -gt 0 ] || levels=(1 2 4 6)
max_sessions="${MAX_SESSIONS:-4}"
engine="${ENGINE:-pocketsphinx}"

swift build -c release --product transcribe >&2
transcribe="$(swift build -c release --show-bin-path)/transcribe"

log="$(mktemp)"
"$transcribe" serve --engine "$engine" --port 0 --max-sessions "$max_sessions" 2>"$log" &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -f "$log"' EXIT

url=""
for _ in $(seq 600); do
  url="$(sed -n 's|.*listening on http://\([^ ]*\).*|ws://\1/|p' "$log" | head -1)"
  [ -n "$url" ] && break
  kill -0 $server 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "run.sh: the server did not start" >&2; exit 1; }

echo "serve: $url, --engine $engine, --max-sessions $max_sessions, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
python3 Benchmarks/serve/load.py --url "$url" --pid "$server" --clients "${levels[@]}"
