import Foundation
import TestTools
import TreeClient
import XCTest

/// The bucketing rule every client shares, against a recount in Python (`Tests/Oracles/flag_buckets.py`), and what a
/// rollout built on it promises: its share, monotone widening, independent flags.
final class FlagBucketTests: XCTestCase {
    /// `n` distinct units as apps make them (UUIDs) and as support types them (short ids, non-ASCII names), seeded.
    static func units(_ n: Int, seed: UInt64) -> [String] {
        var g = SplitMix64(state: seed)
        return (0..<n).map { i in
            switch i % 10 {
            case 0: return "user-\(i)"
            case 1: return "Zoë-\(i)-東京"
            default:
                let hex = String(format: "%016llX%016llX", g.next(), g.next())
                return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { r in
                    String(hex.dropFirst(r.lowerBound).prefix(r.count))
                }.joined(separator: "-")
            }
        }
    }

    func testBucketsEqualAnIndependentRecountFor100000Pairs() throws {
        try Tool.require(.python3)
        let flags = ["new_checkout", "payments_v2", "a", "flag.with-dots_and_underscores", "X9"]
        let units = Self.units(100_000, seed: 44)
        let pairs = units.enumerated().map { (flags[$0.offset % flags.count], $0.element) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("flag-pairs-\(getpid()).tsv")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(pairs.map { "\($0.0)\t\($0.1)\n" }.joined().utf8).write(to: file)
        let oracle = Repository.root.appendingPathComponent("Tests/Oracles/flag_buckets.py")
        let run = try Command.run(["python3", oracle.path, file.path])
        XCTAssertEqual(run.status, 0, run.output)
        let want = run.output.split(separator: "\n").map { Int($0) }
        XCTAssertEqual(want.count, pairs.count)
        var mismatches = 0
        for (p, w) in zip(pairs, want) where FlagBucket.bucket(flag: p.0, unit: p.1) != w {
            mismatches += 1
            if mismatches <= 5 { XCTFail("bucket of \(p.0):\(p.1) is \(FlagBucket.bucket(flag: p.0, unit: p.1)), the recount says \(w.map(String.init) ?? "?")") }
        }
        XCTAssertEqual(mismatches, 0)
    }

    func testA25PercentRolloutTakesAQuarterAndWideningKeepsEveryUnit() {
        let units = Self.units(100_000, seed: 7)
        let at25 = Set(units.filter { FlagBucket.isIn(flag: "new_checkout", unit: $0, percent: 25) })
        let share = Double(at25.count) / Double(units.count) * 100
        XCTAssert((24.5...25.5).contains(share), "25 % rollout took \(share) %")
        let at50 = Set(units.filter { FlagBucket.isIn(flag: "new_checkout", unit: $0, percent: 50) })
        XCTAssert(at25.isSubset(of: at50), "\(at25.subtracting(at50).count) units left the rollout when it widened to 50 %")
        XCTAssert((49.5...50.5).contains(Double(at50.count) / 1000), "50 % rollout took \(Double(at50.count) / 1000) %")
        // Edges: nobody at 0 %, everybody at 100 %, and two decimals count (0.01 % is one bucket in 10,000).
        XCTAssert(units.prefix(1000).allSatisfy { !FlagBucket.isIn(flag: "f", unit: $0, percent: 0) && FlagBucket.isIn(flag: "f", unit: $0, percent: 100) })
        XCTAssertEqual(FlagBucket.threshold(percent: 0.01), 1)
        XCTAssertEqual(FlagBucket.threshold(percent: 0.29), 29)   // 0.29 × 100 is 28.999… in binary floating point
        XCTAssertEqual(FlagBucket.threshold(percent: 33.33), 3333)
    }

    func testFlagsSplitUnitsIndependently() {
        // Who is in flag A's 50 % says nothing about flag B's: about half of A's units are in B's.
        let units = Self.units(20_000, seed: 9)
        let a = units.filter { FlagBucket.isIn(flag: "a", unit: $0, percent: 50) }
        let both = a.filter { FlagBucket.isIn(flag: "b", unit: $0, percent: 50) }
        XCTAssert((0.47...0.53).contains(Double(both.count) / Double(a.count)), "\(both.count) of \(a.count)")
    }
}
