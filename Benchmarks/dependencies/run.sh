#!/usr/bin/env bash
# Compares `@Dependency` reads of this repository's `Dependencies` with swift-dependencies'.
#
#   Benchmarks/dependencies/run.sh [RUNS] [COUNT]        # timed, interleaved (default 3, 1000000)
#   Benchmarks/dependencies/run.sh --callgrind [COUNT]   # instructions per operation (valgrind)
#
# Both sides are the same source file (`Benchmarks/Sources/DependencyBenchmarks/main.swift`),
# built in release mode against each library. Timed mode runs them alternately, ours then
# upstream, RUNS times, and prints for each case the median over the runs of each run's median
# (five timed loops per run), and upstream / ours (above 1: ours is faster). Callgrind mode counts
# instructions, which other work on the machine does not change: each case runs in its own
# process at COUNT and at 2 × COUNT operations, and the difference is divided by the extra
# operations.
set -euo pipefail

benchmarks="$(cd "$(dirname "$0")/.." && pwd)"
cd "$benchmarks"

echo "Building both sides in release mode…" >&2
swift build -c release --product DependencyBenchmarks >&2
swift build -c release --package-path UpstreamDependencies >&2
ours="$benchmarks/.build/release/DependencyBenchmarks"
upstream="$benchmarks/UpstreamDependencies/.build/release/UpstreamDependencyBenchmarks"
cases=(default captured scope entry)

if [[ "${1:-}" == "--callgrind" ]]; then
  count="${2:-20000}"
  instructions() {  # BINARY COUNT CASE
    local out
    out="$(mktemp)"
    valgrind --tool=callgrind --callgrind-out-file="$out" "$1" "$2" "$3" >/dev/null 2>&1
    awk '/^summary:/ { print $2 }' "$out"
    rm -f "$out"
  }
  printf '%-34s %12s %12s %10s\n' "instructions per operation" "ours" "upstream" "up/ours"
  for name in "${cases[@]}"; do
    # Each case does COUNT / 10 warm-up operations and five loops of COUNT.
    per_op() {
      local small large
      small="$(instructions "$1" "$count" "$name")"
      large="$(instructions "$1" "$((count * 2))" "$name")"
      awk -v s="$small" -v l="$large" -v c="$count" 'BEGIN { printf "%.0f", (l - s) / (5.1 * c) }'
    }
    a="$(per_op "$ours")"
    b="$(per_op "$upstream")"
    awk -v n="$name" -v a="$a" -v b="$b" 'BEGIN { printf "%-34s %12d %12d %10.2f\n", n, a, b, b / a }'
  done
  exit 0
fi

runs="${1:-3}"
count="${2:-1000000}"
results="$(mktemp -d)"
trap 'rm -rf "$results"' EXIT
for run in $(seq "$runs"); do
  echo "run $run of $runs" >&2
  "$ours" "$count" >"$results/ours.$run"
  "$upstream" "$count" >"$results/upstream.$run"
done

# Lines look like: "<case name>   best  12.3 median  14.5 ns/op".
median_of() {  # SIDE CASE-LINE-NUMBER → median over runs of the run medians
  for file in "$results/$1".*; do
    awk -v line="$2" '/ns\/op$/ { n++; if (n == line) print $(NF - 1) }' "$file"
  done | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "@Dependency, ns per operation: median of $runs interleaved runs (each the median of 5 loops of $count)"
printf '%-34s %10s %10s %10s\n' "case" "ours" "upstream" "up/ours"
line=0
while IFS= read -r name; do
  line=$((line + 1))
  a="$(median_of ours "$line")"
  b="$(median_of upstream "$line")"
  awk -v n="$name" -v a="$a" -v b="$b" 'BEGIN { printf "%-34s %10.1f %10.1f %10.2f\n", n, a, b, b / a }'
done < <(awk '/ns\/op$/ { sub(/ +best .*/, ""); print }' "$results/ours.1")
echo "raw runs (ours, then upstream):"
for run in $(seq "$runs"); do
  echo "-- ours $run"; grep 'ns/op' "$results/ours.$run"
  echo "-- upstream $run"; grep 'ns/op' "$results/upstream.$run"
done
