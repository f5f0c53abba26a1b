"""Independent recount of the NBA totals backtest, from the CSVs alone (README "NBA totals", Backtest).

Used by the Swift tests as an oracle: it shares no code with the generator. Walking forward through every game
with a closing total, it computes each team's figures from earlier games of its season, the model's exact over and
under probabilities at the closing and opening lines, a Platt calibration per date fitted (penalised maximum
likelihood, numpy Newton iterations to 1e-12) on every earlier decided game, the verdicts of raw and calibrated
probabilities, the bets they make at the line's odds, and the closing-line value of picks made at the opening line.

Usage: nba_backtest.py FOLDER [--rho R] [--ot-points P] [--prior L] [--dates D1,D2,...]
Prints JSON: {"periods": {SEASON or "overall": {"games", "pushes", "raw": E, "calibrated": E}}, "fits": {DATE: [a, b, n]}}
with E = {"brier", "log_loss", "bets": {"lean"|"strong"|"all": {...}}, "clv": {"lean"|"strong"|"all": {...}}}.
"""
import argparse, csv, json, math, statistics
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("folder")
ap.add_argument("--rho", type=float, default=0.2)
ap.add_argument("--ot-points", type=float, default=12.0)
ap.add_argument("--prior", type=float, default=10.0)
ap.add_argument("--dates", default="")
args = ap.parse_args()
P_OT, OT_SD, LEAN, STRONG = 0.06, 3.0, 3.0, 8.0

games = sorted(csv.DictReader(open(args.folder + "/games.csv", newline="")), key=lambda g: (g["game_date"], g["game_id"]))
closing, opening = {}, {}
for r in csv.DictReader(open(args.folder + "/lines.csv", newline="")):
    if r["is_closing"].lower() == "true":
        closing[r["game_id"]] = r
    else:
        opening.setdefault(r["game_id"], r)

def decimal(american):
    return 1 + 100 / -american if american < 0 else 1 + american / 100

def p_over(home, away, line):
    hm, am = (home[0] + away[1]) / 2, (away[0] + home[1]) / 2
    var = home[2] ** 2 + away[2] ** 2 + 2 * args.rho * home[2] * away[2]
    c = math.floor(line) + 0.5
    tail = lambda mean, sd: 0.5 * math.erfc((c - mean) / (sd * math.sqrt(2)))
    return (1 - P_OT) * tail(hm + am, math.sqrt(var)) + P_OT * tail(hm + am + args.ot_points, math.sqrt(var + OT_SD ** 2))

def over_under(home, away, line):
    return p_over(home, away, line), 1 - p_over(home, away, math.ceil(line) - 1)

# Team figures from earlier games of the same season: points for, against.
history = {}
def form(season, team):
    t = history.get((season, team))
    if not t:
        return (110.0, 110.0, 10.0)
    sd = max(8.0, statistics.stdev(t[0])) if len(t[0]) >= 2 else 10.0
    return (statistics.mean(t[0]), statistics.mean(t[1]), sd)

forecasts, pending, current = [], [], None
for g in games:
    if g["game_date"] != current:
        for p in pending:
            for team, pts, opp in [(p["home_team_id"], p["home_score"], p["away_score"]), (p["away_team_id"], p["away_score"], p["home_score"])]:
                t = history.setdefault((p["season"], team), ([], []))
                t[0].append(float(pts)); t[1].append(float(opp))
        pending, current = [], g["game_date"]
    pending.append(g)
    close = closing.get(g["game_id"])
    if not close:
        continue
    home, away = form(g["season"], g["home_team_id"]), form(g["season"], g["away_team_id"])
    f = {"season": g["season"], "date": g["game_date"], "total": int(g["home_score"]) + int(g["away_score"]),
         "close": float(close["total"]), "close_odds": (decimal(float(close["over_odds"])), decimal(float(close["under_odds"])))}
    f["p"] = over_under(home, away, f["close"])
    op = opening.get(g["game_id"])
    if op:
        f["open"] = float(op["total"])
        f["open_odds"] = (decimal(float(op["over_odds"])), decimal(float(op["under_odds"])))
        f["open_p"] = over_under(home, away, f["open"])
    forecasts.append(f)

def logit(q):
    q = min(max(q, 1e-6), 1 - 1e-6)
    return math.log(q / (1 - q))

def fit(x, y, start):
    a, b = start
    lam = args.prior
    for _ in range(200):
        p = 1 / (1 + np.exp(-(a * x + b)))
        w = p * (1 - p)
        ga, gb = float(np.sum((p - y) * x)) + lam * a, float(np.sum(p - y)) + lam * b
        haa, hab, hbb = float(np.sum(w * x * x)) + lam, float(np.sum(w * x)), float(np.sum(w)) + lam
        det = haa * hbb - hab * hab
        da, db = (hbb * ga - hab * gb) / det, (haa * gb - hab * ga) / det
        a, b = a - da, b - db
        if abs(da) < 1e-12 and abs(db) < 1e-12:
            break
    return a, b

