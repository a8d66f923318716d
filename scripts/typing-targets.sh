#!/usr/bin/env bash
# Headless windows to type into, for the typing tests: a window that records every byte it
# receives into a file, on a private X server or a private Wayland compositor.
#
#   typing-targets.sh x11 DIR OWNER_PID      Xvfb on a free display (-displayfd), an xterm running
#                                            `stty raw -echo; cat > DIR/typed`, focused.
#   typing-targets.sh wayland DIR OWNER_PID  headless sway with a foot window running the same.
#                                            sway refuses to run as root, so as root it runs as
#                                            the system user transcribe-typist (made if missing)
#                                            with DIR/runtime as its XDG_RUNTIME_DIR.
#   typing-targets.sh no-virtual-keyboard DIR OWNER_PID
#                                            a stand-in Wayland compositor that offers no
#                                            virtual-keyboard protocol (as GNOME and KDE), from
#                                            scripts/wayland_without_virtual_keyboard.py.
#   typing-targets.sh window DIR             (x11) a second recording window, DIR/typed2, focused.
#   typing-targets.sh kill-window DIR        (x11) closes the recording window.
#   typing-targets.sh stop DIR               stops everything started for DIR.
#
# Each start prints the environment a typer needs, one VAR=value a line (DISPLAY=:N, or
# WAYLAND_DISPLAY=/absolute/socket), then TYPED=file. Raw mode makes each byte arrive as it is
# typed (Return as \r, BackSpace as \x7f), without waiting for a line.
#
# What it starts is stopped by `stop`, and also by a watchdog when OWNER_PID (the test process)
# ends, so a test that crashes leaves no Xvfb or sway behind.
set -euo pipefail

# Start over in a clean state, once: Foundation's Process starts children with the calling
# thread's signal mask, in which nearly every signal is blocked (so the servers started here
# would never see SIGTERM), and with one end of a socket pair open whose closing it takes for the
# child's exit (so a test would wait for the servers here to end). Unblock every signal and
# close every descriptor beyond stdin, stdout and stderr.
if [ -z "${TYPING_TARGETS_CLEAN:-}" ]; then
  export TYPING_TARGETS_CLEAN=1
  exec python3 -c '
import os, signal, sys
signal.pthread_sigmask(signal.SIG_SETMASK, [])
os.closerange(3, os.sysconf("SC_OPEN_MAX"))
os.execvp(sys.argv[1], sys.argv[1:])
' bash "$0" "$@"
fi

command="${1:?usage: typing-targets.sh x11|wayland|no-virtual-keyboard|window|kill-window|stop DIR [OWNER_PID]}"
dir="${2:?a state directory}"
owner="${3:-}"
user=transcribe-typist

log() { echo "typing-targets: $*" >&2; }

# Waits up to $1 seconds for the command after it to succeed.
wait_for() {
  local seconds="$1"
  shift
  local deadline=$((SECONDS + seconds))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.05
  done
}

# Whether process $1 still runs (a zombie does not: this container's init may never reap it).
alive() {
  local state
  state="$(ps -o stat= -p "$1" 2>/dev/null)" || return 1
  [ -n "$state" ] && [ "${state#Z}" = "$state" ]
}

