import XCTest
import Schemas
@testable import Indexer

/// A seed index spliced after products were added, dropped or renamed — its keyword, category and brand maps edited,
/// not made again — is byte for byte the index written whole from the same documents, over several rounds of random
/// changes (words with quotes, backslashes and accents; keys that appear, and keys whose last product goes).
final class SeedIndexMapsTests: XCTestCase {
    struct Random {
        var state: UInt64
        mutating func below(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
    }

    static let words = ["drill", "Saw", "\"quoted\"", "back\\slash", "é", "Ünïcode", "20V", "bit", "set", "pro", "x", "1/2", "in.",
                        "tool", "kit", "cordless", "impact", "driver", "blade", "e\u{301}"]
    static let brands = ["DEWALT", "Makita", "Brand \"B\"", "Unbranded", "Été"]
    static let categories = ["Power Tools", "Hand Tools", "Saw Blades", "Ünsorted"]

    static func document(_ r: inout Random, id: String, extra: String? = nil) -> SearchDocument {
        var name = (0..<(2 + r.below(3))).map { _ in words[r.below(words.count)] }
        if let extra { name.insert(extra, at: r.below(name.count + 1)) }
        let brand = brands[r.below(brands.count)], category = categories[r.below(categories.count)]
        return SearchDocument(id: id, name: name.joined(separator: " "), brand: brand, category: category,
                              description: r.below(2) == 0 ? name.joined(separator: " ") : "with \(words[r.below(words.count)])",
                              price: JSONNumber(Double(1 + r.below(500))), rating: nil, imageUrl: "",
                              brandIsSearchable: brand != "Unbranded", categoryIsSearchable: true)
    }

    /// The documents in an order that depends on each one's own text (as the catalog's search order does).
    static func ordered(_ docs: [SearchDocument]) -> [SearchDocument] {
        docs.sorted { ($0.brand, $0.category, $0.name, $0.id) < ($1.brand, $1.category, $1.name, $1.id) }
    }
    /// The compact index's order over them: category first.
    static func compactOrder(_ docs: [SearchDocument]) -> [Int] {
        docs.indices.sorted { (docs[$0].category, docs[$0].brand, docs[$0].name, docs[$0].id) < (docs[$1].category, docs[$1].brand, docs[$1].name, docs[$1].id) }
    }

    /// A fingerprint of the text: FNV-1a in each word (a test's keys need only differ when their text does).
    static func key(_ parts: [String]) -> FragmentKey {
        var h: [UInt64] = [0xcbf2_9ce4_8422_2325, 1, 2, 3]
        for (k, p) in parts.enumerated() {
            for c in p.utf8 + [0] { for w in 0..<4 { h[w] = (h[w] ^ UInt64(c) ^ UInt64(k)) &* (0x100_0000_01b3 &+ UInt64(w * 2)) } }
        }
        return FragmentKey(a: h[0], b: h[1], c: h[2], d: h[3])
    }
    static func entryKey(_ d: SearchDocument) -> FragmentKey { key([d.id, d.name, d.brand, d.category, d.description, d.price?.description ?? ""]) }
    static func tailKey(_ docs: [SearchDocument]) -> FragmentKey {
        key(docs.flatMap { [$0.id, $0.name, $0.brand, $0.category, $0.description] })
    }

    struct Earlier { var bytes: [UInt8]; var ranges: [(key: FragmentKey, range: Range<Int>)]; var order: [Int32] }

    /// The index of `docs` (in the given order) spliced from `earlier` when it can be, else written whole; whether it
    /// was spliced, and what the next round reads.
    /// `ids`: the documents' numbers given by an `IdPositions` (as the catalog's indexes share one), else found from the
    /// documents themselves.
    func build(_ docs: [SearchDocument], compact: Bool, earlier: Earlier?, ids: Bool = false) throws
        -> (bytes: [UInt8], spliced: Bool, copied: Int, next: Earlier, objects: [(old: ObjectLayout, new: ObjectLayout)]) {
        let reuse = earlier.map { e in
            FragmentReuse(size: e.bytes.count, ranges: e.ranges, order: e.order, read: { offset, count, buffer in
                guard offset + count <= e.bytes.count else { return false }
                buffer.replaceSubrange(0..<count, with: e.bytes[offset..<(offset + count)])
                return true
            })
        } ?? FragmentReuse()
        var f = SeedIndex.Fragments(entryKeys: docs.map(Self.entryKey), tailKey: Self.tailKey(docs), reuse: reuse)
        let order = compact ? Self.compactOrder(docs) : nil
        f.order = order
        let out = JSONStream()
        let spliced = try SeedIndex.splice(count: docs.count, document: { docs[$0] }, ids: ids ? positions(docs) : nil, order: order, version: "v",
                                           generatedAt: "2026-11-25T00:00:00Z", compact: compact, fragments: f, to: out)
        if !spliced { try SeedIndex.write(docs, order: order, version: "v", generatedAt: "2026-11-25T00:00:00Z", compact: compact, fragments: f, to: out) }
        return (out.bytes, spliced, reuse.copied, Earlier(bytes: out.bytes, ranges: reuse.written, order: reuse.order), reuse.objects)
    }

