#!/usr/bin/env bash
# NBA benchmark: the four real seasons (Tests/Data/nba) with 10,000 simulations per game and the backtest,
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
mkdir "$SHM/in/nba" && cp Tests/Data/nba/*.csv "$SHM/in/nba/"   # copied: a link out of the input folder is refused
/usr/bin/time -f "%e %M" .build/release/generator build --input "$SHM/in" --out "$SHM/out" >/dev/null 2>"$SHM/time.txt"
read -r secs kb < <(tail -1 "$SHM/time.txt")
echo "four seasons, 4,301 games, 685 snapshot dates, 10,000 simulations per game, backtest with 9 variants: ${secs} s, peak $((kb / 1024)) MB"
python3 - "$SHM/out/nba/totals/backtest.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def pct(x): return "–" if x is None else f"{x * 100:+.1f} %"
def bets(b):
    ci = b["roi_ci_95"]
    interval = f" [{ci[0] * 100:+.1f}, {ci[1] * 100:+.1f}]" if ci else ""
    return f"{b['wins']}–{b['losses']}–{b['pushes']}, {pct(b['roi'])}{interval}"
print("| season | games | Brier raw / calibrated (market 0.25) | LEAN raw: W–L–P, ROI [95 % CI] | STRONG raw: W–L–P, ROI [95 % CI] | "
      "calibrated verdicts: bets, ROI | CLV of raw picks: close moved toward, mean points |")
print("|---|---|---|---|---|---|---|")
rows = list(d["seasons"].items()) + [("all four", d["overall"])]
for season, v in rows:
    c = v["configured"]; r, k = c["raw"], c["calibrated"]
    clv = r["closing_line_value"]["all"]
    flag = " (flagged)" if v["flag"] else ""
    print(f"| {season} | {c['games']} | {r['brier']:.4f} / {k['brier']:.4f}{flag} | {bets(r['bets']['lean'])} | {bets(r['bets']['strong'])} | "
          f"{k['bets']['all']['bets']}, {pct(k['bets']['all']['roi'])} | {clv['share_toward'] * 100:.1f} % of {clv['picks']}, {clv['mean_points']:+.2f} |")
best = min(d["overall"]["grid"], key=lambda g: g["raw"]["brier"])
print(f"best raw grid variant overall: Brier {best['raw']['brier']:.4f} (ρ {best['rho']}, overtime points {best['overtime_points']})")
PY
rm -rf "$SHM"
