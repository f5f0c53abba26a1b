import Foundation

/// Walk-forward backtest: every game with a closing total, predicted from earlier games of its season only, with
/// the exact probability of the model (the Monte Carlo estimates the same number; see the exact check), raw and
/// calibrated (fitted on earlier games only), scored as forecasts and as bets.
enum Backtest {
    struct Variant { let rho: Double; let overtimePoints: Double }

    /// Bets of one verdict class, each one unit at the odds of the side taken.
    struct Bets {
        var bets = 0, wins = 0, losses = 0, pushes = 0
        /// Units won (a win pays d − 1, a loss costs 1, a push returns the stake) and the sum of their squares.
        var units = 0.0, unitsSquared = 0.0
        /// Σ 1/d over the decided bets: the hit rate at which these bets break even is its mean.
        var breakEvenSum = 0.0
        /// Units after each bet, for the picture.
        var path: [Double] = []

        mutating func add(won: Bool?, decimalOdds d: Double) {
            bets += 1
            var r = 0.0
            switch won {
            case true?: wins += 1; r = d - 1; breakEvenSum += 1 / d
            case false?: losses += 1; r = -1; breakEvenSum += 1 / d
            case nil: pushes += 1
            }
            units += r; unitsSquared += r * r
            path.append(units)
        }

        var hitRate: Double? { wins + losses == 0 ? nil : Double(wins) / Double(wins + losses) }
        /// Units won per unit staked (pushes are staked and returned).
        var roi: Double? { bets == 0 ? nil : units / Double(bets) }
        /// Normal-approximation 95 % interval of the mean return per bet: roi ± 1.96·s/√n (s the sample deviation).
        var roiInterval: (Double, Double)? {
            guard bets >= 2, let roi else { return nil }
            let n = Double(bets)
            let s = (max(0, unitsSquared - n * roi * roi) / (n - 1)).squareRoot()
            let h = 1.96 * s / n.squareRoot()
            return (roi - h, roi + h)
        }
        var breakEvenHitRate: Double? { wins + losses == 0 ? nil : breakEvenSum / Double(wins + losses) }
    }

    /// Closing-line value of picks made at the opening line: points the close moved toward the side picked.
    struct LineValue {
        var picks = 0, toward = 0, against = 0, unchanged = 0
        var points = 0.0

        mutating func add(_ moved: Double) {
            picks += 1; points += moved
            if moved > 0 { toward += 1 } else if moved < 0 { against += 1 } else { unchanged += 1 }
        }
        var shareToward: Double? { picks == 0 ? nil : Double(toward) / Double(picks) }
        var meanPoints: Double? { picks == 0 ? nil : points / Double(picks) }
    }

    /// One set of probabilities (raw or calibrated) scored as forecasts and as bets.
    struct Evaluation {
        var brier = 0.0, logLoss = 0.0
        var bins = [(n: Int, predicted: Double, observed: Double)](repeating: (0, 0, 0), count: 10)
        var lean = Bets(), strong = Bets(), all = Bets()
        var leanValue = LineValue(), strongValue = LineValue(), allValue = LineValue()

        mutating func score(_ pOver: Double, over: Bool) {
            let y = over ? 1.0 : 0.0
            brier += (pOver - y) * (pOver - y)
            let pc = min(max(pOver, 1e-9), 1 - 1e-9)
            logLoss -= over ? DetMath.log(pc) : DetMath.log(1 - pc)
            let bin = min(9, Int(pOver * 10))
            bins[bin].n += 1; bins[bin].predicted += pOver; bins[bin].observed += y
        }

        mutating func bet(_ verdict: String, won: Bool?, decimalOdds d: Double) {
            if verdict.hasPrefix("LEAN") { lean.add(won: won, decimalOdds: d) }
            if verdict.hasPrefix("STRONG") { strong.add(won: won, decimalOdds: d) }
            if verdict.hasPrefix("LEAN") || verdict.hasPrefix("STRONG") { all.add(won: won, decimalOdds: d) }
        }

        mutating func pick(_ verdict: String, moved: Double) {
            if verdict.hasPrefix("LEAN") { leanValue.add(moved) }
            if verdict.hasPrefix("STRONG") { strongValue.add(moved) }
            if verdict.hasPrefix("LEAN") || verdict.hasPrefix("STRONG") { allValue.add(moved) }
        }
    }

    struct Result {
        var variant: Variant
        var games = 0, pushes = 0
        var raw = Evaluation(), calibrated = Evaluation()

        mutating func finish() {
            guard games > 0 else { return }
            for k in [\Result.raw, \Result.calibrated] { self[keyPath: k].brier /= Double(games); self[keyPath: k].logLoss /= Double(games) }
        }
    }

    /// What one set of probabilities says of one game: its verdict at the closing line (and the bet's result) and
    /// at the opening line (and how the close moved for that pick).
    struct Call {
        let pOver: Double
        let verdict: String, won: Bool?, decimalOdds: Double
        let openVerdict: String?, moved: Double

        init(_ f: Forecast, _ model: TotalsModel, _ p: (over: Double, under: Double), _ open: (over: Double, under: Double)?) {
            pOver = p.over
            let d = (over: TotalsModel.decimalOdds(f.close.overOdds), under: TotalsModel.decimalOdds(f.close.underOdds))
            verdict = model.metrics(pOver: p.over, pUnder: p.under, overOdds: d.over, underOdds: d.under).verdict
            let isOver = verdict.hasSuffix("OVER")
            won = f.outcome.map { $0 == isOver }
            decimalOdds = isOver ? d.over : d.under
            if let line = f.open, let open {
                let v = model.metrics(pOver: open.over, pUnder: open.under, overOdds: TotalsModel.decimalOdds(line.overOdds),
                                      underOdds: TotalsModel.decimalOdds(line.underOdds)).verdict
                openVerdict = v
                moved = v.hasSuffix("OVER") ? f.close.total - line.total : line.total - f.close.total
            } else { openVerdict = nil; moved = 0 }
        }

        func record(into e: inout Evaluation) {
            e.bet(verdict, won: won, decimalOdds: decimalOdds)
            if let openVerdict { e.pick(openVerdict, moved: moved) }
        }
    }

    /// Per season, and `overall` for all of them together; calibrated figures when `fits` (by date) are given.
    static func run(_ forecasts: [Forecast], seasons: [String], settings s: NBASettings, variant: Variant,
                    fits: [String: Calibration]?) -> (seasons: [String: Result], overall: Result) {
        let model = TotalsModel(s: s)
        var out = Dictionary(uniqueKeysWithValues: seasons.map { ($0, Result(variant: variant)) })
        var overall = Result(variant: variant)
        for f in forecasts {
            let raw = Call(f, model, (f.pOver, f.pUnder), f.openOver.map { ($0, f.openUnder!) })
            let calibrated = fits.map { fits in
                let fit = fits[f.game.date]!
                return Call(f, model, fit.apply(over: f.pOver, under: f.pUnder), f.openOver.map { fit.apply(over: $0, under: f.openUnder!) })
            }
            for season in [true, false] {
                var r = season ? out[f.game.season]! : overall
                if let over = f.outcome {
                    r.games += 1
                    r.raw.score(raw.pOver, over: over)
                    if let calibrated { r.calibrated.score(calibrated.pOver, over: over) }
                } else { r.pushes += 1 }
                raw.record(into: &r.raw)
                calibrated?.record(into: &r.calibrated)
                if season { out[f.game.season] = r } else { overall = r }
            }
        }
        for k in out.keys { out[k]!.finish() }
        overall.finish()
        return (out, overall)
    }
}
