#!/usr/bin/env bash
# The captions page's numbers (README.md here): starts `transcribe serve` with the real model
# and runs page_numbers.py against it in headless Chromium.
#
#   Benchmarks/page/run.sh                       # the debug build, pocketsphinx
#   BUILD=release ENGINE=moonshine RUNS=5 Benchmarks/page/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"

build="${BUILD:-debug}"
engine="${ENGINE:-pocketsphinx}"
runs="${RUNS:-3}"

swift build -c "$build" --product transcribe >&2
transcribe="$(swift build -c "$build" --show-bin-path)/transcribe"

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
# Ready once the model is loaded.
for _ in $(seq 600); do
  curl -fs "${url%/}/readyz" >/dev/null && break
  sleep 0.1
done

echo "serve ($build build, $(git rev-parse --short HEAD)): $url, --engine $engine, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC'), $(chromium --version 2>/dev/null)"
python3 Benchmarks/page/page_numbers.py --url "${url%/}" --runs "$runs"
