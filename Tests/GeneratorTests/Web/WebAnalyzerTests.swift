import XCTest
import TestTools
import Foundation
@testable import Indexer
import Schemas

/// The web module's analyzer (search.js: fold, words, stem, characters) against the reference (Analyzer.swift), run
/// in Node: on every Unicode code point alone, and on every short string over the code points where the
/// definitions could part (Hangul jamo, which join into one character; prepended letters; joiners; the code points
/// whose decomposition is kept; possessives and plurals). Chromium's and Node's V8 take Unicode from ICU the
/// same way, and the browser test compares whole queries.
final class WebAnalyzerTests: XCTestCase {
    static let script = TestSupport.repoRoot.appendingPathComponent("Sources/Generator/Web/search.js")

    /// The reference's line for a text, in analyzer.mjs's format.
    static func line(_ text: String) -> String {
        func hex(_ s: String) -> String { s.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ") }
        return ([hex(Analyzer.fold(text))] + Analyzer.words(text).map { "\(hex($0))|\(hex(Analyzer.stem($0)))|\($0.count)" })
            .joined(separator: "\t")
    }

    static func compare(_ texts: [String]) throws -> [String] {
        // Node works on its copy while the reference computes its lines.
        let input = try JSONWriter().bytes(.strings(texts))
        let output = TestSupport.concurrently(2) { i -> [String] in
            if i == 1 { return texts.map(line) }
            let text = try WebTools.stdout(["node", WebTools.folder.appendingPathComponent("analyzer.mjs").path, script.path], input: Data(input))
            return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        let want = try output[1].get(), got = try output[0].get()
        guard got.count == texts.count + 1 else { return ["node printed \(got.count - 1) lines for \(texts.count) texts: \(got.prefix(3))"] }
        var problems: [String] = []
        for (i, t) in texts.enumerated() where got[i] != want[i] {
            problems.append("\(t.unicodeScalars.prefix(8).map { String($0.value, radix: 16) }): web \(got[i].prefix(300)) vs reference \(want[i].prefix(300))")
        }
        return problems
    }

    /// Every code point: the assigned ones 64 to a text, each between spaces (so each is folded and split into words
    /// on its own); the unassigned and private-use ones (970,000 of them, which no version of the analyzer folds or
    /// takes as word characters) a thousand to a text.
    func testEveryCodePoint() throws {
        try Tool.require(.node)
        var texts: [String] = [], assigned = String.UnicodeScalarView(), quiet = String.UnicodeScalarView()
        var count = 0, inAssigned = 0, inQuiet = 0
        for v in 0...0x10FFFF {
            guard let u = Unicode.Scalar(v) else { continue }
            count += 1
            switch u.properties.generalCategory {
            case .unassigned, .privateUse:
                quiet.append(u); inQuiet += 1
                if inQuiet == 1000 { texts.append(String(quiet)); quiet = .init(); inQuiet = 0 }
            default:
                assigned.append(u); assigned.append(" "); inAssigned += 1
                if inAssigned == 64 { texts.append(String(assigned)); assigned = .init(); inAssigned = 0 }
            }
        }
        texts += [String(assigned), String(quiet)]
        XCTAssertEqual(count, 1_112_064)
        let problems = try Self.compare(texts)
        XCTAssertEqual(problems.count, 0, problems.prefix(20).joined(separator: "\n"))
    }

    func testStringsWhereTheDefinitionsCouldPart() throws {
        try Tool.require(.node)
        // Leading, vowel and trailing jamo at the ends of their ranges; every prepended letter; joiners; letters
        // and digits; a kept code point; the endings the stemmer looks at, on words long and short.
        let jamo: [UInt32] = [0x1100, 0x115F, 0xA960, 0xA97C, 0x1160, 0x11A7, 0xD7B0, 0xD7C6, 0x11A8, 0x11FF, 0xD7CB, 0xD7FB, 0xAC00, 0xD55C]
        let prepend: [UInt32] = [0x600, 0x605, 0x6DD, 0x70F, 0x890, 0x8E2, 0xD4E, 0x110BD, 0x110CD, 0x111C2, 0x113D1, 0x1193F, 0x11941,
                                 0x11A3A, 0x11A84, 0x11A89, 0x11D46, 0x11F02]
        let others: [UInt32] = [0x61, 0x73, 0x31, 0x2D, 0x2F, 0x2E, 0x27, 0x2019, 0x20, 0x1CCD6, 0x4E09, 0x2162, 0x663, 0x301, 0x200D]
        let pool = (jamo + prepend + others).map { String(Character(Unicode.Scalar($0)!)) }
        var texts: [String] = []
        let joining = (jamo + prepend + [0x61, 0x2D, 0x27]).map { String(Character(Unicode.Scalar($0)!)) }
        for a in pool { for b in pool { texts.append(a + b) } }
        for a in joining { for b in joining { for c in joining { texts.append(a + b + c) } } }
        // Words long enough to stem, around the same code points.
        for p in pool { for ending in ["s", "'s", "ies", "es", "ches", "ss", "’s", "-ab"] { texts.append("abc" + p + ending); texts.append(p + "abcd" + ending) } }
        // The same endings on short words, around the stemmer's length limits (a word of 3 stays, "-ies" of 4 stays).
        for ending in ["s", "'s", "ies", "es", "ches", "ss", "’s"] {
            for n in 0...3 {
                let stem = String(repeating: "b", count: n)
                texts.append(stem + ending)
                for p in pool { texts.append(p + stem + ending) }
            }
        }
        let problems = try Self.compare(texts)
        XCTAssertEqual(problems.count, 0, problems.prefix(20).joined(separator: "\n"))
    }
}
