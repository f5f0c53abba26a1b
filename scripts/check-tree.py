#!/usr/bin/env python3
"""Checks a built tree with python-jsonschema, a validator this project did not write.

The tests use it as an outside judge beside `generator validate`: the two must agree on every tree.
It trusts only the published contract, never the generator's own report:

- update-manifest.json has currentVersion (string), forceUpdate (bool) and fileIndex, either a path or an
  object {path, sha256, size} whose hash and size match that file;
- the file index lists {path, sha256, size, schema} for every file of the tree except the manifest and the
  index itself, and nothing that is not there;
- every listed file has its size and SHA-256; every JSON file parses strictly (no duplicate member, no NaN
  or Infinity) and is valid against its schema, draft 2020-12. A schema is named by its path in the tree,
  or, for a file that is itself a schema, by the draft 2020-12 meta-schema URI;
- every schema the index names declares draft 2020-12 and is itself valid against the meta-schema.

Usage: scripts/check-tree.py TREE [--sample N]    (N: at most N files judged against each schema)
Prints one line per problem (the first 50), then "N passed, M failed".
Exit status: 0 when nothing failed, 1 otherwise, 2 when the arguments are wrong or jsonschema is missing.
"""
import argparse
import hashlib
import json
import os
import sys

try:
    from jsonschema import Draft202012Validator
except ImportError:
    print("python-jsonschema is not installed: scripts/test installs it (or: pip install jsonschema)")
    sys.exit(2)

META_SCHEMA = "https://json-schema.org/draft/2020-12/schema"
SHOWN = 50


class Judge:
    def __init__(self, root):
        self.root = root
        self.passed = 0
        self.failed = 0
        self.validators = {}

    def fail(self, message):
        self.failed += 1
        if self.failed <= SHOWN:
            print("FAIL", message)

    def read(self, rel):
        with open(os.path.join(self.root, rel), "rb") as f:
            return f.read()

    @staticmethod
    def parse(raw, rel):
        """Strict JSON: UTF-8, no duplicate member names, no NaN or Infinity."""
        def members(pairs):
            seen = set()
            for name, _ in pairs:
                if name in seen:
                    raise ValueError(f"{rel}: member {name!r} appears twice")
                seen.add(name)
            return dict(pairs)

        def refuse(constant):
            raise ValueError(f"{rel}: {constant} is not JSON")
        return json.loads(raw.decode("utf-8"), object_pairs_hook=members, parse_constant=refuse)

    def validator(self, schema_rel):
        if schema_rel not in self.validators:
            schema = self.parse(self.read(schema_rel), schema_rel)
            if schema.get("$schema") != META_SCHEMA:
                raise ValueError(f"{schema_rel}: $schema is not draft 2020-12")
            Draft202012Validator.check_schema(schema)
            self.validators[schema_rel] = Draft202012Validator(schema)
        return self.validators[schema_rel]

    def index(self):
        """The file index the manifest names: (its path, its entries by path)."""
        manifest = self.parse(self.read("update-manifest.json"), "update-manifest.json")
        if not isinstance(manifest.get("currentVersion"), str):
            raise ValueError("update-manifest.json: currentVersion is not a string")
        if not isinstance(manifest.get("forceUpdate"), bool):
            raise ValueError("update-manifest.json: forceUpdate is not a boolean")
        ref = manifest.get("fileIndex")
        rel = ref.get("path") if isinstance(ref, dict) else ref
        if not isinstance(rel, str):
            raise ValueError("update-manifest.json: fileIndex names no file")
        raw = self.read(rel)
        if isinstance(ref, dict):
            if ref.get("size") != len(raw):
                raise ValueError(f"update-manifest.json: fileIndex size {ref.get('size')} but {rel} has {len(raw)} bytes")
            if ref.get("sha256") != hashlib.sha256(raw).hexdigest():
                raise ValueError(f"update-manifest.json: fileIndex sha256 is not the sha256 of {rel}")
        entries = {}
        for entry in self.parse(raw, rel)["files"]:
            if entry["path"] in entries:
                raise ValueError(f"{rel}: {entry['path']} is listed twice")
            entries[entry["path"]] = entry
        return rel, entries

    def files_on_disk(self):
        found = set()
        for folder, _, names in os.walk(self.root):
            for name in names:
                found.add(os.path.relpath(os.path.join(folder, name), self.root).replace(os.sep, "/"))
        return found

    def judge_file(self, rel, entry, validate=True):
        raw = self.read(rel)
        problems = []
        if len(raw) != entry.get("size"):
            problems.append(f"{rel}: {len(raw)} bytes, the index says {entry.get('size')}")
        if hashlib.sha256(raw).hexdigest() != entry.get("sha256"):
            problems.append(f"{rel}: sha256 differs from the index")
        if rel.endswith(".json") and validate:
            schema = entry.get("schema")
            if not schema:
                problems.append(f"{rel}: a JSON file without a schema in the index")
            else:
                try:
                    document = self.parse(raw, rel)
                    if schema == META_SCHEMA:
                        validator = Draft202012Validator(Draft202012Validator.META_SCHEMA)
                    else:
                        validator = self.validator(schema)
                    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
                    if errors:
                        where = "/" + "/".join(str(p) for p in errors[0].absolute_path)
                        problems.append(f"{rel}: {len(errors)} schema error(s) against {schema}, first at {where}: "
                                        f"{errors[0].message[:160]}")
                except Exception as e:  # unreadable JSON or an invalid schema: a failure of this file
                    problems.append(f"{rel}: {e}"[:300])
        return problems

    def run(self, sample):
        try:
            index_rel, entries = self.index()
        except Exception as e:
            self.fail(f"manifest and file index: {e}")
            return
        on_disk = self.files_on_disk()
        for rel in sorted(on_disk - set(entries) - {"update-manifest.json", index_rel}):
            self.fail(f"{rel}: on disk but not in the file index")
        for rel in sorted(set(entries) - on_disk):
            self.fail(f"{rel}: in the file index but not on disk")
        judged_per_schema = {}
        for rel in sorted(set(entries) & on_disk):
            entry = entries[rel]
            schema = entry.get("schema")
            judged_per_schema[schema] = judged_per_schema.get(schema, 0) + 1
            validate = sample is None or not schema or judged_per_schema[schema] <= sample
            self.count(self.judge_file(rel, entry, validate))
        print(f"schemas used: {len(self.validators)}; files indexed: {len(entries)}")

    def count(self, problems):
        if problems:
            for p in problems:
                self.fail(p)
        else:
            self.passed += 1


def main():
    parser = argparse.ArgumentParser(description="Check a built tree with python-jsonschema.")
    parser.add_argument("tree")
    parser.add_argument("--sample", type=int, default=None, help="judge at most N files against each schema")
    args = parser.parse_args()
    if not os.path.isdir(args.tree):
        print(f"{args.tree}: not a folder")
        sys.exit(2)
    judge = Judge(os.path.abspath(args.tree))
    judge.run(args.sample)
    print(f"{judge.passed} passed, {judge.failed} failed")
    sys.exit(0 if judge.failed == 0 else 1)


if __name__ == "__main__":
    main()
