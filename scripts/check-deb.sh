#!/usr/bin/env bash
# Builds the Debian packages (scripts/package-deb.sh: transcribe and transcribe-whisper) and
# proves they work on their own, on this machine, as root. It installs the packages and removes
# them again, so run it where that is fine (CI, a scratch machine) and where transcribe is not
# installed from a package already:
#   1. lintian --pedantic reports no error and no warning (its informational tags are printed);
#   2. a second build gives the same bytes (skip with --no-rebuild);
#   3. `apt-get install ./transcribe_*.deb`, then /usr/bin/transcribe -i on
#      pocketsphinx-testdata's clip in a mount namespace where this checkout, the build
#      directory, /usr/local/share/transcribe, /usr/local/lib/transcribe and the Swift
#      toolchain are empty directories, with a scratch $HOME: the words come out, Moonshine and
#      Silero VAD are named on stderr, and ONNX Runtime is the package's; German asks for the
#      transcribe-whisper package, and once that is installed too, Whisper hears espeak-ng's
#      German with the library and model of that package;
#   4. `man -l` renders both pages, bash completes, systemd-analyze verify passes both units,
#      neither unit is enabled, and the serve unit's command line serves with the token file
#      the package made;
#   5. `dpkg -r` leaves only configuration (the token, links of a unit enabled after the
#      install), `dpkg --purge` leaves nothing: the system's directories, outside dpkg's own
#      records, are as they were before the install.
# It prints the packages' sizes and how long the install took to the first transcript.
#
#   sudo ./scripts/check-deb.sh [--deb FILE] [--no-rebuild]
# (--deb names transcribe's package; transcribe-whisper's is taken from beside it.)
set -euo pipefail

deb=""
rebuild=1
while [ $# -gt 0 ]; do
  case "$1" in
    --deb) [ $# -ge 2 ] || { echo "usage: $0 [--deb FILE] [--no-rebuild]" >&2; exit 64; }
      deb="$(realpath "$2")"; shift 2 ;;
    --no-rebuild) rebuild=0; shift ;;
    *) echo "usage: $0 [--deb FILE] [--no-rebuild]" >&2; exit 64 ;;
  esac
done

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="/opt/swift/usr/bin:${PATH:-/usr/bin:/bin}:/usr/sbin:/sbin"
export LC_ALL=C.UTF-8
build_dir="${TRANSCRIBE_DEB_BUILD_DIR:-/var/tmp/transcribe-deb}"
sample=/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav
expected="He was not an ill-disposed young man"

say() { echo "check-deb: $*" >&2; }
fail() {
  say "FAILED: $*"
  exit 1
}

[ "$(id -u)" = 0 ] || fail "run as root (it installs and removes the package): sudo $0"
for tool in lintian unshare script man systemd-analyze apt-get curl espeak-ng sox; do
  command -v "$tool" >/dev/null 2>&1 \
    || fail "$tool is missing: apt-get install lintian util-linux bsdutils man-db systemd curl espeak-ng sox"
done
[ -f "$sample" ] || fail "$sample is missing: apt-get install pocketsphinx-testdata"
for package in transcribe transcribe-whisper; do
  if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q installed; then
    fail "$package is installed from a package already: dpkg --purge transcribe-whisper transcribe first"
  fi
done

scratch="$(mktemp -d)"
server_pid=""
installed=0
# A failed check leaves the machine as it found it too: the package purged.
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  if [ "$installed" = 1 ]; then
    dpkg --purge transcribe-whisper transcribe >/dev/null 2>&1 || true
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT

# 1. The packages, and lintian.
if [ -z "$deb" ]; then
  say "building the packages"
  start=$SECONDS
  "$repo/scripts/package-deb.sh" --output "$scratch/first" >/dev/null
  deb="$(echo "$scratch"/first/transcribe_*.deb)"
  say "built in $((SECONDS - start)) s"
fi
[ -f "$deb" ] || fail "no package at $deb"
whisper_deb="$(dirname "$deb")/$(basename "$deb" | sed 's/^transcribe_/transcribe-whisper_/')"
[ -f "$whisper_deb" ] || fail "no transcribe-whisper package beside $deb"
say "lintian --pedantic --display-info $deb $whisper_deb"
lintian --fail-on error,warning --pedantic --display-info "$deb" "$whisper_deb" >"$scratch/lintian" 2>&1 || {
  cat "$scratch/lintian" >&2
  fail "lintian reports errors or warnings (above)"
}
grep -v -e ' spelling-error-in-binary ' -e '^running with root' "$scratch/lintian" | sed 's/^/  /' >&2 || true

