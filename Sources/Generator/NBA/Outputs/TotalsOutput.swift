import Foundation
import Schemas

/// `nba/totals/{date}.json` and `nba/totals/latest.json`: the original service's /api/tonight/totals response
/// (TotalsAnalysisResponse) for the games of one date, from earlier games of each team's season only.
/// Beyond the original: `p_over_exact` (closed form), `monte_carlo.p_push`, and the walk-forward calibrated
/// `p_over_calibrated` / `p_under_calibrated`, which edge, EV, Kelly and the verdict use unless `nba.probabilities`
/// is "raw".
struct TotalsOutput: NBAOutput {
    static let mc = Schema.object([
        "p_over": Schema.number(min: 0, max: 1), "p_under": Schema.number(min: 0, max: 1), "p_push": Schema.number(min: 0, max: 1),
        "p_over_calibrated": Schema.number(min: 0, max: 1), "p_under_calibrated": Schema.number(min: 0, max: 1),
        "mean_total": Schema.number, "median_total": Schema.number, "std_total": Schema.nonNegativeNumber,
        "percentiles": Schema.map(Schema.number), "ci_95_over": .obj(["type": "array", "items": Schema.number(min: 0, max: 1), "minItems": 2, "maxItems": 2]),
        "ci_95_under": .obj(["type": "array", "items": Schema.number(min: 0, max: 1), "minItems": 2, "maxItems": 2]),
        "ot_games_pct": Schema.number(min: 0, max: 1),
    ])
    static let ev = Schema.object([
        "ev_over": Schema.number, "ev_under": Schema.number, "edge_over": Schema.number, "edge_under": Schema.number,
        "kelly_over": Schema.nonNegativeNumber, "kelly_under": Schema.nonNegativeNumber, "recommended_bet": Schema.enumeration(["OVER", "UNDER", "NONE"]),
    ])
    static let game = Schema.object([
        "game_id": Schema.nonEmptyString, "game_date": Schema.date,
        "home_team_id": Schema.integer, "home_abbr": Schema.string, "home_team": Schema.string,
        "away_team_id": Schema.integer, "away_abbr": Schema.string, "away_team": Schema.string,
        "home_games": Schema.nonNegativeInteger, "home_ppg": Schema.number, "home_opp_ppg": Schema.number, "home_std": Schema.number(min: 8),
        "away_games": Schema.nonNegativeInteger, "away_ppg": Schema.number, "away_opp_ppg": Schema.number, "away_std": Schema.number(min: 8),
        "projected": Schema.number, "line": Schema.nullable(Schema.number), "over_odds": Schema.number(min: 1), "under_odds": Schema.number(min: 1),
        "monte_carlo": Schema.nullable(mc), "p_over_exact": Schema.nullable(Schema.number(min: 0, max: 1)), "ev_metrics": Schema.nullable(ev),
        "verdict": Schema.enumeration(["STRONG_OVER", "LEAN_OVER", "NEUTRAL", "LEAN_UNDER", "STRONG_UNDER", "NO_LINE"]),
        "edge": Schema.nullable(Schema.number),
    ])
    static let kind = OutputKind(name: "nba-totals", pathTemplate: "nba/totals/{date}.json",
                                 summary: "Totals analysis of one date's games (TotalsAnalysisResponse); latest.json is the last date.",
                                 schema: Schema.object(["success": Schema.boolean, "n_games": Schema.nonNegativeInteger, "n_simulations": Schema.integer(min: 1),
                                                   "games": Schema.array(game), "methodology": Schema.map(Schema.string)]))
    var kinds: [OutputKind] { [Self.kind] }

    func render(_ m: NBADomain.Model, _ context: BuildContext) throws -> [OutputFile] {
        var files: [OutputFile] = []
        for snap in m.snapshots {
            files.append(OutputFile(path: "nba/totals/\(snap.date).json", json: Self.response(snap, m), kind: Self.kind))
        }
        if let last = m.snapshots.last { files.append(OutputFile(path: "nba/totals/latest.json", json: Self.response(last, m), kind: Self.kind)) }
        return files
    }

