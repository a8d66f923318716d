#!/usr/bin/env bash
# Hotwords, by hand: names right in espeak-ng commands with and without hotwords, then read
# speech's WER with unrelated hotwords and the decoder's time with 500 (see README.md).
#
#   Benchmarks/hotwords/run.sh [TRANSCRIBE]      default: .build/debug/transcribe
#
# Needs espeak-ng, sox, pocketsphinx-testdata and the Moonshine model
# (scripts/install-dependencies.sh), and a debug build with its tests (swift build --build-tests).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
transcribe="${1:-.build/debug/transcribe}"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" >&2
python3 Benchmarks/hotwords/names.py "$transcribe" 4 7
MOONSHINE_BENCHMARK=hotwords swift test --skip-build --filter HotwordBenchmarkTests </dev/null 2>&1 \
  | grep -E '^hotwords '
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
