import Foundation

/// The Alabama Auction Watcher's metrics, as its code computes them (`scripts/utils.py`; the Auctions
/// article gives the formulas). The code is the authority, not the documents: it gives 23.7 where a document prints 23.3.
public enum AuctionScoring {
    public struct Weights: Sendable, Equatable {
        public var pricePerAcre = 0.4, acreage = 0.3, water = 0.2, assessedRatio = 0.1
        public init() {}
    }

    static let primary = ["creek", "stream", "river", "lake", "pond", "spring"]           // 3 each
    static let secondary = ["branch", "run", "brook", "tributary", "wetland", "marsh"]     // 2 each
    static let tertiary = ["water", "aquatic", "riparian", "shore", "bank", "waterfront"]  // 1 each

    /// Case-insensitive substring matches, each keyword counted once. Kept as the reference behaves: "waterfront"
    /// scores 2 (it contains "water"), "running" contains "run", "bank" matches "embankment".
    public static func water(_ description: String) -> Double {
        let d = description.lowercased()
        var score = 0.0
        for k in primary where d.contains(k) { score += 3 }
        for k in secondary where d.contains(k) { score += 2 }
        for k in tertiary where d.contains(k) { score += 1 }
        return score
    }

    /// 100 within 2–4 acres, 100·acres/2 below, max(0, 100 − 10·(acres − 4)) above.
    static func acreagePart(_ acres: Double) -> Double {
        if acres >= 2 && acres <= 4 { return 100 }
        if acres < 2 { return 100 * acres / 2 }
        return max(0, 100 - 10 * (acres - 4))
    }

    /// round1(min(100, 10000/ppa)·w1 [ppa > 0] + acreagePart·w2 [acres > 0] + min(100, water·10)·w3
    /// + min(100, 100/ratio)·w4 [ratio > 0]); 0 when acreage is missing or not positive. Terms are added in this
    /// order, in doubles, and rounded as Python's round(x, 1), so the result equals the original's to the bit.
    public static func investmentScore(pricePerAcre ppa: Double, acreage: Double, water: Double, assessedRatio ratio: Double,
                                       weights w: Weights = Weights()) -> Double {
        guard acreage > 0 else { return 0 }
        var s = 0.0
        if ppa > 0 { s += min(100, 10000 / ppa) * w.pricePerAcre }
        s += acreagePart(acreage) * w.acreage
        s += min(100, water * 10) * w.water
        if ratio > 0 { s += min(100, 100 / ratio) * w.assessedRatio }
        return pythonRound1(s)
    }

    /// Python's `round(x, 1)`: the double nearest to x's exact binary value rounded half-to-even at one decimal.
    public static func pythonRound1(_ x: Double) -> Double {
        guard x.isFinite, x != 0 else { return x }
        if x < 0 { return -pythonRound1(-x) }
        if x >= 1e15 { return x }
        // x = m · 2^e exactly, with m a 53-bit integer.
        let e = Int(x.exponent) - 52
        let m = UInt64(x.significandBitPattern) | (1 << 52)
        if e >= 0 { return x }   // a whole number
        let k = -e
        if k > 60 { return 0 }   // x < 2^-7: rounds to 0.0
        let ten = m * 10                      // < 2^57
        let q = ten >> UInt64(k)
        let r = ten - (q << UInt64(k))
        let half = UInt64(1) << UInt64(k - 1)
        let up = r > half || (r == half && q % 2 == 1)
        return Double(q + (up ? 1 : 0)) / 10
    }

    /// Bid + 35.00 recording fee + 5 % county fee + 100.00 other fees, in exact decimal cents (fee rounded half-up).
    /// Exact at any size (Decimal would round a 38-digit bid's fee and total).
    static func allInCost(_ bid: Decimal) -> ExactDecimal {
        let b = ExactDecimal(exactly: bid) ?? .zero
        return b + ExactDecimal(35) + b.divided(by: 20, places: 2, rounding: .halfUp) + ExactDecimal(100)
    }

    /// A–F from the score; thresholds are the lowest score of each grade.
    public static func grade(_ score: Double, thresholds: [(String, Double)]) -> String {
        for (g, t) in thresholds where score >= t { return g }
        return "F"
    }
}
