import XCTest
@testable import Indexer

final class TokenTableTests: XCTestCase {
    /// The table answers as a dictionary keyed by the same bytes would, through growth, for keys of every length
    /// around the eight-byte words the hash reads, keys that differ only in their last byte, and the empty key.
    func testAgreesWithADictionary() {
        // Keys over a four-letter alphabet from a fixed-seed generator (reproducible), many of them repeated.
        var state: UInt64 = 42
        func letter() -> UInt8 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return 0x61 + UInt8(state >> 62)
        }
        var keys: [[UInt8]] = [[]]
        for len in 1...40 {
            for _ in 0..<200 { keys.append((0..<len).map { _ in letter() }) }
        }
        // Pairs that differ only in the last byte, and only in length (a trailing zero byte).
        for len in [7, 8, 9, 15, 16, 17] {
            let base = [UInt8](repeating: 0x61, count: len)
            keys.append(base); keys.append(base.dropLast() + [0x62]); keys.append(base + [0])
        }
        var table = TokenTable<Int>()
        var reference: [[UInt8]: Int] = [:]
        for (n, k) in keys.enumerated() {
            let found = k.withUnsafeBufferPointer { table.find($0) }
            XCTAssertEqual(found.map { table.values[$0] }, reference[k], "\(k)")
            if found == nil {
                let e = k.withUnsafeBufferPointer { table.insert($0, n) }
                XCTAssertEqual(table.values[e], n)
                reference[k] = n
            }
        }
        XCTAssertEqual(table.count, reference.count)
        for (k, v) in reference {
            XCTAssertEqual(k.withUnsafeBufferPointer { table.find($0) }.map { table.values[$0] }, v, "\(k)")
        }
        // Absent keys stay absent.
        for k in [[UInt8](repeating: 0x7A, count: 5), [UInt8](repeating: 0x61, count: 41)] {
            XCTAssertNil(k.withUnsafeBufferPointer { table.find($0) })
        }
    }
}
