#!/usr/bin/env python3
"""Independent recount of feature-flag bucketing (no code shared with the generator or TreeClient).

Reads lines "<flag key>\t<unit id>" from the file given (UTF-8) and prints one bucket per line: the first four bytes
of SHA-256 of "<flag key>:<unit id>" as a big-endian unsigned integer, modulo 10,000.
"""
import hashlib
import sys

with open(sys.argv[1], encoding="utf-8") as f:
    out = []
    for line in f.read().split("\n"):
        if not line:
            continue
        flag, unit = line.split("\t", 1)
        digest = hashlib.sha256(f"{flag}:{unit}".encode("utf-8")).digest()
        out.append(str(int.from_bytes(digest[:4], "big") % 10000))
    sys.stdout.write("\n".join(out) + "\n")