def fits_for(dates):
    """Calibration per date, from every decided forecast dated before it."""
    out = {}
    for d in sorted(set(dates)):
        earlier = [f for f in forecasts if f["date"] < d and f["total"] != f["close"]]
        if not earlier:
            out[d] = (0.0, 0.0, 0); continue
        x = np.array([logit(f["p"][0] / (f["p"][0] + f["p"][1])) for f in earlier])
        y = np.array([1.0 if f["total"] > f["close"] else 0.0 for f in earlier])
        a, b = fit(x, y, (0.0, 0.0))
        out[d] = (a, b, len(earlier))
    return out

fits = fits_for([f["date"] for f in forecasts] + [d for d in args.dates.split(",") if d])

def calibrate(p, ab):
    over, under = p
    decided = over + under
    q = 1 / (1 + math.exp(-(ab[0] * logit(over / decided) + ab[1])))
    return q * decided, (1 - q) * decided

def verdict(p, odds):
    eo, eu = (p[0] - 1 / odds[0]) * 100, (p[1] - 1 / odds[1]) * 100
    side, e = ("OVER", eo) if eo >= eu else ("UNDER", eu)
    return ("STRONG" if e >= STRONG else "LEAN" if e >= LEAN else None), side

def empty():
    bets = lambda: {"bets": 0, "wins": 0, "losses": 0, "pushes": 0, "returns": [], "inverse_odds": []}
    clv = lambda: {"picks": 0, "toward": 0, "against": 0, "unchanged": 0, "points": []}
    return {"brier": 0.0, "log_loss": 0.0, "bets": {k: bets() for k in ("lean", "strong", "all")},
            "clv": {k: clv() for k in ("lean", "strong", "all")}}

periods = {}
for f in forecasts:
    ab = fits[f["date"]]
    probs = {"raw": (f["p"], f.get("open_p")),
             "calibrated": (calibrate(f["p"], ab), calibrate(f["open_p"], ab) if "open_p" in f else None)}
    for period in (f["season"], "overall"):
        r = periods.setdefault(period, {"games": 0, "pushes": 0, "raw": empty(), "calibrated": empty()})
        decided = f["total"] != f["close"]
        if decided:
            r["games"] += 1
        else:
            r["pushes"] += 1
        for kind, (p, open_p) in probs.items():
            e = r[kind]
            if decided:
                y = 1.0 if f["total"] > f["close"] else 0.0
                e["brier"] += (p[0] - y) ** 2
                pc = min(max(p[0], 1e-9), 1 - 1e-9)
                e["log_loss"] -= math.log(pc) if y == 1 else math.log(1 - pc)
            level, side = verdict(p, f["close_odds"])
            if level:
                d = f["close_odds"][0] if side == "OVER" else f["close_odds"][1]
                for k in (level.lower(), "all"):
                    b = e["bets"][k]
                    b["bets"] += 1
                    if not decided:
                        b["pushes"] += 1; b["returns"].append(0.0)
                    elif (f["total"] > f["close"]) == (side == "OVER"):
                        b["wins"] += 1; b["returns"].append(d - 1); b["inverse_odds"].append(1 / d)
                    else:
                        b["losses"] += 1; b["returns"].append(-1.0); b["inverse_odds"].append(1 / d)
            if open_p is not None:
                level, side = verdict(open_p, f["open_odds"])
                if level:
                    moved = f["close"] - f["open"] if side == "OVER" else f["open"] - f["close"]
                    for k in (level.lower(), "all"):
                        c = e["clv"][k]
                        c["picks"] += 1; c["points"].append(moved)
                        c["toward" if moved > 0 else "against" if moved < 0 else "unchanged"] += 1

def summary(b):
    n, decided = b["bets"], b["wins"] + b["losses"]
    out = {k: b[k] for k in ("bets", "wins", "losses", "pushes")}
    out["units"] = sum(b["returns"])
    out["hit_rate"] = b["wins"] / decided if decided else None
    out["roi"] = out["units"] / n if n else None
    if n >= 2:
        s = statistics.stdev(b["returns"])
        out["roi_ci_95"] = [out["roi"] - 1.96 * s / math.sqrt(n), out["roi"] + 1.96 * s / math.sqrt(n)]
    else:
        out["roi_ci_95"] = None
    out["break_even_hit_rate"] = statistics.mean(b["inverse_odds"]) if decided else None
    return out

for r in periods.values():
    for kind in ("raw", "calibrated"):
        e = r[kind]
        if r["games"]:
            e["brier"] /= r["games"]; e["log_loss"] /= r["games"]
        e["bets"] = {k: summary(b) for k, b in e["bets"].items()}
        e["clv"] = {k: {"picks": c["picks"], "toward": c["toward"], "against": c["against"], "unchanged": c["unchanged"],
                        "share_toward": c["toward"] / c["picks"] if c["picks"] else None,
                        "mean_points": statistics.mean(c["points"]) if c["picks"] else None} for k, c in e["clv"].items()}
print(json.dumps({"periods": periods, "fits": {d: list(v) for d, v in fits.items()}}))
