import Foundation

/// A team's scoring within one season, from games completed strictly before a date (no look-ahead).
struct TeamForm {
    var games = 0
    var ppg = 110.0, oppPpg = 110.0, sd = 10.0   // documented defaults before a team's first game
    var wins = 0, losses = 0
    var results: [Bool] = []                      // oldest first

    static let defaultPpg = 110.0, defaultSD = 10.0, sdFloor = 8.0

    /// Stats of every team of `season` from its games dated before `date`.
    static func asOf(_ date: String, season: String, games: [NBAGame]) -> [Int: TeamForm] {
        var points: [Int: [Double]] = [:], allowed: [Int: [Double]] = [:]
        var form: [Int: TeamForm] = [:]
        for g in games where g.season == season && g.date < date {
            points[g.home, default: []].append(Double(g.homeScore)); allowed[g.home, default: []].append(Double(g.awayScore))
            points[g.away, default: []].append(Double(g.awayScore)); allowed[g.away, default: []].append(Double(g.homeScore))
            let homeWon = g.homeScore > g.awayScore
            form[g.home, default: TeamForm()].record(homeWon)
            form[g.away, default: TeamForm()].record(!homeWon)
        }
        for (team, pts) in points {
            var f = form[team]!
            let n = Double(pts.count)
            f.games = pts.count
            f.ppg = pts.reduce(0, +) / n
            f.oppPpg = allowed[team]!.reduce(0, +) / n
            if pts.count >= 2 {
                let ss = pts.reduce(0) { $0 + ($1 - f.ppg) * ($1 - f.ppg) }
                f.sd = max(sdFloor, (ss / (n - 1)).squareRoot())
            } else { f.sd = defaultSD }   // one game gives no spread
            form[team] = f
        }
        return form
    }

    mutating func record(_ won: Bool) {
        if won { wins += 1 } else { losses += 1 }
        results.append(won)
    }

    var winPct: Double { games == 0 ? 0 : Double(wins) / Double(wins + losses) }

    /// "W3" / "L2": the current run of results; "" before the first game.
    var streak: String {
        guard let last = results.last else { return "" }
        let n = results.reversed().prefix { $0 == last }.count
        return "\(last ? "W" : "L")\(n)"
    }

    /// "7-3" over the last ten games.
    var lastTen: String {
        let r = results.suffix(10)
        return "\(r.filter { $0 }.count)-\(r.filter { !$0 }.count)"
    }
}
