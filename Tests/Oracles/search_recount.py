#!/usr/bin/env python3
"""An independent recount of filtered search over the catalog's input files, for SearchRecountTests.

Usage: search_recount.py CATALOG_DIR REQUESTS.json
Reads products.jsonl and categories.json (the generator's input, nothing it wrote) and, for each request
{"words": [...], "filters": {field: [values]}, "sort": name}, prints {"total", "facets": {field: {value: count}},
"keys": first ten sort keys}. Shares no code with the generator: words are matched the way the Search article
defines analysis for plain ASCII words (lowercase; words split on anything but letters and digits, except that
/ - . stay inside a word with a digit and a hyphenated word also gives its parts; possessives and plurals stemmed),
each query word matching a product that has it or its stem. Only priced products are searchable.
Facets: brand (or "Unbranded"), category path (or "uncategorized"), price ranges between 25, 50, 100, 200, 500,
1000, rating at least 1-4, inStock.
"""
import json, math, re, sys, unicodedata

catalog, requests = sys.argv[1], json.load(open(sys.argv[2]))
EDGES = [25, 50, 100, 200, 500, 1000]
categories = {c["id"]: c for c in json.load(open(f"{catalog}/categories.json"))["categories"]}

def num(x):
    return str(int(x)) if float(x).is_integer() else repr(float(x))

def range_name(price):
    bounds = [None] + EDGES + [None]
    k = next((i for i, e in enumerate(EDGES) if price < e), len(EDGES))
    lo, hi = bounds[k], bounds[k + 1]
    return (num(lo) if lo is not None else "") + ".." + (num(hi) if hi is not None else "")

def stem(w):
    if w.endswith("'s"): w = w[:-2]
    elif w.endswith("'"): w = w[:-1]
    w = w.replace("'", "")
    if len(w) <= 3 or any(c.isdigit() for c in w): return w
    if w.endswith("ies") and len(w) > 4: return w[:-3] + "y"
    for s in ("sses", "xes", "zes", "ches", "shes"):
        if w.endswith(s): return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "us", "is")): return w[:-1]
    return w

def terms(text):
    text = fold(text).replace("\u2019", "'")
    out = set()
    for run in re.findall(r"[a-z0-9]+(?:[/\-.'][a-z0-9]+)*", text):
        pieces = [run] if re.search(r"[0-9]", run) else [p for p in re.split(r"[/.]", run) if p]
        for p in pieces:
            out.add(stem(p))
            parts = [q for q in p.split("-") if q]
            if len(parts) > 1: out.update(stem(q) for q in parts)
    return out

def fold(text):
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).lower()

# Brand spellings that differ only by case or accents are one brand, shown in its most common spelling (ties: the
# smaller), counted over every product (the Input article's policy).
raw = [json.loads(line) for line in open(f"{catalog}/products.jsonl")]
spellings = {}
for p in raw:
    if p.get("brand"): spellings.setdefault(fold(p["brand"]), {}).setdefault(p["brand"], 0); spellings[fold(p["brand"])][p["brand"]] += 1
shown = {k: sorted(v.items(), key=lambda e: (-e[1], e[0]))[0][0] for k, v in spellings.items()}

products = []
for p in raw:
    if p.get("price") is None: continue
    if p.get("brand"): p["brand"] = shown[fold(p["brand"])]
    cat = p.get("category")
    cname = categories[cat]["name"] if cat in categories else "Uncategorized"
    rating = (p.get("rating") or {}).get("average")
    products.append({
        "terms": terms(" ".join([p["name"], p.get("brand") or "Unbranded", cname, p.get("description") or ""])),
        "brand": p.get("brand") or "Unbranded", "category": cat or "uncategorized", "price": p["price"], "rating": rating,
        "inStock": "true" if p.get("inStock") else "false"})

def values(p, field):
    if field == "price": return [range_name(p["price"])]
    if field == "rating": return [] if p["rating"] is None else [num(t) for t in (1, 2, 3, 4) if p["rating"] >= t]
    return [p[field]]

def admits(p, field, wanted):
    if field == "price":
        have = p["price"]
        for w in wanted:
            lo, hi = w.split("..")
            if (lo == "" or have >= float(lo)) and (hi == "" or have < float(hi)): return True
        return False
    return any(v in wanted for v in values(p, field))

out = []
for r in requests:
    words = r["words"]
    hits = [p for p in products
            if all(w in p["terms"] or stem(w) in p["terms"] for w in words)
            and all(admits(p, f, vs) for f, vs in r["filters"].items())
            and (words or r["filters"])]
    facets = {}
    for field in ("brand", "category", "price", "rating", "inStock"):
        counts = {}
        for p in hits:
            for v in values(p, field): counts[v] = counts.get(v, 0) + 1
        facets[field] = counts
    sort = r.get("sort", "relevance")
    keys = []
    if sort in ("price", "price-desc"):
        keys = sorted((p["price"] for p in hits), reverse=sort == "price-desc")[:10]
    elif sort == "rating":
        keys = sorted((p["rating"] for p in hits if p["rating"] is not None), reverse=True)[:10]
    out.append({"total": len(hits), "facets": facets, "keys": keys})
print(json.dumps(out))
