import XCTest
import Foundation
import Schemas
@testable import Indexer
import TestTools

final class AnalyzerTests: XCTestCase {
    func testFoldingDropsDiacriticsAndCase() {
        XCTAssertEqual(Analyzer.fold("Crème BRÛLÉE Ｆｕｌｌ"), "creme brulee full")   // NFKD also maps full-width letters
        XCTAssertEqual(Analyzer.terms("Perçeuse sans fil"), ["perceuse", "san", "fil"])
    }

    func testWordsKeepModelNumbersAndSizes() {
        XCTAssertEqual(Analyzer.words("20V MAX 1/2-in. Drill DCD771C2"), ["20v", "max", "1/2-in", "1/2", "in", "drill", "dcd771c2"])
        XCTAssertEqual(Analyzer.words("7.5 Amp, Heavy-Duty"), ["7.5", "amp", "heavy-duty", "heavy", "duty"])
        XCTAssertEqual(Analyzer.words("and/or (2-Pack)"), ["and", "or", "2-pack", "2", "pack"])
    }

    func testLightStemming() {
        XCTAssertEqual(Analyzer.stem("drills"), "drill")
        XCTAssertEqual(Analyzer.stem("batteries"), "battery")
        XCTAssertEqual(Analyzer.stem("boxes"), "box")
        XCTAssertEqual(Analyzer.stem("inches"), "inch")
        XCTAssertEqual(Analyzer.stem("ryobi's"), "ryobi")
        XCTAssertEqual(Analyzer.stem("glass"), "glass")
        XCTAssertEqual(Analyzer.stem("20vs"), "20vs")   // words with digits are kept
    }

    func testStopWordsAndShortTermsAreDropped() {
        XCTAssertEqual(Analyzer.terms("The Drill for a Deck"), ["drill", "deck"])
        XCTAssertEqual(Analyzer.terms("x"), [])
    }
}

/// The ASCII fast paths give exactly what the general Unicode paths give, on every text of the real corpus.
final class AnalyzerFastPathTests: XCTestCase {
    func testFastPathsAgreeOnTheRealCorpus() throws {
        let url = Repository.testData("catalog/products.jsonl")
        var texts: [String] = []
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
            let j = try JSONReader.parse(String(line))
            for k in ["name", "description", "brand", "category"] { if let s = j[k]?.stringValue { texts.append(s) } }
        }
        texts += ["a.b-c/d 1/2-in. 20V-MAX it's x--y", "  (2-Pack)  ", "Hammer.", "-/-", "C++ & .NET", "Drill\tDriver  Kit ", " 20V  MAX ", "it's  the'  drills'"]
        var checked = 0
        for t in texts where t.utf8.allSatisfy({ $0 < 0x80 }) {
            XCTAssertEqual(Analyzer.asciiWords(t), Analyzer.unicodeWords(t), t)
            for w in Analyzer.asciiWords(t) { XCTAssertEqual(Analyzer.asciiStem(w), Analyzer.unicodeStem(w), w) }
            XCTAssertEqual(SeedIndex.asciiWords(t, raw: true, compact: false), SeedIndex.foundationWords(t, compact: false), t)
            XCTAssertEqual(SeedIndex.asciiWords(t, raw: false, compact: true), SeedIndex.foundationWords(t, compact: true), t)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 10_000)

        // Token at a time (TermMemo) gives what whole texts give, terms in order and seed keys as sets, including
        // texts seen twice (from the memo).
        var memo = TermMemo()
        var fullTokens = TokenTable<[String]>(), compactTokens = TokenTable<[String]>()
        for t in texts + texts.prefix(500) {
            XCTAssertEqual(memo.terms(t), Analyzer.terms(t), t)
            var full: [String] = [], compact: [String] = []
            if TermMemo.perToken(t, &fullTokens, into: &full, { Array(SeedIndex.fullKeys($0)) }) {
                XCTAssertEqual(Set(full), SeedIndex.fullKeys(t), t)
            }
            if TermMemo.perToken(t, &compactTokens, into: &compact, { Array(SeedIndex.compactWords($0)) }) {
                XCTAssertEqual(Set(compact), SeedIndex.compactWords(t), t)
            }
        }
    }
}
