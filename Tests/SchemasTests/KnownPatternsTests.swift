import XCTest
import Foundation
@testable import Schemas

/// Each native matcher accepts exactly what ICU accepts for its pattern.
final class KnownPatternsTests: XCTestCase {
    func icu(_ source: String) throws -> NSRegularExpression { try NSRegularExpression(pattern: ECMARegex.translate(source)) }

    func agree(_ source: String, _ strings: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let regex = try icu(source)
        let native = try XCTUnwrap(KnownPatterns.matcher(for: source), file: file, line: line)
        var accepted = 0
        for s in strings {
            let expected = regex.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil
            var copy = s
            XCTAssertEqual(copy.withUTF8(native), expected, "\(source) on \(s.debugDescription)", file: file, line: line)
            if expected { accepted += 1 }
        }
        XCTAssertGreaterThan(accepted, 0, file: file, line: line)
    }

    /// Every string of up to five characters over an alphabet that reaches each branch (separators, dots, allowed and
    /// refused characters, a newline, non-ASCII), and real paths of the tree.
    func testRelativePathMatchesICU() throws {
        let alphabet: [String] = ["a", "Z", "0", ".", "/", "~", "-", "_", " ", "\n", "é", "%"]
        var strings = [""]
        var level = [""]
        for _ in 1...5 {
            level = level.flatMap { s in alphabet.map { s + $0 } }
            strings += level
        }
        strings += ["products/204077179-10/details.json", "categories/tools/drills.json", "search/terms/0a1b.json",
                    "a/./b", "a/../b", "a/b/..", "a/b/.", "./a", "../a", "a//b", "a/.b/c", "a/..b/c", "a/b../c", ".../a"]
        XCTAssertGreaterThan(strings.count, 250_000)
        try agree(#"^(?!/)(?!.*(^|/)\.\.?(/|$))[A-Za-z0-9._~/-]+$"#, strings)
    }

    func testLowercaseHex64MatchesICU() throws {
        let hex = "0123456789abcdef"
        var strings = ["", String(repeating: "a", count: 63), String(repeating: "a", count: 65), String(repeating: "A", count: 64),
                       String(repeating: "g", count: 64), String(repeating: "0", count: 63) + "\n"]
        for c in hex + "AFgz é" { strings.append(String(repeating: "0", count: 63) + String(c)); strings.append(String(c) + String(repeating: "f", count: 63)) }
        try agree("^[0-9a-f]{64}$", strings)
    }

    /// Schemas with these patterns use the native matcher in both walks, with the same verdicts.
    func testValidatorsUseThem() throws {
        let v = try JSONSchemaValidator(schema: ["type": "array", "items": ["type": "string", "pattern": #"^(?!/)(?!.*(^|/)\.\.?(/|$))[A-Za-z0-9._~/-]+$"#]])
        XCTAssertNotNil(v.fast?.items?.nativePattern)
        XCTAssertTrue(v.isValid(["a/b.json", "x"]))
        XCTAssertFalse(v.isValid(["a/../b"]))
        XCTAssertTrue(Array(#"["a/b.json","x"]"#.utf8).withUnsafeBytes { v.isValid(text: $0) })
        XCTAssertFalse(Array(#"["a/../b"]"#.utf8).withUnsafeBytes { v.isValid(text: $0) })
        XCTAssertFalse(Array(#"["a\/..\/b"]"#.utf8).withUnsafeBytes { v.isValid(text: $0) })   // escaped: decoded first
        XCTAssertTrue(Array(#"["a\/b"]"#.utf8).withUnsafeBytes { v.isValid(text: $0) })
    }
}
