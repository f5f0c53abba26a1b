#!/usr/bin/env python3
"""Checks a built tree's signatures with another Ed25519 implementation (Python's `cryptography`), as an outside judge
of the generator's signing: the chain of roots from a pinned root (each root signed by a threshold of the previous
root's keys and of its own, version one more), and update-manifest.json's DSSE envelope over the rest of the
manifest, by a threshold of the newest root's keys. Expiry is not judged (the tests build trees of any date).

usage: check-signature.py TREE PINNED_ROOT    prints one line per check, then "N passed, M failed"; exit 1 on a failure
"""
import base64, hashlib, json, os, sys
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.exceptions import InvalidSignature

ROOT_TYPE = "application/vnd.static-json-compiler.root+json"
RELEASE_TYPE = "application/vnd.static-json-compiler.release+json"
passed = failed = 0


def result(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {what}")
    else:
        failed += 1
        print(f"FAIL {what}")


def pae(payload_type, payload):
    t = payload_type.encode()
    return b"DSSEv1 %d %s %d %s" % (len(t), t, len(payload), payload)


def signers(envelope, keys):
    """Key ids of `keys` (id -> public key bytes) with a valid signature; each key counted once."""
    payload = base64.b64decode(envelope["payload"])
    message = pae(envelope["payloadType"], payload)
    valid = set()
    for s in envelope["signatures"]:
        for kid, raw in keys.items():
            if kid in valid:
                continue
            try:
                Ed25519PublicKey.from_public_bytes(raw).verify(base64.b64decode(s["sig"]), message)
                valid.add(kid)
                break
            except InvalidSignature:
                pass
    return valid


def root_keys(envelope):
    assert envelope["payloadType"] == ROOT_TYPE, "not a root envelope"
    body = json.loads(base64.b64decode(envelope["payload"]))
    keys = {}
    for k in body["keys"]:
        raw = base64.b64decode(k["publicKey"])
        assert hashlib.sha256(raw).hexdigest() == k["keyid"], "keyid is not the sha256 of the key"
        keys[k["keyid"]] = raw
    return body, keys


def main(tree, pinned_path):
    with open(pinned_path, "rb") as f:
        root_env = json.load(f)
    root, keys = root_keys(root_env)
    result(len(signers(root_env, keys)) >= root["threshold"], f"pinned root {root['version']} signs itself")
    while True:
        path = os.path.join(tree, "roots", f"{root['version'] + 1}.root.json")
        if not os.path.exists(path):
            break
        with open(path, "rb") as f:
            nxt_env = json.load(f)
        nxt, nxt_keys = root_keys(nxt_env)
        result(nxt["version"] == root["version"] + 1, f"root {nxt['version']} follows root {root['version']}")
        result(len(signers(nxt_env, keys)) >= root["threshold"], f"root {nxt['version']} signed by root {root['version']}'s threshold")
        result(len(signers(nxt_env, nxt_keys)) >= nxt["threshold"], f"root {nxt['version']} signed by its own threshold")
        root, keys = nxt, nxt_keys
    with open(os.path.join(tree, "update-manifest.json"), "rb") as f:
        manifest = json.load(f)
    env = manifest.get("signed")
    result(env is not None, "update-manifest.json carries a signature")
    if env is None:
        return
    result(env["payloadType"] == RELEASE_TYPE, "its envelope is a release's")
    body = json.loads(base64.b64decode(env["payload"]))
    plain = {k: v for k, v in manifest.items() if k != "signed"}
    result(body == plain, "the signed payload is the manifest without its signature")
    result(body.get("rootVersion") == root["version"], f"signed under root {root['version']}, the newest")
    n = len(signers(env, keys))
    result(n >= root["threshold"], f"{n} valid signature(s) by root {root['version']}'s keys (threshold {root['threshold']})")
    index = body["fileIndex"]
    with open(os.path.join(tree, index["path"]), "rb") as f:
        raw = f.read()
    result(hashlib.sha256(raw).hexdigest() == index["sha256"] and len(raw) == index["size"], "the file index is the one signed")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    try:
        main(sys.argv[1], sys.argv[2])
    except Exception as e:  # a malformed document is a failed check, named
        result(False, f"{type(e).__name__}: {e}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
