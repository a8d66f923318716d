#!/usr/bin/env bash
# Builds the Debian packages (debian/, by debhelper) from a clean checkout of a commit, and
# copies them into the current directory (or --output DIR), printing their paths:
#
#   ./scripts/package-deb.sh [--commit REV] [--output DIR]
#   sudo apt install ./transcribe_*.deb            # English: Moonshine and pocketsphinx
#   sudo apt install ./transcribe-whisper_*.deb    # other languages: Whisper
#
# The build is `dpkg-buildpackage -b -us -uc` in a checkout of the commit (HEAD by default;
# uncommitted changes are left out, with a warning) kept in one fixed directory,
# TRANSCRIBE_DEB_BUILD_DIR (default /var/tmp/transcribe-deb): Swift writes source paths into the
# binary, so the same bytes need the same directory, and the checkout's .build stays between
# runs, so a second run only rebuilds what changed. This checkout's Package.resolved is copied
# in: the package gets the dependency versions the tests ran with. What comes from PyPI is
# taken from where `sudo ./scripts/install-dependencies.sh --whisper` installed it.
set -euo pipefail

usage() {
  echo "usage: $0 [--commit REV] [--output DIR]" >&2
  exit 64
}
commit_name=HEAD
output_dir="$PWD"
while [ $# -gt 0 ]; do
  case "$1" in
    --commit) [ $# -ge 2 ] || usage; commit_name="$2"; shift 2 ;;
    --output) [ $# -ge 2 ] || usage; output_dir="$2"; shift 2 ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="/opt/swift/usr/bin:${PATH:-/usr/bin:/bin}:/usr/sbin:/sbin"
say() { echo "package-deb: $*" >&2; }
fail() {
  say "$*"
  exit 1
}
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
# A clean checkout that borrows the repository's objects, so any commit of it can be checked out;
# checking out rewrites only the files that differ, and .build stays.
[ -d "$source_dir/.git" ] || git clone --quiet --shared --no-checkout "$repo" "$source_dir"
objects="$(cd "$repo" && cd "$(git rev-parse --git-common-dir)" && pwd)/objects"
echo "$objects" >"$source_dir/.git/objects/info/alternates"
git -C "$source_dir" -c advice.detachedHead=false checkout --quiet --force --detach "$commit"
git -C "$source_dir" clean --quiet -d --force -x --exclude=/.build
if [ -f "$repo/Package.resolved" ]; then
  cmp -s "$repo/Package.resolved" "$source_dir/Package.resolved" \
    || cp "$repo/Package.resolved" "$source_dir/Package.resolved"
fi

say "building at ${commit:0:12} with dpkg-buildpackage (the log is $build_dir/build.log)"
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
