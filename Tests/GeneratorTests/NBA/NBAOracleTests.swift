import XCTest
import Foundation
@testable import Generator
import Schemas
import TestTools

/// NBA totals figures against values computed outside the code: Python (`math.erfc`, its own CSV reading and
/// statistics) and Foundation's `erfc` (the C library's, independent of our DetMath). Every model parameter the
/// oracles use is stated here, from the NBA totals article — so a changed default fails a test instead of moving the
/// code and its check together.
final class NBAOracleTests: XCTestCase {
    // The NBA totals article: the documented defaults.
    static let simulations = 10_000, rho = 0.2, overtimeProbability = 0.06, overtimePoints = 12.0, overtimeSD = 3.0
    static let scoreFloor = 70.0, strongEdge = 8.0, leanEdge = 3.0, kellyFraction = 0.25, kellyCap = 0.05

    /// The documented defaults, as the code holds them and as a site.json without an `nba` section reads them.
    func testDocumentedDefaults() throws {
        let input = TestSupport.makeInput(files: [:])   // its site.json has no "nba"
        let site = try SiteConfig.load(input.appendingPathComponent("site.json"), displayName: "site.json")
        for s in [NBASettings(), try NBASettings.read(site, file: "site.json")] {
            XCTAssertEqual(s.simulations, Self.simulations)
            XCTAssertEqual(s.rho, Self.rho)
            XCTAssertEqual(s.overtimeProbability, Self.overtimeProbability)
            XCTAssertEqual(s.overtimeMean, Self.overtimePoints)
            XCTAssertEqual(s.overtimeSD, Self.overtimeSD)
            XCTAssertEqual(s.scoreFloor, Self.scoreFloor)
            XCTAssertEqual(s.strongEdge, Self.strongEdge)
            XCTAssertEqual(s.leanEdge, Self.leanEdge)
            XCTAssertEqual(s.kellyFraction, Self.kellyFraction)
            XCTAssertEqual(s.kellyCap, Self.kellyCap)
            XCTAssertEqual(s.gridRho, [0, 0.2, 0.3, 0.5])
            XCTAssertEqual(s.gridOvertimePoints, [12, 22])
        }
        XCTAssertEqual(TeamForm.defaultPpg, 110); XCTAssertEqual(TeamForm.defaultSD, 10); XCTAssertEqual(TeamForm.sdFloor, 8)
    }

    // MARK: the exact probability

    /// (home mean, away mean, home sd, away sd, line)
    static let cases: [(Double, Double, Double, Double, Double)] = [
        (112, 108, 11, 12, 220.5), (112, 108, 11, 12, 220), (105.5, 101.25, 8, 8, 199.5), (118, 115, 14.5, 9.2, 240.5),
        (110, 110, 10, 10, 180), (110, 110, 10, 10, 260), (99, 121, 13, 8.5, 221.5), (115.3, 109.8, 12.7, 11.1, 231),
    ]

