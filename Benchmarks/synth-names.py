#!/usr/bin/env python3
"""Writes a deterministic synthetic catalog of N products whose names are drawn from the real corpus's vocabulary.

Usage: synth-names.py REAL_CATALOG_DIR OUT_INPUT_DIR N

Unlike synth-catalog.py (numbered copies of real products, whose repeated names compress far better than real
ones), every product here gets a new name: a walk over the word pairs of the real names of its group (its category,
or its brand when it has none), as long as a real name of that group. Brand, category, rating and stock come from a
real product; the price is that product's, moved by up to ±30 %. So words keep their real frequencies and
neighbours (search indexes and their downloads are realistic) while no two names repeat in a pattern gzip could use.
"""
import collections, json, os, random, sys

src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
real = [json.loads(l) for l in open(os.path.join(src, "products.jsonl"))]
rng = random.Random(20261127)

def group(p):
    return p.get("category") or ("brand:" + (p.get("brand") or ""))

# Word pairs per group: next[group][word] = words that follow it in a real name ("" starts and ends a name).
follow = collections.defaultdict(lambda: collections.defaultdict(list))
for p in real:
    words = p["name"].split()
    for a, b in zip([""] + words, words + [""]):
        follow[group(p)][a].append(b)

def name(template):
    g, length = follow[group(template)], len(template["name"].split())
    for _ in range(20):
        words, word = [], ""
        while len(words) < length + 3:
            word = rng.choice(g[word])
            if word == "":
                break
            words.append(word)
        if len(words) >= max(2, length - 2):
            return " ".join(words)
    return template["name"]

os.makedirs(os.path.join(out, "catalog"), exist_ok=True)
seen = set()
with open(os.path.join(out, "catalog", "products.jsonl"), "w") as f:
    for i in range(n):
        t = real[rng.randrange(len(real))]
        p = dict(t)
        p["itemId"] = f"S{i:07d}"
        p["name"] = name(t)
        p["description"] = p["name"]
        if p.get("price") is not None:
            p["price"] = round(p["price"] * rng.uniform(0.7, 1.3), 2)
        if isinstance(p.get("rating"), dict):
            r = dict(p["rating"])
            r["average"] = round(min(5, max(1, r["average"] + rng.uniform(-0.4, 0.4))), 4)
            p["rating"] = r
        f.write(json.dumps(p) + "\n")
with open(os.path.join(src, "categories.json")) as s, open(os.path.join(out, "catalog", "categories.json"), "w") as d:
    d.write(s.read())
site = {"siteName": "Synthetic names", "baseURL": "https://example.github.io/synthetic/", "appVersion": "1.0.0",
        "urlScheme": "synthetic", "catalog": {"fields": {"id": "itemId"}}}
with open(os.path.join(out, "site.json"), "w") as f:
    json.dump(site, f, indent=1)
