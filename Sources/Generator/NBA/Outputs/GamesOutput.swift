import Foundation
import Schemas

/// `nba/games.json` (the latest snapshot's season up to its date: earlier games Final, that date's games
/// Scheduled without scores) and `nba/seasons/{season}/games.json` (every game): the app's Game shape.
struct GamesOutput: NBAOutput {
    static let game = Schema.object([
        "game_id": Schema.nonEmptyString, "game_date": Schema.date, "home_team": Schema.string, "home_abbreviation": Schema.string,
        "away_team": Schema.string, "away_abbreviation": Schema.string, "home_score": Schema.nullable(Schema.nonNegativeInteger),
        "away_score": Schema.nullable(Schema.nonNegativeInteger), "game_status": Schema.enumeration(["Final", "Scheduled"]),
    ])
    static let latest = OutputKind(name: "nba-games", pathTemplate: "nba/games.json",
                                   summary: "Games of the latest snapshot's season up to its date.", schema: Schema.array(game))
    static let season = OutputKind(name: "nba-season-games", pathTemplate: "nba/seasons/{season}/games.json",
                                   summary: "Every game of one season.", schema: Schema.array(game))
    var kinds: [OutputKind] { [Self.latest, Self.season] }

    static func games(_ m: NBADomain.Model, season: String, through date: String) -> JSON {
        .array(m.data.games.filter { $0.season == season && $0.date <= date }.map { g in
            let h = m.data.teams[g.home]!, a = m.data.teams[g.away]!
            let played = g.date < date
            return .obj(["game_id": .string(g.id), "game_date": .string(g.date), "home_team": .string(h.fullName),
                         "home_abbreviation": .string(h.abbreviation), "away_team": .string(a.fullName), "away_abbreviation": .string(a.abbreviation),
                         "home_score": played ? .int(g.homeScore) : .null, "away_score": played ? .int(g.awayScore) : .null,
                         "game_status": played ? "Final" : "Scheduled"])
        })
    }

    func render(_ m: NBADomain.Model, _ context: BuildContext) throws -> [OutputFile] {
        var files: [OutputFile] = []
        if let last = m.snapshots.last, let season = last.games.first?.game.season {
            files.append(OutputFile(path: "nba/games.json", json: Self.games(m, season: season, through: last.date), kind: Self.latest))
        }
        for s in m.seasons { files.append(OutputFile(path: "nba/seasons/\(s)/games.json", json: Self.games(m, season: s, through: "9999-12-31"), kind: Self.season)) }
        return files
    }
}
