#!/usr/bin/env bash
# Builds the Debian packages of a commit (HEAD unless --commit REV; uncommitted changes are left
# out) with `dpkg-buildpackage -b -us -uc` in a clean checkout, and copies transcribe_*.deb and
# transcribe-whisper_*.deb into the current directory (or --output DIR), printing their paths.
# The checkout stays in one directory, TRANSCRIBE_DEB_BUILD_DIR (default /var/tmp/transcribe-deb):
# Swift writes source paths into the binary, and its .build makes the next run incremental.
# This checkout's Package.resolved goes in: the versions the tests ran with.
set -euo pipefail
usage() { echo "usage: $0 [--commit REV] [--output DIR]" >&2; exit 64; }
say() { echo "package-deb: $*" >&2; }
fail() { say "$*"; exit 1; }
commit_name=HEAD
output_dir="$PWD"
while [ $# -gt 0 ]; do
  case "$1" in
    --commit) [ $# -ge 2 ] || usage; commit_name="$2"; shift 2 ;;
    --output) [ $# -ge 2 ] || usage; output_dir="$2"; shift 2 ;;
    -h | --help) sed -n '2,7p' "$0" | sed 's/^# //'; exit 0 ;;
    *) usage ;;
  esac
done
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="/opt/swift/usr/bin:${PATH:-/usr/bin:/bin}:/usr/sbin:/sbin"
for tool in git dpkg-buildpackage dh; do
  command -v "$tool" >/dev/null 2>&1 \
    || fail "$tool is missing: run sudo ./scripts/install-dependencies.sh (it installs dpkg-dev, debhelper and git)"
done
commit="$(git -C "$repo" rev-parse --verify "$commit_name^{commit}")" \
  || fail "$commit_name is not a commit of $repo: name one with --commit"
if [ "$commit_name" = HEAD ] && [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
  say "warning: uncommitted changes are left out: the package is built from $commit"
fi

build_dir="${TRANSCRIBE_DEB_BUILD_DIR:-/var/tmp/transcribe-deb}"
source_dir="$build_dir/source"
mkdir -p "$build_dir"
# The clone borrows the repository's objects; a checkout rewrites only what differs.
[ -d "$source_dir/.git" ] || git clone --quiet --shared --no-checkout "$repo" "$source_dir"
(cd "$repo" && cd "$(git rev-parse --git-common-dir)" && pwd -P | sed 's#$#/objects#') \
  >"$source_dir/.git/objects/info/alternates"
git -C "$source_dir" -c advice.detachedHead=false checkout --quiet --force --detach "$commit"
git -C "$source_dir" clean --quiet -d --force -x --exclude=/.build
[ ! -f "$repo/Package.resolved" ] || cmp -s "$repo/Package.resolved" "$source_dir/Package.resolved" \
  || cp "$repo/Package.resolved" "$source_dir/Package.resolved"

say "building ${commit:0:12} with dpkg-buildpackage (the log is $build_dir/build.log)"
rm -f "$build_dir"/*.deb "$build_dir"/*.buildinfo "$build_dir"/*.changes
(cd "$source_dir" && dpkg-buildpackage -b -us -uc) >"$build_dir/build.log" 2>&1 || {
  grep -v '^\[' "$build_dir/build.log" | tail -n 30 >&2
  fail "dpkg-buildpackage failed (above; the whole log is $build_dir/build.log)"
}
mkdir -p "$output_dir"
for deb in "$build_dir"/*.deb; do
  cp "$deb" "$output_dir/"
  say "built $output_dir/${deb##*/} ($(du -h "$deb" | cut -f1))"
  echo "$output_dir/${deb##*/}"
done
