import Foundation
import XCTest
@testable import Generator

/// The checksum that closes the build's own files and vouches for the large files a rebuild copies from: the same
/// however the bytes are fed, and changed by any one flipped bit, byte dropped or byte added.
final class ChecksumTests: XCTestCase {
    typealias Random = TestSupport.Random
    /// Real bytes: the first 3 MB of the real products file.
    static let bytes: [UInt8] = {
        let url = TestSupport.testData.appendingPathComponent("catalog/products.jsonl")
        return Array(try! Data(contentsOf: url).prefix(3 << 20))
    }()

    func testFedInAnyPiecesItIsTheSame() {
        let whole = Checksum.of(Self.bytes)
        XCTAssertEqual(whole.count, 16)
        var r = Random(state: 3)
        for _ in 0..<20 {
            var c = Checksum(), at = 0
            while at < Self.bytes.count {
                let n = min(Self.bytes.count - at, [0, 1, 7, 31, 32, 33, 64, 1000, 65536][r.below(9)])
                Self.bytes[at..<(at + n)].withUnsafeBytes { c.update($0) }
                at += n
            }
            XCTAssertEqual(c.finalize(), whole)
        }
    }

    func testAnyFlippedBitOrChangedLengthChangesIt() {
        var r = Random(state: 11)
        var seen: Set<[UInt8]> = [Checksum.of(Self.bytes)]
        for _ in 0..<400 {
            var b = Self.bytes
            b[r.below(b.count)] ^= UInt8(1 << r.below(8))
            XCTAssertTrue(seen.insert(Checksum.of(b)).inserted)
        }
        // Every length of the same bytes (a file cut short or grown by zeros) differs, tails of 0–31 bytes included.
        for n in 0..<200 { XCTAssertTrue(seen.insert(Checksum.of(Array(Self.bytes.prefix(n)))).inserted, "\(n) bytes") }
        for n in 1..<70 { XCTAssertTrue(seen.insert(Checksum.of([UInt8](repeating: 0, count: n))).inserted, "\(n) zeros") }
        // The same bit flipped in each of the four lanes of a step.
        for lane in 0..<4 {
            var b = Self.bytes
            b[1024 + lane * 8] ^= 1
            XCTAssertTrue(seen.insert(Checksum.of(b)).inserted, "lane \(lane)")
        }
    }
}
