import Foundation
import Schemas

/// `nba/totals/backtest.json`: per season, the walk-forward evaluation of the configured model and of a small grid
/// (ρ × overtime points): Brier score, log loss, a 10-bin calibration table, and the hit rates of LEAN and STRONG verdicts.
struct BacktestOutput: NBAOutput {
    static let result = S.object([
        "rho": S.number, "overtime_points": S.number, "games": S.nonNegativeInteger, "pushes": S.nonNegativeInteger,
        "brier": S.nonNegativeNumber, "log_loss": S.nonNegativeNumber,
        "calibration": S.array(S.object(["bin": S.string, "games": S.nonNegativeInteger, "mean_predicted": S.nullable(S.number(min: 0, max: 1)),
                                         "observed_over": S.nullable(S.number(min: 0, max: 1))])),
        "lean": S.object(["bets": S.nonNegativeInteger, "wins": S.nonNegativeInteger, "hit_rate": S.nullable(S.number(min: 0, max: 1))]),
        "strong": S.object(["bets": S.nonNegativeInteger, "wins": S.nonNegativeInteger, "hit_rate": S.nullable(S.number(min: 0, max: 1))]),
    ])
    static let kind = OutputKind(name: "nba-backtest", pathTemplate: "nba/totals/backtest.json",
                                 summary: "Walk-forward backtest of the totals model per season, for the configured model and a small grid.",
                                 schema: S.object(["method": S.string, "seasons": S.map(S.object(["configured": result, "grid": S.array(result)]))]))
    var kinds: [OutputKind] { [Self.kind] }

    static func json(_ r: Backtest.Result) -> JSON {
        let x = NBAOutputs.r
        func rate(_ b: (bets: Int, wins: Int)) -> JSON {
            .obj(["bets": .int(b.bets), "wins": .int(b.wins), "hit_rate": b.bets == 0 ? .null : x(Double(b.wins) / Double(b.bets), 4)])
        }
        return .obj([
            "rho": .double(r.variant.rho), "overtime_points": .double(r.variant.overtimePoints), "games": .int(r.games), "pushes": .int(r.pushes),
            "brier": x(r.brier, 5), "log_loss": x(r.logLoss, 5),
            "calibration": .array(r.bins.enumerated().map { i, b in
                .obj(["bin": .string(String(format: "%.1f-%.1f", Double(i) / 10, Double(i + 1) / 10)), "games": .int(b.n),
                      "mean_predicted": b.n == 0 ? .null : x(b.predicted / Double(b.n), 4), "observed_over": b.n == 0 ? .null : x(b.observed / Double(b.n), 4)])
            }),
            "lean": rate(r.lean), "strong": rate(r.strong),
        ])
    }

    func render(_ m: NBADomain.Model, _ context: BuildContext) throws -> [OutputFile] {
        guard m.settings.backtest else { return [] }
        let s = m.settings
        var variants = [Backtest.Variant(rho: s.rho, overtimePoints: s.overtimeMean)]
        for rho in s.gridRho { for ot in s.gridOvertimePoints { variants.append(Backtest.Variant(rho: rho, overtimePoints: ot)) } }
        var results = [[String: Backtest.Result]?](repeating: nil, count: variants.count)
        results.withUnsafeMutableBufferPointer { out in
            DispatchQueue.concurrentPerform(iterations: variants.count) { i in out[i] = Backtest.run(m.data, seasons: m.seasons, settings: s, variant: variants[i]) }
        }
        var seasons = JSONObject()
        for season in m.seasons {
            seasons.append(season, .obj(["configured": Self.json(results[0]![season]!),
                                         "grid": .array(results.dropFirst().map { Self.json($0![season]!) })]))
        }
        return [OutputFile(path: "nba/totals/backtest.json", json: .obj([
            "method": "walk-forward: each game with a closing total, predicted from earlier games of its season only, with the exact probability of the model (pushes excluded)",
            "seasons": .object(seasons),
        ]), kind: Self.kind)]
    }
}
