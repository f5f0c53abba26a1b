#!/usr/bin/env python3
"""The code's shape, as CONTRIBUTING.md asks it: functions a screen long, unsafe code only in low-level files.

Usage: scripts/code-shape.py [--check] [--limit N] [FOLDER ...]   (default: Sources)

Prints every function (func, init, subscript) longer than the limit (80 lines, from its declaration to its closing
brace), then the lines that use unsafe Swift (`Unsafe…`, `withUnsafe…`, `Unmanaged`, `@unchecked`) per folder and
per 1,000 lines. With --check, exits 1 when a rule is broken:
- no function over 80 lines, except at most three dispatchers (a switch over cases) of at most 120;
- at most 6 unsafe lines per 1,000 lines of Sources;
- no unsafe line in the domain and release folders (Generator/Catalog, Auctions, NBA, Collections, Release,
  Pipeline, and TreeClient).
"""
import os, re, sys

UNSAFE = re.compile(r"Unsafe|withUnsafe|Unmanaged|@unchecked")
NO_UNSAFE = ["Sources/Generator/Catalog", "Sources/Generator/Auctions", "Sources/Generator/NBA", "Sources/Generator/Collections",
             "Sources/Generator/Release", "Sources/Generator/Pipeline", "Sources/TreeClient"]
DECL = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|open|static|final|override|mutating|"
                  r"nonmutating|nonisolated|convenience|required|class)\s+)*(func\s+[^\s(<]+|init[?!]?|subscript)\s*[(<]")


def code_only(lines):
    """The lines with string literals and comments blanked (braces in them must not count)."""
    out, in_string, in_comment = [], False, False
    for line in lines:
        text, i = "", 0
        while i < len(line):
            if in_string:
                j = line.find('"""', i)
                if j < 0: break
                in_string, i = False, j + 3
                continue
            if in_comment:
                j = line.find("*/", i)
                if j < 0: break
                in_comment, i = False, j + 2
                continue
            if line.startswith("//", i): break
            if line.startswith("/*", i): in_comment, i = True, i + 2; continue
            if line.startswith('"""', i) or line.startswith('#"""', i):
                in_string, i = True, i + (3 if line[i] == '"' else 4)
                continue
            if line[i] == '"' or line.startswith('#"', i):
                raw = line[i] == "#"
                i += 2 if raw else 1
                while i < len(line):
                    if not raw and line[i] == "\\": i += 2; continue
                    if line[i] == '"' and (not raw or line.startswith('"#', i)): i += 2 if raw else 1; break
                    i += 1
                text += '""'
                continue
            text += line[i]
            i += 1
        out.append(text)
    return out


def functions(path):
    """(name, first line, length, is a dispatcher) of every function with a body in a Swift file."""
    lines = code_only(open(path, encoding="utf-8").read().split("\n"))
    found = []
    for i, line in enumerate(lines):
        m = DECL.match(line)
        if not m: continue
        depth, paren, start, j, end = 0, 0, False, i, None
        while j < len(lines) and end is None:
            for ch in lines[j]:
                if not start:
                    if ch in "([": paren += 1
                    elif ch in ")]": paren -= 1
                    elif ch == "{" and paren == 0: depth, start = 1, True
                    continue
                if ch == "{": depth += 1
                elif ch == "}":
                    depth -= 1
                    if depth == 0: end = j; break
            if end is not None or start: j += 1; continue
            if paren == 0:   # a declaration without a body, unless the next line goes on with it
                k = j + 1
                while k < len(lines) and not lines[k].strip(): k += 1
                if k >= len(lines) or not re.match(r"(\{|->|throws|rethrows|where|async)", lines[k].strip()): break
            j += 1
        if end is None: continue
        body = lines[i:end + 1]
        dispatcher = sum(1 for l in body if re.match(r"\s*case\b", l)) >= 8
        found.append((m.group(1), i + 1, end - i + 1, dispatcher))
    return found


def main():
    args = sys.argv[1:]
    check = "--check" in args
    limit = 80
    if "--limit" in args:
        k = args.index("--limit"); limit = int(args[k + 1]); del args[k:k + 2]
    folders = [a for a in args if not a.startswith("--")] or ["Sources"]
    files = sorted(os.path.join(d, f) for folder in folders for d, _, fs in os.walk(folder) for f in fs if f.endswith(".swift"))
    long = [(n, p, line, name, disp) for p in files for name, line, n, disp in functions(p) if n > limit]
    for n, p, line, name, disp in sorted(long, reverse=True):
        print(f"{n:4d} {p}:{line} {name}" + (" (dispatcher)" if disp else ""))
    total = unsafe = 0
    per_folder = {}
    for p in files:
        lines = open(p, encoding="utf-8").read().split("\n")
        total += len(lines)
        hits = [l for l in code_only(lines) if UNSAFE.search(l)]
        unsafe += len(hits)
        if hits: per_folder[os.path.dirname(p)] = per_folder.get(os.path.dirname(p), 0) + len(hits)
    for folder, n in sorted(per_folder.items(), key=lambda x: -x[1]):
        print(f"unsafe {n:4d} {folder}")
    rate = 1000 * unsafe / max(total, 1)
    print(f"{len(long)} functions over {limit} lines; {unsafe} unsafe lines in {total} ({rate:.1f} per 1,000)")
    if not check: return
    problems = []
    dispatchers = [x for x in long if x[4] and x[0] <= 120]
    if len(long) - min(len(dispatchers), 3) > 0:
        problems.append(f"{len(long)} functions over {limit} lines (at most 3 dispatchers of at most 120 allowed)")
    if rate > 6: problems.append(f"{rate:.1f} unsafe lines per 1,000 (at most 6)")
    for folder, n in per_folder.items():
        if any(folder == f or folder.startswith(f + "/") for f in NO_UNSAFE):
            problems.append(f"{folder}: {n} unsafe lines (none allowed)")
    for p in problems: print("FAIL", p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
