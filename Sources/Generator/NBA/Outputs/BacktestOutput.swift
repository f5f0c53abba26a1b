import Foundation
import Schemas

/// `nba/totals/backtest.json`: per season and overall, the walk-forward evaluation of the configured model and of a
/// small grid (ρ × overtime points), each with raw and calibrated probabilities, beside the market baseline: Brier
/// score, log loss, a 10-bin calibration table, LEAN / STRONG / all bets at the line's odds (hit rate, units, ROI
/// with a 95 % interval, break-even hit rate) and closing-line value of picks made at the opening line.
/// `nba/totals/backtest.svg` draws it (BacktestChart).
struct BacktestOutput: NBAOutput {
    /// The market's own forecast, probability ½ at the line.
    static let baselineBrier = 0.25, baselineLogLoss = DetMath.log(2)
    /// A season whose calibrated Brier score is above this (the baseline plus fitting noise) is flagged.
    static let flagBrier = 0.2505

    static let probability = Schema.nullable(Schema.number(min: 0, max: 1))
    static let bets = Schema.object([
        "bets": Schema.nonNegativeInteger, "wins": Schema.nonNegativeInteger, "losses": Schema.nonNegativeInteger, "pushes": Schema.nonNegativeInteger,
        "hit_rate": probability, "units": Schema.number, "roi": Schema.nullable(Schema.number),
        "roi_ci_95": Schema.nullable(.obj(["type": "array", "items": Schema.number, "minItems": 2, "maxItems": 2])),
        "break_even_hit_rate": probability,
    ])
    static let lineValue = Schema.object([
        "picks": Schema.nonNegativeInteger, "toward": Schema.nonNegativeInteger, "against": Schema.nonNegativeInteger, "unchanged": Schema.nonNegativeInteger,
        "share_toward": probability, "mean_points": Schema.nullable(Schema.number),
    ])
    static let evaluation = Schema.object([
        "brier": Schema.nonNegativeNumber, "log_loss": Schema.nonNegativeNumber,
        "calibration": Schema.array(Schema.object(["bin": Schema.string, "games": Schema.nonNegativeInteger, "mean_predicted": probability, "observed_over": probability])),
        "bets": Schema.object(["lean": bets, "strong": bets, "all": bets]),
        "closing_line_value": Schema.object(["lean": lineValue, "strong": lineValue, "all": lineValue]),
    ])
    static let result = Schema.object([
        "rho": Schema.number, "overtime_points": Schema.number, "games": Schema.nonNegativeInteger, "pushes": Schema.nonNegativeInteger,
        "raw": evaluation, "calibrated": Schema.nullable(evaluation),
    ])
    static let period = Schema.object(["configured": result, "grid": Schema.array(result), "flag": Schema.nullable(Schema.string)])
    static let kind = OutputKind(name: "nba-backtest", pathTemplate: "nba/totals/backtest.json",
                                 summary: "Walk-forward backtest of the totals model per season and overall: raw and calibrated forecasts against the market baseline, bets, ROI and closing-line value.",
                                 schema: Schema.object([
                                    "method": Schema.string, "calibration": Schema.string, "betting": Schema.string, "closing_line_value": Schema.string,
                                    "verdicts_use": Schema.enumeration(["calibrated", "raw"]),
                                    "baseline": Schema.object(["brier": Schema.number, "log_loss": Schema.number]), "flag_brier_above": Schema.number,
                                    "seasons": Schema.map(period), "overall": period,
                                 ]))
    var kinds: [OutputKind] { [Self.kind] }

    static func json(_ b: Backtest.Bets) -> JSON {
        let x = NBAOutputs.r
        return .obj([
            "bets": .int(b.bets), "wins": .int(b.wins), "losses": .int(b.losses), "pushes": .int(b.pushes),
            "hit_rate": b.hitRate.map { x($0, 4) } ?? .null, "units": x(b.units, 3), "roi": b.roi.map { x($0, 4) } ?? .null,
            "roi_ci_95": b.roiInterval.map { .array([x($0.0, 4), x($0.1, 4)]) } ?? .null,
            "break_even_hit_rate": b.breakEvenHitRate.map { x($0, 4) } ?? .null,
        ])
    }

    static func json(_ v: Backtest.LineValue) -> JSON {
        .obj(["picks": .int(v.picks), "toward": .int(v.toward), "against": .int(v.against), "unchanged": .int(v.unchanged),
              "share_toward": v.shareToward.map { NBAOutputs.r($0, 4) } ?? .null, "mean_points": v.meanPoints.map { NBAOutputs.r($0, 3) } ?? .null])
    }

