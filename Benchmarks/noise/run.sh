#!/usr/bin/env bash
# Benchmarks/noise/run.sh - word error rate in noise and live latency, for issue 24.
#
#   Benchmarks/noise/run.sh                              everything (15-20 minutes)
#   EXTRA="--vad energy; --vad silero" Benchmarks/noise/run.sh   two configurations side by side
#   SIDES="model file" CASES="room-pink10 clips-pink10" Benchmarks/noise/run.sh   a subset
#
# The set (built with sox -R and espeak-ng from pocketsphinx-testdata, the same bytes every run):
#   room-clean, room-pink10, room-pink5, room-brown10, room-babble10
#              the five LibriVox clips in one 35.2 s recording: 1.5 s of silence, the clips with
#              1.5 s pauses between them, 3 s after; noise under all of it at the given SNR,
#              measured from the clips' RMS (babble: six espeak-ng voices reading other text)
#   clips-clean, clips-pink10, clips-reverb
#              the five clips one by one: as they are, with pink noise at 10 dB (from each clip's
#              RMS), with `reverb 50 50 80`
# Sides:
#   model      scripts/moonshine_reference.py transcribe FILE: the Moonshine model on each whole
#              file in one go (no segmentation, no detector)
#   file       $TRANSCRIBE $EXTRA --engine E --format json -i FILE, one process per file
#   live       the room recordings played (paplay) into a private PulseAudio's virtual
#              microphone (scripts/virtual-mic.sh) while
#              $TRANSCRIBE $EXTRA --engine E --device virtual_mic --format json --duration N
#              listens; each utterance line is timestamped as it arrives on stdout
# Scores: WER = (substitutions + deletions + insertions) / reference words over a case's files,
# words lower-cased, hyphens as spaces, punctuation dropped, "Mr." as "mister" and digits as
# words (the references' spelling). Words are placed in clips by their times (JSON segments).
# "ends inside a sentence": an utterance whose sentence continues in a later utterance, or that
# does not carry its sentence to the end (the rest dropped or garbled). "lost clips": clips with
# no word in the transcript. Live latency: for each clip whose last word appears, the arrival of
# the utterance holding it minus the end of the clip's speech in the played file (heard time
# measured on the virtual microphone itself). README.md has the details and results.
#
# Settings (environment):
#   TRANSCRIBE  command to test (default: this repository's .build/release/transcribe);
#               several separated by ';' are run side by side
#   EXTRA       options added to every transcribe run, e.g. "--vad energy"; several
#               configurations separated by ';' are run side by side (with each TRANSCRIBE)
#   ENGINES     engines for the file and live sides (default "moonshine pocketsphinx")
#   SIDES       any of "model file live" (default all three)
#   CASES       case names to run (default all; live uses the room-* ones)
#   OUT         results directory (default a new /tmp/noise-bench.XXXXXX, kept)
#   LIVE_SETTLE seconds between transcribe's capture starting and playback (default 1.0)
#   LIVE_AFTER  seconds after playback ends before transcribe gets SIGINT (default 5.0)
#   DATA        pocketsphinx-testdata's directory (default /usr/share/pocketsphinx/test/data)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export DATA="${DATA:-/usr/share/pocketsphinx/test/data}"
TRANSCRIBE="${TRANSCRIBE:-$root/.build/release/transcribe}"
EXTRA="${EXTRA:-}"
ENGINES="${ENGINES:-moonshine pocketsphinx}"
SIDES="${SIDES:-model file live}"
export CASES="${CASES:-}"
OUT="${OUT:-$(mktemp -d /tmp/noise-bench.XXXXXX)}"
mkdir -p "$OUT/logs"
py() { python3 "$here/noise.py" "$@"; }

for tool in sox soxi espeak-ng python3; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is missing (scripts/install-dependencies.sh)" >&2; exit 1; }
done
[ -r "$DATA/librivox/transcription" ] \
  || { echo "run.sh: install pocketsphinx-testdata ($DATA/librivox is missing)" >&2; exit 1; }

