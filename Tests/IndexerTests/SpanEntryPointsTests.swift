import XCTest
@testable import Indexer

/// The Indexer's entry points that take and lend `Span<UInt8>` answer as the buffer-pointer ones they replace.
final class SpanEntryPointsTests: XCTestCase {
    let keys: [[UInt8]] = [[], Array("a".utf8), Array("drill".utf8), Array("exactly8".utf8), Array("nine bytes".utf8),
                           Array("cordless hammer drill, 20v".utf8), Array("é".utf8)]

    func testHashesAgree() {
        for k in keys {
            let whole = k[...]
            let expected = k.withUnsafeBufferPointer { ByteHash.of($0) }
            XCTAssertEqual(ByteHash.of(whole.span), expected, "\(k)")
            XCTAssertEqual(ByteHash.of(k), expected, "\(k)")
        }
    }

    /// Keys inserted one way are found the other, with the same entry numbers.
    func testTokenTableAgrees() {
        var bySpan = TokenTable<Int>(), byPointer = TokenTable<Int>()
        for (n, k) in keys.enumerated() where n % 2 == 0 {
            let whole = k[...]
            XCTAssertEqual(bySpan.insert(whole.span, n), k.withUnsafeBufferPointer { byPointer.insert($0, n) })
        }
        for (n, k) in keys.enumerated() {
            let whole = k[...]
            let expected = k.withUnsafeBufferPointer { bySpan.find($0) }
            XCTAssertEqual(bySpan.find(whole.span), expected, "\(k)")
            XCTAssertEqual(byPointer.find(whole.span), expected, "\(k)")
            XCTAssertEqual(expected.map { bySpan.values[$0] }, n % 2 == 0 ? n : nil, "\(k)")
        }
    }

    /// Ids lent as spans give each id's position (nil for an id not there).
    func testIdPositionsFindEveryId() {
        let ids = ["204077179", "100-a", "é", "204077179-1", ""]
        let bySpan = SeedIndex.IdPositions(count: ids.count, idBytes: { k, body in
            let bytes = Array(ids[k].utf8)[...]
            body(bytes.span)
        })
        for id in ids + ["absent", "204077"] { XCTAssertEqual(bySpan.position(id), ids.firstIndex(of: id), id) }
    }
}
