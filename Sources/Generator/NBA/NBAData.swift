import Foundation

/// The NBA folder as read: `teams.csv`, `games.csv` (sorted by date, then id), and the optional `lines.csv` and
/// `player_game_stats.csv`.
struct NBAData {
    var teams: [Int: NBATeam] = [:]
    var games: [NBAGame] = []
    /// Closing line per game.
    var lines: [String: NBALine] = [:]
    /// Opening line per game (its first `is_closing=false` row), for closing-line value.
    var openings: [String: NBALine] = [:]
    var players: [NBAPlayerLine] = []
}

/// A row of `teams.csv`.
struct NBATeam { let id: Int; let abbreviation: String; let fullName: String }

/// A row of `games.csv`: a played game and its final score.
struct NBAGame {
    let id: String
    let season: String
    let date: String
    let home: Int
    let away: Int
    let homeScore: Int
    let awayScore: Int
    let otPeriods: Int
}

/// A total and its American odds, from `lines.csv`.
struct NBALine { let total: Double; let overOdds: Double; let underOdds: Double }

/// A row of `player_game_stats.csv`: one player's box score in one game.
struct NBAPlayerLine {
    let gameId: String, playerId: Int, name: String, teamId: Int
    let minutes, points, rebounds, assists, steals, blocks, turnovers: Double
    let fgm, fga, fg3m, fg3a, ftm, fta: Double
}

