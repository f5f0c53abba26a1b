#!/usr/bin/env bash
# Validation benchmark: builds a deterministic synthetic catalog of N products (default 100k) on /dev/shm and times
# `generator validate` over the whole tree (file index, sha256 and every JSON file against its schema), printing
# MB/s of JSON validated; also prints the build's stage timings (its "validate and serialise" stage checks every output before writing).
# Not a test (figures vary). Usage: Benchmarks/validate/run.sh [N=100000]
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-100000}
SHM=/dev/shm/sjc-bench-validate
swift build -c release --product generator >/dev/null
BIN=$PWD/.build/release/generator
rm -rf "$SHM"; mkdir -p "$SHM"
python3 Benchmarks/synth-catalog.py Tests/Data/catalog "$SHM/in" "$N"
"$BIN" build --input "$SHM/in" --out "$SHM/dist" | grep -E "stages|files," | head -3
bytes=$(find "$SHM/dist" -name '*.json' -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
files=$(find "$SHM/dist" -type f | wc -l)
/usr/bin/time -f "%e %M" "$BIN" validate "$SHM/dist" >/dev/null 2>"$SHM/time.txt"
read -r secs kb < <(tail -1 "$SHM/time.txt")
awk -v b="$bytes" -v s="$secs" -v f="$files" -v kb="$kb" 'BEGIN {
  printf "generator validate: %d files, %.1f MB of JSON in %.2f s = %.0f MB/s, peak %d MB\n", f, b/1e6, s, b/1e6/s, kb/1024 }'
rm -rf "$SHM"
