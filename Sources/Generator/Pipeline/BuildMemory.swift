import Foundation
import LowLevel

/// What a long-lived process (`generator serve --watch`) keeps from one build to the next: pure results, each keyed
/// by everything it depends on, so reusing one gives the bytes computing it would. One per process that rebuilds;
/// a single build (and every test of a domain) has none.
public final class BuildMemory: Sendable {
    /// Entries kept at most; then it starts over.
    static let limit = 100_000
    private let simulations = Locked<[TotalsModel.SimulationKey: TotalsModel.Simulation]>([:])

    public init() {}

    func simulation(_ key: TotalsModel.SimulationKey) -> TotalsModel.Simulation? { simulations.withLock { $0[key] } }

    func keep(_ key: TotalsModel.SimulationKey, _ value: TotalsModel.Simulation) {
        simulations.withLock {
            if $0.count >= Self.limit { $0.removeAll() }
            $0[key] = value
        }
    }
}