    static func json(_ e: Backtest.Evaluation) -> JSON {
        let x = NBAOutputs.r
        return .obj([
            "brier": x(e.brier, 5), "log_loss": x(e.logLoss, 5),
            "calibration": .array(e.bins.enumerated().map { i, b in
                .obj(["bin": .string(String(format: "%.1f-%.1f", Double(i) / 10, Double(i + 1) / 10)), "games": .int(b.n),
                      "mean_predicted": b.n == 0 ? .null : x(b.predicted / Double(b.n), 4), "observed_over": b.n == 0 ? .null : x(b.observed / Double(b.n), 4)])
            }),
            "bets": .obj(["lean": json(e.lean), "strong": json(e.strong), "all": json(e.all)]),
            "closing_line_value": .obj(["lean": json(e.leanValue), "strong": json(e.strongValue), "all": json(e.allValue)]),
        ])
    }

    static func json(_ r: Backtest.Result, calibrated: Bool) -> JSON {
        .obj([
            "rho": .double(r.variant.rho), "overtime_points": .double(r.variant.overtimePoints), "games": .int(r.games), "pushes": .int(r.pushes),
            "raw": json(r.raw), "calibrated": calibrated ? json(r.calibrated) : .null,
        ])
    }

    /// Why a period's calibrated forecasts are not shown to beat the market, or nil.
    static func flag(_ r: Backtest.Result) -> String? {
        guard r.games > 0, r.calibrated.brier > flagBrier else { return nil }
        return String(format: "calibrated Brier score %.5f is above %.4f (the market baseline 0.25 plus fitting noise): no evidence of skill",
                      r.calibrated.brier, flagBrier)
    }

    /// Every variant's results: the configured model first (raw and calibrated), then the grid (raw: it compares
    /// the model's variants).
    static func run(_ m: NBADomain.Model) -> [(seasons: [String: Backtest.Result], overall: Backtest.Result)] {
        Parallel.map(m.variants.count, threads: m.variants.count) { _, i in
            Backtest.run(m.forecasts[i], seasons: m.seasons, settings: m.settings, variant: m.variants[i], fits: i == 0 ? m.fits : nil)
        }
    }

    func render(_ m: NBADomain.Model, _ context: BuildContext) throws -> [OutputFile] {
        guard m.settings.backtest else { return [] }
        let results = Self.run(m)
        func period(_ pick: ((seasons: [String: Backtest.Result], overall: Backtest.Result)) -> Backtest.Result) -> JSON {
            let configured = pick(results[0])
            return .obj(["configured": Self.json(configured, calibrated: true), "grid": .array(results.dropFirst().map { Self.json(pick($0), calibrated: false) }),
                         "flag": Self.flag(configured).map(JSON.string) ?? .null])
        }
        var seasons = JSONObject()
        for season in m.seasons { seasons.append(season, period { $0.seasons[season]! }) }
        let s = m.settings
        let json: JSON = .obj([
            "method": "walk-forward: each game with a closing total, predicted from earlier games of its season only, with the exact probability of the model; forecast scores leave pushes out",
            "calibration": .string("Platt scaling on logit(q), q = P(over | no push), fitted on every earlier game (any season compiled) with a penalty \(s.calibrationPrior)/2·(a² + b²) toward the market's ½; the push probability is kept"),
            "betting": "one unit per LEAN or STRONG verdict at the closing line and its odds; a win pays decimal odds − 1, a loss costs 1, a push returns the stake; roi = units / bets; roi_ci_95 = roi ± 1.96·s/√bets (s the sample deviation of the returns); break_even_hit_rate = mean 1/d of the decided bets",
            "closing_line_value": "picks made at the opening line (the verdict the same probabilities give there), scored by how far the closing total moved toward the side picked (close − open for OVER, open − close for UNDER)",
            "verdicts_use": .string(s.useCalibrated ? "calibrated" : "raw"),
            "baseline": .obj(["brier": .double(Self.baselineBrier), "log_loss": NBAOutputs.r(Self.baselineLogLoss, 5)]),
            "flag_brier_above": .double(Self.flagBrier),
            "seasons": .object(seasons), "overall": period { $0.overall },
        ])
        return [OutputFile(path: "nba/totals/backtest.json", json: json, kind: Self.kind),
                OutputFile(path: BacktestChart.path, bytes: BacktestChart.render(seasons: m.seasons.map { ($0, results[0].seasons[$0]!) },
                                                                              overall: results[0].overall), asset: BacktestChart.asset)]
    }
}
