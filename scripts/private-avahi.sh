#!/usr/bin/env bash
# Runs a private D-Bus system bus and an Avahi daemon on it (as root), for checking zeroconf
# announcements by hand without touching the machine's own bus: clients reach them with the
# DBUS_SYSTEM_BUS_ADDRESS this prints. Stops both on SIGTERM or SIGINT. For example:
#   scripts/private-avahi.sh /tmp/avahi &
#   DBUS_SYSTEM_BUS_ADDRESS=unix:path=/tmp/avahi/bus transcribe serve --preview --no-http \
#     --wyoming tcp://0.0.0.0:10300 --zeroconf &
#   DBUS_SYSTEM_BUS_ADDRESS=unix:path=/tmp/avahi/bus avahi-browse -rpt _wyoming._tcp
#
#   scripts/private-avahi.sh DIR
#     prints "private-avahi: ready DBUS_SYSTEM_BUS_ADDRESS=unix:path=DIR/bus" once Avahi runs
#
# Needs dbus-daemon and avahi-daemon (apt-get install dbus avahi-daemon); Avahi's pid file is
# /run/avahi-daemon/pid, so no other Avahi daemon may run.
set -euo pipefail
dir="${1:?usage: private-avahi.sh DIR}"
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
enable-dbus=yes
[publish]
publish-addresses=no
publish-hinfo=no
publish-workstation=no
CONF
address="unix:path=$dir/bus"
bus_pid="$(dbus-daemon --config-file="$dir/bus.conf" --fork --print-pid)"
avahi_pid=""
stop() {
  [ -n "$avahi_pid" ] && kill "$avahi_pid" 2>/dev/null || true
  # A bus of type "system" ignores SIGTERM.
  kill -KILL "$bus_pid" 2>/dev/null || true
}
trap stop EXIT
trap 'exit 0' TERM INT
DBUS_SYSTEM_BUS_ADDRESS="$address" avahi-daemon -f "$dir/avahi.conf" --no-chroot \
  --no-drop-root --no-rlimits >"$dir/avahi.log" 2>&1 &
avahi_pid=$!
# Ready once the daemon says so in its log.
for _ in $(seq 100); do
  grep -q "Server startup complete" "$dir/avahi.log" 2>/dev/null && break
  kill -0 "$avahi_pid" 2>/dev/null || { cat "$dir/avahi.log" >&2; exit 1; }
  sleep 0.1
done
grep -q "Server startup complete" "$dir/avahi.log" || { cat "$dir/avahi.log" >&2; exit 1; }
echo "private-avahi: ready DBUS_SYSTEM_BUS_ADDRESS=$address"
# Until told to stop.
sleep infinity &
wait $!
