import Foundation
import XCTest
@testable import Generator

/// The byte helpers the build's own files and the catalog's sorts rest on, against the standard library's answers
/// (scanning, ordering and equality of byte arrays) and against bytes written out by hand (the integers' byte order).
final class ByteCodingTests: XCTestCase {
    typealias Random = TestSupport.Random

    /// Real lines: the first 64 KB of the real products file, newlines where JSON Lines puts them.
    static let lines = TestSupport.realProductBytes(64 << 10)

    func testFirstIndexFindsEveryNewlineOfRealLines() {
        let bytes = Self.lines
        let expected = bytes.indices.filter { bytes[$0] == 0x0A }
        XCTAssertGreaterThan(expected.count, 10)
        var found: [Int] = [], at = 0
        let all = bytes[...], span = all.span
        while let i = span.firstIndex(of: 0x0A, from: at) { found.append(i); at = i + 1 }
        XCTAssertEqual(found, expected)
    }

    func testFirstIndexAtTheEdges() {
        let bytes: [UInt8] = [1, 2, 3, 2], all = bytes[...], s = all.span
        XCTAssertEqual(s.firstIndex(of: 2), 1)
        XCTAssertEqual(s.firstIndex(of: 2, from: 2), 3)
        XCTAssertEqual(s.firstIndex(of: 2, from: -5), 1)
        XCTAssertNil(s.firstIndex(of: 2, from: 4))
        XCTAssertNil(s.firstIndex(of: 2, from: 99))
        XCTAssertNil(s.firstIndex(of: 9))
        let none = [UInt8]()[...]
        XCTAssertNil(none.span.firstIndex(of: 0))
    }

    /// Order and equality as `Array` gives them, over random arrays that share prefixes (and high bytes, where a
    /// signed comparison would go wrong).
    func testOrderAndEqualityAgreeWithTheStandardLibrary() {
        var random = Random(state: 41)
        let alphabet: [UInt8] = [0x00, 0x41, 0x42, 0x7F, 0x80, 0xC3, 0xFF]
        func make() -> [UInt8] { (0..<Int(random.next() % 6)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] } }
        for _ in 0..<5_000 {
            let a = make(), b = random.next() % 2 == 0 ? a + make() : make()
            for (x, y) in [(a, b), (b, a), (a, a)] {
                let xa = x[...], ya = y[...], xs = xa.span, ys = ya.span
                XCTAssertEqual(xs.lexicographicallyPrecedes(ys), x.lexicographicallyPrecedes(y), "\(x) < \(y)")
                XCTAssertEqual(xs.elementsEqual(ys), x == y, "\(x) == \(y)")
            }
        }
    }

    func testIntegersInTheirByteOrder() {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(UInt32(0x0102_0304))
        bytes.appendBigEndian(UInt16(0x0A0B))
        bytes.appendBigEndian(UInt64(0x1122_3344_5566_7788))
        bytes.appendLittleEndian(Int16(-2))
        XCTAssertEqual(bytes, [0x04, 0x03, 0x02, 0x01, 0x0A, 0x0B, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0xFE, 0xFF])
        var contiguous = ContiguousArray<UInt8>()
        contiguous.appendLittleEndian(UInt32(0x0102_0304))
        XCTAssertEqual(Array(contiguous), [0x04, 0x03, 0x02, 0x01])
    }
}
