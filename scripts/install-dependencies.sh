#!/usr/bin/env bash
# Installs the Debian packages transcribe needs to build, run and test. Idempotent: installs only
# what is missing, without prompts. Run as root (or with sudo available).
#
#   build:  pkg-config libpocketsphinx-dev libpulse-dev libsndfile1-dev libsamplerate0-dev
#   run:    pocketsphinx-en-us (the default English model)
#   tests:  pocketsphinx-testdata pocketsphinx (pocketsphinx_continuous, for comparison)
#           pulseaudio pulseaudio-utils (a private server with a virtual microphone)
#           sox espeak-ng (convert and synthesize test speech)
#           curl python3-pip, then pip: websockets (a vosk-style client for `transcribe serve`)
#           and openai (the REST endpoint's official client)
#           nginx (two `transcribe serve` instances behind a load balancer)
#           chromium chromium-driver, then pip: selenium (the live-captions page in a headless
#           browser)
set -euo pipefail

packages=(
  pkg-config libpocketsphinx-dev libpulse-dev libsndfile1-dev libsamplerate0-dev
  pocketsphinx-en-us
  pocketsphinx-testdata pocketsphinx pulseaudio pulseaudio-utils sox espeak-ng
  curl python3-pip nginx
  chromium chromium-driver
)

missing=()
for package in "${packages[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)"
  [ "$status" = "install ok installed" ] || missing+=("$package")
done

# Python modules the tests' real clients use (`transcribe serve` tests).
python_modules=(websockets openai selenium)

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

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-dependencies: all packages present" >&2
  install_python_modules
  exit 0
fi

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
install_python_modules