    func positions(_ docs: [SearchDocument]) -> SeedIndex.IdPositions {
        SeedIndex.IdPositions(count: docs.count, idBytes: { k, body in docs[k].id.withUTF8Span(body) })
    }

    func whole(_ docs: [SearchDocument], compact: Bool) throws -> [UInt8] {
        let out = JSONStream()
        try SeedIndex.write(docs, order: compact ? Self.compactOrder(docs) : nil, version: "v", generatedAt: "2026-11-25T00:00:00Z",
                            compact: compact, to: out)
        return out.bytes
    }

    func testAddedDroppedAndRenamedEntriesEditTheMaps() throws {
        for (compact, ids) in [(false, false), (true, false), (false, true), (true, true)] {
            var r = Random(state: compact ? 7 : 3)
            var docs = Self.ordered((0..<300).map { Self.document(&r, id: "p\($0)") })
            var earlier = try build(docs, compact: compact, earlier: nil, ids: ids).next
            var serial = 1000
            for round in 1...8 {
                // Added (some with a word no other product has, at any place in the order), dropped, renamed, repriced.
                for _ in 0..<(1 + r.below(3)) {
                    serial += 1
                    docs.append(Self.document(&r, id: "n\(serial)", extra: r.below(2) == 0 ? "neu\(serial)" : nil))
                }
                for _ in 0..<r.below(3) { docs.remove(at: r.below(docs.count)) }
                let k = r.below(docs.count)
                docs[k] = Self.document(&r, id: docs[k].id, extra: round % 3 == 0 ? "ren\"\(round)" : nil)
                let j = r.below(docs.count)
                docs[j].price = JSONNumber(Double(1000 + round))
                docs = Self.ordered(docs)
                let made = try build(docs, compact: compact, earlier: earlier, ids: ids)
                XCTAssertTrue(made.spliced, "round \(round), compact \(compact): written whole")
                XCTAssertGreaterThan(made.copied, docs.count - 10, "round \(round), compact \(compact)")
                let expected = try whole(docs, compact: compact)
                if made.bytes != expected {
                    XCTFail("round \(round), compact \(compact): the spliced index differs from the whole one\n"
                            + firstDifference(made.bytes, expected))
                    return
                }
                // Where the edited maps' members lie, as the splice says, in the earlier text and in the new one: as a
                // reading of each text finds them.
                XCTAssertEqual(made.objects.count, 3, "round \(round)")
                for ((old, new), name) in zip(made.objects, ["keywords", "categories", "brands"]) {
                    XCTAssertEqual(old, Self.layout(earlier.bytes, name), "round \(round), compact \(compact), \(name) before")
                    XCTAssertEqual(new, Self.layout(made.bytes, name), "round \(round), compact \(compact), \(name) after")
                }
                earlier = made.next
            }
        }
    }

    /// The members of the map `name` (a list of strings each) read from the text, left to right.
    static func layout(_ bytes: [UInt8], _ name: String) -> ObjectLayout? {
        let head = Array("\"\(name)\":{".utf8)
        guard let at = (0...(bytes.count - head.count)).first(where: { bytes[$0..<($0 + head.count)].elementsEqual(head) }) else { return nil }
        func stringEnd(_ i: Int) -> Int { var j = i + 1; while bytes[j] != 0x22 { j += bytes[j] == 0x5C ? 2 : 1 }; return j + 1 }
        var o = ObjectLayout(open: at + head.count - 1, members: []), i = o.open + 1
        if bytes[i] == 0x7D { return o }
        while true {
            let keyEnd = stringEnd(i)
            guard bytes[keyEnd] == 0x3A, bytes[keyEnd + 1] == 0x5B else { return nil }
            var j = keyEnd + 2
            while bytes[j] != 0x5D { j = bytes[j] == 0x22 ? stringEnd(j) : j + 1 }
            o.members.append(.init(key: i..<keyEnd, value: (keyEnd + 1)..<(j + 1)))
            if bytes[j + 1] == 0x7D { return o }
            i = j + 2
        }
    }