# 2. The same inputs give the same bytes.
if [ "$rebuild" = 1 ]; then
  say "building them again: the bytes must be the same"
  "$repo/scripts/package-deb.sh" --output "$scratch/second" >/dev/null
  for package in "$deb" "$whisper_deb"; do
    cmp "$package" "$scratch/second/$(basename "$package")" \
      || fail "a second build of the same commit differs from the first: $(basename "$package")"
    say "the second build of $(basename "$package") is byte for byte the first ($(sha256sum "$package" | cut -c1-16)…)"
  done
fi

# Every file where a package and its maintainer scripts write (the system's directories, not
# the home directories or temporary ones, which other programs on a shared machine change
# meanwhile), without dpkg's own records, apt's caches and the logs.
snapshot() {
  find /etc /usr /lib /lib64 /bin /sbin /opt /srv /var -xdev \( -path /var/tmp \
    -o -path /var/lib/dpkg -o -path /var/lib/apt -o -path /var/cache -o -path /var/log \
    -o -path "$repo" -o -path "$build_dir" \) -prune -o -print 2>/dev/null \
    | LC_ALL=C sort
}
snapshot >"$scratch/before"

# 3. Install, and transcribe with nothing but the package.
size="$(stat -c %s "$deb")"
say "installing $(basename "$deb") ($((size / 1000000)) MB)"
start_ns="$(date +%s%N)"
installed=1
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$deb" </dev/null >"$scratch/apt" 2>&1 || {
  cat "$scratch/apt" >&2
  fail "apt-get install $deb failed (above)"
}
installed_ns="$(date +%s%N)"

# Everything transcribe could find outside the package, hidden: each directory gets an empty
# one bound over it, in a mount namespace of its own.
hide=("$repo" "$build_dir" /usr/local/share/transcribe /usr/local/lib/transcribe /opt/swift)
empty="$scratch/empty"
home="$scratch/home"
mkdir -p "$empty" "$home"
isolated() {
  local binds="" directory
  for directory in "${hide[@]}"; do
    [ -d "$directory" ] && binds+="mount --bind '$empty' '$directory'; "
  done
  unshare --mount --propagation private sh -c "${binds}exec \"\$@\"" isolated \
    env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 "$@"
}
# On a terminal (script gives it one), the status line names the engine and the detector.
isolated script -qec "/usr/bin/transcribe -i $sample >$scratch/words" "$scratch/terminal" \
  >/dev/null </dev/null || {
  cat "$scratch/terminal" >&2
  fail "/usr/bin/transcribe -i $sample failed with only the package (above)"
}
first_ns="$(date +%s%N)"
say "words: $(cat "$scratch/words")"
grep -q "$expected" "$scratch/words" || fail "the words are not \"$expected\""
grep -q "with Moonshine and Silero VAD" "$scratch/terminal" \
  || fail "stderr does not name Moonshine and Silero VAD: $(tr -d '\r' <"$scratch/terminal")"
isolated sh -c "LD_DEBUG=files /usr/bin/transcribe -i $sample 2>&1 >/dev/null" \
  | grep -o 'file=[^ ]*libonnxruntime[^ ]*' | sort -u >"$scratch/runtime"
[ "$(cat "$scratch/runtime")" = "file=/usr/lib/transcribe/libonnxruntime.so.1" ] \
  || fail "ONNX Runtime came from elsewhere than the package: $(cat "$scratch/runtime")"
if isolated test -e /opt/swift/usr/bin/swift; then fail "the toolchain was not hidden"; fi
say "ldd /usr/bin/transcribe: $(ldd /usr/bin/transcribe | awk '{print $1}' | tr '\n' ' ')"
if ldd /usr/bin/transcribe | grep -E 'not found|libswift|libFoundation|/opt/swift'; then
  fail "/usr/bin/transcribe needs a library the package does not bring (above)"
fi
say "Depends: $(dpkg-query -W -f='${Depends}' transcribe)"

# A model the package brought, gone: the command names the package to reinstall, not the
# repository's installer.
status=0
hide+=(/usr/share/transcribe/moonshine)
isolated /usr/bin/transcribe --engine moonshine -i "$sample" >/dev/null 2>"$scratch/no-model" \
  || status=$?
