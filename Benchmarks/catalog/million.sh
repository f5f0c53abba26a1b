#!/usr/bin/env bash
# A million products on one machine (issue 21): fresh builds of the synthetic 100k and 1M catalogs on tmpfs, in one
# run, side by side: wall time, peak memory (max RSS), files and bytes written, and 1M against 100k. The 100k site is
# the default one; above 100,000 products synth-catalog.py writes the Large catalogs article's settings (object storage, no
# seed search indexes, category pages of 100). Bounds of the issue: 1M peak ≤ 2.5 GB, 1M time ≤ 11 × 100k time.
# The 100k figure is the median of RUNS100K runs (default 3), the 1M figure one run (RUNS1M to change).
# Needs about 6 GB free on /dev/shm (inputs and the 1M tree, 3.3 GB); removes everything it made. Not a test.
# Usage: [GENERATOR_BIN=path] [SIZES="100000 1000000"] Benchmarks/catalog/million.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
SHM=/dev/shm/sjc-million
SIZES=${SIZES:-100000 1000000}
# GENERATOR_BIN: another build of the generator to compare (e.g. an earlier commit's), else this checkout's.
if [ -n "${GENERATOR_BIN:-}" ]; then BIN=$GENERATOR_BIN; else
  swift build -c release --product generator >/dev/null
  BIN=$PWD/.build/release/generator
fi
rm -rf "$SHM"; mkdir -p "$SHM"
trap 'rm -rf "$SHM"' EXIT
export SOURCE_DATE_EPOCH=1700000000

# One fresh build → "seconds peakKB files bytes" (the tree is removed before each run and after the last).
build() {  # N
  rm -rf "$SHM/out-$1"
  /usr/bin/time -f "%e %M" "$BIN" build --input "$SHM/in-$1" --out "$SHM/out-$1" >"$SHM/summary.txt" 2>"$SHM/time.txt" \
    || { echo "build of $1 failed:" >&2; cat "$SHM/summary.txt" "$SHM/time.txt" >&2; exit 1; }
  local secs kb files bytes
  read -r secs kb < <(tail -1 "$SHM/time.txt")
  read -r files bytes < <(sed -n 's/^Built .*, \([0-9]*\) files, \([0-9]*\) bytes in .*/\1 \2/p' "$SHM/summary.txt")
  echo "$secs $kb $files $bytes"
}

declare -A SECS PEAK
printf "%-10s %10s %12s %10s %10s  %s\n" products "time" "peak memory" files "MB" "(runs: times)"
for n in $SIZES; do
  python3 Benchmarks/synth-catalog.py Tests/Data/catalog "$SHM/in-$n" "$n"
  runs=${RUNS100K:-3}; [ "$n" -gt 100000 ] && runs=${RUNS1M:-1}
  times=() peak=0
  for _ in $(seq "$runs"); do
    read -r secs kb files bytes < <(build "$n")
    times+=("$secs"); [ "$kb" -gt "$peak" ] && peak=$kb
  done
  rm -rf "$SHM/out-$n" "$SHM/in-$n"
  med=$(printf "%s\n" "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  SECS[$n]=$med; PEAK[$n]=$peak
  printf "%-10s %8.2f s %9d MB %10d %10d  (%s)\n" "$n" "$med" "$((peak / 1024))" "$files" "$((bytes / 1048576))" "${times[*]}"
done
read -r -a sizes <<< "$SIZES"
if [ ${#sizes[@]} -ge 2 ]; then
  n1=${sizes[0]} n2=${sizes[1]}
  awk -v a="${SECS[$n1]}" -v b="${SECS[$n2]}" -v pa="${PEAK[$n1]}" -v pb="${PEAK[$n2]}" -v n1="$n1" -v n2="$n2" \
    'BEGIN { printf "%s vs %s: time × %.2f (bound 11), peak memory × %.2f; %s peak %.2f GiB (bound 2.5 GB)\n", n2, n1, b / a, pb / pa, n2, pb / 1048576 }'
fi
