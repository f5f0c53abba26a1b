import Foundation
import Schemas

/// `nba/teams.json` (the season of the latest snapshot, from games before its date) and
/// `nba/seasons/{season}/teams.json` (each whole season): the original /api/teams shape plus games behind,
/// streak and last 10. Games behind = ((leaderW − W) + (L − leaderL)) / 2 (the original's formula was wrong).
struct StandingsOutput: NBAOutput {
    static let team = Schema.object([
        "team_id": Schema.integer, "full_name": Schema.string, "abbreviation": Schema.string, "wins": Schema.nonNegativeInteger, "losses": Schema.nonNegativeInteger,
        "win_pct": Schema.number(min: 0, max: 1), "points_avg": Schema.nonNegativeNumber, "points_allowed_avg": Schema.nonNegativeNumber, "point_diff": Schema.number,
        "games_behind": Schema.number, "streak": Schema.string, "last_10": Schema.string(pattern: #"^\d+-\d+$"#),
    ])
    static let latest = OutputKind(name: "nba-teams", pathTemplate: "nba/teams.json",
                                   summary: "Standings of the latest snapshot's season, before its date.", schema: Schema.array(team))
    static let season = OutputKind(name: "nba-season-teams", pathTemplate: "nba/seasons/{season}/teams.json",
                                   summary: "Final standings of one season.", schema: Schema.array(team))
    var kinds: [OutputKind] { [Self.latest, Self.season] }

    static func standings(_ m: NBADomain.Model, season: String, before date: String) -> JSON {
        let forms = TeamForm.asOf(date, season: season, games: m.data.games)
        let (lw, ll) = Standings.leader(forms)
        let rows = forms.sorted { a, b in
            a.value.winPct != b.value.winPct ? a.value.winPct > b.value.winPct : (a.value.wins != b.value.wins ? a.value.wins > b.value.wins : a.key < b.key)
        }
        let r = NBAOutputs.r
        return .array(rows.map { id, f in
            let t = m.data.teams[id]!
            return .obj(["team_id": .int(id), "full_name": .string(t.fullName), "abbreviation": .string(t.abbreviation),
                         "wins": .int(f.wins), "losses": .int(f.losses), "win_pct": r(f.winPct, 3), "points_avg": r(f.ppg, 1),
                         "points_allowed_avg": r(f.oppPpg, 1), "point_diff": r(f.ppg - f.oppPpg, 1),
                         "games_behind": .double(Standings.gamesBehind(wins: f.wins, losses: f.losses, leaderWins: lw, leaderLosses: ll)),
                         "streak": .string(f.streak), "last_10": .string(f.lastTen)])
        })
    }

    func render(_ m: NBADomain.Model, _ context: BuildContext) throws -> [OutputFile] {
        var files: [OutputFile] = []
        if let last = m.snapshots.last, let season = last.games.first?.game.season {
            files.append(OutputFile(path: "nba/teams.json", json: Self.standings(m, season: season, before: last.date), kind: Self.latest))
        }
        for s in m.seasons { files.append(OutputFile(path: "nba/seasons/\(s)/teams.json", json: Self.standings(m, season: s, before: "9999-12-31"), kind: Self.season)) }
        return files
    }
}
