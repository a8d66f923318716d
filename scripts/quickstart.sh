#!/usr/bin/env bash
# Installs what transcribe needs, builds it, and transcribes something real:
#   - the default microphone for 10 seconds, when a PulseAudio capture source is reachable;
#   - otherwise the sample recordings that come with pocketsphinx-testdata (installed below).
# Extra arguments go to transcribe (e.g. --format json). With $TRANSCRIBE naming a transcribe
# built already, the install and the build are skipped (the README's quick start is checked
# against what this prints that way).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:${PATH:-/usr/bin:/bin}:/usr/local/sbin:/usr/sbin:/sbin"

if [ -n "${TRANSCRIBE:-}" ]; then
  transcribe="$TRANSCRIBE"
else
  ./scripts/install-dependencies.sh
  echo "quickstart: building transcribe (the first build takes a few minutes)" >&2
  swift build --product transcribe >&2
  transcribe="$(swift build --show-bin-path)/transcribe"
fi

samples=/usr/share/pocketsphinx/test/data
if command -v pactl >/dev/null 2>&1 && timeout 3 pactl info >/dev/null 2>&1 \
  && [ -n "$(timeout 3 pactl list short sources 2>/dev/null | grep -v '\.monitor' || true)" ]; then
  echo "quickstart: listening to the default microphone for 10 seconds; say something" >&2
  exec "$transcribe" --duration 10 "$@"
fi

echo "quickstart: no microphone found; transcribing the sample recordings instead" >&2
exec "$transcribe" \
  --input "$samples/librivox/sense_and_sensibility_01_austen_64kb-0880.wav" \
  --input "$samples/librivox/sense_and_sensibility_01_austen_64kb-0930.wav" \
  --input "$samples/goforward.raw" "$@"
