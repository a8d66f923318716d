#!/usr/bin/env bash
# Hostile Wyoming clients (issue 26), run by hand: starts `transcribe serve --no-http --wyoming`,
# then opens COUNT connections (default 50) for each kind of bad input scripts/wyoming_client.py
# knows (bad JSON, a header, data or payload over its limit, audio before audio-start, an
# unknown model or language, unsupported audio, events out of order), twice, and prints the
# server's open file descriptors and resident memory before and after each round: flat when
# nothing leaks. One round of one connection each goes first, so what the server allocates once
# is in place before measuring.
#   Benchmarks/wyoming/abuse.sh [path/to/transcribe] [COUNT] [extra serve options…]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
binary="${1:-$here/../../.build/release/transcribe}"
count="${2:-50}"
shift 2 || shift $# || true
client="$here/../../scripts/wyoming_client.py"
log="$(mktemp)"
"$binary" serve --no-http --wyoming tcp://127.0.0.1:0 --engine pocketsphinx --max-sessions 4 \
  "$@" 2>"$log" &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 600); do
  grep -q "wyoming listening on" "$log" && break
  sleep 0.1
done
uri="$(sed -n 's/^transcribe: wyoming listening on //p' "$log" | head -1)"
[ -n "$uri" ] || { cat "$log" >&2; exit 1; }
resources() {
  local fds rss
  fds="$(ls /proc/$server/fd | wc -l)"
  rss="$(awk '/^VmRSS:/ {print $2}' /proc/$server/status)"
  echo "fds $fds, RSS $((rss / 1024)) MiB"
}
echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $uri"
timeout 120 python3 "$client" "$uri" abuse 1 >/dev/null
echo "after warm-up (1 each): $(resources)"
for round in 1 2; do
  start=$(date +%s.%N)
  answers="$(timeout 600 python3 "$client" "$uri" abuse "$count")"
  seconds=$(echo "$(date +%s.%N) - $start" | bc)
  echo "after round $round ($count each, $(printf %.1f "$seconds") s): $(resources)"
done
echo "answers of round 2 (each kind: the set of answers its $count connections got):"
echo "$answers"
