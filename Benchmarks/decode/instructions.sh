#!/usr/bin/env bash
# Benchmarks/decode/instructions.sh - instructions executed, ours against pocketsphinx_continuous,
# counted by valgrind's callgrind: repeatable to a fraction of a percent however busy the machine
# is (wall and CPU times are not), at the price of running about 50 times slower.
#
#   Benchmarks/decode/instructions.sh            the first two LibriVox clips (10.1 s of audio)
#   Benchmarks/decode/instructions.sh FILE.wav   any 16 kHz mono WAV
#
# Prints, for each side, the total and the inclusive cost of pocketsphinx's own entry points
# (model load, ps_process_raw, ps_end_utt, the hypothesis), so the rest is ours. Ours runs with
# --jobs 1. Settings (environment): TRANSCRIBE (default the release build), POCKETSPHINX, DATA, as
# in run.sh; KEEP=DIR keeps the callgrind files there (for callgrind_annotate).
#
# valgrind 3.19 (Debian bookworm) dies at once on a Swift program with async main: libdispatch
# parks the main thread in sigsuspend with a mask in read-only memory, which valgrind writes to.
# A two-line preload that copies the mask first works around it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
DATA="${DATA:-/usr/share/pocketsphinx/test/data}"
POCKETSPHINX="${POCKETSPHINX:-pocketsphinx_continuous}"
M=/usr/share/pocketsphinx/model/en-us
command -v valgrind >/dev/null || { echo "instructions.sh: install valgrind" >&2; exit 1; }
command -v cc >/dev/null || { echo "instructions.sh: install gcc (for the preload)" >&2; exit 1; }
TRANSCRIBE="${TRANSCRIBE:-$root/.build/release/transcribe}"
[ -x "$TRANSCRIBE" ] || { echo "instructions.sh: build it: swift build -c release --product transcribe" >&2; exit 1; }

work="${KEEP:-$(mktemp -d)}"
mkdir -p "$work"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
cat >"$work/sigsuspend.c" <<'C'
#define _GNU_SOURCE
#include <signal.h>
#include <unistd.h>
#include <sys/syscall.h>
int sigsuspend(const sigset_t *mask) { sigset_t copy = *mask; return (int)syscall(SYS_rt_sigsuspend, &copy, 8); }
C
cc -shared -fPIC -O2 -o "$work/sigsuspend.so" "$work/sigsuspend.c"
# valgrind's DWARF reader gives up on the binary's debug information ("possibly corrupted
# debuginfo"); the symbol table is enough for function names.
objcopy --strip-debug "$TRANSCRIBE" "$work/transcribe"

input="${1:-}"
if [ -z "$input" ]; then
  input="$work/ten.wav"
  sox -q "$DATA/librivox/sense_and_sensibility_01_austen_64kb-0870.wav" \
    "$DATA/librivox/sense_and_sensibility_01_austen_64kb-0880.wav" "$input"
fi
echo "input: $input ($(soxi -D "$input") s); $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"

valgrind --tool=callgrind --callgrind-out-file="$work/ps.out" \
  "$POCKETSPHINX" -hmm "$M/en-us" -lm "$M/en-us.lm.bin" -dict "$M/cmudict-en-us.dict" \
  -logfn /dev/null -infile "$input" >"$work/ps.txt" 2>/dev/null &
LD_PRELOAD="$work/sigsuspend.so" valgrind --tool=callgrind --callgrind-out-file="$work/ours.out" \
  "$work/transcribe" --jobs 1 --input "$input" >"$work/ours.txt" 2>/dev/null &
wait

# The largest inclusive cost of each function (recursion shows a function more than once).
costs() {
  callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null | awk '
    /^ *[0-9,]+ +\(/ { n = $1; gsub(",", "", n); f = $3; sub(/.*:/, "", f)
      if (!(f in c) || n + 0 > c[f] + 0) c[f] = n }
    /PROGRAM TOTALS/ { t = $1; gsub(",", "", t); c["total"] = t }
    END { for (f in c) print f, c[f] }'
}
costs "$work/ps.out" >"$work/ps.costs"
costs "$work/ours.out" >"$work/ours.costs"
printf '%-18s %16s %16s %8s\n' "instructions" "ours" "reference" "ours/ref"
for f in total ps_init ps_process_raw ps_end_utt ps_get_hyp ps_seg_iter; do
  a=$(awk -v f="$f" '$1 == f { print $2 }' "$work/ours.costs"); a=${a:-0}
  b=$(awk -v f="$f" '$1 == f { print $2 }' "$work/ps.costs"); b=${b:-0}
  ratio=$([ "$b" -gt 0 ] && echo "scale=3; $a / $b" | bc || echo "-")
  printf '%-18s %16s %16s %8s\n' "$f" "$a" "$b" "$ratio"
done
echo "ours:      $(tr '\n' ' ' <"$work/ours.txt")"
echo "reference: $(tr '\n' ' ' <"$work/ps.txt")"
