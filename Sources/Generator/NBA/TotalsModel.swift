import Foundation

/// The totals model of the original service, reproducible: projected total, a correlated bivariate normal Monte
/// Carlo of the two scores with overtime, the exact probability for the same model, and the betting metrics.
struct TotalsModel {
    let s: NBASettings

    struct Projection { let homeMean, awayMean, homeSD, awaySD: Double; var total: Double { homeMean + awayMean } }

    /// projected = (home_ppg + away_opp_ppg)/2 + (away_ppg + home_opp_ppg)/2.
    static func project(home: TeamForm, away: TeamForm) -> Projection {
        Projection(homeMean: (home.ppg + away.oppPpg) / 2, awayMean: (away.ppg + home.oppPpg) / 2, homeSD: home.sd, awaySD: away.sd)
    }

    struct Simulation {
        var pOver = 0.0, pUnder = 0.0, pPush = 0.0
        var mean = 0.0, median = 0.0, sd = 0.0
        var percentiles: [(String, Double)] = []
        var otPct = 0.0
    }

    /// Totals are whole points (the final score of a game): over when the rounded total is above the line, under
    /// when below, push when equal.
    func simulate(_ p: Projection, line: Double?, seed: UInt64, memory: BuildMemory? = nil) -> Simulation {
        // A pure function of these: a rebuild in the same long-lived process (`generator serve --watch`) simulates
        // again only the games whose projection, line or model changed (the simulations are most of an unoptimised
        // build).
        guard let memory else { return simulateOnce(p, line: line, seed: seed) }
        let key = SimulationKey(model: s.modelKey, seed: seed, line: line?.bitPattern,
                                projection: [p.homeMean, p.awayMean, p.homeSD, p.awaySD].map(\.bitPattern))
        if let done = memory.simulation(key) { return done }
        let r = simulateOnce(p, line: line, seed: seed)
        memory.keep(key, r)
        return r
    }

    struct SimulationKey: Hashable { let model: String; let seed: UInt64; let line: UInt64?; let projection: [UInt64] }

    private func simulateOnce(_ p: Projection, line: Double?, seed: UInt64) -> Simulation {
        let n = s.simulations
        let drawn = draws(p, seed: seed)
        var totals = drawn.totals
        var r = Simulation()
        if let line {
            var over = 0, under = 0
            for t in totals { if t > line { over += 1 } else if t < line { under += 1 } }
            r.pOver = Double(over) / Double(n); r.pUnder = Double(under) / Double(n); r.pPush = Double(n - over - under) / Double(n)
        }
        r.mean = totals.reduce(0, +) / Double(n)
        r.sd = (totals.reduce(0) { $0 + ($1 - r.mean) * ($1 - r.mean) } / Double(n - 1)).squareRoot()
        Self.sortPoints(&totals)
        func pct(_ q: Double) -> Double {   // linear interpolation between order statistics (numpy's default)
            let h = Double(n - 1) * q, lo = Int(h.rounded(.down)), hi = min(n - 1, lo + 1)
            return totals[lo] + (h - Double(lo)) * (totals[hi] - totals[lo])
        }
        r.median = pct(0.5)
        r.percentiles = [5, 10, 25, 50, 75, 90, 95].map { (String($0), pct(Double($0) / 100)) }
        r.otPct = Double(drawn.overtime) / Double(n)
        return r
    }

    /// The Monte Carlo draws: each simulated game's total, rounded to whole points, and how many went to overtime.
    func draws(_ p: Projection, seed: UInt64) -> (totals: [Double], overtime: Int) {
        var rng = Xoshiro256(seed: seed)
        let n = s.simulations
        var totals = [Double](repeating: 0, count: n)
        var ot = 0
        // The settings read once (not through `s` on every draw: an unoptimised build copies it each time).
        let rho = s.rho, c = (1 - rho * rho).squareRoot(), floor = s.scoreFloor
        let otProbability = s.overtimeProbability, otMean = s.overtimeMean, otSD = s.overtimeSD
        for i in 0..<n {
            let (z1, z2) = rng.normalPair()
            let home = max(floor, p.homeMean + p.homeSD * z1)
            let away = max(floor, p.awayMean + p.awaySD * (rho * z1 + c * z2))
            var total = home + away
            if rng.uniform() < otProbability {
                let (z, _) = rng.normalPair()
                total += otMean + otSD * z
                ot += 1
            }
            totals[i] = total.rounded(.toNearestOrAwayFromZero)
        }
        return (totals, ot)
    }

