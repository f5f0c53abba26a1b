import XCTest
import Foundation
@testable import Generator

/// The bytes a fingerprint hashes are fixed: a build cache made by one build is read by the next, so a part must give
/// the same bytes however it is written.
final class FingerprintHasherTests: XCTestCase {
    /// Every kind of part, against the SHA-256 of the stream written out by hand (little-endian lengths and numbers).
    func testPartsGiveTheDocumentedBytes() {
        var h = FingerprintHasher("product")
        let text = Array("abcé".utf8)[...]
        h.add(utf8: text.span); h.add(nil as String?); h.add(7); h.add(0.5); h.add(Fingerprint(a: 1, b: 2, c: 3, d: .max)); h.add(true)
        h.add("x" as String?)
        XCTAssertEqual(h.finish(), Fingerprint(a: 0xc9e8_318a_ad40_71bc, b: 0xa37a_37e4_8d68_0ae1, c: 0x0ad0_775a_6cb0_cc5e, d: 0xda1c_ed4f_39ed_a8d3))
    }

    /// Text given as bytes is the same part as text given as a string, optional or not.
    func testBytesAreTheString() {
        for s in ["", "a", "Sägeblatt 18 V", String(repeating: "long text ", count: 40)] {
            let bytes = Array(s.utf8)[...]
            var a = FingerprintHasher("t"), b = FingerprintHasher("t")
            a.add(s); a.add(s as String?); a.add(nil as String?)
            b.add(utf8: bytes.span); b.add(utf8: Optional(bytes.span)); b.add(utf8: Optional<Span<UInt8>>.none)
            XCTAssertEqual(a.finish(), b.finish(), s)
        }
    }
}