extension NBAData {
    /// `dir` is the resolved folder; each file in it is resolved inside `root` (the input folder; default `dir`),
    /// so a link pointing out is an error naming it.
    static func load(_ dir: URL, root: URL? = nil, display: (URL) -> String) throws -> NBAData {
        var d = NBAData()
        let realDir = root == nil ? try InputFiles.root(dir) : dir
        func table(_ name: String) throws -> (CSVTable, String)? {
            let shown = display(dir.appendingPathComponent(name))
            let url = try InputFiles.resolve(name, root: root ?? realDir, from: realDir, file: shown, field: nil)
            guard InputFiles.kind(url) != .missing else { return nil }
            return (try CSVReader.read(url, displayName: shown), shown)
        }
        func need(_ t: CSVTable, _ file: String, _ cols: [String]) throws -> [String: Int] {
            var m: [String: Int] = [:]
            for c in cols {
                guard let i = t.column([c]) else { throw BuildError(file: file, line: 1, field: c, "missing column") }
                m[c] = i
            }
            // A short row would otherwise be read past its end.
            let width = (m.values.max() ?? 0) + 1
            if let r = t.records.first(where: { $0.fields.count < width }) {
                throw BuildError(file: file, line: r.line, "has \(r.fields.count) fields; the columns used need \(width)")
            }
            return m
        }
        func num<T>(_ r: CSVRecord, _ i: Int, _ file: String, _ field: String, _ f: (String) -> T?) throws -> T {
            let s = i < r.fields.count ? r.fields[i].trimmingCharacters(in: .whitespaces) : ""
            // Double("nan") and Double("inf") parse; neither is a number an output can carry.
            guard let v = f(s), (v as? Double)?.isFinite != false else {
                throw BuildError(file: file, line: r.line, field: field, "expected a number, found \(Excerpt.quote(s))")
            }
            return v
        }
        guard let (teams, tf) = try table("teams.csv") else { throw BuildError(file: display(dir.appendingPathComponent("teams.csv")), "file not found") }
        let tc = try need(teams, tf, ["team_id", "abbreviation", "full_name"])
        for r in teams.records {
            let id: Int = try num(r, tc["team_id"]!, tf, "team_id", { Int($0) })
            d.teams[id] = NBATeam(id: id, abbreviation: r.fields[tc["abbreviation"]!], fullName: r.fields[tc["full_name"]!])
        }
        guard let (games, gf) = try table("games.csv") else { throw BuildError(file: display(dir.appendingPathComponent("games.csv")), "file not found") }
        let gc = try need(games, gf, ["game_id", "season", "game_date", "home_team_id", "away_team_id", "home_score", "away_score", "ot_periods"])
        var seen = Set<String>()
        for r in games.records {
            let id = r.fields[gc["game_id"]!]
            guard seen.insert(id).inserted else { throw BuildError(file: gf, line: r.line, field: "game_id", "duplicate game id \(Excerpt.quote(id))") }
            let home: Int = try num(r, gc["home_team_id"]!, gf, "home_team_id", { Int($0) })
            let away: Int = try num(r, gc["away_team_id"]!, gf, "away_team_id", { Int($0) })
            for t in [home, away] where d.teams[t] == nil { throw BuildError(file: gf, line: r.line, field: "home_team_id", "team \(t) is not in teams.csv") }
            let date = r.fields[gc["game_date"]!]
            guard date.range(of: #"^\d{4}-\d{2}-\d{2}$"#, options: .regularExpression) != nil else {
                throw BuildError(file: gf, line: r.line, field: "game_date", "expected YYYY-MM-DD, found \(Excerpt.quote(date))")
            }
            d.games.append(NBAGame(id: id, season: r.fields[gc["season"]!], date: date, home: home, away: away,
                                   homeScore: try num(r, gc["home_score"]!, gf, "home_score", { Int($0) }),
                                   awayScore: try num(r, gc["away_score"]!, gf, "away_score", { Int($0) }),
                                   otPeriods: try num(r, gc["ot_periods"]!, gf, "ot_periods", { Int($0) })))
        }
        if let (lines, lf) = try table("lines.csv") {
            let lc = try need(lines, lf, ["game_id", "total", "over_odds", "under_odds", "is_closing"])
            for r in lines.records {
                let line = NBALine(total: try num(r, lc["total"]!, lf, "total", { Double($0) }),
                                   overOdds: try num(r, lc["over_odds"]!, lf, "over_odds", { Double($0) }),
                                   underOdds: try num(r, lc["under_odds"]!, lf, "under_odds", { Double($0) }))
                for (field, odds) in [("over_odds", line.overOdds), ("under_odds", line.underOdds)] where odds > -100 && odds < 100 {
                    throw BuildError(file: lf, line: r.line, field: field, "American odds are at most −100 or at least +100, found \(Excerpt.quote(r.fields[lc[field]!]))")
                }
                let id = r.fields[lc["game_id"]!]
                switch r.fields[lc["is_closing"]!].lowercased() {
                case "true": d.lines[id] = line
                case "false": if d.openings[id] == nil { d.openings[id] = line }
                case let v: throw BuildError(file: lf, line: r.line, field: "is_closing", "expected true or false, found \(Excerpt.quote(v))")
                }
            }
        }
        if let (p, pf) = try table("player_game_stats.csv") {
            let cols = ["game_id", "player_id", "player_name", "team_id", "minutes", "points", "rebounds", "assists", "steals", "blocks",
                        "turnovers", "fgm", "fga", "fg3m", "fg3a", "ftm", "fta"]
            let pc = try need(p, pf, cols)
            for r in p.records {
                func v(_ c: String) throws -> Double { try num(r, pc[c]!, pf, c, { Double($0) }) }
                d.players.append(NBAPlayerLine(gameId: r.fields[pc["game_id"]!], playerId: try num(r, pc["player_id"]!, pf, "player_id", { Int($0) }),
                                               name: r.fields[pc["player_name"]!], teamId: try num(r, pc["team_id"]!, pf, "team_id", { Int($0) }),
                                               minutes: try v("minutes"), points: try v("points"), rebounds: try v("rebounds"), assists: try v("assists"),
                                               steals: try v("steals"), blocks: try v("blocks"), turnovers: try v("turnovers"),
                                               fgm: try v("fgm"), fga: try v("fga"), fg3m: try v("fg3m"), fg3a: try v("fg3a"), ftm: try v("ftm"), fta: try v("fta")))
            }
        }
        d.games.sort { ($0.date, $0.id) < ($1.date, $1.id) }
        return d
    }
}