    static func methodology(_ s: NBASettings, _ c: Calibration) -> JSON {
        .obj([
            "projection": "(home_ppg + away_opp_ppg) / 2 + (away_ppg + home_opp_ppg) / 2, from the same season's games before the date",
            "team_stats": "ppg, opp_ppg and sample standard deviation of points (n - 1), floored at 8; before a team's first game 110, 110, 10 (10 also after one game)",
            "simulation": .string("Correlated bivariate normal of the two scores, \(s.simulations) iterations, each score floored at \(Int(s.scoreFloor)); totals rounded to whole points"),
            "correlation": .string("\(s.rho) (the value used; the original documentation says 0.5, its code uses 0.2)"),
            "overtime": .string("probability \(s.overtimeProbability), adding N(\(s.overtimeMean), \(s.overtimeSD)^2) points"),
            "random": "xoshiro256** seeded by SplitMix64 from FNV-1a of the game id and these settings; normals by Marsaglia's polar method with a libm-free logarithm",
            "push": "a rounded total equal to the line is a push (p_push)",
            "calibration": .string("p_over_calibrated = σ(a·logit(q) + b)·(1 − p_push) with q = p_over / (p_over + p_under) and p_under_calibrated the rest; a, b fitted by Platt scaling on every earlier game of the compiled seasons, with a penalty \(s.calibrationPrior)/2·(a² + b²) toward the market's ½ (see nba/totals/backtest.json)"),
            "calibration_fit": .string(String(format: "a = %.4f, b = %.4f, from %d earlier games", c.a, c.b, c.games)),
            "probabilities": .string(s.useCalibrated ? "ev_metrics, edge and verdict use the calibrated probabilities" : "ev_metrics, edge and verdict use the raw Monte Carlo probabilities (nba.probabilities = raw)"),
            "exact": "p_over_exact: mixture of the regulation normal and the overtime-shifted normal, floor ignored, erfc without libm",
            "ev": "ev = (p * (d - 1) - (1 - p)) * 100 with d the decimal odds; edge = (p - 1/d) * 100",
            "kelly": .string("\(s.kellyFraction) of full Kelly (p*d - 1)/(d - 1), capped at \(s.kellyCap), times 100"),
            "verdict": .string("larger edge >= \(s.strongEdge): STRONG_OVER/UNDER, >= \(s.leanEdge): LEAN_OVER/UNDER, else NEUTRAL; NO_LINE without a line"),
        ])
    }

    static func response(_ snap: NBADomain.Snapshot, _ m: NBADomain.Model) -> JSON {
        let model = TotalsModel(s: m.settings)
        let n = Double(m.settings.simulations)
        let games: [JSON] = snap.games.map { a in
            let r = NBAOutputs.r
            let home = m.data.teams[a.game.home]!, away = m.data.teams[a.game.away]!
            let overOdds = TotalsModel.decimalOdds(a.line?.overOdds ?? -110), underOdds = TotalsModel.decimalOdds(a.line?.underOdds ?? -110)
            var mc: JSON = .null, ev: JSON = .null, verdict = "NO_LINE", edge: JSON = .null
            if let line = a.line, let sim = a.simulation {
                let calibrated = snap.calibration.apply(over: sim.pOver, under: sim.pUnder)
                func ci(_ p: Double) -> JSON {
                    let h = 1.96 * (p * (1 - p) / n).squareRoot()
                    return .array([r(max(0, p - h), 4), r(min(1, p + h), 4)])
                }
                mc = .obj([
                    "p_over": r(sim.pOver, 4), "p_under": r(sim.pUnder, 4), "p_push": r(sim.pPush, 4),
                    "mean_total": r(sim.mean, 2), "median_total": r(sim.median, 2), "std_total": r(sim.sd, 2),
                    "percentiles": .object(JSONObject(sim.percentiles.map { ($0.0, r($0.1, 2)) })),
                    "ci_95_over": ci(sim.pOver), "ci_95_under": ci(sim.pUnder), "ot_games_pct": r(sim.otPct, 4),
                    "p_over_calibrated": r(calibrated.over, 4), "p_under_calibrated": r(calibrated.under, 4),
                ])
                let p = m.settings.useCalibrated ? calibrated : (over: sim.pOver, under: sim.pUnder)
                let mt = model.metrics(pOver: p.over, pUnder: p.under, overOdds: overOdds, underOdds: underOdds)
                ev = .obj(["ev_over": r(mt.evOver, 2), "ev_under": r(mt.evUnder, 2), "edge_over": r(mt.edgeOver, 2), "edge_under": r(mt.edgeUnder, 2),
                           "kelly_over": r(mt.kellyOver, 2), "kelly_under": r(mt.kellyUnder, 2), "recommended_bet": .string(mt.recommended)])
                verdict = mt.verdict
                edge = r(sim.mean - line.total, 2)
            }
            return .obj([
                "game_id": .string(a.game.id), "game_date": .string(a.game.date),
                "home_team_id": .int(home.id), "home_abbr": .string(home.abbreviation), "home_team": .string(home.fullName),
                "away_team_id": .int(away.id), "away_abbr": .string(away.abbreviation), "away_team": .string(away.fullName),
                "home_games": .int(a.home.games), "home_ppg": r(a.home.ppg, 2), "home_opp_ppg": r(a.home.oppPpg, 2), "home_std": r(a.home.sd, 2),
                "away_games": .int(a.away.games), "away_ppg": r(a.away.ppg, 2), "away_opp_ppg": r(a.away.oppPpg, 2), "away_std": r(a.away.sd, 2),
                "projected": r(a.projection.total, 2), "line": a.line.map { .double($0.total) } ?? .null,
                "over_odds": r(overOdds, 4), "under_odds": r(underOdds, 4),
                "monte_carlo": mc, "p_over_exact": a.exactOver.map { r($0, 4) } ?? .null, "ev_metrics": ev,
                "verdict": .string(verdict), "edge": edge,
            ])
        }
        return .obj(["success": true, "n_games": .int(games.count), "n_simulations": .int(m.settings.simulations),
                     "games": .array(games), "methodology": methodology(m.settings, snap.calibration)])
    }
}
