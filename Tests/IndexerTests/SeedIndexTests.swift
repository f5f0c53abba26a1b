import XCTest
import Schemas
@testable import Indexer

final class SeedIndexTests: XCTestCase {
    static let docs = [
        SearchDocument(id: "1", name: "20V MAX 1/2 in. Cordless Drill (2-Pack)", brand: "DEWALT", category: "Power Drills",
                       description: "Brushless motor", price: JSONNumber(literal: "99.00"), rating: 4.4744, imageUrl: "https://img/1.jpg"),
        SearchDocument(id: "2", name: "12 in. Shelf Bracket", brand: "Unbranded", category: "Uncategorized",
                       description: "", price: JSONNumber(literal: "3.50"), rating: nil, imageUrl: "",
                       brandIsSearchable: false, categoryIsSearchable: false),
        SearchDocument(id: "3", name: "10 ft. 2-Pack", brand: "Unbranded", category: "Uncategorized",
                       description: "", price: JSONNumber(1), rating: 3.05, imageUrl: "",
                       brandIsSearchable: false, categoryIsSearchable: false),
    ]

    func keys(_ index: JSON) -> [String: [String]] {
        Dictionary(uniqueKeysWithValues: (index["keywords"]?.objectValue?.members ?? []).map { ($0.key, $0.value.arrayValue!.map { $0.stringValue! }) })
    }

    func testCompactKeepsDistinguishingWordsOnly() throws {
        let compact = keys(try SeedIndex.build(Self.docs, version: "v", generatedAt: "2026-01-01T00:00:00Z", compact: true))
        // Units, numbers and measurements are left out; model-like words stay.
        for gone in ["in", "ft", "12", "1/2", "2-pack", "10"] {
            XCTAssertFalse(compact[gone, default: []].contains("1") || compact[gone, default: []].contains("2"), gone)
        }
        XCTAssertEqual(compact["20v"], ["1"])
        XCTAssertEqual(compact["dewalt"], ["1"])
        XCTAssertEqual(compact["drills"], ["1"])          // category words of a real category
        XCTAssertEqual(compact["shelf"], ["2"])
        // Stand-in brand and category names are not words of the data.
        XCTAssertNil(compact["unbranded"]); XCTAssertNil(compact["uncategorized"])
        // A name made only of left-out words still finds its product.
        XCTAssertEqual(compact["10"], ["3"])
        XCTAssertTrue(SeedIndex.Client(try SeedIndex.build(Self.docs, version: "v", generatedAt: "x", compact: true)).finds("3", "10 ft. 2-Pack"))
        // The full index keeps everything a client could send.
        let full = keys(try SeedIndex.build(Self.docs, version: "v", generatedAt: "x", compact: false))
        for kept in ["in", "in.", "12", "unbranded", "uncategorized", "(2-pack)", "2-pack"] { XCTAssertNotNil(full[kept], kept) }
    }

    func testCompactDropsDerivableMapsAndRoundsRatings() throws {
        let compact = try SeedIndex.build(Self.docs, version: "v", generatedAt: "x", compact: true)
        XCTAssertEqual(compact["categories"]?.objectValue?.members.count, 0)
        XCTAssertEqual(compact["brands"]?.objectValue?.members.count, 0)
        XCTAssertEqual(compact["products"]?[0]?["rating"]?.doubleValue, 4.5)
        XCTAssertEqual(compact["products"]?[0]?["imageUrl"]?.stringValue, "")
        let full = try SeedIndex.build(Self.docs, version: "v", generatedAt: "x", compact: false)
        XCTAssertEqual(full["brands"]?["DEWALT"]?.arrayValue?.count, 1)
        XCTAssertEqual(full["products"]?[0]?["rating"]?.doubleValue, 4.4744)
    }

    func testDistinguishingWords() {
        for w in ["drill", "20v", "m18", "dcd771c2", "3m", "x"] { XCTAssertTrue(SeedIndex.isDistinguishing(w), w) }
        for w in ["in", "gal", "12", "1/2", "1,000", "2-pack", "1.3ah", "1/2-in", "12in", "5ah", "6000psi", "25pk"] { XCTAssertFalse(SeedIndex.isDistinguishing(w), w) }
    }

    /// Keyword lists are sorted by bytes where words are ASCII and written from stored JSON text: the same order as
    /// String's `<` and the same bytes as writing each word.
    func testVocabularyOrdersAndWritesWordsAsStrings() {
        var v = SeedIndex.Vocabulary()
        let words = ["", "a", "ab", "b", "B", "Z", "é", "zz", "a-b", "a b", "\"q\"", "back\\slash", "10", "9", "ä", "aé", "a\u{1}"]
        let n = words.map { v.number($0) }
        for (i, a) in words.enumerated() {
            for (j, b) in words.enumerated() { XCTAssertEqual(v.precedes(n[i], n[j]), a < b, "\(a) < \(b)") }
        }
        XCTAssertEqual(v.empty, n[0])
        let out = JSONStream(), expected = JSONStream()
        out.beginArray(); for k in n { v.write(k, to: out) }; out.endArray()
        expected.beginArray(); for w in words { expected.string(w) }; expected.endArray()
        XCTAssertEqual(out.bytes, expected.bytes)
    }
}
