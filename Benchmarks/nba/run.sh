#!/usr/bin/env bash
# NBA benchmark: the four real seasons (../shared/data/nba) with 10,000 simulations per game and the backtest,
# built on /dev/shm; prints build time and peak memory, then the backtest figures of the configured model.
# Not a test (figures vary). Usage: Benchmarks/nba/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
SHM=/dev/shm/sjc-bench-nba
swift build -c release --product generator >/dev/null
rm -rf "$SHM"; mkdir -p "$SHM/in"
python3 - "$SHM/in/site.json" <<'PY'
import json, sys
s = json.load(open("input/site.json"))
for k in ("catalog", "auctions"): s.pop(k, None)
s["nba"] = {"folder": "nba", "simulations": 10000}
json.dump(s, open(sys.argv[1], "w"))
PY
mkdir "$SHM/in/nba" && cp ../shared/data/nba/*.csv "$SHM/in/nba/"   # copied: a link out of the input folder is refused
/usr/bin/time -f "%e %M" .build/release/generator build --input "$SHM/in" --out "$SHM/out" >/dev/null 2>"$SHM/time.txt"
read -r secs kb < <(tail -1 "$SHM/time.txt")
echo "four seasons, 4,301 games, 685 snapshot dates, 10,000 simulations per game, backtest with 9 variants: ${secs} s, peak $((kb / 1024)) MB"
python3 - "$SHM/out/nba/totals/backtest.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("| season | games | Brier | log loss | LEAN hit rate (bets) | STRONG hit rate (bets) | best grid Brier (ρ, OT points) |")
print("|---|---|---|---|---|---|---|")
for season, v in d["seasons"].items():
    c = v["configured"]
    best = min(v["grid"], key=lambda g: g["brier"])
    print(f"| {season} | {c['games']} | {c['brier']:.4f} | {c['log_loss']:.4f} | {c['lean']['hit_rate']} ({c['lean']['bets']}) | "
          f"{c['strong']['hit_rate']} ({c['strong']['bets']}) | {best['brier']:.4f} ({best['rho']}, {best['overtime_points']}) |")
PY
rm -rf "$SHM"
