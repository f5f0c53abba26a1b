import Foundation

extension NBAData {
    static let teamColumns = ["team_id", "abbreviation", "full_name"]
    static let gameColumns = ["game_id", "season", "game_date", "home_team_id", "away_team_id", "home_score", "away_score", "ot_periods"]
    static let lineColumns = ["game_id", "total", "over_odds", "under_odds", "is_closing"]
    static let playerColumns = ["game_id", "player_id", "player_name", "team_id", "minutes", "points", "rebounds", "assists", "steals",
                                "blocks", "turnovers", "fgm", "fga", "fg3m", "fg3a", "ftm", "fta"]

    /// `dir` is the resolved folder; each file in it is resolved inside `root` (the input folder; default `dir`),
    /// so a link pointing out is an error naming it.
    static func load(_ dir: URL, root: URL? = nil, display: (URL) -> String) throws -> NBAData {
        let realDir = root == nil ? try InputFiles.root(dir) : dir
        /// The file `name` of the folder with `columns` checked; nil when there is none.
        func file(_ name: String, columns: [String]) throws -> NBACSVFile? {
            let shown = display(dir.appendingPathComponent(name))
            let url = try InputFiles.resolve(name, root: root ?? realDir, from: realDir, file: shown, field: nil)
            guard InputFiles.kind(url) != .missing else { return nil }
            return try NBACSVFile(CSVReader.read(url, displayName: shown), file: shown, columns: columns)
        }
        func required(_ name: String, columns: [String]) throws -> NBACSVFile {
            guard let f = try file(name, columns: columns) else { throw BuildError(file: display(dir.appendingPathComponent(name)), "file not found") }
            return f
        }
        var d = NBAData()
        d.teams = try teams(required("teams.csv", columns: teamColumns))
        d.games = try games(required("games.csv", columns: gameColumns), teams: d.teams)
        if let f = try file("lines.csv", columns: lineColumns) { (d.lines, d.openings) = try lines(f) }
        if let f = try file("player_game_stats.csv", columns: playerColumns) { d.players = try players(f) }
        d.games.sort { ($0.date, $0.id) < ($1.date, $1.id) }
        return d
    }

    static func teams(_ f: NBACSVFile) throws -> [Int: NBATeam] {
        var teams: [Int: NBATeam] = [:]
        for r in f.records {
            let id = try f.int(r, "team_id")
            teams[id] = NBATeam(id: id, abbreviation: f.text(r, "abbreviation"), fullName: f.text(r, "full_name"))
        }
        return teams
    }

    /// Games in file order; ids are unique, both teams are in teams.csv and dates are YYYY-MM-DD.
    static func games(_ f: NBACSVFile, teams: [Int: NBATeam]) throws -> [NBAGame] {
        var games: [NBAGame] = []
        var seen = Set<String>()
        for r in f.records {
            let id = f.text(r, "game_id")
            guard seen.insert(id).inserted else { throw BuildError(file: f.file, line: r.line, field: "game_id", "duplicate game id \(Excerpt.quote(id))") }
            let home = try f.int(r, "home_team_id")
            let away = try f.int(r, "away_team_id")
            for t in [home, away] where teams[t] == nil { throw BuildError(file: f.file, line: r.line, field: "home_team_id", "team \(t) is not in teams.csv") }
            let date = f.text(r, "game_date")
            guard date.range(of: #"^\d{4}-\d{2}-\d{2}$"#, options: .regularExpression) != nil else {
                throw BuildError(file: f.file, line: r.line, field: "game_date", "expected YYYY-MM-DD, found \(Excerpt.quote(date))")
            }
            games.append(NBAGame(id: id, season: f.text(r, "season"), date: date, home: home, away: away,
                                 homeScore: try f.int(r, "home_score"), awayScore: try f.int(r, "away_score"),
                                 otPeriods: try f.int(r, "ot_periods")))
        }
        return games
    }

    /// Closing lines (`is_closing` true; a later row replaces an earlier one) and opening lines (the first
    /// `is_closing` false row of each game), by game id.
    static func lines(_ f: NBACSVFile) throws -> (closing: [String: NBALine], opening: [String: NBALine]) {
        var closing: [String: NBALine] = [:], opening: [String: NBALine] = [:]
        for r in f.records {
            let line = NBALine(total: try f.double(r, "total"), overOdds: try f.double(r, "over_odds"), underOdds: try f.double(r, "under_odds"))
            for (field, odds) in [("over_odds", line.overOdds), ("under_odds", line.underOdds)] where odds > -100 && odds < 100 {
                throw BuildError(file: f.file, line: r.line, field: field, "American odds are at most −100 or at least +100, found \(Excerpt.quote(f.text(r, field)))")
            }
            let id = f.text(r, "game_id")
            switch f.text(r, "is_closing").lowercased() {
            case "true": closing[id] = line
            case "false": if opening[id] == nil { opening[id] = line }
            case let v: throw BuildError(file: f.file, line: r.line, field: "is_closing", "expected true or false, found \(Excerpt.quote(v))")
            }
        }
        return (closing, opening)
    }

    static func players(_ f: NBACSVFile) throws -> [NBAPlayerLine] {
        var players: [NBAPlayerLine] = []
        for r in f.records {
            func v(_ c: String) throws -> Double { try f.double(r, c) }
            players.append(NBAPlayerLine(gameId: f.text(r, "game_id"), playerId: try f.int(r, "player_id"),
                                         name: f.text(r, "player_name"), teamId: try f.int(r, "team_id"),
                                         minutes: try v("minutes"), points: try v("points"), rebounds: try v("rebounds"), assists: try v("assists"),
                                         steals: try v("steals"), blocks: try v("blocks"), turnovers: try v("turnovers"),
                                         fgm: try v("fgm"), fga: try v("fga"), fg3m: try v("fg3m"), fg3a: try v("fg3a"), ftm: try v("ftm"), fta: try v("fta")))
        }
        return players
    }
}
