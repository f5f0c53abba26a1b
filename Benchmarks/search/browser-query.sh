#!/usr/bin/env bash
# Runs queries through a built tree's search/search.js in headless Chromium (Tests/Web/compare.html, each query on
# a fresh copy of the module, as a first query on a page) over a static server on 127.0.0.1, and prints for each the
# files the browser module downloaded: count, raw bytes and gzip -9 bytes, search.js itself included (measured as
# pagefind-query.mjs measures Pagefind's files). Usage: browser-query.sh TREE "query" ["query" …]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tree="$(cd "$1" && pwd)"; shift
site="$(mktemp -d /dev/shm/sjc-browser-query.XXXXXX)"
trap 'kill "$server" 2>/dev/null || true; rm -rf "$site"' EXIT
ln -s "$tree" "$site/tree"
cp "$here/../../Tests/Web/compare.html" "$site/"
python3 -c 'import json, sys; print(json.dumps({"folder": "search", "limit": 10, "cold": sys.argv[1:], "warm": []}))' "$@" > "$site/queries.json"
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$site" > "$site/server.log" 2>&1 &
server=$!
for _ in $(seq 50); do grep -q "port" "$site/server.log" && break; sleep 0.1; done
port=$(grep -o 'port [0-9]*' "$site/server.log" | cut -d' ' -f2)
chromium --headless=new --no-sandbox --disable-gpu --no-first-run --user-data-dir="$site/profile" --dump-dom \
  --virtual-time-budget=60000 "http://127.0.0.1:$port/compare.html" 2>/dev/null > "$site/dom.html"
python3 - "$site/dom.html" "$tree" "$@" <<'PY'
import gzip, html, json, re, sys
dom, tree, queries = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3:]
text = html.unescape(re.search(r'<pre id="out">(.*?)</pre>', dom, re.S).group(1))
assert text.startswith("RESULTS "), text[:500]
for q, answer in zip(queries, json.loads(text[len("RESULTS "):])):
    files = ["search/search.js"] + answer["files"]
    raw = gz = 0
    for f in files:
        b = open(f"{tree}/{f}", "rb").read()
        raw += len(b); gz += len(gzip.compress(b, 9))
    print(json.dumps({"query": q, "results": answer["total"], "files": len(files), "bytes": raw, "gzip": gz}))
PY