unset 'hide[-1]'
if [ "$status" = 0 ] || ! grep -q "sudo apt install --reinstall transcribe" "$scratch/no-model" \
  || grep -q "install-dependencies" "$scratch/no-model"; then
  fail "Moonshine's model gone (exit $status), the command does not name its package: $(cat "$scratch/no-model")"
fi
say "Moonshine's model gone, exit $status: $(cat "$scratch/no-model")"

# Other languages: without transcribe-whisper the command asks for that package (not for the
# repository's installer); with it, Whisper hears espeak-ng's German with that package's
# library and model.
espeak-ng -v de -s 130 -w "$scratch/de-voice.wav" "Das Buch liegt auf dem Tisch."
sox "$scratch/de-voice.wav" -r 16000 -c 1 -b 16 "$scratch/de.wav" pad 0.5 0.5
status=0
isolated /usr/bin/transcribe --language de -i "$scratch/de.wav" >/dev/null \
  2>"$scratch/no-whisper" || status=$?
if [ "$status" = 0 ] || ! grep -q "sudo apt install transcribe-whisper" "$scratch/no-whisper" \
  || grep -q "install-dependencies" "$scratch/no-whisper"; then
  fail "German without transcribe-whisper (exit $status) does not ask for that package: $(cat "$scratch/no-whisper")"
fi
say "German without transcribe-whisper, exit $status: $(cat "$scratch/no-whisper")"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$whisper_deb" </dev/null >"$scratch/apt" 2>&1 || {
  cat "$scratch/apt" >&2
  fail "apt-get install $whisper_deb failed (above)"
}
isolated /usr/bin/transcribe --language de -i "$scratch/de.wav" >"$scratch/german" \
  2>"$scratch/german.log" || fail "German with transcribe-whisper failed: $(cat "$scratch/german.log")"
say "German: $(cat "$scratch/german")"
grep -qi "tisch" "$scratch/german" || fail "Whisper did not hear \"Tisch\" in espeak-ng's German"
isolated sh -c "LD_DEBUG=files /usr/bin/transcribe --language de -i $scratch/de.wav 2>&1 >/dev/null" \
  | grep -o 'file=[^ ]*libwhisper[^ ]*' | sort -u >"$scratch/whisper-runtime"
[ "$(cat "$scratch/whisper-runtime")" = "file=/usr/lib/transcribe/whisper/libwhisper.so.1" ] \
  || fail "whisper.cpp came from elsewhere than the package: $(cat "$scratch/whisper-runtime")"

# 4. Manual pages, completions, units.
for page in transcribe transcribe-serve transcribe-dictate; do
  file="/usr/share/man/man1/$page.1.gz"
  MANWIDTH=80 man --warnings -l "$file" >"$scratch/$page.txt" 2>"$scratch/$page.warnings" \
    || fail "man -l $file failed: $(cat "$scratch/$page.warnings")"
  [ ! -s "$scratch/$page.warnings" ] || fail "man -l $file warns: $(cat "$scratch/$page.warnings")"
  grep -q "SYNOPSIS" "$scratch/$page.txt" || fail "man -l $file shows no SYNOPSIS"
done
grep -q -- "--token-file" "$scratch/transcribe-serve.txt" \
  || fail "transcribe-serve(1) does not describe --token-file"
grep -q -- "--toggle" "$scratch/transcribe-dictate.txt" \
  || fail "transcribe-dictate(1) does not describe --toggle"
bash -c 'source /usr/share/bash-completion/completions/transcribe; complete -p transcribe' \
  >"$scratch/complete" || fail "the bash completion does not load"
grep -q -- "-F _transcribe transcribe$" "$scratch/complete" \
  || fail "bash does not complete transcribe: $(cat "$scratch/complete")"
# zsh and fish, when they are here (apt-get install zsh fish), find theirs by themselves; they
# run with a scratch $HOME, where fish writes its settings.
shell_home="$scratch/shell-home"
mkdir -p "$shell_home"
if command -v zsh >/dev/null 2>&1; then
  HOME="$shell_home" zsh -fc 'autoload -Uz compinit && compinit -u -D && (( $+_comps[transcribe] ))' \
    || fail "zsh finds no completion for transcribe in its fpath"
else
  say "zsh is not installed: its completion is not checked"
fi
if command -v fish >/dev/null 2>&1; then
  HOME="$shell_home" fish -c 'complete -C "transcribe serve --token-f"' | grep -q -- '^--token-file' \
    || fail "fish does not complete transcribe serve --token-file"
else
  say "fish is not installed: its completion is not checked"
