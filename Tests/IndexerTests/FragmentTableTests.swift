import XCTest
import Schemas
@testable import Indexer

/// `FragmentTable` and the earlier file's fragments that `FragmentReuse` finds through it.
final class FragmentTableTests: XCTestCase {
    /// The table numbers keys in the order they were first added and answers as a dictionary would, through growth,
    /// for keys that share their first word (one slot for all of them), differ only in their last word, or repeat.
    func testAgreesWithADictionary() {
        var state: UInt64 = 7
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state }
        var keys: [FragmentKey] = (0..<5000).map { _ in FragmentKey(a: next(), b: next(), c: next(), d: next()) }
        keys += (0..<300).map { FragmentKey(a: 1, b: 2, c: 3, d: UInt64($0)) }          // one first word, one slot
        keys += (0..<300).map { FragmentKey(a: UInt64($0) << 44, b: 0, c: 0, d: 0) }   // only high bits differ
        keys += keys.prefix(700)                                                         // repeated
        var table = FragmentTable(capacity: 100)
        var reference: [FragmentKey: Int] = [:]
        for k in keys {
            XCTAssertEqual(table.find(k), reference[k])
            let (n, added) = table.insert(k)
            XCTAssertEqual(added, reference[k] == nil)
            if added { reference[k] = reference.count }
            XCTAssertEqual(n, reference[k])
        }
        XCTAssertEqual(table.count, reference.count)
        XCTAssertEqual(table.keys.count, reference.count)
        for (k, n) in reference { XCTAssertEqual(table.find(k), n); XCTAssertEqual(table.keys[n], k) }
        XCTAssertNil(table.find(FragmentKey(a: 1, b: 2, c: 3, d: 999)))
        XCTAssertNil(FragmentTable().find(keys[0]))
    }

    /// The earlier file's fragments as the cache lists them: of two with one key the later counts, a range outside the
    /// file is never used, the keys come back in file order (whatever order the cache listed them in) without the last
    /// fragment, and a fragment is copied from where the table says it is.
    func testEarlierFragmentsAreFoundAsListed() throws {
        func key(_ n: UInt64) -> FragmentKey { FragmentKey(a: n, b: n, c: n, d: n) }
        let text = Array(#"[{"a":1},{"b":2},{"c":3},{"d":4}]"#.utf8)
        func reuse(_ ranges: [(key: FragmentKey, range: Range<Int>)]) -> FragmentReuse {
            FragmentReuse(size: text.count, ranges: ranges, read: { offset, count, buffer in
                guard offset >= 0, offset + count <= text.count else { return false }
                buffer.replaceSubrange(0..<count, with: text[offset..<(offset + count)])
                return true
            })
        }
        // a at 1..<8, b at 9..<16, c at 17..<24, d at 25..<32; listed out of order, b twice (first wrong), one outside.
        let r = reuse([(key(3), 17..<24), (key(2), 1..<8), (key(1), 1..<8), (key(9), 30..<99), (key(2), 9..<16), (key(4), 25..<32)])
        XCTAssertEqual(r.earlierCount, 4)
        XCTAssertEqual(r.earlierKeys(), [key(1), key(2), key(3)], "file order, the last one (d) aside")
        XCTAssertEqual(r.earlierLast, 25..<32)
        XCTAssertFalse(r.has(key(9)))
        XCTAssertEqual(r.earlierRanges(notIn: [key(1), key(3)]), [9..<16])
        let out = JSONStream(capacity: 64)
        XCTAssertEqual(try r.copy(key(2), to: out), 7)
        XCTAssertEqual(String(decoding: out.bytes, as: UTF8.self), #"{"b":2}"#)
        XCTAssertNil(try r.copy(key(5), to: out))
        // The last listed fragment is the last one only when it is its key's range (here it lies outside the file).
        XCTAssertNil(reuse([(key(1), 1..<8), (key(4), 25..<32), (key(4), 30..<99)]).earlierLast)
        XCTAssertTrue(reuse([]).isEmpty)
        XCTAssertTrue(FragmentReuse(size: text.count, ranges: [(key(1), 1..<8)], read: nil).isEmpty)
    }
}
