#!/usr/bin/env bash
# Search benchmark: the ranked index (search/, its current format) against Pagefind 1.5.2 (pip install pagefind-bin==1.5.2), on
# the real corpus (Tests/Data/catalog) and a synth-names catalog of N products (names drawn from the real corpus's
# vocabulary), side by side in one run. For each corpus it prints:
#   1. the ranked index's build time (GENERATOR_TRACE=units, the `render search-meta:` line; median of RUNS fresh
#      builds) beside the same figure from commit 62d748f, the commit before filters, facets and sorts (built once in
#      a git worktree at BASE_TREE, default /tmp/sjc-base, and reused), and their ratio (target: at most 1.5);
#   2. the gzip bytes of a first query (`generator search OUT "q" --json`, field gzipBytes, a fresh process per
#      query) for 10 plain and 10 filtered queries (one filter each; the last a filter-only category browse), each
#      without and with --facets; ✗ marks a value over its bound (plain and filtered at most 25 KB, the browse at most
#      40 KB; with facets at most 60 KB on the real corpus and at most Pagefind's with filter counts on the N catalog);
#   3. Pagefind's bytes for the same queries, run by its own browser client in Node (pagefind-query.mjs) over
#      loopback, its filters written on each product page as the same values (brand, category path, price range,
#      rating as at-least values 1-4, stock), and with filter counts loaded (pagefind.filters() first) beside ours
#      with facets;
#   4. the mean result count of the 10 plain queries: our `total` and Pagefind's results.
# KB are 1,000 bytes. Query lists are fixed (chosen before measuring). Not a test: figures vary.
# Usage: [RUNS=3] [BASE_TREE=/tmp/sjc-base] [GENERATOR_BIN=path] Benchmarks/search/run.sh [N=100000]
# (GENERATOR_BIN: a release generator of this checkout already built; otherwise it is built here.)
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-100000}
RUNS=${RUNS:-3}
BASE_COMMIT=62d748f
BASE=${BASE_TREE:-/tmp/sjc-base}
SHM=/dev/shm/sjc-bench-search
if [ -n "${GENERATOR_BIN:-}" ]; then BIN=$GENERATOR_BIN; else swift build -c release --product generator >/dev/null; BIN=$PWD/.build/release/generator; fi
echo "generator at $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Package.swift || echo ' with uncommitted changes to Sources'), against $BASE_COMMIT; $(date -u '+%F %H:%M UTC'), $(nproc) cores"
if [ ! -d "$BASE" ]; then git worktree add --detach "$BASE" "$BASE_COMMIT" >/dev/null; fi
if [ "$(git -C "$BASE" rev-parse HEAD)" != "$(git rev-parse "$BASE_COMMIT^{commit}")" ]; then
  echo "$BASE is not at $BASE_COMMIT" >&2; exit 1
fi
[ -x "$BASE/.build/release/generator" ] || (cd "$BASE" && swift build -c release --product generator >/dev/null)
OLD=$BASE/.build/release/generator
python3 -c "import pagefind_bin" 2>/dev/null || python3 -m pip install -q pagefind-bin==1.5.2
rm -rf "$SHM"; mkdir -p "$SHM"
trap 'rm -rf "$SHM"' EXIT

PLAIN=("drill" "cordless drill" "cordless hammer drill" "dewalt" "milwaukee m18" "washing machine"
       "stainless steel refrigerator" "artificial plant" "miter saw" "led light bulb")
# "query|filter"; an empty query is a browse.
FILTERED=("drill|brand=DEWALT" "cordless drill|price=50..200" "washing machine|brand=Samsung"
          "refrigerator|category=appliances/refrigerators/side-by-side" "miter saw|rating=4"
          "led light bulb|inStock=true" "artificial plant|price=..50" "impact wrench|brand=Milwaukee"
          "storage shelves|category=garage/storage" "|category=tools/batteries")

python3 Benchmarks/synth-catalog.py Tests/Data/catalog "$SHM/in-real" 4603 >/dev/null
python3 Benchmarks/synth-names.py Tests/Data/catalog "$SHM/in-$N" "$N" >/dev/null

