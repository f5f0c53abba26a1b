#!/usr/bin/env bash
# Small-change releases at scale: on tmpfs, a fresh build of a synthetic N-product catalog, then rebuilds
# after no change, one price changed, one product added and 1 % of prices changed. Each rebuild starts from a copy of
# the fresh tree, so each is one release after the first. Each line is run REPEAT times (default 3; this machine's
# times move by up to 20 % from one run to the next): it prints the median wall time, every run's time, the largest
# peak memory and the release stage's time (the "manifest" stage: file index and deltas with their JSON patches);
# not a test.
# Usage: [REPEAT=3] Benchmarks/catalog/small-changes.sh [N=100000]
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-100000}
SHM=/dev/shm/sjc-small
# GENERATOR_BIN: another build of the generator to compare (e.g. an earlier commit's), else this checkout's.
if [ -n "${GENERATOR_BIN:-}" ]; then BIN=$GENERATOR_BIN; else
  swift build -c release --product generator >/dev/null
  BIN=$PWD/.build/release/generator
fi
rm -rf "$SHM"; mkdir -p "$SHM"
python3 Benchmarks/synth-catalog.py Tests/Data/catalog "$SHM/in" "$N"
export SOURCE_DATE_EPOCH=1700000000

REPEAT=${REPEAT:-3}
# label, input, output, the command that prepares each run → "label  median s  peak MB  × fresh time  × fresh memory
# manifest stage  runs  what was kept" (the stage and what was kept from the last run).
run() {
  local label=$1 input=$2 out=$3 prepare=$4 times=() kbs=() secs kb
  for ((k = 0; k < REPEAT; k++)); do
    $prepare
    /usr/bin/time -f "%e %M" "$BIN" build --input "$input" --out "$out" >"$SHM/summary.txt" 2>"$SHM/time.txt"
    read -r secs kb < <(tail -1 "$SHM/time.txt")
    times+=("$secs"); kbs+=("$kb")
  done
  secs=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((REPEAT + 1) / 2))p")
  kb=$(printf '%s\n' "${kbs[@]}" | sort -n | tail -1)
  if [ -z "${FRESH_SECS:-}" ]; then FRESH_SECS=$secs; FRESH_KB=$kb; fi
  local manifest kept
  manifest=$(grep -o 'manifest [0-9.]* s' "$SHM/summary.txt" || echo "manifest - (no release)")
  # (How many files it wrote too: a change that renames many files shows here first.)
  kept=$(grep -o 'written [0-9]*\|([0-9]* kept by the build cache[^)]*)\(, [0-9]* index entries copied\)\?\(; applied in place\)\?\(; [0-9]* product lines taken from the cache.s snapshot\)\?' "$SHM/summary.txt" | paste -sd' ' - || true)
  printf "%-24s %6.2f s %6d MB   %4.2fx time %4.2fx memory   %-18s runs %-17s %s\n" "$label" "$secs" "$((kb / 1024))" \
    "$(echo "$secs / $FRESH_SECS" | bc -l)" "$(echo "$kb / $FRESH_KB" | bc -l)" "$manifest" "$(IFS=/; echo "${times[*]}")" "$kept"
}

# An edited copy of the input: python3 applies the change to products.jsonl.
edit() {  # name, python expression over `rows` (a list of dicts) → input folder
  local dir=$SHM/in-$1
  rm -rf "$dir"; cp -r "$SHM/in" "$dir"
  python3 - "$dir/catalog/products.jsonl" "$2" <<'PY'
import json, sys
path, change = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(path)]
exec(change)
with open(path, "w") as f:
    for r in rows: f.write(json.dumps(r) + "\n")
PY
  echo "$dir"
}

fresh_again() { rm -rf "$SHM/fresh" "$SHM/.fresh.cache" "$SHM/.fresh.cache.products"; }
run "fresh build" "$SHM/in" "$SHM/fresh" fresh_again
# Each rebuild starts from a copy of the fresh tree and of its build cache (the cache names the release it describes,
# so the copy's is valid for the copy).
fresh_copy() {
  rm -rf "$SHM/out"; cp -a "$SHM/fresh" "$SHM/out"; cp "$SHM/.fresh.cache" "$SHM/.out.cache"
  cp "$SHM/.fresh.cache.products" "$SHM/.out.cache.products"   # (the records of the products file as read)
}
run "no change" "$SHM/in" "$SHM/out" fresh_copy
one_price=$(edit one-price 'r = next(r for r in rows if r.get("price")); r["price"] = round(r["price"] + 1, 2)')
run "one price changed" "$one_price" "$SHM/out" fresh_copy
added=$(edit added 'rows.append(dict(rows[0], itemId="bench-new-1", name="Benchmark Added Drill"))')
run "one product added" "$added" "$SHM/out" fresh_copy
prices=$(edit prices 'priced = [r for r in rows if r.get("price")]
for r in priced[::100]: r["price"] = round(r["price"] + 1, 2)')
run "1 % of prices changed" "$prices" "$SHM/out" fresh_copy
rm -rf "$SHM"
