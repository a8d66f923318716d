#!/usr/bin/env bash
# Installs the Debian packages transcribe needs to build, run and test. Idempotent: installs only
# what is missing, without prompts. Run as root (or with sudo available).
#
#   build:  pkg-config libpocketsphinx-dev libpulse-dev libsndfile1-dev libsamplerate0-dev
#   run:    pocketsphinx-en-us (the default English model)
#   tests:  pocketsphinx-testdata pocketsphinx (pocketsphinx_continuous, for comparison)
#           pulseaudio pulseaudio-utils (a private server with a virtual microphone)
#           sox espeak-ng (convert and synthesize test speech)
#           chromium chromium-driver (the live-captions page in a headless browser)
#   pip:    selenium (drives that browser)
set -euo pipefail

packages=(
  pkg-config libpocketsphinx-dev libpulse-dev libsndfile1-dev libsamplerate0-dev
  pocketsphinx-en-us
  pocketsphinx-testdata pocketsphinx pulseaudio pulseaudio-utils sox espeak-ng
  chromium chromium-driver
)

# Python packages the tests drive real clients with, installed when missing.
python_packages=(selenium)
install_python_packages() {
  command -v python3 >/dev/null 2>&1 || {
    echo "install-dependencies: python3 is needed for: ${python_packages[*]}" >&2
    exit 1
  }
  local package
  for package in "${python_packages[@]}"; do
    python3 -c "import $package" 2>/dev/null && continue
    echo "install-dependencies: pip install $package" >&2
    # Debian's own python3 refuses plain pip installs (PEP 668); a pyenv or venv python does not.
    python3 -m pip install -q "$package" </dev/null >&2 \
      || python3 -m pip install -q --break-system-packages "$package" </dev/null >&2
  done
}

missing=()
for package in "${packages[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)"
  [ "$status" = "install ok installed" ] || missing+=("$package")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-dependencies: all packages present" >&2
  install_python_packages
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
install_python_packages