    /// A product whose words no other has, dropped: its keys go from the maps (not left with empty lists).
    func testAKeyWhoseLastProductGoesIsRemoved() throws {
        var r = Random(state: 5)
        var docs = Self.ordered((0..<40).map { Self.document(&r, id: "p\($0)") })
        docs.append(SearchDocument(id: "only", name: "Singular Wordzzz", brand: "Onlybrand", category: "Onlycat", description: "Singular Wordzzz",
                                   price: JSONNumber(1), rating: nil, imageUrl: ""))
        docs = Self.ordered(docs)
        let first = try build(docs, compact: false, earlier: nil)
        XCTAssertTrue(first.bytes.contains(subsequence: Array(#""wordzzz":["only"]"#.utf8)))
        docs.removeAll { $0.id == "only" }
        let made = try build(docs, compact: false, earlier: first.next)
        XCTAssertTrue(made.spliced)
        XCTAssertFalse(made.bytes.contains(subsequence: Array("wordzzz".utf8)))
        XCTAssertFalse(made.bytes.contains(subsequence: Array("Onlybrand".utf8)))
        let expected = try whole(docs, compact: false)
        XCTAssertTrue(made.bytes == expected, firstDifference(made.bytes, expected))
    }

    /// Words Swift holds equal but spelled apart ("é" composed and decomposed) are one key in one spelling, whatever
    /// the thread count; a product added under a brand so spelled gives the bytes of the whole index.
    func testOneKeyPerWordWhateverItsSpelling() throws {
        var r = Random(state: 13)
        var docs = Self.ordered((0..<300).map { Self.document(&r, id: "p\($0)") })
        func written(_ threads: Int) throws -> [UInt8] {
            let out = JSONStream()
            try SeedIndex.write(docs, version: "v", generatedAt: "2026-11-25T00:00:00Z", compact: false, threads: threads, to: out)
            return out.bytes
        }
        let one = try written(1), four = try written(4)
        XCTAssertTrue(one == four, "one thread and four differ: " + firstDifference(one, four))
        XCTAssertTrue(try written(1).contains(subsequence: Array(#""é":["#.utf8)), "no composed é key")
        XCTAssertFalse(try written(1).contains(subsequence: Array("\"e\u{301}\":[".utf8)), "a decomposed é key")
        let first = try build(docs, compact: false, earlier: nil)
        docs.append(SearchDocument(id: "aaa", name: "Neue Säge", brand: "E\u{301}te\u{301}", category: "Power Tools", description: "",
                                   price: JSONNumber(2), rating: nil, imageUrl: ""))
        docs = Self.ordered(docs)
        let spliced = try build(docs, compact: false, earlier: first.next).bytes, expected = try whole(docs, compact: false)
        XCTAssertTrue(spliced == expected, firstDifference(spliced, expected))
    }

    /// Past `mapSpliceLimit` changed entries the index is written whole (and is the same).
    func testManyChangesWriteTheIndexWhole() throws {
        var r = Random(state: 9)
        var docs = Self.ordered((0..<400).map { Self.document(&r, id: "p\($0)") })
        let first = try build(docs, compact: false, earlier: nil)
        for k in 0...(SeedIndex.mapSpliceLimit / 2) { docs[k] = Self.document(&r, id: docs[k].id, extra: "chg\(k)") }
        docs = Self.ordered(docs)
        let made = try build(docs, compact: false, earlier: first.next)
        XCTAssertFalse(made.spliced)
        let expected = try whole(docs, compact: false)
        XCTAssertTrue(made.bytes == expected, firstDifference(made.bytes, expected))
    }

    func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> String {
        let i = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
        func around(_ x: [UInt8]) -> String { String(decoding: x[max(0, i - 20)..<min(x.count, i + 300)], as: UTF8.self) }
        return "at byte \(i):\n spliced: \(around(a))\n whole:   \(around(b))"
    }
}

private extension Array where Element == UInt8 {
    func contains(subsequence s: [UInt8]) -> Bool {
        guard s.count <= count else { return false }
        return (0...(count - s.count)).contains { self[$0..<($0 + s.count)].elementsEqual(s) }
    }
}