fi
units=(/lib/systemd/system/transcribe-serve.service /lib/systemd/system/transcribe-wyoming.service)
systemd-analyze verify "${units[@]}" >"$scratch/verify" 2>&1 \
  || fail "systemd-analyze verify: $(cat "$scratch/verify")"
[ ! -s "$scratch/verify" ] || fail "systemd-analyze verify complains: $(cat "$scratch/verify")"
if find /etc/systemd/system -name 'transcribe-*' | grep -q .; then
  fail "a unit was enabled or masked at install: $(find /etc/systemd/system -name 'transcribe-*')"
fi
[ "$(stat -c '%a %U' /etc/transcribe/token)" = "600 root" ] \
  || fail "/etc/transcribe/token is not root's alone: $(stat -c '%a %U' /etc/transcribe/token)"
# The serve unit's command line, on a free port, with the token file as systemd hands it over.
exec_start="$(sed -n 's/^ExecStart=//p' "${units[0]}")"
read -r -a command <<<"${exec_start//%d/$scratch/credentials}"
mkdir -p "$scratch/credentials"
cp /etc/transcribe/token "$scratch/credentials/token"
for index in "${!command[@]}"; do
  [ "${command[$index]}" = 2700 ] && command[index]=0
done
"${command[@]}" 2>"$scratch/serve.log" &
server_pid=$!
port=""
for _ in $(seq 1 600); do
  port="$(sed -n 's#^transcribe: listening on http://127.0.0.1:\([0-9]*\)$#\1#p' "$scratch/serve.log")"
  [ -n "$port" ] && break
  kill -0 "$server_pid" 2>/dev/null || fail "the serve unit's command line exited: $(cat "$scratch/serve.log")"
  sleep 0.1
done
[ -n "$port" ] || fail "the serve unit's command line did not listen: $(cat "$scratch/serve.log")"
token="$(cat /etc/transcribe/token)"
without="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v1/models")"
with="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" \
  "http://127.0.0.1:$port/v1/models")"
[ "$without/$with" = "401/200" ] \
  || fail "GET /v1/models answered $without without the token and $with with it (want 401/200)"
kill "$server_pid"
wait "$server_pid" || true
server_pid=""
grep -q "$token" "$scratch/serve.log" && fail "the server logged the token"

# 5. Removal and purge, after enabling the serve unit as an administrator would (without a
# running systemd, systemctl enable only makes the links), so the purge has links to remove.
systemctl enable transcribe-serve.service >/dev/null 2>&1 \
  || fail "systemctl enable transcribe-serve.service failed"
find /etc/systemd/system -name transcribe-serve.service | grep -q . \
  || fail "enabling transcribe-serve made no link"
dpkg -r transcribe-whisper transcribe >"$scratch/remove" 2>&1 || fail "dpkg -r: $(cat "$scratch/remove")"
snapshot >"$scratch/removed"
# What a removal keeps is configuration: the token, the enable link and deb-systemd-helper's
# record of it. Nothing else is new, and nothing that was there is gone.
left="$(comm -13 "$scratch/before" "$scratch/removed" \
  | grep -v -E '^/etc/transcribe(/token)?$|^/etc/systemd/system/multi-user\.target\.wants/transcribe-serve\.service$|^/var/lib/systemd/deb-systemd-helper-enabled/(multi-user\.target\.wants/)?transcribe-(serve|wyoming)\.service(\.dsh-also)?$' \
  || true)"
[ -z "$left" ] || fail "dpkg -r left more than configuration: $left"
[ -f /etc/transcribe/token ] || fail "dpkg -r removed the token (configuration stays until a purge)"
[ -z "$(comm -23 "$scratch/before" "$scratch/removed")" ] \
  || fail "dpkg -r removed files it does not own: $(comm -23 "$scratch/before" "$scratch/removed")"
dpkg --purge transcribe-whisper transcribe >"$scratch/purge" 2>&1 || fail "dpkg --purge: $(cat "$scratch/purge")"
snapshot >"$scratch/purged"
diff "$scratch/before" "$scratch/purged" >&2 || fail "dpkg --purge left the file system changed (above)"

for package in "$deb" "$whisper_deb"; do
  say "package: $(basename "$package"), $(stat -c %s "$package") bytes, installed size" \
    "$(dpkg-deb -f "$package" Installed-Size) KiB"
done
say "apt-get install took $(((installed_ns - start_ns) / 1000000)) ms; the first transcript came" \
  "$(((first_ns - start_ns) / 1000000)) ms after the install began"
say "all checks passed"
