import Foundation
import Schemas

/// One NBA output kind: its declared kinds (schemas) and how it renders.
protocol NBAOutput {
    var kinds: [OutputKind] { get }
    func render(_ m: NBADomain.Model, _ context: BuildContext) throws -> [OutputFile]
}

enum NBAOutputs {
    /// Every NBA output, in emission order. Adding a kind = one file + one line here.
    static let all: [NBAOutput] = [TotalsOutput(), StandingsOutput(), GamesOutput(), PlayersOutput(), BacktestOutput()]

    /// Deterministic rounding for published figures.
    static func r(_ x: Double, _ places: Int) -> JSON {
        let f = [1.0, 10, 100, 1000, 10000, 100000, 1000000][places]
        return .double((x * f).rounded(.toNearestOrAwayFromZero) / f)
    }
}
