#!/usr/bin/env bash
# Installs the Debian packages transcribe needs to build, run and test. Idempotent: installs only
# what is missing, without prompts. Run as root (or with sudo available).
#
#   build:  pkg-config libpocketsphinx-dev libpulse-dev libsndfile1-dev libsamplerate0-dev
#   run:    pocketsphinx-en-us (the default English model)
#   tests:  pocketsphinx-testdata pocketsphinx (pocketsphinx_continuous, for comparison)
#           pulseaudio pulseaudio-utils (a private server with a virtual microphone)
#           sox espeak-ng (convert and synthesize test speech)
#           curl python3-pip, and pip's openai (the REST endpoint's clients)
set -euo pipefail

packages=(
  pkg-config libpocketsphinx-dev libpulse-dev libsndfile1-dev libsamplerate0-dev
  pocketsphinx-en-us
  pocketsphinx-testdata pocketsphinx pulseaudio pulseaudio-utils sox espeak-ng
  curl python3-pip
)

missing=()
for package in "${packages[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)"
  [ "$status" = "install ok installed" ] || missing+=("$package")
done

# Python clients the server's tests drive (the official OpenAI SDK), installed once.
install_python_modules() {
  if ! python3 -c 'import openai' 2>/dev/null; then
    echo "install-dependencies: pip install openai" >&2
    python3 -m pip install --quiet --disable-pip-version-check openai >&2 \
      || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages \
        openai >&2
  fi
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
