import Foundation

/// Standings arithmetic: the leader's record, and how many games behind it a team is.
enum Standings {
    /// Games behind the leader (best win percentage; ties: more wins): ((leaderW − W) + (L − leaderL)) / 2.
    static func gamesBehind(wins: Int, losses: Int, leaderWins: Int, leaderLosses: Int) -> Double {
        Double((leaderWins - wins) + (losses - leaderLosses)) / 2
    }

    static func leader(_ forms: [Int: TeamForm]) -> (Int, Int) {
        let best = forms.values.max { a, b in a.winPct != b.winPct ? a.winPct < b.winPct : a.wins < b.wins }
        return (best?.wins ?? 0, best?.losses ?? 0)
    }
}
