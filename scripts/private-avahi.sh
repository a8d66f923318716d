#!/usr/bin/env bash
# Runs a private D-Bus system bus and an Avahi daemon on it (as root), for checking zeroconf
# announcements without touching the machine's own bus or network: clients reach them with the
# DBUS_SYSTEM_BUS_ADDRESS this prints, and the daemon speaks mDNS on the loopback interface
# only, where it publishes the host's address too (without it `avahi-browse -r` waits forever
# to resolve a service). Stops both on SIGTERM or SIGINT, or with --until-eof once its standard
# input ends (for a caller whose children start with SIGTERM blocked, as the Swift tests'
# processes do: they inherit the signal mask of the thread that spawned them); their pids are in DIR/bus.pid and DIR/avahi.pid, for a caller
# that must make sure (ServeZeroconfAvahiTests). For example:
#   scripts/private-avahi.sh /tmp/avahi &
#   DBUS_SYSTEM_BUS_ADDRESS=unix:path=/tmp/avahi/bus transcribe serve --preview --no-http \
#     --wyoming tcp://0.0.0.0:10300 --zeroconf &
#   DBUS_SYSTEM_BUS_ADDRESS=unix:path=/tmp/avahi/bus avahi-browse -rpt _wyoming._tcp
#
#   scripts/private-avahi.sh DIR [--until-eof]
#     prints "private-avahi: ready DBUS_SYSTEM_BUS_ADDRESS=unix:path=DIR/bus" once Avahi runs
#
# Needs dbus-daemon and avahi-daemon (apt-get install dbus avahi-daemon); Avahi's pid file is
# /run/avahi-daemon/pid, so no other Avahi daemon may run.
set -euo pipefail
dir="${1:?usage: private-avahi.sh DIR [--until-eof]}"
until_eof="${2:-}"
mkdir -p "$dir"
cat >"$dir/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$dir/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
CONF
cat >"$dir/avahi.conf" <<CONF
[server]
use-ipv4=yes
use-ipv6=no
allow-interfaces=lo
enable-dbus=yes
[publish]
publish-addresses=yes
publish-hinfo=no
publish-workstation=no
CONF
address="unix:path=$dir/bus"
bus_pid="$(dbus-daemon --config-file="$dir/bus.conf" --fork --print-pid </dev/null)"
echo "$bus_pid" >"$dir/bus.pid"
avahi_pid=""
sleeper=""
stop() {
  if [ -n "$avahi_pid" ]; then
    kill "$avahi_pid" 2>/dev/null || true
    # Reaped here (within 5 s, else killed), not left to an init that may not reap it.
    for _ in $(seq 50); do kill -0 "$avahi_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$avahi_pid" 2>/dev/null || true
    wait "$avahi_pid" 2>/dev/null || true
  fi
  [ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null || true
  # A bus of type "system" ignores SIGTERM.
  kill -KILL "$bus_pid" 2>/dev/null || true
}
trap stop EXIT
trap 'exit 0' TERM INT
DBUS_SYSTEM_BUS_ADDRESS="$address" avahi-daemon -f "$dir/avahi.conf" --no-chroot \
  --no-drop-root --no-rlimits </dev/null >"$dir/avahi.log" 2>&1 &
avahi_pid=$!
echo "$avahi_pid" >"$dir/avahi.pid"
# Ready once the daemon says so in its log.
for _ in $(seq 100); do
  grep -q "Server startup complete" "$dir/avahi.log" 2>/dev/null && break
  kill -0 "$avahi_pid" 2>/dev/null || { cat "$dir/avahi.log" >&2; exit 1; }
  sleep 0.1
done
grep -q "Server startup complete" "$dir/avahi.log" || { cat "$dir/avahi.log" >&2; exit 1; }
echo "private-avahi: ready DBUS_SYSTEM_BUS_ADDRESS=$address"
# Until told to stop.
if [ "$until_eof" = "--until-eof" ]; then
  cat >/dev/null || true
  exit 0
fi
sleep infinity </dev/null >/dev/null 2>&1 &
sleeper=$!
wait "$sleeper"