    /// Sorts `values` in place. Whole numbers in a small range (a game's simulated totals: a few hundred distinct
    /// points in 10,000 draws) are counted instead of compared, in O(n + range), giving the order `sort()` gives;
    /// anything else (a fraction, zero, whose sign a count would lose, or a wide range) is left to `sort()`.
    static func sortPoints(_ values: inout [Double]) {
        guard let lo = values.min(), let hi = values.max(), lo.isFinite, hi.isFinite,
              hi - lo < Double(max(4096, values.count)) else { return values.sort() }
        let base = Int(lo)
        var counts = [Int](repeating: 0, count: Int(hi - lo) + 1)
        for v in values {
            guard v != 0, v.rounded(.towardZero) == v else { return values.sort() }
            counts[Int(v) - base] += 1
        }
        var i = 0
        for (k, count) in counts.enumerated() where count > 0 {
            let v = Double(base + k)
            for _ in 0..<count { values[i] = v; i += 1 }
        }
    }

    /// P(over) for the same model without the 70-point floor: the regulation total is N(μ, σ²) with
    /// σ² = σh² + σa² + 2ρσhσa; with probability p it has overtime, N(μ + otMean, σ² + otSD²). The rounded total is
    /// above the line when the continuous total is at least ⌊line⌋ + 0.5.
    func exactOver(_ p: Projection, line: Double, rho: Double? = nil, overtimeMean: Double? = nil) -> Double {
        let r = rho ?? s.rho, otm = overtimeMean ?? s.overtimeMean
        let variance = p.homeSD * p.homeSD + p.awaySD * p.awaySD + 2 * r * p.homeSD * p.awaySD
        let threshold = line.rounded(.down) + 0.5
        let reg = DetMath.upperTail(threshold, mean: p.total, sd: variance.squareRoot())
        let withOT = DetMath.upperTail(threshold, mean: p.total + otm, sd: (variance + s.overtimeSD * s.overtimeSD).squareRoot())
        return (1 - s.overtimeProbability) * reg + s.overtimeProbability * withOT
    }

    /// American odds (−110) → decimal (1.909…).
    static func decimalOdds(_ american: Double) -> Double { american < 0 ? 1 + 100 / -american : 1 + american / 100 }

    struct Metrics { let evOver, evUnder, edgeOver, edgeUnder, kellyOver, kellyUnder: Double; let recommended: String; let verdict: String }

    /// ev = (p·(d−1) − (1−p))·100; edge = (p − 1/d)·100; Kelly = min(fraction · full Kelly, cap)·100 with
    /// full Kelly = (p·d − 1)/(d − 1) (0 when negative); verdict from the larger edge: ≥ strong → STRONG_, ≥ lean → LEAN_.
    func metrics(pOver: Double, pUnder: Double, overOdds: Double, underOdds: Double) -> Metrics {
        func ev(_ p: Double, _ d: Double) -> Double { (p * (d - 1) - (1 - p)) * 100 }
        func edge(_ p: Double, _ d: Double) -> Double { (p - 1 / d) * 100 }
        func kelly(_ p: Double, _ d: Double) -> Double { min(s.kellyFraction * max(0, (p * d - 1) / (d - 1)), s.kellyCap) * 100 }
        let eo = ev(pOver, overOdds), eu = ev(pUnder, underOdds)
        let go = edge(pOver, overOdds), gu = edge(pUnder, underOdds)
        let recommended = eo > 0 && eo >= eu ? "OVER" : (eu > 0 ? "UNDER" : "NONE")
        return Metrics(evOver: eo, evUnder: eu, edgeOver: go, edgeUnder: gu, kellyOver: kelly(pOver, overOdds), kellyUnder: kelly(pUnder, underOdds),
                       recommended: recommended, verdict: verdict(edgeOver: go, edgeUnder: gu))
    }

    func verdict(edgeOver: Double, edgeUnder: Double) -> String {
        let (side, e) = edgeOver >= edgeUnder ? ("OVER", edgeOver) : ("UNDER", edgeUnder)
        if e >= s.strongEdge { return "STRONG_\(side)" }
        if e >= s.leanEdge { return "LEAN_\(side)" }
        return "NEUTRAL"
    }

    /// Seed of a game's simulation: FNV-1a of the game id and the model settings, so results never depend on
    /// which other games are in the build or on the thread count.
    static func seed(_ gameId: String, _ key: String) -> UInt64 {
        var h: UInt64 = 0xcbf29ce484222325
        for b in (gameId + "|" + key).utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        return h
    }
}
