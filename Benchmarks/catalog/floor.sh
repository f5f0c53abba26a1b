#!/usr/bin/env bash
# The kernel's share of a 100k build, measured alone: N folders with one file each (the size of an average product
# page), created by two threads from C with no other work, on /dev/shm and on disk. Not a test.
# Usage: Benchmarks/catalog/floor.sh [N=100000] [SIZE=870]      (needs: cc)
set -euo pipefail
cd "$(dirname "$0")"
N=${1:-100000}; SIZE=${2:-870}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK" /dev/shm/sjc-floor "$PWD/../../floor-out"' EXIT
cc -O2 -pthread floor.c -o "$WORK/floor"
for where in /dev/shm/sjc-floor "$PWD/../../floor-out"; do
  rm -rf "$where"
  /usr/bin/time -f "$N folders + files of $SIZE bytes in $where: %e s wall, %U s user, %S s system" "$WORK/floor" "$where" "$N" "$SIZE"
done
