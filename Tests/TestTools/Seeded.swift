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

/// A posting list's numbers read independently of `Query`: `[G, G scores best first, n…]`, one n per document in
/// document order, n = (gap from the document before − 1) × G + the rank of its score (0 the best). Returns document →
/// stored score, checking the shape as it reads (scores strictly descending, ranks below G).
public func packedPostings(_ term: String, _ flat: [Int]) throws -> [Int: Int] {
    let g = try XCTUnwrap(flat.first, "\(term): an empty posting list")
    XCTAssertGreaterThan(g, 0, "\(term): no scores")
    XCTAssertGreaterThan(flat.count, g, "\(term): fewer scores than said")
    guard g > 0, flat.count > g else { return [:] }
    let scores = Array(flat[1...g])
    for k in scores.indices.dropFirst() { XCTAssertLessThan(scores[k], scores[k - 1], "\(term): scores best first, each once") }
    var out: [Int: Int] = [:], doc = -1, used = Set<Int>()
    for n in flat[(g + 1)...] {
        doc += n / g + 1
        out[doc] = scores[n % g]; used.insert(n % g)
    }
    XCTAssertEqual(used.count, g, "\(term): every score is some document's")
    return out
}