stop() {
  local pidfile pid
  for pidfile in "$dir"/*.pid; do
    [ -f "$pidfile" ] || continue
    pid="$(cat "$pidfile")"
    # The watchdog is not killed: it is the one that may be running this.
    [ "$(basename "$pidfile")" = watchdog.pid ] && continue
    kill "$pid" 2>/dev/null || true
  done
  for pidfile in "$dir"/*.pid; do
    [ -f "$pidfile" ] || continue
    pid="$(cat "$pidfile")"
    [ "$(basename "$pidfile")" = watchdog.pid ] && continue
    wait_for 3 eval "! alive $pid" || kill -9 "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  done
  if [ -f "$dir/watchdog.pid" ]; then
    pid="$(cat "$dir/watchdog.pid")"
    rm -f "$dir/watchdog.pid"
    [ "$pid" != "$$" ] && kill "$pid" 2>/dev/null || true
  fi
  rm -rf "$dir/runtime"
}

# Stops everything once the owner (the test process) is gone.
start_watchdog() {
  [ -n "$owner" ] || return 0
  (
    trap '' HUP
    while kill -0 "$owner" 2>/dev/null && [ -d "$dir" ]; do sleep 1; done
    "$0" stop "$dir" >/dev/null 2>&1 || true
  ) </dev/null >/dev/null 2>&1 &
  echo $! >"$dir/watchdog.pid"
}

# The focused window's id, once xdotool can see a window of process $1.
x11_window_of() {
  local pid="$1" window=""
  wait_for 30 sh -c "xdotool search --pid $pid >/dev/null 2>&1" || return 1
  window="$(xdotool search --pid "$pid" | head -n 1)"
  echo "$window"
}

# Starts an xterm recording into $1, focuses it, and waits until the file exists.
x11_recorder() {
  local file="$1" name="$2" window
  rm -f "$file"
  xterm -e sh -c "stty raw -echo; exec cat > '$file'" </dev/null >"$dir/$name.log" 2>&1 &
  echo $! >"$dir/$name.pid"
  window="$(x11_window_of "$(cat "$dir/$name.pid")")" || {
    # xterm can exit at once when the X server is busy accepting it; one more try, then say
    # what xterm said.
    if ! alive "$(cat "$dir/$name.pid")"; then
      xterm -e sh -c "stty raw -echo; exec cat > '$file'" </dev/null >"$dir/$name.log" 2>&1 &
      echo $! >"$dir/$name.pid"
      window="$(x11_window_of "$(cat "$dir/$name.pid")")"
    fi
    [ -n "$window" ] || {
      log "no xterm window appeared: $(tr '\n' ' ' <"$dir/$name.log" 2>/dev/null)"
      return 1
    }
  }
  echo "$window" >"$dir/$name.window"
  # Focusing fails (BadMatch) until the window is mapped.
  wait_for 20 sh -c "xdotool windowfocus --sync $window 2>/dev/null" || {
    log "could not focus the xterm window"
    return 1
  }
  wait_for 20 test -e "$file" || {
    log "xterm did not start cat"
    return 1
  }
}

start_x11() {
  mkdir -p "$dir"
  start_watchdog
  local displayfile="$dir/display"
  rm -f "$displayfile"
  # -displayfd: Xvfb picks a free display number itself and writes it there.
  exec 9>"$displayfile"
  Xvfb -displayfd 9 -screen 0 1024x768x24 -nolisten tcp </dev/null >"$dir/xvfb.log" 2>&1 &
  echo $! >"$dir/xvfb.pid"
  exec 9>&-
  wait_for 20 test -s "$displayfile" || {
    log "Xvfb did not start: $(cat "$dir/xvfb.log")"
    return 1
  }
  export DISPLAY=":$(head -n 1 "$displayfile")"
  x11_recorder "$dir/typed" xterm
  echo "DISPLAY=$DISPLAY"
  echo "TYPED=$dir/typed"
}

second_window() {
  export DISPLAY=":$(head -n 1 "$dir/display")"
  x11_recorder "$dir/typed2" xterm2
  echo "TYPED=$dir/typed2"
}

kill_window() {
  local pid
  pid="$(cat "$dir/xterm.pid")"
  kill "$pid"
  wait_for 5 eval "! alive $pid"
  rm -f "$dir/xterm.pid"
}

start_wayland() {
  mkdir -p "$dir"
  chmod 755 "$dir"
  start_watchdog
  local runtime="$dir/runtime" run_as=()
  rm -rf "$runtime"
  mkdir -m 700 "$runtime"
  if [ "$(id -u)" = 0 ]; then
    id "$user" >/dev/null 2>&1 \
      || useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
        "$user"
    chown "$user" "$runtime"
    run_as=(runuser -u "$user" --)
    "${run_as[@]}" test -x "$runtime" || {
      log "$user cannot reach $runtime: make the directories above it searchable (chmod 755)"
      return 1
    }
  fi
  local typed="$runtime/typed"
  cat >"$runtime/sway.conf" <<EOF
exec foot -e sh -c "stty raw -echo; exec cat > '$typed'"
EOF
  chmod 644 "$runtime/sway.conf"
  (
    cd "$runtime"
    exec "${run_as[@]}" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$runtime" \
      XDG_RUNTIME_DIR="$runtime" WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 \
      WLR_RENDERER=pixman sway -c "$runtime/sway.conf"
  ) </dev/null >"$dir/sway.log" 2>&1 &
  echo $! >"$dir/sway.pid"
  wait_for 30 test -S "$runtime/wayland-1" || {
    log "sway did not start: $(tail -n 5 "$dir/sway.log")"
    return 1
  }
  wait_for 30 test -e "$typed" || {
    log "foot did not start cat: $(tail -n 5 "$dir/sway.log")"
    return 1
  }
  # The foot window has the keyboard focus (sway's tree says so).
  local socket
  wait_for 30 sh -c "ls '$runtime'/sway-ipc.*.sock >/dev/null 2>&1"
  socket="$(ls "$runtime"/sway-ipc.*.sock | head -n 1)"
  wait_for 30 sh -c "swaymsg -s '$socket' -t get_tree 2>/dev/null | python3 -c '
import json, sys
def walk(node):
    yield node
    for child in node.get(\"nodes\", []) + node.get(\"floating_nodes\", []):
        yield from walk(child)
sys.exit(0 if any(n.get(\"app_id\") == \"foot\" and n.get(\"focused\")
                  for n in walk(json.load(sys.stdin))) else 1)
'" || {
    log "the foot window never had the focus"
    return 1
  }
  echo "WAYLAND_DISPLAY=$runtime/wayland-1"
  echo "TYPED=$typed"
}

start_without_virtual_keyboard() {
  mkdir -p "$dir"
  start_watchdog
  local socket="$dir/wayland-no-vk"
  python3 "$(dirname "$0")/wayland_without_virtual_keyboard.py" "$socket" \
    </dev/null >"$dir/no-vk.log" 2>&1 &
  echo $! >"$dir/no-vk.pid"
  wait_for 20 test -S "$socket" || {
    log "the stand-in compositor did not start: $(cat "$dir/no-vk.log")"
    return 1
  }
  echo "WAYLAND_DISPLAY=$socket"
  echo "TYPED=$dir/nothing-typed-here"
}

case "$command" in
  x11) start_x11 ;;
  no-virtual-keyboard) start_without_virtual_keyboard ;;
  wayland) start_wayland ;;
  window) second_window ;;
  kill-window) kill_window ;;
  stop) stop ;;
  *)
    log "unknown command $command"
    exit 2
    ;;
esac
