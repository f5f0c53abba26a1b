import Foundation

/// Walk-forward backtest: every game with a closing total, predicted from earlier games of its season only, with
/// the exact probability of the model (the Monte Carlo estimates the same number; see the exact check).
enum Backtest {
    struct Variant { let rho: Double; let overtimePoints: Double }

    struct Result {
        var variant: Variant
        var games = 0, pushes = 0
        var brier = 0.0, logLoss = 0.0
        var bins = [(n: Int, predicted: Double, observed: Double)](repeating: (0, 0, 0), count: 10)
        var lean = (bets: 0, wins: 0), strong = (bets: 0, wins: 0)
    }

    static func run(_ data: NBAData, seasons: [String], settings s: NBASettings, variant: Variant) -> [String: Result] {
        let model = TotalsModel(s: s)
        var out: [String: Result] = [:]
        for season in seasons {
            var r = Result(variant: variant)
            let games = data.games.filter { $0.season == season }
            var cache: [String: [Int: TeamForm]] = [:]
            for g in games {
                guard let line = data.lines[g.id] else { continue }
                let forms = cache[g.date] ?? TeamForm.asOf(g.date, season: season, games: games)
                cache[g.date] = forms
                let p = TotalsModel.project(home: forms[g.home] ?? TeamForm(), away: forms[g.away] ?? TeamForm())
                let pOver = model.exactOver(p, line: line.total, rho: variant.rho, overtimeMean: variant.overtimePoints)
                let pNotUnder = model.exactOver(p, line: line.total.rounded(.up) - 1, rho: variant.rho, overtimeMean: variant.overtimePoints)
                let pUnder = 1 - pNotUnder
                let total = Double(g.homeScore + g.awayScore)
                if total == line.total { r.pushes += 1; continue }
                let y = total > line.total ? 1.0 : 0.0
                r.games += 1
                r.brier += (pOver - y) * (pOver - y)
                let pc = min(max(pOver, 1e-9), 1 - 1e-9)
                r.logLoss -= y == 1 ? DetMath.log(pc) : DetMath.log(1 - pc)
                let bin = min(9, Int(pOver * 10))
                r.bins[bin].n += 1; r.bins[bin].predicted += pOver; r.bins[bin].observed += y
                let m = model.metrics(pOver: pOver, pUnder: pUnder, overOdds: TotalsModel.decimalOdds(line.overOdds),
                                      underOdds: TotalsModel.decimalOdds(line.underOdds))
                let won = m.verdict.hasSuffix("OVER") ? y == 1 : y == 0
                if m.verdict.hasPrefix("LEAN") { r.lean.bets += 1; if won { r.lean.wins += 1 } }
                if m.verdict.hasPrefix("STRONG") { r.strong.bets += 1; if won { r.strong.wins += 1 } }
            }
            if r.games > 0 { r.brier /= Double(r.games); r.logLoss /= Double(r.games) }
            out[season] = r
        }
        return out
    }
}
