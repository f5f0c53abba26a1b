import XCTest
@testable import Indexer

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
