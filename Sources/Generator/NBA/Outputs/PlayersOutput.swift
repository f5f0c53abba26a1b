import Foundation
import Schemas

/// `nba/players.json` and `nba/seasons/{season}/players.json` when box scores (`player_game_stats.csv`) are given:
/// the app's PlayerStats averages. A shooting percentage without attempts is 0, never null (the model needs a number).
struct PlayersOutput: NBAOutput {
    static let player = Schema.object([
        "player_id": Schema.integer, "full_name": Schema.string, "team_abbreviation": Schema.string, "games_played": Schema.integer(min: 1),
        "minutes_avg": Schema.nonNegativeNumber, "points_avg": Schema.nonNegativeNumber, "rebounds_avg": Schema.nonNegativeNumber,
        "assists_avg": Schema.nonNegativeNumber, "steals_avg": Schema.nonNegativeNumber, "blocks_avg": Schema.nonNegativeNumber,
        "turnovers_avg": Schema.nonNegativeNumber, "fg_pct": Schema.number(min: 0, max: 1), "fg3_pct": Schema.number(min: 0, max: 1), "ft_pct": Schema.number(min: 0, max: 1),
    ])
    static let latest = OutputKind(name: "nba-players", pathTemplate: "nba/players.json",
                                   summary: "Player averages of the latest snapshot's season before its date.", schema: Schema.array(player))
    static let season = OutputKind(name: "nba-season-players", pathTemplate: "nba/seasons/{season}/players.json",
                                   summary: "Player averages of one season.", schema: Schema.array(player))
    var kinds: [OutputKind] { [Self.latest, Self.season] }

    static func players(_ m: NBADomain.Model, season: String, before date: String) -> JSON {
        let games = Dictionary(uniqueKeysWithValues: m.data.games.map { ($0.id, $0) })
        var lines: [Int: [NBAPlayerLine]] = [:]
        for p in m.data.players {
            guard let g = games[p.gameId], g.season == season, g.date < date else { continue }
            lines[p.playerId, default: []].append(p)
        }
        let r = NBAOutputs.r
        return .array(lines.keys.sorted().map { id in
            let ls = lines[id]!
            let n = Double(ls.count)
            func avg(_ k: KeyPath<NBAPlayerLine, Double>) -> JSON { r(ls.reduce(0) { $0 + $1[keyPath: k] } / n, 1) }
            func pct(_ made: KeyPath<NBAPlayerLine, Double>, _ att: KeyPath<NBAPlayerLine, Double>) -> JSON {
                let a = ls.reduce(0) { $0 + $1[keyPath: att] }
                return a == 0 ? .int(0) : r(ls.reduce(0) { $0 + $1[keyPath: made] } / a, 3)
            }
            let latestGame = ls.max { (games[$0.gameId]!.date, $0.gameId) < (games[$1.gameId]!.date, $1.gameId) }!
            return .obj(["player_id": .int(id), "full_name": .string(latestGame.name),
                         "team_abbreviation": .string(m.data.teams[latestGame.teamId]?.abbreviation ?? ""), "games_played": .int(ls.count),
                         "minutes_avg": avg(\.minutes), "points_avg": avg(\.points), "rebounds_avg": avg(\.rebounds), "assists_avg": avg(\.assists),
                         "steals_avg": avg(\.steals), "blocks_avg": avg(\.blocks), "turnovers_avg": avg(\.turnovers),
                         "fg_pct": pct(\.fgm, \.fga), "fg3_pct": pct(\.fg3m, \.fg3a), "ft_pct": pct(\.ftm, \.fta)])
        })
    }

    func render(_ m: NBADomain.Model, _ context: BuildContext) throws -> [OutputFile] {
        guard !m.data.players.isEmpty else { return [] }
        var files: [OutputFile] = []
        if let last = m.snapshots.last, let season = last.games.first?.game.season {
            files.append(OutputFile(path: "nba/players.json", json: Self.players(m, season: season, before: last.date), kind: Self.latest))
        }
        for s in m.seasons { files.append(OutputFile(path: "nba/seasons/\(s)/players.json", json: Self.players(m, season: s, before: "9999-12-31"), kind: Self.season)) }
        return files
    }
}
