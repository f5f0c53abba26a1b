#!/usr/bin/env bash
# Catalog build benchmark: our compiler vs Hugo generating one JSON page per product from the
# same data, on the real corpus and a synthetic 100k catalog, on /dev/shm (tmpfs) and on disk.
# Prints build time (median of RUNS runs, default 3), peak memory and a no-change rebuild for each; not a test.
# Usage: [RUNS=3] Benchmarks/catalog/run.sh [N=100000]     (needs: hugo from Debian, python3)
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-100000}
command -v hugo >/dev/null || { echo "hugo not found (Debian: apt-get install hugo)" >&2; exit 2; }
CORPUS=Tests/Data/catalog
DISK=${BENCH_DISK:-$PWD/bench-out}
SHM=/dev/shm/sjc-bench
swift build -c release --product generator >/dev/null
BIN=$PWD/.build/release/generator
rm -rf "$SHM" "$DISK"; mkdir -p "$SHM" "$DISK"

# Inputs: the real corpus (with a site.json naming its id field) and the synthetic catalog.
python3 Benchmarks/synth-catalog.py "$CORPUS" "$SHM/in-real" 4603
python3 Benchmarks/synth-catalog.py "$CORPUS" "$SHM/in-${N}" "$N"

# Each figure is the median of RUNS runs (default 3; this machine's speed swings by ±30 % within minutes), with the
# fastest and slowest run beside it; memory is the largest peak of the runs.
RUNS=${RUNS:-3}
measure() {  # label, setup command (run before each timed run, untimed), command...  → "label  median (min–max)  peakMB"
  local label=$1 setup=$2; shift 2
  local times=() peak=0
  for _ in $(seq "$RUNS"); do
    eval "$setup"
    /usr/bin/time -f "%e %M" "$@" >/dev/null 2>"$SHM/time.txt" || { echo "$label FAILED"; cat "$SHM/time.txt"; return; }
    read -r secs kb < <(tail -1 "$SHM/time.txt")
    times+=("$secs"); [ "$kb" -gt "$peak" ] && peak=$kb
  done
  read -r med lo hi < <(printf "%s\n" "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)], a[1], a[NR]}')
  printf "%-44s %8.2f s (%.2f–%.2f) %6d MB\n" "$label" "$med" "$lo" "$hi" "$((peak / 1024))"
}

hugo_site() {  # input dir, site dir: one content file per sellable product (preparation, not timed)
  python3 - "$1" "$2" <<'PY'
import json, os, sys
src, site = sys.argv[1], sys.argv[2]
os.makedirs(f"{site}/content/products", exist_ok=True)
os.makedirs(f"{site}/layouts/_default", exist_ok=True)
open(f"{site}/config.toml", "w").write('baseURL = "https://example.org/"\ndisableKinds = ["taxonomy", "term", "RSS", "sitemap", "robotsTXT", "404", "home", "section"]\n[outputs]\npage = ["JSON"]\n')
open(f"{site}/layouts/_default/single.json", "w").write(
  '{{ dict "productId" .Params.itemid "title" .Title "brand" (dict "name" .Params.brand) "pricing" (dict "currentPrice" .Params.price) '
  '"rating" (dict "average" .Params.ratingaverage "count" .Params.ratingcount) "media" (dict "images" (slice (dict "url" .Params.imageurl))) '
  '"specifications" (dict "Category" .Params.category) | jsonify }}')
for line in open(f"{src}/catalog/products.jsonl"):
    p = json.loads(line)
    if p.get("price") is None: continue
    fm = {"title": p["name"], "itemid": p["itemId"], "brand": p.get("brand") or "Unbranded", "price": p["price"],
          "ratingaverage": p["rating"]["average"], "ratingcount": p["rating"]["count"], "imageurl": p["imageUrl"],
          "category": p.get("category") or "uncategorized", "url": f"/products/{p['itemId']}/details.json"}
    with open(f"{site}/content/products/{p['itemId']}.md", "w") as f:
        f.write(json.dumps(fm) + "\n\n" + (p.get("description") or "") + "\n")
PY
}

echo "== catalog build: ours vs Hugo $(hugo version | cut -d' ' -f2) (N=$N) =="
for where in shm disk; do
  base=$SHM; [ "$where" = disk ] && base=$DISK
  for set in real "$N"; do
    in="$SHM/in-$set"; pages=$(grep -vc '"price": null' "$in/catalog/products.jsonl")
    measure "ours  $set products, $where, first build" "rm -rf '$base/out-$set'" "$BIN" build --input "$in" --out "$base/out-$set"
    measure "ours  $set products, $where, no-change rebuild" ":" "$BIN" build --input "$in" --out "$base/out-$set"
    files=$(find "$base/out-$set" -type f | wc -l)
    echo "      ($files files; $pages product pages)"
    hugo_site "$in" "$base/hugo-$set"
    measure "hugo  $set products, $where, one JSON page each" "rm -rf '$base/hugo-$set/public'" hugo --quiet -s "$base/hugo-$set" -d "$base/hugo-$set/public"
    echo "      ($(find "$base/hugo-$set/public" -name '*.json' | wc -l) JSON pages)"
  done
done
rm -rf "$SHM" "$DISK"
