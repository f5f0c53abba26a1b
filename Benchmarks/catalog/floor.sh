#!/usr/bin/env bash
# The kernel's share of a 100k build, measured alone, on /dev/shm and on disk. Not a test.
#  1. N folders with one file each (the size of an average product page), created by two threads from C.
#  2. With TREE (a tree built by `generator build`): every folder and file of TREE written again from memory by two
#     threads, and then also hashed with SHA-256 (when OpenSSL's headers are installed): what a build of that tree
#     would cost if reading, checking, rendering, validating and indexing were free.
# Usage: [N=100000] [SIZE=870] Benchmarks/catalog/floor.sh [TREE]      (needs: cc; for hashing: libssl-dev)
set -euo pipefail
TREE=${1:+$(realpath "$1")}
cd "$(dirname "$0")"
N=${N:-100000}; SIZE=${SIZE:-870}
WORK=$(mktemp -d)
DISK=$PWD/../../floor-out
trap 'rm -rf "$WORK" /dev/shm/sjc-floor "$DISK"' EXIT
cc -O2 -pthread floor.c -o "$WORK/floor"
cc -O2 -pthread replay.c -o "$WORK/replay"
hash=""
if [ -f /usr/include/openssl/sha.h ]; then
  cc -O2 -pthread -DWITH_SHA256 replay.c -o "$WORK/replay-sha256" -lcrypto && hash="$WORK/replay-sha256"
fi
for where in /dev/shm/sjc-floor "$DISK"; do
  rm -rf "$where"
  /usr/bin/time -f "$N folders + files of $SIZE bytes in $where: %e s wall, %U s user, %S s system" "$WORK/floor" "$where" "$N" "$SIZE"
  rm -rf "$where"
  [ -n "$TREE" ] || continue
  for replay in "$WORK/replay" $hash; do
    printf "%s into %s: " "$TREE" "$where"; "$replay" "$TREE" "$where"; rm -rf "$where"
  done
done
