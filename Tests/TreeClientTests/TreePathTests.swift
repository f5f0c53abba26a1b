import XCTest
@testable import TreeClient

/// `TreePath.rejection` reads bytes; these are its rules written over Unicode scalars and segments, the plain way.
final class TreePathTests: XCTestCase {
    func plainRejection(_ path: String) -> String? {
        if path.isEmpty { return "empty path" }
        if path.hasPrefix("/") { return "absolute path: not inside the tree" }
        for s in path.unicodeScalars {
            if s.value < 0x20 || (0x7F..<0xA0).contains(s.value) { return "control character in path" }
            if s == "\\" { return "backslash in path" }
        }
        for segment in path.components(separatedBy: "/") {
            if segment == ".." { return "path climbs out of the tree ('..')" }
            if segment == "." { return "'.' segment in path" }
            if segment.isEmpty { return "empty segment in path" }
        }
        return nil
    }

    func testEveryRuleAndItsNeighbours() {
        var paths = ["", "/", "/a", "a", "a/b.json", "a//b", "a/", "./a", "a/./b", "a/../b", "..", ".", "...", "a/..b", "..a/b", "a/.b/c",
                     "a\\b", "a\u{7F}", "a\u{80}b", "a\u{9F}", "a\u{A0}b", "a\u{C2}b", "é/ü/Ă.json", "a\u{1F}", "a\tb", "a\nb",
                     "products/日本/details.json", "x/\u{85}/y", "a\\..\\b", "a/\u{0}/b", "\u{2028}", "a/b/"]
        // Every two-character path over the characters that matter.
        let alphabet: [Character] = ["a", ".", "/", "\\", "\u{1}", "\u{7F}", "\u{80}", "\u{A0}", "é"]
        for x in alphabet { for y in alphabet { paths.append(String([x, y])); paths.append(String([x, y, x])) } }
        for p in paths { XCTAssertEqual(TreePath.rejection(p), plainRejection(p), p.debugDescription) }
    }
}
