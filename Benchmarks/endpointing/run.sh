#!/usr/bin/env bash
# Benchmarks/endpointing/run.sh - the endpointing study of issue 36, run by hand (2-3 minutes on
# one core): build the set, measure every cut, print the tables.
#
#   Benchmarks/endpointing/run.sh                   everything into /tmp/endpointing-set
#   OUT=/tmp/ep Benchmarks/endpointing/run.sh       elsewhere
#   SIGNALS="--pads zeros --seconds 0.1,0.3" Benchmarks/endpointing/run.sh   fewer decodes
#
# Runs at nice 19, ONNX Runtime on one thread. Needs pocketsphinx, pocketsphinx-testdata,
# python3 with numpy and onnxruntime, the converted Moonshine model and Silero VAD
# (scripts/install-dependencies.sh). Writes OUT/set.json, OUT/clips, OUT/cuts, OUT/pauses,
# OUT/pauses.json, OUT/signals.json, OUT/report.md, OUT/cuts-*.md and OUT/notes.txt.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
OUT="${OUT:-/tmp/endpointing-set}"
mkdir -p "$OUT"

for tool in pocketsphinx_continuous python3; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is missing" >&2; exit 1; }
done

{
  echo "date:     $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "commit:   $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "machine:  $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "python:   $(python3 --version 2>&1), numpy $(python3 -c 'import numpy; print(numpy.__version__)'), onnxruntime $(python3 -c 'import onnxruntime; print(onnxruntime.__version__)')"
  echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (before)"
} | tee "$OUT/notes.txt" >&2

nice -n 19 python3 "$here/make_set.py" "$OUT"
# shellcheck disable=SC2086
nice -n 19 python3 "$here/signals.py" "$OUT" ${SIGNALS:-} >"$OUT/signals.log"
nice -n 19 python3 "$here/analyze.py" "$OUT"
