#!/usr/bin/env bash
# Measures the typing tools the way `transcribe dictate` drives them, into headless windows
# (scripts/typing-targets.sh): how long 300 characters take, and how often wtype loses the
# first characters after uploading its keymap, with and without the pause the typer puts first.
#
#   Benchmarks/dictation/typing.sh [RUNS]     RUNS back-to-back wtype calls per setting (100)
#
# Run by hand (about a minute); it is no test. Needs what scripts/install-dependencies.sh
# installs for the typing tests.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-100}"
targets=scripts/typing-targets.sh
work="$(mktemp -d /tmp/typing-benchmark.XXXXXX)"
chmod 755 "$work" # sway runs as another user when this runs as root
trap '"$targets" stop "$work/x11" >/dev/null 2>&1 || true
      "$targets" stop "$work/wayland" >/dev/null 2>&1 || true
      rm -rf "$work"' EXIT

text="$(python3 -c "print(('The quick brown fox jumps over the lazy dog, again and again. ' * 5)[:300])")"

# Seconds a command takes, to the millisecond.
seconds() {
  local start end
  start="$(date +%s.%N)"
  "$@"
  end="$(date +%s.%N)"
  python3 -c "print(f'{$end - $start:.3f}')"
}

# Waits until file $1 holds at least $2 bytes (10 s at most); says whether it got them.
arrived() {
  local deadline=$((SECONDS + 10))
  while [ "$(stat -c %s "$1")" -lt "$2" ]; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.05
  done
}

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "xdotool $(dpkg-query -W -f='${Version}' xdotool), wtype $(dpkg-query -W -f='${Version}' wtype), sway $(dpkg-query -W -f='${Version}' sway), Xvfb $(dpkg-query -W -f='${Version}' xvfb)"

env="$("$targets" x11 "$work/x11" $$)"
eval "$(sed 's/^/export /' <<<"$env")"
typed_x11="$TYPED"
for delay in 12 1 0; do
  before="$(stat -c %s "$typed_x11")"
  took="$(seconds xdotool type --delay "$delay" --args 1 -- "$text")"
  arrived "$typed_x11" $((before + 300)) && whole=yes || whole=no
  echo "xdotool --delay $delay: 300 characters in $took s (all arrived: $whole)"
done
unset DISPLAY

env="$("$targets" wayland "$work/wayland" $$)"
eval "$(sed 's/^/export /' <<<"$env")"
before="$(stat -c %s "$TYPED")"
took="$(seconds wtype -s 50 "$text")"
arrived "$TYPED" $((before + 300)) && whole=yes || whole=no
echo "wtype -s 50: 300 characters in $took s (all arrived: $whole)"

# RUNS back-to-back calls typing "w<n>é " each; a run counts when its word arrived whole.
first_characters() {
  local start got ok=0 i
  start="$(stat -c %s "$TYPED")"
  for i in $(seq 1000 $((999 + runs))); do wtype "$@" "w${i}é "; done
  arrived "$TYPED" $((start + runs * 7)) || true
  got="$(tail -c +$((start + 1)) "$TYPED")"
  for i in $(seq 1000 $((999 + runs))); do
    [[ "$got" == *"w${i}é "* ]] && ok=$((ok + 1))
  done
  echo "wtype $*: $ok of $runs calls arrived whole (load $(cut -d' ' -f1 /proc/loadavg))"
}
first_characters
first_characters -s 10
first_characters -s 50
