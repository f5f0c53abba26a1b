import Foundation
import XCTest
@testable import Generator

/// The checksum that closes the build's own files and vouches for the large files a rebuild copies from: the same
/// however the bytes are fed, and changed by any one flipped bit, byte dropped or byte added.
final class ChecksumTests: XCTestCase {
    typealias Random = TestSupport.Random
    /// Real bytes: the first 3 MB of the real products file.
    static let bytes = TestSupport.realProductBytes(3 << 20)

    /// Digests the build cache and snapshots of earlier builds carry: recorded from the implementation that wrote
    /// them (before its loads went through spans), so a rewrite that changed any digest would make every earlier
    /// cache unreadable.
    func testDigestsAreThoseEarlierBuildsWrote() {
        let known: [(Int, String)] = [
            (0, "d4b17a278200f151dc9154cbfc7aa7be"), (1, "33912b2c58bc28967bee8fc28dad2386"), (7, "13b414866349af7111fb64377d14c422"),
            (31, "74303a1270cd0fecdf3eab97b5955875"), (32, "2ac5c1b72b2f4bf2e0dca0c2cc5cbb54"), (33, "88b1821881eab4b0a609f9e886943b0e"),
            (64, "37fdfb2a5d37bc45fead117425c3a83e"), (100, "46428871490a816cca00ec6a209bcceb"), (1000, "d67d3ec595045b2e2ae0a2050801f503"),
        ]
        for (n, hex) in known {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            XCTAssertEqual(Checksum.of(bytes).map { String(format: "%02x", $0) }.joined(), hex, "\(n) bytes")
        }
    }

    func testFedInAnyPiecesItIsTheSame() {
        let whole = Checksum.of(Self.bytes)
        XCTAssertEqual(whole.count, 16)
        var r = Random(state: 3)
        for _ in 0..<20 {
            var c = Checksum(), at = 0
            while at < Self.bytes.count {
                let n = min(Self.bytes.count - at, [0, 1, 7, 31, 32, 33, 64, 1000, 65536][r.below(9)])
                c.update(Self.bytes[at..<(at + n)])
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
