#!/usr/bin/env bash
# Search benchmark: our indexes vs Pagefind 1.5.2 (pip install pagefind-bin==1.5.2), on the real corpus and a
# deterministic synthetic 50k catalog, side by side in one run. Prints index build time and peak memory, raw and
# gzip bytes of each index, and the bytes a client downloads for a one-word and a three-word query (ours: meta +
# term shards + store shards of the first page, via `generator search`; Pagefind: its own browser client run in
# Node against the site over loopback, including pagefind.js, the wasm, index chunks and the first 10 fragments;
# and ours again in headless Chromium through search/search.js, by Benchmarks/search/browser-query.sh).
# Pagefind indexes one HTML page per priced product with the same fields (name, brand, category, description).
# Not a test (figures vary). Usage: Benchmarks/search/run.sh [N=50000]
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-50000}
SHM=/dev/shm/sjc-bench-search
swift build -c release --product generator >/dev/null
BIN=$PWD/.build/release/generator
python3 -c "import pagefind_bin" 2>/dev/null || python3 -m pip install -q pagefind-bin==1.5.2
rm -rf "$SHM"; mkdir -p "$SHM"
python3 Benchmarks/synth-catalog.py Tests/Data/catalog "$SHM/in-real" 4603 >/dev/null
python3 Benchmarks/synth-catalog.py Tests/Data/catalog "$SHM/in-$N" "$N" >/dev/null
gz() { gzip -9 -c "$1" | wc -c; }
q1="drill"; q3="cordless hammer drill"
for set in real "$N"; do
  in="$SHM/in-$set"; out="$SHM/out-$set"
  echo "== $set products =="
  # units one after another, so the traced time of each index is its own, not split with the others
  GENERATOR_TRACE=units /usr/bin/time -f "%e %M" "$BIN" build --input "$in" --out "$out" >/dev/null 2>"$SHM/trace.txt"
  seed=$(grep -E "render search-index:" "$SHM/trace.txt" | awk '{printf "%.2f", $(NF-1)}')
  ranked=$(grep -E "render search-meta:" "$SHM/trace.txt" | awk '{printf "%.2f", $(NF-1)}')
  read -r secs kb < <(tail -1 "$SHM/trace.txt")
  echo "ours: ranked index (search/, the Pagefind equivalent) built in ${ranked} s; full + compact seed indexes ${seed} s (whole tree: ${secs} s, peak $((kb / 1024)) MB)"
  printf "  search-index.json %d B raw, %d B gzip\n" "$(stat -c %s "$out/search-index.json")" "$(gz "$out/search-index.json")"
  printf "  search-index-compact.json %d B raw, %d B gzip\n" "$(stat -c %s "$out/search-index-compact.json")" "$(gz "$out/search-index-compact.json")"
  rawr=$(find "$out/search" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
  gzr=$(find "$out/search" -type f -exec sh -c 'gzip -9 -c "$1" | wc -c' _ {} \; | awk '{s+=$1} END {print s}')
  echo "  search/ (ranked) $(find "$out/search" -type f | wc -l) files, $rawr B raw, $gzr B gzip"
  for q in "$q1" "$q3"; do
    echo "  query \"$q\": $("$BIN" search "$out" "$q" --index ranked | grep '^downloaded')"
  done
  # The same queries in a browser: search/search.js in headless Chromium, the module itself included.
  Benchmarks/search/browser-query.sh "$out" "$q1" "$q3" | sed 's/^/  browser (search.js): /'
  # Pagefind over one HTML page per product.
  site="$SHM/pf-$set"
  python3 - "$in/catalog/products.jsonl" "$site" <<'PY'
import html, json, os, sys
src, site = sys.argv[1], sys.argv[2]
for line in open(src):
    p = json.loads(line)
    if p.get("price") is None: continue
    pid = p.get("itemId") or p.get("id")
    d = f"{site}/products/{pid}"; os.makedirs(d, exist_ok=True)
    e = lambda s: html.escape(str(s or ""))
    open(d + "/index.html", "w").write(
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{e(p["name"])}</title></head><body><main data-pagefind-body>'
        f'<h1 data-pagefind-weight="3">{e(p["name"])}</h1><p data-pagefind-weight="2">{e(p.get("brand") or "Unbranded")}</p>'
        f'<p data-pagefind-weight="1.5">{e(p.get("category") or "uncategorized")}</p><p data-pagefind-meta="price">{e(p["price"])}</p>'
        f'<img data-pagefind-meta="image[src]" src="{e(p.get("imageUrl"))}"><p>{e(p.get("description"))}</p></main></body></html>')
PY
  /usr/bin/time -f "%e %M" python3 -m pagefind_bin --site "$site" --quiet >/dev/null 2>"$SHM/pf.txt"
  read -r psecs pkb < <(tail -1 "$SHM/pf.txt")
  echo "pagefind: index build ${psecs} s, peak $((pkb / 1024)) MB; $(find "$site/pagefind" -type f | wc -l) files, $(du -sb "$site/pagefind" | cut -f1) B on disk (index files stored gzip-compressed)"
  for q in "$q1" "$q3"; do echo "  query: $(node Benchmarks/search/pagefind-query.mjs "$site" "$q")"; done
done
rm -rf "$SHM"
