import Foundation

/// The NBA folder as read: `teams.csv`, `games.csv` (sorted by date, then id), and the optional `lines.csv` and
/// `player_game_stats.csv`. Loading (and every check of the files) is in `NBAData+Load.swift`.
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
