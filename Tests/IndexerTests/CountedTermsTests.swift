import XCTest
import Schemas
@testable import Indexer

/// The term stage with counts kept from an earlier build (`RankedIndexBuilder.CountedTerms`): on real products, after
/// products added, dropped and renamed, the term files are byte for byte those of counting every document again,
/// and so are the counts handed on; counts that are not well formed are not used.
final class CountedTermsTests: XCTestCase {
    /// Real products as ranked documents (name, brand, category, description), with the field weights the catalog uses.
    static func realDocuments(_ n: Int) throws -> [RankedDocument] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/data/catalog/products.jsonl")
        return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").prefix(n).map { line in
            let j = try JSONReader.parse(String(line))
            let id = j["itemId"]?.stringValue ?? "", name = j["name"]?.stringValue ?? ""
            return RankedDocument(id: id, fields: [("name", 3, name), ("brand", 2, j["brand"]?.stringValue ?? ""),
                                                   ("category", 1.5, j["category"]?.stringValue ?? ""),
                                                   ("description", 1, j["description"]?.stringValue ?? name)],
                                  stored: .obj(["id": .string(id)]), group: j["brand"]?.stringValue ?? "")
        }
    }

    func source(_ docs: [RankedDocument]) -> RankedIndexBuilder.Source {
        .init(count: docs.count, document: { docs[$0] }, writeStored: { _, t in t.null() }, group: { docs[$0].group })
    }

    /// A document's text, as the caller keys it.
    func text(_ d: RankedDocument) -> String { d.fields.map { "\($0.name)\u{1}\($0.weight)\u{1}\($0.text)" }.joined(separator: "\u{2}") }

    func testCountsFromAnEarlierBuildGiveTheSameTermFiles() throws {
        let all = try Self.realDocuments(700)
        var docs = Array(all.prefix(600)), before = docs
        let builder = RankedIndexBuilder()
        var earlier = try builder.terms(source(docs), folder: "search", threads: 2, counting: true)
        var rng = SeedIndexMapsTests.Random(state: 11)
        var spare = all.suffix(100).makeIterator()
        for round in 0..<6 {
            // Products added (anywhere), dropped, and one renamed: most documents keep their text, at other places.
            for _ in 0..<3 { docs.insert(spare.next()!, at: rng.below(docs.count + 1)) }
            for _ in 0..<2 { docs.remove(at: rng.below(docs.count)) }
            let k = rng.below(docs.count)
            docs[k].fields[0].text += " Renamed\(round)"
            let previous = earlier.counted!
            var byText: [String: Int] = [:]
            for (e, d) in before.enumerated() where byText[text(d)] == nil { byText[text(d)] = e }
            let taken = try builder.terms(source(docs), folder: "search", threads: 2, earlier: previous,
                                          earlierDocument: { byText[self.text(docs[$0])] }, counting: true)
            let afresh = try builder.terms(source(docs), folder: "search", threads: 3, counting: true)
            XCTAssertEqual(taken.files.map(\.path), afresh.files.map(\.path), "round \(round)")
            XCTAssertTrue(zip(taken.files, afresh.files).allSatisfy { $0.text == $1.text }, "round \(round)")
            XCTAssertEqual(taken.counted?.lengths, afresh.counted?.lengths, "round \(round)")
            XCTAssertEqual(taken.counted.map(expanded), afresh.counted.map(expanded), "round \(round)")
            earlier = taken
            before = docs
        }
    }

    /// Each document's terms with their frequencies (the numbering aside, which depends on the chunks).
    func expanded(_ c: RankedIndexBuilder.CountedTerms) -> [[String: Int64]] {
        (0..<c.count).map { k in
            var out: [String: Int64] = [:]
            for i in Int(c.starts[k])..<Int(c.starts[k + 1]) { out[c.vocabulary[Int(c.terms[i])]] = c.frequencies[i] }
            return out
        }
    }

    /// Counts are taken as said (another document's counts change the files), unless they are not well formed.
    func testCountsAreTakenAsSaidUnlessMalformed() throws {
        let docs = try Self.realDocuments(200)
        let builder = RankedIndexBuilder()
        let first = try builder.terms(source(docs), folder: "search", counting: true)
        let counted = try XCTUnwrap(first.counted)
        XCTAssertTrue(counted.isWellFormed)
        let plain = try builder.terms(source(docs), folder: "search")
        XCTAssertNil(plain.counted)
        // Document 0 told to have document 1's text: its terms are document 1's.
        let told = try builder.terms(source(docs), folder: "search", earlier: counted, earlierDocument: { $0 == 0 ? 1 : $0 })
        XCTAssertFalse(zip(told.files, plain.files).allSatisfy { $0.text == $1.text })
        var broken: [RankedIndexBuilder.CountedTerms] = []
        var c = counted; c.terms[3] = Int32(c.vocabulary.count); broken.append(c)
        c = counted; c.starts[5] = c.starts[6] + 1; broken.append(c)
        c = counted; c.frequencies[0] = 0; broken.append(c)
        c = counted; c.lengths[2] = .nan; broken.append(c)
        c = counted; c.lengths.removeLast(); broken.append(c)
        for (k, b) in broken.enumerated() {
            XCTAssertFalse(b.isWellFormed, "\(k)")
            let made = try builder.terms(source(docs), folder: "search", earlier: b, earlierDocument: { $0 == 0 ? 1 : $0 })
            XCTAssertTrue(zip(made.files, plain.files).allSatisfy { $0.text == $1.text }, "\(k)")
        }
    }
}