# Seconds of the ranked index's unit in one fresh build by binary $1 of input $2.
index_seconds() {
  rm -rf "$SHM/tree"
  GENERATOR_TRACE=units "$1" build --input "$2" --out "$SHM/tree" >/dev/null 2>"$SHM/trace.txt"
  grep -E "render search-meta:" "$SHM/trace.txt" | awk '{print $(NF-1)}' | grep . || { echo "no search-meta line" >&2; exit 1; }
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for set in real "$N"; do
  in="$SHM/in-$set"; out="$SHM/out-$set"; site="$SHM/pf-$set"; rows="$SHM/rows-$set.tsv"
  products=$(python3 -c 'import json,sys; print(sum(json.loads(l).get("price") is not None for l in open(sys.argv[1])))' "$in/catalog/products.jsonl")
  echo "== $set: $products priced products =="

  # 1. Index build time, new and old alternating, each build fresh.
  : >"$SHM/new.txt"; : >"$SHM/old.txt"
  for _ in $(seq "$RUNS"); do
    index_seconds "$BIN" "$in" >>"$SHM/new.txt"
    index_seconds "$OLD" "$in" >>"$SHM/old.txt"
  done
  new=$(median <"$SHM/new.txt"); old=$(median <"$SHM/old.txt")
  echo "ranked index build (render search-meta, median of $RUNS): $new s now, $old s at $BASE_COMMIT," \
       "ratio $(awk -v a="$new" -v b="$old" 'BEGIN {printf "%.2f", a / b}') (target <= 1.5);" \
       "runs now: $(paste -sd' ' "$SHM/new.txt"), at $BASE_COMMIT: $(paste -sd' ' "$SHM/old.txt")"
  rm -rf "$out"; "$BIN" build --input "$in" --out "$out" >/dev/null 2>&1
  echo "search/: $(find "$out/search" -type f | wc -l) files, $(du -sb "$out/search" | cut -f1) B raw"

  # Pagefind over one HTML page per priced product, with the same fields and filter values.
  python3 - "$in/catalog/products.jsonl" "$site" <<'PY'
import html, json, os, sys
src, site = sys.argv[1], sys.argv[2]
edges = [25, 50, 100, 200, 500, 1000]
def price_range(x):
    for i, e in enumerate(edges):
        if x < e: return f"..{e}" if i == 0 else f"{edges[i - 1]}..{e}"
    return f"{edges[-1]}.."
e = lambda s: html.escape(str(s if s is not None else ""))
for line in open(src):
    p = json.loads(line)
    if p.get("price") is None: continue
    pid = p.get("itemId") or p.get("id")
    d = f"{site}/products/{pid}"; os.makedirs(d, exist_ok=True)
    rating = (p.get("rating") or {}).get("average") or 0
    filters = [("brand", p.get("brand") or "Unbranded"), ("category", p.get("category") or "uncategorized"),
               ("price", price_range(p["price"])), ("stock", "true" if p.get("inStock") else "false")]
    filters += [("rating", str(k)) for k in (1, 2, 3, 4) if rating >= k]
    metas = "".join(f'<meta data-pagefind-filter="{k}[content]" content="{e(v)}">' for k, v in filters)
    open(d + "/index.html", "w").write(
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{e(p["name"])}</title>{metas}</head><body><main data-pagefind-body>'
        f'<h1 data-pagefind-weight="3">{e(p["name"])}</h1><p data-pagefind-weight="2">{e(p.get("brand") or "Unbranded")}</p>'
        f'<p data-pagefind-weight="1.5">{e(p.get("category") or "uncategorized")}</p><p data-pagefind-meta="price">{e(p["price"])}</p>'
        f'<img data-pagefind-meta="image[src]" src="{e(p.get("imageUrl"))}"><p>{e(p.get("description"))}</p></main></body></html>')
PY
  /usr/bin/time -f "%e %M" python3 -m pagefind_bin --site "$site" --quiet >/dev/null 2>"$SHM/pf.txt"
  read -r psecs pkb < <(tail -1 "$SHM/pf.txt")
  echo "pagefind: index build ${psecs} s, peak $((pkb / 1024)) MB; $(find "$site/pagefind" -type f | wc -l) files, $(du -sb "$site/pagefind" | cut -f1) B"

  # 2-4. Queries: kind, query, filter, then ours and Pagefind's gzip bytes and counts, without and with facets.
  : >"$rows"
  for entry in "${PLAIN[@]/%/|}" "${FILTERED[@]}"; do
    q=${entry%%|*}; f=${entry#*|}
    kind=plain; [ -n "$f" ] && kind=filtered; [ -z "$q" ] && kind=browse
    fargs=(); [ -n "$f" ] && fargs=(--filter "$f")
    ours=$("$BIN" search "$out" "$q" "${fargs[@]}" --json | jq -r '"\(.gzipBytes)\t\(.total)\(if .partial then " (partial)" else "" end)"')
    oursf=$("$BIN" search "$out" "$q" "${fargs[@]}" --facets --json | jq -r '.gzipBytes')
    pf=$(node Benchmarks/search/pagefind-query.mjs "$site" "$q" ${f:+"$f"} | jq -r '"\(.gzip)\t\(.results)"')
    pff=$(node Benchmarks/search/pagefind-query.mjs "$site" "$q" --facets ${f:+"$f"} | jq -r '.gzip')
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$q" "$f" "$ours" "$oursf" "$pf" "$pff" >>"$rows"
  done
  python3 - "$rows" "$set" <<'PY'
import sys
rows, corpus = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])], sys.argv[2]
real = corpus == "real"
kb = lambda b: f"{b / 1000:.1f}"
def mark(v, bound): return f"**{kb(v)} ✗**" if v > bound else kb(v)
print("| query | filter | ours | Pagefind | ours + facets | Pagefind + filter counts | ours total | Pagefind results |")
print("|---|---|---|---|---|---|---|---|")
over = []
for kind, q, f, gz, total, gzf, pgz, presults, pgzf in rows:
    partial = total.endswith(" (partial)")
    gz, total, gzf, pgz, presults, pgzf = map(int, (gz, total.split()[0], gzf, pgz, presults, pgzf))
    name = " ".join(x for x in (q or "(browse)", f) if x)
    bound = 40_000 if kind == "browse" else 25_000
    facet_bound = 60_000 if real else pgzf
    if gz > bound: over.append(f"{name}: {kb(gz)} KB > {kb(bound)}")
    if gzf > facet_bound: over.append(f"{name} with facets: {kb(gzf)} KB > {kb(facet_bound)}" + ("" if real else " (Pagefind's)"))
    print(f"| {q or '(browse)'} | {f or '—'} | {mark(gz, bound)} | {kb(pgz)} | {mark(gzf, facet_bound)} | {kb(pgzf)} | {total:,}{' (partial)' if partial else ''} | {presults:,} |")
plain = [r for r in rows if r[0] == "plain"]
mean = lambda i: sum(int(r[i].split()[0]) for r in plain) / len(plain)
print(f"\nmean result count of the {len(plain)} plain queries: ours {mean(4):,.1f}, Pagefind {mean(7):,.1f}")
print("over a bound: " + ("; ".join(over) if over else "none"))
PY
done
