# Sourced by run.sh and decodes.sh: starts `transcribe serve` and stops it when the script exits.
#
#   source "$here/server.sh"
#   start_server run.sh "$binary" --port 0 --wyoming tcp://127.0.0.1:0 …   # sets server, log,
#                                                                           # url, wyoming
#
# `start_server NAME BINARY OPTIONS…` runs `BINARY serve OPTIONS…` (with whatever environment
# the caller exports) with its stderr in $log, waits until it prints its http address ($url) and,
# when OPTIONS have --wyoming, its Wyoming one ($wyoming), and names NAME in its errors.

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

start_server() {
  local name="$1" binary="$2"
  shift 2
  local wants_wyoming=""
  case " $* " in *" --wyoming "*) wants_wyoming=1 ;; esac
  "$binary" serve "$@" 2>"$log" &
  server=$!
  url="" wyoming=""
  for _ in $(seq 1800); do   # up to 3 minutes: a debug build loads the model slowly
    url="$(sed -n 's|.*listening on \(http://[^ ]*\).*|\1|p' "$log" | head -1)"
    wyoming="$(sed -n 's|^transcribe: wyoming listening on \([^ ]*\).*|\1|p' "$log" | head -1)"
    [ -n "$url" ] && { [ -z "$wants_wyoming" ] || [ -n "$wyoming" ]; } && return 0
    kill -0 "$server" 2>/dev/null || { cat "$log" >&2; echo "$name: the server exited" >&2; exit 1; }
    sleep 0.1
  done
  cat "$log" >&2
  echo "$name: the server did not print its addresses" >&2
  exit 1
}
