#!/usr/bin/env python3
"""Writes a deterministic synthetic catalog of N products derived from the real corpus.

Usage: synth-catalog.py SHARED_CATALOG_DIR OUT_INPUT_DIR N
Each synthetic product is a real one with a new id, a numbered name variant, a price nudged
deterministically and the same category, so category and brand structure stay realistic.

Above LARGE (100,000 products) site.json gets the settings of the Large catalogs article (Generator.docc): past about
115,000 products search-index.json is over GitHub Pages' 100 MB file limit, and past about 300,000 the tree is over
its 1 GB site limit, so the site targets object storage, leaves out the single-file seed search indexes and pages
category lists. Up to LARGE the site is the default (what the 100k figures in Benchmarks/README.md measure).
"""
import json, os, sys

LARGE = 100_000
LARGE_SETTINGS = {"target": "object-storage", "pageSize": 100}

src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
products = [json.loads(l) for l in open(os.path.join(src, "products.jsonl"))]
os.makedirs(os.path.join(out, "catalog"), exist_ok=True)
with open(os.path.join(out, "catalog", "products.jsonl"), "w") as f:
    for i in range(n):
        p = dict(products[i % len(products)])
        gen = i // len(products)
        if gen:
            p["itemId"] = f"{p['itemId']}-{gen}"
            p["name"] = f"{p['name']} (Series {gen})"
            if p.get("price") is not None:
                p["price"] = round(p["price"] * (1 + (gen % 7) / 100), 2)
        f.write(json.dumps(p) + "\n")
with open(os.path.join(src, "categories.json")) as s, open(os.path.join(out, "catalog", "categories.json"), "w") as d:
    d.write(s.read())
site = {"siteName": "Synthetic", "baseURL": "https://example.github.io/synthetic/", "appVersion": "1.0.0",
        "urlScheme": "synthetic", "catalog": {"fields": {"id": "itemId"}}}
if n > LARGE:
    site.update(LARGE_SETTINGS)
    site["catalog"]["seedIndexes"] = False
with open(os.path.join(out, "site.json"), "w") as f:
    json.dump(site, f, indent=1)