IFS=';' read -r -a commands <<<"$TRANSCRIBE"
IFS=';' read -r -a extras <<<"${EXTRA:- }"
case " $SIDES " in *" file "*|*" live "*)
  for c in "${commands[@]}"; do
    read -r -a argv <<<"$c"
    command -v "${argv[0]}" >/dev/null || {
      echo "run.sh: ${argv[0]} not found; build it (swift build -c release) or set TRANSCRIBE" >&2
      exit 1; }
  done ;;
esac

started=$(date +%s)
{
  echo "date:       $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "commit:     $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD -- Sources 2>/dev/null || echo ' (Sources modified)')"
  for c in "${commands[@]}"; do
    read -r -a argv <<<"$c"
    bin="$(command -v "${argv[0]}" 2>/dev/null || true)"
    [ -n "$bin" ] && echo "transcribe: $c ($(stat -c '%s bytes, built %y' "$(readlink -f "$bin")" | cut -d. -f1))"
  done
  echo "extra:      ${EXTRA:-(none)}"
  echo "machine:    $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo); $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "tools:      $(sox --version | sed 's/.*SoX //'), $(espeak-ng --version | cut -d' ' -f1-4), onnxruntime $(python3 -c 'import onnxruntime; print(onnxruntime.__version__)' 2>/dev/null || echo absent), pulseaudio $(pulseaudio --version 2>/dev/null | cut -d' ' -f2)"
  echo "load:       $(cut -d' ' -f1-3 /proc/loadavg) (before)"
} | tee "$OUT/notes.txt" >&2

echo "building the set..." >&2
py build "$OUT"

if [[ " $SIDES " == *" model "* ]]; then
  echo "model alone (moonshine_reference.py)..." >&2
  py model "$OUT"
fi

# Configurations: every TRANSCRIBE with every EXTRA. The label names what differs.
labels=(); argvs=()
for c in "${commands[@]}"; do
  for e in "${extras[@]}"; do
    e="$(echo "$e" | sed 's/^ *//; s/ *$//')"
    label="$e"; [ -n "$label" ] || label="default"
    [ ${#commands[@]} -gt 1 ] && label="$(basename "${c%% *}") $label"
    labels+=("$label"); argvs+=("$c $e")
  done
done

if [[ " $SIDES " == *" file "* ]]; then
  for k in "${!labels[@]}"; do
    for engine in $ENGINES; do
      echo "transcribe -i, $engine [${labels[$k]}]..." >&2
      read -r -a argv <<<"${argvs[$k]}"
      py file "$OUT" "${labels[$k]}" "$engine" -- "${argv[@]}"
    done
  done
fi

if [[ " $SIDES " == *" live "* ]]; then
  mic="$root/scripts/virtual-mic.sh"
  export VMIC_DIR="/tmp/vmic-noise-$$"
  eval "$("$mic" start)"
  trap 'VMIC_DIR="$VMIC_DIR" "$mic" stop >/dev/null 2>&1 || true; rm -rf "$VMIC_DIR"' EXIT
  for k in "${!labels[@]}"; do
    for engine in $ENGINES; do
      read -r -a argv <<<"${argvs[$k]}"
      py live "$OUT" "${labels[$k]}" "$engine" -- "${argv[@]}"
    done
  done
fi

{
  echo "load:       $(cut -d' ' -f1-3 /proc/loadavg) (after)"
  echo "run time:   $(( $(date +%s) - started )) s"
} | tee -a "$OUT/notes.txt" >&2
echo >&2
py report "$OUT"
echo
cat "$OUT/notes.txt"
echo "details:    $OUT/transcripts.txt (every transcript; live lines with arrival times),"
echo "            $OUT/results.md, $OUT/results.json, $OUT/logs/"
