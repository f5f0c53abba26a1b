import Foundation

/// One game with a closing total, forecast walk-forward with one model variant: the exact probabilities at the
/// closing line and, when the game has one, at the opening line.
struct Forecast {
    let game: NBAGame
    let close: NBALine
    let open: NBALine?
    let pOver: Double, pUnder: Double
    let openOver: Double?, openUnder: Double?

    var total: Double { Double(game.homeScore + game.awayScore) }
    /// true: over the closing line, false: under, nil: push.
    var outcome: Bool? { total == close.total ? nil : total > close.total }
    var conditionalOver: Double { pOver + pUnder > 0 ? pOver / (pOver + pUnder) : 0.5 }

    /// Every game of `seasons` with a closing line, in date order, from its season's earlier games only: one list per
    /// (ρ, overtime points) variant, from the same team figures.
    static func walkForward(_ data: NBAData, seasons: [String], model: TotalsModel, variants: [Backtest.Variant]) -> [[Forecast]] {
        // Team figures once (in date order: seasons may be listed in any order, calibration walks through time),
        // then each variant's probabilities on a core of its own.
        var games: [(NBAGame, NBALine, TotalsModel.Projection)] = []
        for season in seasons {
            let inSeason = data.games.filter { $0.season == season }
            var cache: [String: [Int: TeamForm]] = [:]
            for g in inSeason {
                guard let close = data.lines[g.id] else { continue }
                let forms = cache[g.date] ?? TeamForm.asOf(g.date, season: season, games: inSeason)
                cache[g.date] = forms
                games.append((g, close, TotalsModel.project(home: forms[g.home] ?? TeamForm(), away: forms[g.away] ?? TeamForm())))
            }
        }
        games = games.enumerated().sorted { ($0.element.0.date, $0.offset) < ($1.element.0.date, $1.offset) }.map(\.element)
        return Parallel.map(variants.count, threads: variants.count) { _, i in
            let v = variants[i]
            func probabilities(_ p: TotalsModel.Projection, _ line: Double) -> (Double, Double) {
                let over = model.exactOver(p, line: line, rho: v.rho, overtimeMean: v.overtimePoints)
                let notUnder = model.exactOver(p, line: line.rounded(.up) - 1, rho: v.rho, overtimeMean: v.overtimePoints)
                return (over, 1 - notUnder)
            }
            return games.map { g, close, p in
                let (o, u) = probabilities(p, close.total)
                let open = data.openings[g.id]
                let opened = open.map { probabilities(p, $0.total) }
                return Forecast(game: g, close: close, open: open, pOver: o, pUnder: u, openOver: opened?.0, openUnder: opened?.1)
            }
        }
    }
}