    /// p_over_exact = (1−p)·P(N(μ, σ²) ≥ ⌊line⌋+½) + p·P(N(μ+12, σ²+9) ≥ ⌊line⌋+½), σ² = σh² + σa² + 2ρσhσa, by
    /// Python's math.erfc.
    static let exactScript = #"""
    import json, math, sys
    rho, p, otm, otsd = 0.2, 0.06, 12.0, 3.0
    out = []
    for hm, am, hs, as_, line in json.loads(sys.argv[1]):
        var = hs * hs + as_ * as_ + 2 * rho * hs * as_
        c = math.floor(line) + 0.5
        tail = lambda mean, sd: 0.5 * math.erfc((c - mean) / (sd * math.sqrt(2)))
        out.append((1 - p) * tail(hm + am, math.sqrt(var)) + p * tail(hm + am + otm, math.sqrt(var + otsd * otsd)))
    print(json.dumps(out))
    """#

    func pythonExact(_ cases: [(Double, Double, Double, Double, Double)]) throws -> [Double] {
        let arg = "[" + cases.map { "[\($0.0),\($0.1),\($0.2),\($0.3),\($0.4)]" }.joined(separator: ",") + "]"
        let r = try TestSupport.run(["python3", "-c", Self.exactScript, arg])
        XCTAssertEqual(r.status, 0, r.output)
        return try XCTUnwrap(JSONReader.parse(r.output).arrayValue).map { $0.doubleValue! }
    }

    func testExactProbabilityAgainstPythonErfc() throws {
        let model = TotalsModel(s: NBASettings())
        let expected = try pythonExact(Self.cases)
        XCTAssertEqual(expected.count, Self.cases.count)
        for (c, e) in zip(Self.cases, expected) {
            let p = TotalsModel.Projection(homeMean: c.0, awayMean: c.1, homeSD: c.2, awaySD: c.3)
            XCTAssertEqual(model.exactOver(p, line: c.4), e, accuracy: 1e-11, "\(c)")
        }
        // Sanity of the cases themselves: both tails and the middle.
        XCTAssertLessThan(expected[5], 0.01); XCTAssertGreaterThan(expected[4], 0.99)
    }

    /// The same closed form with Foundation's erfc (libm), in Swift, but without DetMath.
    func testExactProbabilityAgainstLibmErfc() {
        let model = TotalsModel(s: NBASettings())
        for c in Self.cases {
            let variance = c.2 * c.2 + c.3 * c.3 + 2 * Self.rho * c.2 * c.3
            let cut = c.4.rounded(.down) + 0.5
            func tail(_ mean: Double, _ sd: Double) -> Double { 0.5 * Foundation.erfc((cut - mean) / (sd * 2.0.squareRoot())) }
            let e = (1 - Self.overtimeProbability) * tail(c.0 + c.1, variance.squareRoot())
                + Self.overtimeProbability * tail(c.0 + c.1 + Self.overtimePoints, (variance + Self.overtimeSD * Self.overtimeSD).squareRoot())
            let p = TotalsModel.Projection(homeMean: c.0, awayMean: c.1, homeSD: c.2, awaySD: c.3)
            XCTAssertEqual(model.exactOver(p, line: c.4), e, accuracy: 1e-11, "\(c)")
        }
    }

    // MARK: Monte Carlo

    /// 200,000 draws of the default model against the Python closed form (the 70-point floor is 3.5+ standard
    /// deviations below every mean here, far too rare to move p_over): p_over, p_push, the share of overtime games
    /// and the mean, each within 4.5 standard errors.
    func testMonteCarloAgainstTheClosedForm() throws {
        var s = NBASettings()
        s.simulations = 200_000
        let model = TotalsModel(s: s)
        let cases = [Self.cases[0], Self.cases[2], Self.cases[3], Self.cases[7]]
        let lines = cases.flatMap { c in [c, (c.0, c.1, c.2, c.3, c.4.rounded(.down) - 1)] }
        let exact = try pythonExact(lines)
        let n = Double(s.simulations)
        for (k, c) in cases.enumerated() {
            let p = TotalsModel.Projection(homeMean: c.0, awayMean: c.1, homeSD: c.2, awaySD: c.3)
            let sim = model.simulate(p, line: c.4, seed: 12345 + UInt64(k))
            let over = exact[2 * k]
            XCTAssertEqual(sim.pOver, over, accuracy: 4.5 * (over * (1 - over) / n).squareRoot(), "p_over \(c)")
            if c.4 == c.4.rounded() {
                // P(total rounds to the line) = P(over line − 1) − P(over line).
                let push = exact[2 * k + 1] - over
                XCTAssertEqual(sim.pPush, push, accuracy: 4.5 * (push * (1 - push) / n).squareRoot(), "p_push \(c)")
            } else { XCTAssertEqual(sim.pPush, 0) }
            let ot = Self.overtimeProbability
            XCTAssertEqual(sim.otPct, ot, accuracy: 4.5 * (ot * (1 - ot) / n).squareRoot(), "overtime share \(c)")
            let variance = c.2 * c.2 + c.3 * c.3 + 2 * Self.rho * c.2 * c.3
            let totalVariance = variance + ot * Self.overtimeSD * Self.overtimeSD + ot * (1 - ot) * Self.overtimePoints * Self.overtimePoints
            XCTAssertEqual(sim.mean, c.0 + c.1 + ot * Self.overtimePoints, accuracy: 4.5 * (totalVariance / n).squareRoot(), "mean \(c)")
            XCTAssertEqual(sim.sd, (totalVariance + 1.0 / 12).squareRoot(), accuracy: 0.02 * totalVariance.squareRoot(), "sd \(c)")
        }
    }

    // MARK: betting figures

    /// ev, edge, Kelly, recommended bet and verdict for a table of probabilities and American odds, by Python.
    func testBettingMetricsAgainstPython() throws {
        let table: [(Double, Double, Double, Double)] = [   // p over, p under, over odds, under odds (American)
            (0.6, 0.4, -110, -110), (0.4, 0.6, -110, -110), (0.52, 0.48, -105, -115), (0.5, 0.49, 120, -140),
            (0.75, 0.25, -110, -110), (0.25, 0.75, -110, -110), (0.45, 0.45, 150, 150), (0.55, 0.44, -200, 170),
            (0.5238, 0.4762, -110, -110), (0.49, 0.49, -110, -110), (0.58, 0.41, -110, -110), (0.3, 0.69, 100, -125),
        ]
        let script = #"""
        import json, sys
        frac, cap, strong, lean = 0.25, 0.05, 8.0, 3.0
        def dec(a): return 1 + 100 / -a if a < 0 else 1 + a / 100
        out = []
        for po, pu, ao, au in json.loads(sys.argv[1]):
            do, du = dec(ao), dec(au)
            ev = lambda p, d: (p * (d - 1) - (1 - p)) * 100
            edge = lambda p, d: (p - 1 / d) * 100
            kelly = lambda p, d: min(frac * max(0.0, (p * d - 1) / (d - 1)), cap) * 100
            eo, eu, go, gu = ev(po, do), ev(pu, du), edge(po, do), edge(pu, du)
            rec = "OVER" if eo > 0 and eo >= eu else ("UNDER" if eu > 0 else "NONE")
            side, e = ("OVER", go) if go >= gu else ("UNDER", gu)
            verdict = "STRONG_" + side if e >= strong else ("LEAN_" + side if e >= lean else "NEUTRAL")
            out.append({"d": [do, du], "ev": [eo, eu], "edge": [go, gu], "kelly": [kelly(po, do), kelly(pu, du)], "rec": rec, "verdict": verdict})
        print(json.dumps(out))
        """#
        let arg = "[" + table.map { "[\($0.0),\($0.1),\($0.2),\($0.3)]" }.joined(separator: ",") + "]"
        let r = try TestSupport.run(["python3", "-c", script, arg])
        XCTAssertEqual(r.status, 0, r.output)
        let expected = try XCTUnwrap(JSONReader.parse(r.output).arrayValue)
        let model = TotalsModel(s: NBASettings())
        var verdicts = Set<String>(), recs = Set<String>()
        for (t, e) in zip(table, expected) {
            let d = (TotalsModel.decimalOdds(t.2), TotalsModel.decimalOdds(t.3))
            func num(_ k: String, _ i: Int) -> Double { e[k]![i]!.doubleValue! }
            XCTAssertEqual(d.0, num("d", 0), accuracy: 1e-12); XCTAssertEqual(d.1, num("d", 1), accuracy: 1e-12)
            let m = model.metrics(pOver: t.0, pUnder: t.1, overOdds: d.0, underOdds: d.1)
            let label = "\(t)"
            XCTAssertEqual(m.evOver, num("ev", 0), accuracy: 1e-9, label); XCTAssertEqual(m.evUnder, num("ev", 1), accuracy: 1e-9, label)
            XCTAssertEqual(m.edgeOver, num("edge", 0), accuracy: 1e-9, label); XCTAssertEqual(m.edgeUnder, num("edge", 1), accuracy: 1e-9, label)
            XCTAssertEqual(m.kellyOver, num("kelly", 0), accuracy: 1e-9, label); XCTAssertEqual(m.kellyUnder, num("kelly", 1), accuracy: 1e-9, label)
            XCTAssertEqual(m.recommended, e["rec"]?.stringValue, label)
            XCTAssertEqual(m.verdict, e["verdict"]?.stringValue, label)
            verdicts.insert(m.verdict); recs.insert(m.recommended)
        }
        // The table reaches every verdict and recommendation, and the Kelly cap (0.75 at −110: full Kelly 0.475).
        XCTAssertEqual(verdicts, ["STRONG_OVER", "LEAN_OVER", "NEUTRAL", "LEAN_UNDER", "STRONG_UNDER"])
        XCTAssertEqual(recs, ["OVER", "UNDER", "NONE"])
        XCTAssertEqual(model.metrics(pOver: 0.75, pUnder: 0.25, overOdds: TotalsModel.decimalOdds(-110), underOdds: TotalsModel.decimalOdds(-110)).kellyOver, 5)
    }

    /// The NBA totals article: "−110 → 1.9091"; verdicts at and just below each edge threshold (8 strong, 3 lean), both sides.
    func testOddsAndVerdictThresholdsByHand() {
        XCTAssertEqual((TotalsModel.decimalOdds(-110) * 10_000).rounded() / 10_000, 1.9091)
        XCTAssertEqual(TotalsModel.decimalOdds(+150), 2.5)
        XCTAssertEqual(TotalsModel.decimalOdds(-200), 1.5)
        let model = TotalsModel(s: NBASettings())
        let cases: [(Double, Double, String)] = [
            (8, 0, "STRONG_OVER"), (7.999, 0, "LEAN_OVER"), (3, 0, "LEAN_OVER"), (2.999, 0, "NEUTRAL"),
            (0, 8, "STRONG_UNDER"), (0, 7.999, "LEAN_UNDER"), (-1, 3, "LEAN_UNDER"), (-1, 2.999, "NEUTRAL"),
            (9, 9, "STRONG_OVER"), (-5, -5, "NEUTRAL"), (2, 8.5, "STRONG_UNDER"),
        ]
        for (o, u, v) in cases { XCTAssertEqual(model.verdict(edgeOver: o, edgeUnder: u), v, "\(o), \(u)") }
    }

    // MARK: the published snapshots

    /// The default input's three weeks of 2022-23, built with the defaults: every game's team figures, projection and
    /// p_over_exact against an independent Python computation from games.csv and lines.csv; its Monte Carlo p_over
    /// within 4.5 standard errors of that, its overtime share within 4.5 of 0.06; the calibrated probabilities against
    /// the recount's walk-forward calibration (`Tests/Oracles/nba_backtest.py`); ev, edge and Kelly recomputed from the
    /// published calibrated probabilities; verdicts from the edges.
    func testPublishedSnapshotsAgainstPython() throws {
        try Tool.require(.python3, .numpy)
        let input = TestSupport.makeInput(site: { s in
            s.removeValue(forKey: "catalog")
            s["nba"] = ["folder": "nba", "backtest": false]
        }, files: [:])
        try FileManager.default.createDirectory(at: input.appendingPathComponent("nba"), withIntermediateDirectories: true)
        for f in ["teams.csv", "games.csv", "lines.csv"] {
            try FileManager.default.copyItem(at: TestSupport.defaultInput.appendingPathComponent("nba/\(f)"), to: input.appendingPathComponent("nba/\(f)"))
        }
        let out = TestSupport.tempDir("nba-oracle").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000))

        let script = #"""
        import csv, json, math, statistics, sys
        rho, p_ot, otm, otsd = 0.2, 0.06, 12.0, 3.0
        folder = sys.argv[1]
        games = list(csv.DictReader(open(folder + "/games.csv", newline="")))
        closing = {r["game_id"]: r for r in csv.DictReader(open(folder + "/lines.csv", newline="")) if r["is_closing"].lower() == "true"}
        def form(team, season, date):
            pts, opp = [], []
            for g in games:
                if g["season"] != season or g["game_date"] >= date: continue
                if g["home_team_id"] == team: pts.append(float(g["home_score"])); opp.append(float(g["away_score"]))
                if g["away_team_id"] == team: pts.append(float(g["away_score"])); opp.append(float(g["home_score"]))
            if not pts: return 0, 110.0, 110.0, 10.0
            sd = max(8.0, statistics.stdev(pts)) if len(pts) >= 2 else 10.0
            return len(pts), sum(pts) / len(pts), sum(opp) / len(opp), sd
        out = {}
        for date in sorted({g["game_date"] for g in games if g["game_id"] in closing}):
            for g in games:
                if g["game_date"] != date: continue
                h, a = form(g["home_team_id"], g["season"], date), form(g["away_team_id"], g["season"], date)
                hm, am = (h[1] + a[2]) / 2, (a[1] + h[2]) / 2
                e = {"home": h, "away": a, "projected": hm + am}
                line = closing.get(g["game_id"])
                if line:
                    var = h[3] ** 2 + a[3] ** 2 + 2 * rho * h[3] * a[3]
                    c = math.floor(float(line["total"])) + 0.5
                    tail = lambda mean, sd: 0.5 * math.erfc((c - mean) / (sd * math.sqrt(2)))
                    e["exact"] = (1 - p_ot) * tail(hm + am, math.sqrt(var)) + p_ot * tail(hm + am + otm, math.sqrt(var + otsd ** 2))
                    e["line"] = float(line["total"]); e["odds"] = [float(line["over_odds"]), float(line["under_odds"])]
                out[date + "/" + g["game_id"]] = e
        print(json.dumps(out))
        """#
        let r = try TestSupport.run(["python3", "-c", script, TestSupport.defaultInput.appendingPathComponent("nba").path])
        XCTAssertEqual(r.status, 0, r.output)
        let expected = try JSONReader.parse(r.output)
        let fits = try XCTUnwrap(NBABacktestTests.recount(TestSupport.defaultInput.appendingPathComponent("nba"))["fits"])
        let snapshots = try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("nba/totals").path)
            .filter { $0.hasPrefix("20") }.sorted()
        XCTAssertEqual(snapshots.count, expected.objectValue.map { Set($0.keys.map { String($0.prefix(10)) }).count })
        var games = 0, withLine = 0, problems: [String] = []
        func near(_ a: Double?, _ b: Double?, _ tol: Double, _ what: String, _ id: String) {
            guard let a, let b, abs(a - b) <= tol else { return problems.append("\(id) \(what): \(a.map { "\($0)" } ?? "nil") vs \(b.map { "\($0)" } ?? "nil")") }
        }
        let n = Double(Self.simulations)
        for file in snapshots {
            let snap = try JSONReader.parse(Data(contentsOf: out.appendingPathComponent("nba/totals/\(file)")))
            XCTAssertEqual(snap["n_simulations"]?.intValue, Self.simulations)
            for g in snap["games"]?.arrayValue ?? [] {
                let id = "\(file.prefix(10))/\(g["game_id"]!.stringValue!)"
                guard let e = expected[id] else { problems.append("\(id): not in the oracle"); continue }
                games += 1
                for (side, k) in [("home", "home"), ("away", "away")] {
                    XCTAssertEqual(g["\(side)_games"]?.intValue, e[k]?[0]?.intValue, id)
                    near(g["\(side)_ppg"]?.doubleValue, e[k]?[1]?.doubleValue, 0.005 + 1e-9, "\(side)_ppg", id)
                    near(g["\(side)_opp_ppg"]?.doubleValue, e[k]?[2]?.doubleValue, 0.005 + 1e-9, "\(side)_opp_ppg", id)
                    near(g["\(side)_std"]?.doubleValue, e[k]?[3]?.doubleValue, 0.005 + 1e-9, "\(side)_std", id)
                }
                near(g["projected"]?.doubleValue, e["projected"]?.doubleValue, 0.005 + 1e-9, "projected", id)
                guard let exact = e["exact"]?.doubleValue else {
                    XCTAssertEqual(g["verdict"], "NO_LINE", id); continue
                }
                withLine += 1
                near(g["p_over_exact"]?.doubleValue, exact, 0.00005 + 1e-9, "p_over_exact", id)
                let mc = try XCTUnwrap(g["monte_carlo"], id)
                let mcOver = mc["p_over"]!.doubleValue!, mcUnder = mc["p_under"]!.doubleValue!
                // Calibrated: the recount's fit for the date (earlier games only) applied to the published Monte Carlo
                // probabilities, the push kept; 4-place inputs move the result by at most ~1e-4.
                let fit = try XCTUnwrap(fits[String(file.prefix(10))]?.arrayValue?.compactMap(\.doubleValue), id)
                let decided = mcOver + mcUnder, q = min(max(mcOver / decided, 1e-6), 1 - 1e-6)
                let calibrated = decided / (1 + Foundation.exp(-(fit[0] * Foundation.log(q / (1 - q)) + fit[1])))
                near(mc["p_over_calibrated"]?.doubleValue, calibrated, 0.0003, "p_over_calibrated", id)
                near(mc["p_under_calibrated"]?.doubleValue, decided - calibrated, 0.0003, "p_under_calibrated", id)
                // Edge, EV, Kelly and the verdict use the calibrated probabilities (the default).
                let pOver = mc["p_over_calibrated"]!.doubleValue!, pUnder = mc["p_under_calibrated"]!.doubleValue!
                near(mcOver, exact, 4.5 * (exact * (1 - exact) / n).squareRoot() + 0.00005, "MC p_over vs exact", id)
                near(mc["ot_games_pct"]?.doubleValue, Self.overtimeProbability,
                     4.5 * (Self.overtimeProbability * (1 - Self.overtimeProbability) / n).squareRoot() + 0.00005, "overtime share", id)
                // Betting figures from the published (4-place) probabilities: ev and edge move by at most
                // 0.00005·d·100 < 0.01, Kelly by less, plus the 2-place rounding.
                let odds = e["odds"]!.arrayValue!.map { $0.doubleValue! }
                let d = odds.map { $0 < 0 ? 1 + 100 / -$0 : 1 + $0 / 100 }
                near(g["over_odds"]?.doubleValue, d[0], 0.00005 + 1e-9, "over_odds", id)
                let ev = g["ev_metrics"]!
                let evo = (pOver * (d[0] - 1) - (1 - pOver)) * 100, evu = (pUnder * (d[1] - 1) - (1 - pUnder)) * 100
                let edo = (pOver - 1 / d[0]) * 100, edu = (pUnder - 1 / d[1]) * 100
                near(ev["ev_over"]?.doubleValue, evo, 0.016, "ev_over", id); near(ev["ev_under"]?.doubleValue, evu, 0.016, "ev_under", id)
                near(ev["edge_over"]?.doubleValue, edo, 0.011, "edge_over", id); near(ev["edge_under"]?.doubleValue, edu, 0.011, "edge_under", id)
                func kelly(_ p: Double, _ d: Double) -> Double { min(Self.kellyFraction * max(0, (p * d - 1) / (d - 1)), Self.kellyCap) * 100 }
                near(ev["kelly_over"]?.doubleValue, kelly(pOver, d[0]), 0.011, "kelly_over", id)
                near(ev["kelly_under"]?.doubleValue, kelly(pUnder, d[1]), 0.011, "kelly_under", id)
                let (side, edge) = edo >= edu ? ("OVER", edo) : ("UNDER", edu)
                if abs(edge - Self.strongEdge) > 0.02 && abs(edge - Self.leanEdge) > 0.02 && abs(edo - edu) > 0.02 {
                    let v = edge >= Self.strongEdge ? "STRONG_\(side)" : edge >= Self.leanEdge ? "LEAN_\(side)" : "NEUTRAL"
                    if g["verdict"]?.stringValue != v { problems.append("\(id): verdict \(g["verdict"]!) ≠ \(v)") }
                }
                near(g["edge"]?.doubleValue, mc["mean_total"]!.doubleValue! - e["line"]!.doubleValue!, 0.011, "game edge", id)
            }
        }
        XCTAssertGreaterThan(withLine, 100)
        XCTAssertGreaterThanOrEqual(games, withLine)
        XCTAssertEqual(problems, [], "\(problems.count) problems in \(games) games")
    }

    // MARK: standings, players and the backtest

    /// Python, from the default input's CSVs: standings (before the latest snapshot date, and final), player averages,
    /// and the walk-forward backtest of every model variant (exact probabilities, pushes excluded, 10 bins, LEAN/STRONG
    /// hit rates from the verdicts).
    static let seasonScript = #"""
    import csv, json, math, statistics, sys
    folder = sys.argv[1]
    teams = {r["team_id"]: r for r in csv.DictReader(open(folder + "/teams.csv", newline=""))}
    games = list(csv.DictReader(open(folder + "/games.csv", newline="")))
    closing = {r["game_id"]: r for r in csv.DictReader(open(folder + "/lines.csv", newline="")) if r["is_closing"].lower() == "true"}
    players = list(csv.DictReader(open(folder + "/player_game_stats.csv", newline="")))
    season = "2022-23"
    def forms(date):
        f = {}
        for g in games:
            if g["season"] != season or g["game_date"] >= date: continue
            for team, pts, opp, won in [(g["home_team_id"], g["home_score"], g["away_score"], int(g["home_score"]) > int(g["away_score"])),
                                        (g["away_team_id"], g["away_score"], g["home_score"], int(g["home_score"]) <= int(g["away_score"]))]:
                t = f.setdefault(team, {"pts": [], "opp": [], "results": []})
                t["pts"].append(float(pts)); t["opp"].append(float(opp)); t["results"].append(won)
        return f
    def standings(date):
        f = forms(date)
        rows = []
        for team, t in f.items():
            w = sum(t["results"]); l = len(t["results"]) - w
            last = t["results"][-1]; run = 0
            for x in reversed(t["results"]):
                if x != last: break
                run += 1
            ten = t["results"][-10:]
            rows.append({"team_id": int(team), "abbreviation": teams[team]["abbreviation"], "wins": w, "losses": l, "win_pct": w / (w + l),
                         "points_avg": statistics.mean(t["pts"]), "points_allowed_avg": statistics.mean(t["opp"]),
                         "point_diff": statistics.mean(t["pts"]) - statistics.mean(t["opp"]),
                         "streak": ("W" if last else "L") + str(run), "last_10": f"{sum(ten)}-{len(ten) - sum(ten)}"})
        leader = max(rows, key=lambda r: (r["win_pct"], r["wins"]))
        for r in rows: r["games_behind"] = ((leader["wins"] - r["wins"]) + (r["losses"] - leader["losses"])) / 2
        return sorted(rows, key=lambda r: (-r["win_pct"], -r["wins"], r["team_id"]))
    def player_table():
        dates = {g["game_id"]: g["game_date"] for g in games if g["season"] == season}
        by = {}
        for p in players:
            if p["game_id"] in dates: by.setdefault(int(p["player_id"]), []).append(p)
        out = []
        for pid in sorted(by):
            ls = by[pid]
            latest = max(ls, key=lambda p: (dates[p["game_id"]], p["game_id"]))
            avg = lambda k: sum(float(p[k]) for p in ls) / len(ls)
            def pct(m, a):
                att = sum(float(p[a]) for p in ls)
                return 0.0 if att == 0 else sum(float(p[m]) for p in ls) / att
            out.append({"player_id": pid, "full_name": latest["player_name"], "team_abbreviation": teams[latest["team_id"]]["abbreviation"],
                        "games_played": len(ls), "minutes_avg": avg("minutes"), "points_avg": avg("points"), "rebounds_avg": avg("rebounds"),
                        "assists_avg": avg("assists"), "steals_avg": avg("steals"), "blocks_avg": avg("blocks"), "turnovers_avg": avg("turnovers"),
                        "fg_pct": pct("fgm", "fga"), "fg3_pct": pct("fg3m", "fg3a"), "ft_pct": pct("ftm", "fta")})
        return out
    def team_form(f, team):
        t = f.get(team)
        if not t: return 110.0, 110.0, 10.0
        sd = max(8.0, statistics.stdev(t["pts"])) if len(t["pts"]) >= 2 else 10.0
        return statistics.mean(t["pts"]), statistics.mean(t["opp"]), sd
    def p_over(h, a, line, rho, otm, p_ot=0.06, otsd=3.0):
        hm, am = (h[0] + a[1]) / 2, (a[0] + h[1]) / 2
        var = h[2] ** 2 + a[2] ** 2 + 2 * rho * h[2] * a[2]
        c = math.floor(line) + 0.5
        tail = lambda mean, sd: 0.5 * math.erfc((c - mean) / (sd * math.sqrt(2)))
        return (1 - p_ot) * tail(hm + am, math.sqrt(var)) + p_ot * tail(hm + am + otm, math.sqrt(var + otsd ** 2))
    def dec(a): return 1 + 100 / -a if a < 0 else 1 + a / 100
    def backtest(rho, otm):
        r = {"rho": rho, "overtime_points": otm, "games": 0, "pushes": 0, "brier": 0.0, "log_loss": 0.0,
             "bins": [[0, 0.0, 0.0] for _ in range(10)], "lean": [0, 0], "strong": [0, 0]}
        for g in games:
            line = closing.get(g["game_id"])
            if g["season"] != season or not line: continue
            f = forms(g["game_date"])
            h, a = team_form(f, g["home_team_id"]), team_form(f, g["away_team_id"])
            total_line = float(line["total"])
            po = p_over(h, a, total_line, rho, otm)
            pu = 1 - p_over(h, a, math.ceil(total_line) - 1, rho, otm)
            total = int(g["home_score"]) + int(g["away_score"])
            # A verdict is a bet even when the game lands on the line (a push: the stake comes back).
            do, du = dec(float(line["over_odds"])), dec(float(line["under_odds"]))
            go, gu = (po - 1 / do) * 100, (pu - 1 / du) * 100
            side, e = ("OVER", go) if go >= gu else ("UNDER", gu)
            won = total != total_line and ((total > total_line) if side == "OVER" else (total < total_line))
            if e >= 8: r["strong"][0] += 1; r["strong"][1] += won
            elif e >= 3: r["lean"][0] += 1; r["lean"][1] += won
            if total == total_line: r["pushes"] += 1; continue
            y = 1.0 if total > total_line else 0.0
            r["games"] += 1
            r["brier"] += (po - y) ** 2
            pc = min(max(po, 1e-9), 1 - 1e-9)
            r["log_loss"] -= math.log(pc) if y == 1 else math.log(1 - pc)
            b = min(9, int(po * 10)); r["bins"][b][0] += 1; r["bins"][b][1] += po; r["bins"][b][2] += y
        r["brier"] /= r["games"]; r["log_loss"] /= r["games"]
        return r
    latest = max(g["game_date"] for g in games if g["game_id"] in closing)
    variants = [(0.2, 12.0)] + [(rho, ot) for rho in [0.0, 0.2, 0.3, 0.5] for ot in [12.0, 22.0]]
    print(json.dumps({"latest": latest, "standings": standings(latest), "final": standings("9999-12-31"),
                      "players": player_table(), "backtest": [backtest(*v) for v in variants]}))
    """#

    func testStandingsPlayersAndBacktestAgainstPython() throws {
        let input = TestSupport.makeInput(site: { s in
            s.removeValue(forKey: "catalog")
            s["nba"] = ["folder": "nba", "simulations": 1000]
        }, files: [:])
        try FileManager.default.createDirectory(at: input.appendingPathComponent("nba"), withIntermediateDirectories: true)
        for f in ["teams.csv", "games.csv", "lines.csv", "player_game_stats.csv"] {
            try FileManager.default.copyItem(at: TestSupport.defaultInput.appendingPathComponent("nba/\(f)"), to: input.appendingPathComponent("nba/\(f)"))
        }
        let out = TestSupport.tempDir("nba-season-oracle").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000))
        func file(_ p: String) throws -> JSON { try JSONReader.parse(Data(contentsOf: out.appendingPathComponent(p))) }
        let r = try TestSupport.run(["python3", "-c", Self.seasonScript, TestSupport.defaultInput.appendingPathComponent("nba").path])
        XCTAssertEqual(r.status, 0, r.output)
        let e = try JSONReader.parse(r.output)
        var problems: [String] = []
        /// Published (rounded to `places`) against the exact value.
        func near(_ got: JSON?, _ want: JSON?, _ places: Int, _ what: String) {
            guard let g = got?.doubleValue, let w = want?.doubleValue, abs(g - w) <= 0.5 / pow(10, Double(places)) + 1e-9 else {
                return problems.append("\(what): \(got?.compactText ?? "nil") vs \(want?.compactText ?? "nil")")
            }
        }
        func same(_ got: JSON?, _ want: JSON?, _ what: String) { if got != want { problems.append("\(what): \(got?.compactText ?? "nil") vs \(want?.compactText ?? "nil")") } }

        // Standings, as of the latest snapshot and final (the order is part of the answer).
        for (path, key) in [("nba/teams.json", "standings"), ("nba/seasons/2022-23/teams.json", "final")] {
            let got = try file(path).arrayValue ?? [], want = e[key]?.arrayValue ?? []
            XCTAssertEqual(got.count, want.count, path)
            XCTAssertEqual(got.count, 30, path)
            for (g, w) in zip(got, want) {
                let id = "\(path) \(w["abbreviation"]!.stringValue!)"
                for k in ["team_id", "abbreviation", "wins", "losses", "streak", "last_10"] { same(g[k], w[k], "\(id) \(k)") }
                near(g["win_pct"], w["win_pct"], 3, "\(id) win_pct")
                for k in ["points_avg", "points_allowed_avg", "point_diff"] { near(g[k], w[k], 1, "\(id) \(k)") }
                same(g["games_behind"].flatMap(\.doubleValue).map(JSON.double), w["games_behind"].flatMap(\.doubleValue).map(JSON.double), "\(id) games_behind")
            }
        }
        // Players of the season.
        let players = try file("nba/seasons/2022-23/players.json").arrayValue ?? [], wantPlayers = e["players"]?.arrayValue ?? []
        XCTAssertEqual(players.count, wantPlayers.count)
        XCTAssertGreaterThan(players.count, 10)
        for (g, w) in zip(players, wantPlayers) {
            let id = "player \(w["player_id"]!.intValue!)"
            for k in ["player_id", "full_name", "team_abbreviation", "games_played"] { same(g[k], w[k], "\(id) \(k)") }
            for k in ["minutes_avg", "points_avg", "rebounds_avg", "assists_avg", "steals_avg", "blocks_avg", "turnovers_avg"] { near(g[k], w[k], 1, "\(id) \(k)") }
            for k in ["fg_pct", "fg3_pct", "ft_pct"] { near(g[k], w[k], 3, "\(id) \(k)") }
        }
        // Backtest: the configured model and every grid variant, in order.
        let season = try XCTUnwrap(try file("nba/totals/backtest.json")["seasons"]?["2022-23"])
        let variants = [season["configured"]!] + (season["grid"]?.arrayValue ?? [])
        let wantVariants = e["backtest"]?.arrayValue ?? []
        XCTAssertEqual(variants.count, 9)
        XCTAssertEqual(variants.count, wantVariants.count)
        for (v, w) in zip(variants, wantVariants) {
            let id = "backtest rho \(w["rho"]!.doubleValue!) ot \(w["overtime_points"]!.doubleValue!)"
            near(v["rho"], w["rho"], 6, "\(id) rho"); near(v["overtime_points"], w["overtime_points"], 6, "\(id) overtime_points")
            for k in ["games", "pushes"] { same(v[k], w[k], "\(id) \(k)") }
            let g = v["raw"] ?? .null
            near(g["brier"], w["brier"], 5, "\(id) brier"); near(g["log_loss"], w["log_loss"], 5, "\(id) log_loss")
            for (i, (gb, wb)) in zip(g["calibration"]?.arrayValue ?? [], w["bins"]?.arrayValue ?? []).enumerated() {
                let n = wb[0]!.intValue!
                same(gb["games"], .int(n), "\(id) bin \(i) games")
                if n > 0 {
                    near(gb["mean_predicted"], .double(wb[1]!.doubleValue! / Double(n)), 4, "\(id) bin \(i) mean_predicted")
                    near(gb["observed_over"], .double(wb[2]!.doubleValue! / Double(n)), 4, "\(id) bin \(i) observed_over")
                }
            }
            for k in ["lean", "strong"] {
                same(g["bets"]?[k]?["bets"], w[k]?[0], "\(id) \(k) bets"); same(g["bets"]?[k]?["wins"], w[k]?[1], "\(id) \(k) wins")
            }
        }
        XCTAssertGreaterThan(wantVariants.first?["games"]?.intValue ?? 0, 100)
        XCTAssertEqual(problems, [], "\(problems.count) problems")
    }
}
