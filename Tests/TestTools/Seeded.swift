import XCTest

/// A deterministic pseudo-random generator (SplitMix64): a fixed seed gives the same draws on every run and platform.
public struct SplitMix64: Sendable {
    public var state: UInt64
    public init(state: UInt64) { self.state = state }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A ranked index's posting list (or facet runs) as numbers, read independently of `Indexer.PostingText`: each is
/// q × 32 + r, r one of 0-9 a-v, q before it in base 26 as A-Z.
public func postingNumbers(_ text: String) throws -> [Int] {
    let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), digits = Array("0123456789abcdefghijklmnopqrstuv")
    var out: [Int] = [], q = 0
    for c in text {
        if let k = letters.firstIndex(of: c) { q = q * 26 + k; continue }
        out.append(q * 32 + (try XCTUnwrap(digits.firstIndex(of: c), "\(text): \(c) is not a posting digit"))); q = 0
    }
    XCTAssertEqual(q, 0, "\(text): ends in a digit")
    return out
}
