#!/usr/bin/env bash
# Instructions executed by one catalog build (valgrind's callgrind, one worker thread): unlike seconds, the count is
# the same from run to run whatever else the machine is doing, so two commits can be compared on a busy machine.
# Usage: [ONLY=search] Benchmarks/catalog/instructions.sh [N=10000] [binary]   (needs valgrind; a 10k build takes
# about a minute)
# With a binary given, it is measured instead of this checkout's release build (e.g. an older commit's, to compare).
# ONLY=search counts the ranked index's unit alone (RankedSearchOutput.render) on a synth-names catalog of N products
# (names drawn from the real corpus, as Benchmarks/search uses; N=real: the real corpus). On one thread the index's
# parallel parts run on the unit's own stack, where callgrind counts them; before 920e71b they went to Dispatch's
# threads even then, so measure an older commit with this commit's Sources/Indexer/Chunks.swift.
# Not a test; the figure is a count, not a target. SHA-256 runs through a slower code path under valgrind (no SHA
# instructions), so hashing weighs more here than on the real CPU.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-10000}
command -v valgrind >/dev/null || { echo "valgrind not found (Debian: apt-get install valgrind)" >&2; exit 2; }
WORK=$(mktemp -d /dev/shm/sjc-instr.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if [ $# -ge 2 ]; then BIN=$2; else swift build -c release --product generator >/dev/null; BIN=$PWD/.build/release/generator; fi
# valgrind cannot read the Swift binary's DWARF; without it (symbols kept) it runs and names functions.
strip --strip-debug -o "$WORK/generator" "$BIN"
toggle=() what="catalog build"
if [ "${ONLY:-}" = search ]; then
  # The unit's function, as the optimiser specialised it (its name may end in a suffix).
  # shellcheck disable=SC2016  # (a literal `$`: Swift's mangled names start with it)
  unit=$(nm "$WORK/generator" | awk '{print $3}' | grep -E '^\$s9Generator18RankedSearchOutputV6renderySayAA0D4FileVGAA14CatalogContextCKF(Tf4nd_n)?$' | sort | tail -1)
  [ -n "$unit" ] || { echo "RankedSearchOutput.render not found in $BIN" >&2; exit 1; }
  toggle=(--toggle-collect="$unit") what="ranked index unit"
  if [ "$N" = real ]; then python3 Benchmarks/synth-catalog.py Tests/Data/catalog "$WORK/in" 4603 >/dev/null
  else python3 Benchmarks/synth-names.py Tests/Data/catalog "$WORK/in" "$N" >/dev/null; fi
else
  python3 Benchmarks/synth-catalog.py Tests/Data/catalog "$WORK/in" "$N" >/dev/null
fi
# hugetlb=0: the generator does not start itself again to ask for huge pages (valgrind would not follow it).
GLIBC_TUNABLES=glibc.malloc.hugetlb=0 SOURCE_DATE_EPOCH=1700000000 valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind.out" \
  "${toggle[@]}" "$WORK/generator" build --input "$WORK/in" --out "$WORK/out" --threads 1 >/dev/null 2>"$WORK/log" || { cat "$WORK/log"; exit 1; }
total=$(grep -o 'Collected : [0-9]*' "$WORK/log" | grep -o '[0-9]*$')
printf "%s, %s products, one thread: %'d instructions\n" "$what" "$N" "$total"
if [ -n "${TOP:-}" ]; then callgrind_annotate "$WORK/callgrind.out" 2>/dev/null | sed -n '/file:function/,$p' | head -"$((TOP + 2))"; fi
