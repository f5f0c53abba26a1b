import Foundation
import XCTest
@testable import Generator
import Schemas
import TreeClient
import Indexer

/// The byte diff must give exactly the operations of the value diff (`JSONPatch.diff`), for compact and pretty text,
/// and its patch must turn the old document into the new one's bytes.
final class JSONByteDiffTests: XCTestCase {
    func assertSame(_ a: JSON, _ b: JSON, _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let expected = JSONPatch.diff(a, b)
        for writer in [JSONWriter(), JSONWriter(pretty: true)] {
            let x = try writer.bytes(a), y = try writer.bytes(b)
            let got = try XCTUnwrap(JSONByteDiff.diff(x, y), "\(what): no byte diff", file: file, line: line)
            XCTAssertEqual(got, expected, what, file: file, line: line)
            XCTAssertEqual(try writer.bytes(JSONPatch.apply(got, to: a)), y, "\(what): the patch does not give the new bytes", file: file, line: line)
        }
    }

    /// Every pair of documents of the RFC 6902 community suite (a document and the result it expects).
    func testRFC6902SuiteDocuments() throws {
        var pairs = 0
        for name in ["tests.json", "spec_tests.json"] {
            for c in try JSONPatchSuiteTests.records(name) where !c.isNull {
                guard let doc = c["doc"], let expected = c["expected"] else { continue }
                try assertSame(doc, expected, c["comment"]?.stringValue ?? "\(doc)")
                try assertSame(expected, doc, "reversed: " + (c["comment"]?.stringValue ?? "\(doc)"))
                pairs += 1
            }
        }
        XCTAssertGreaterThan(pairs, 50)
    }

    /// Random edits of real catalog records, as releases make them: prices, names, products added and removed,
    /// fields added and removed, a field moved (which must become a replace of the record).
    func testRandomEditsOfRealProducts() throws {
        let lines = try String(contentsOf: TestSupport.testData.appendingPathComponent("catalog/products.jsonl"), encoding: .utf8)
            .split(separator: "\n").prefix(120)
        let products = try lines.map { try JSONReader.parse(String($0)) }
        var rng = TestSupport.Random(state: 24)
        for round in 0..<40 {
            var list = products
            var edits: [String] = []
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                let i = Int(rng.next() % UInt64(list.count))
                guard case .object(var o) = list[i] else { continue }
                switch rng.next() % 7 {
                case 0: o["price"] = .double(Double(rng.next() % 100_000) / 100); edits.append("price \(i)")
                case 1: o["name"] = .string("Renamed \(round)"); edits.append("name \(i)")
                case 2: list.remove(at: i); edits.append("remove \(i)"); continue
                case 3: list.insert(.obj(["itemId": .string("new-\(round)"), "name": "New"]), at: i); edits.append("insert \(i)"); continue
                case 4: o["brand"] = nil; edits.append("drop brand \(i)")
                case 5: o["extra"] = .int(round); edits.append("add field \(i)")
                default:
                    // The first field moved last: the key order changes, so the record is replaced whole.
                    if let first = o.members.first { o[first.key] = nil; o[first.key] = first.value }
                    edits.append("reorder \(i)")
                }
                list[i] = .object(o)
            }
            try assertSame(.obj(["version": 1, "products": .array(products)]), .obj(["version": 2, "products": .array(list)]),
                           "round \(round): \(edits)")
        }
    }

    /// Objects that end alike (the members after the changes are not read, see `pairedMembers`): members removed,
    /// added, changed and moved before a long common end, on each side, give the value diff's operations.
    func testObjectsThatEndAlike() throws {
        let tail: [(String, JSON)] = (0..<30).map { ("k\($0)", .array([.string("v\($0)"), .int($0)])) }
        func object(_ head: [(String, JSON)]) -> JSON { .object(JSONObject(head + tail)) }
        let cases: [(String, [(String, JSON)], [(String, JSON)])] = [
            ("a value changed", [("a", 1), ("b", "x")], [("a", 2), ("b", "x")]),
            ("a longer value", [("a", 1), ("b", "x")], [("a", 1), ("b", "xyz")]),
            ("a member removed", [("a", 1), ("b", "x")], [("b", "x")]),
            ("a member added", [("b", "x")], [("a", 1), ("b", "x")]),
            ("members reordered", [("a", 1), ("b", "x")], [("b", "x"), ("a", 1)]),
            ("nothing before the end", [], [("a", 1)]),
        ]
        for (what, x, y) in cases {
            try assertSame(object(x), object(y), what)
            try assertSame(object(y), object(x), "reversed: " + what)
        }
        try assertSame(.obj(["a": .obj([:]), "b": 1]), .obj(["a": .obj([:]), "b": 2]), "an empty object")
    }

    /// A keyword map (sorted keys, long lists of ids) that gains a word in the middle: the kept words after it are
    /// moved behind it through a temporary member (`JSONPatch.Reorder`), a few hundred bytes instead of the whole map;
    /// every patch gives the new bytes under both appliers. Where moving costs more than the object (short values),
    /// the object is replaced, as before.
    func testAMemberAddedInTheMiddleMovesTheKeptOnesBehindIt() throws {
        let words = ["10v", "anchor", "bit", "cordless", "drill", "~", "hammer", "impact", "saw", "zone"].sorted()
        func ids(_ w: String) -> JSON { .array((0..<200).map { .string("\(w)-\(100_000 + $0 * 7)") }) }
        func map(_ ws: [String], changed: String? = nil) -> JSON {
            .obj(["version": 1, "keywords": .object(JSONObject(ws.sorted().map { ($0, $0 == changed ? .array([.string("new")]) : ids($0)) })), "brands": .obj(["acme": .array(["1"])])])
        }
        let cases: [(String, [String], [String], String?)] = [
            ("a word in the middle", words, (words + ["ceiling"]), nil),
            ("a word first", words, (words + ["0-degree"]), nil),
            ("a word last", words, (words + ["zzz"]), nil),
            ("two words, one removed, one changed", words, (words.filter { $0 != "hammer" } + ["ceiling", "pliers"]), "saw"),
            ("the temporary's name taken", words + ["~~"], (words + ["~~", "ceiling"]), nil),
        ]
        for (what, x, y, changed) in cases {
            let a = map(x), b = map(y, changed: changed)
            try assertSame(a, b, what)
            try assertSame(b, a, "reversed: " + what)
            let patch = JSONPatch.diff(a, b)
            let text = try JSONWriter().bytes(patch)
            XCTAssertFalse(patch.arrayValue!.contains { $0["op"] == "replace" && $0["path"] == "/keywords" }, what)
            // No kept word's list is sent again.
            let patchText = String(decoding: text, as: UTF8.self)
            for w in x where y.contains(w) && w != changed { XCTAssertFalse(patchText.contains("\"\(w)-100000\""), "\(what): \(w)") }
            // The app's applier gives the same bytes.
            let old = try TreeJSON.parse(try JSONWriter().bytes(a))
            XCTAssertEqual(try TreePatch.apply(try TreeJSON.parse(text), to: old).bytes, try JSONWriter().bytes(b), what)
            if what.hasPrefix("a word in") {
                // The words after "ceiling" each go out to the temporary member and back, in order.
                let moves = patch.arrayValue!.filter { $0["op"] == "move" }
                XCTAssertEqual(moves.count, 2 * x.filter { $0 > "ceiling" }.count)
                XCTAssertEqual(moves.first, .obj(["op": "move", "from": "/keywords/cordless", "path": "/keywords/~0~0"]))
                XCTAssertEqual(moves.dropFirst().first, .obj(["op": "move", "from": "/keywords/~0~0", "path": "/keywords/cordless"]))
            }
        }
        // Short values: moving them costs more than the object, which is replaced.
        let small = JSON.obj(["k": .obj(["b": 1, "c": 2, "d": 3])]), grown = JSON.obj(["k": .obj(["a": 0, "b": 1, "c": 2, "d": 3])])
        try assertSame(small, grown, "short values")
        XCTAssertEqual(JSONPatch.diff(small, grown), .array([.obj(["op": "replace", "path": "/k", "value": grown["k"]!])]))
    }

    /// Objects whose members are said (the keyword maps a splice edited): the same operations as scanning them; a
    /// layout that does not fit the text is ignored; and one that fits is taken as said (two members told as one
    /// show in the patch), so the members are not scanned.
    func testObjectsWithKnownMembers() throws {
        /// `{"version":N,"keywords":{…},"brands":{…}}` and where the two maps' members lie in it.
        func written(_ version: Int, _ keywords: [(String, [String])]) throws -> ([UInt8], [ObjectLayout]) {
            var bytes = Array(#"{"version":\#(version)"#.utf8), layouts: [ObjectLayout] = []
            for (name, members) in [("keywords", keywords), ("brands", [("acme", ["1", "2"])])] {
                bytes += Array(#","\#(name)":"#.utf8)
                var o = ObjectLayout(open: bytes.count, members: [])
                bytes.append(UInt8(ascii: "{"))
                for (k, (key, ids)) in members.enumerated() {
                    if k > 0 { bytes.append(UInt8(ascii: ",")) }
                    let keyText = try JSONWriter().bytes(.string(key)), value = try JSONWriter().bytes(.strings(ids))
                    let start = bytes.count
                    bytes += keyText + [UInt8(ascii: ":")] + value
                    o.members.append(.init(key: start..<(start + keyText.count), value: (start + keyText.count + 1)..<bytes.count))
                }
                bytes.append(UInt8(ascii: "}"))
                layouts.append(o)
            }
            return (bytes + [UInt8(ascii: "}")], layouts)
        }
        func ids(_ w: String) -> [String] { (0..<60).map { "\(w)-\($0 * 13)" } }
        let before = ["drill", "saw", "bit", "blade", "kit", "pro"].map { ($0, ids($0)) }
        var after = before
        after.insert(("cordless", ["new-1"]), at: 2)          // a new word in the middle
        after[4].1.append("new-1")                            // a list that gains the new product
        after.remove(at: 6)                                   // a word gone
        let (x, lx) = try written(1, before), (y, ly) = try written(2, after)
        let expected = JSONPatch.diff(try JSONReader.parse(x), try JSONReader.parse(y))
        XCTAssertTrue(expected.arrayValue!.contains { $0["op"] == "move" }, "\(expected)")
        XCTAssertEqual(JSONByteDiff.diff(x, y, objects: (lx, ly)), expected)
        XCTAssertEqual(JSONByteDiff.diff(x, y, objects: (lx, [])), expected, "one side known")
        // Layouts that do not fit: a member off by a byte, one left out, the brace misplaced.
        var shifted = ly, short = ly, misplaced = lx
        shifted[0].members[3].key = (shifted[0].members[3].key.lowerBound + 1)..<shifted[0].members[3].key.upperBound
        short[0].members.removeLast()
        misplaced[0].open += 1
        let xs = x[...], ys = y[...]
        XCTAssertFalse(JSONByteDiff.Scanner.fits(shifted[0], ys.span))
        XCTAssertFalse(JSONByteDiff.Scanner.fits(short[0], ys.span))
        XCTAssertFalse(JSONByteDiff.Scanner.fits(misplaced[0], xs.span))
        for (what, o, n) in [("shifted", lx, shifted), ("short", lx, short), ("misplaced", misplaced, ly)] {
            XCTAssertEqual(JSONByteDiff.diff(x, y, objects: (o, n)), expected, what)
        }
        // Two members told as one ("saw" taking "cordless" in): it fits, and the patch shows it was taken as said.
        var merged = ly
        let saw = merged[0].members[1], cordless = merged[0].members[2]
        merged[0].members[1] = .init(key: saw.key, value: saw.value.lowerBound..<cordless.value.upperBound)
        merged[0].members.remove(at: 2)
        XCTAssertTrue(JSONByteDiff.Scanner.fits(merged[0], ys.span))
        XCTAssertNotEqual(JSONByteDiff.diff(x, y, objects: (lx, merged)), expected)
    }

    /// An array whose elements are said (the entries of a spliced index): the same operations as scanning it, and
    /// ranges that are not its elements are ignored.
    func testArraysWithKnownElements() throws {
        let lines = try String(contentsOf: TestSupport.testData.appendingPathComponent("catalog/products.jsonl"), encoding: .utf8)
            .split(separator: "\n").prefix(60)
        let products = try lines.map { try JSONReader.parse(String($0)) }
        var rng = TestSupport.Random(state: 7)
        /// The document's bytes and where its products lie in them (written one by one, as a splice records them).
        func written(_ list: [JSON]) throws -> ([UInt8], [Range<Int>]) {
            var bytes = Array(#"{"version":1,"products":["#.utf8), ranges: [Range<Int>] = []
            for (k, p) in list.enumerated() {
                if k > 0 { bytes.append(UInt8(ascii: ",")) }
                let e = try JSONWriter().bytes(p)
                ranges.append(bytes.count..<(bytes.count + e.count)); bytes += e
            }
            bytes += Array(#"],"keywords":{"drill":["a","b"],"saw":["c"]}}"#.utf8)
            return (bytes, ranges)
        }
        for round in 0..<20 {
            var list = products
            let i = Int(rng.next() % UInt64(list.count))
            switch round % 3 {
            case 0: if case .object(var o) = list[i] { o["price"] = .double(Double(round)); list[i] = .object(o) }
            case 1: list.remove(at: i)
            default: list.insert(.obj(["itemId": .string("new-\(round)")]), at: i)
            }
            let (x, rx) = try written(products), (y, ry) = try written(list)
            let expected = JSONPatch.diff(try JSONReader.parse(x), try JSONReader.parse(y))
            XCTAssertEqual(JSONByteDiff.diff(x, y, arrays: (rx, ry)), expected, "round \(round)")
            // Ranges off by one, or not all of the array's elements: not used, the array is scanned.
            XCTAssertEqual(JSONByteDiff.diff(x, y, arrays: (rx.map { ($0.lowerBound + 1)..<$0.upperBound }, Array(ry.dropLast()))), expected, "round \(round), wrong ranges")
        }
    }

    /// Ranges known to hold the same bytes on both sides (the fragments a splice copied, and the copied tail): the
    /// patch is the value diff's, on real products, whichever element changed; and such a pair is taken as said —
    /// a pair over bytes that differ hides their difference (which shows they are not read), while pairs of unequal
    /// lengths or outside the texts are not used.
    func testKnownEqualRangesAreNotRead() throws {
        let lines = try String(contentsOf: TestSupport.testData.appendingPathComponent("catalog/products.jsonl"), encoding: .utf8)
            .split(separator: "\n").prefix(40)
        let products = try lines.map { try JSONReader.parse(String($0)) }
        func written(_ list: [JSON], tail: String) throws -> ([UInt8], [Range<Int>], Range<Int>) {
            var bytes = Array(#"{"version":1,"products":["#.utf8), ranges: [Range<Int>] = []
            for (k, p) in list.enumerated() {
                if k > 0 { bytes.append(UInt8(ascii: ",")) }
                let e = try JSONWriter().bytes(p)
                ranges.append(bytes.count..<(bytes.count + e.count)); bytes += e
            }
            bytes.append(UInt8(ascii: "]"))
            let t = bytes.count..<(bytes.count + tail.utf8.count)
            bytes += Array(tail.utf8) + [UInt8(ascii: "}")]
            return (bytes, ranges, t)
        }
        let tail = #","keywords":{"drill":["a","b"],"saw":["c"]},"brands":{"acme":[0]}"#
        for i in [0, 17, 39] {
            var list = products
            // (A name of the same length backwards: the element keeps its length.)
            if case .object(var o) = list[i], let name = o["name"]?.stringValue { o["name"] = .string(String(name.reversed())); list[i] = .object(o) }
            let (x, rx, tx) = try written(products, tail: tail), (y, ry, ty) = try written(list, tail: tail)
            XCTAssertEqual(rx[i].count, ry[i].count)
            let expected = JSONPatch.diff(try JSONReader.parse(x), try JSONReader.parse(y))
            XCTAssertFalse(expected.arrayValue?.isEmpty ?? true)
            // Every unchanged element and the tail, as a splice records them.
            let same = rx.indices.filter { $0 != i }.map { (old: rx[$0], new: ry[$0]) } + [(old: tx, new: ty)]
            XCTAssertEqual(JSONByteDiff.diff(x, y, arrays: (rx, ry), same: same), expected, "element \(i)")
            // The changed element said to be the same: taken at its word (its bytes are not compared).
            let lie = same + [(old: rx[i], new: ry[i])]
            XCTAssertEqual(JSONByteDiff.diff(x, y, arrays: (rx, ry), same: lie), .array([]), "element \(i)")
            // Pairs that cannot be right are left out: the patch is still the value diff's.
            let wrong = [(old: rx[i], new: ry[i].lowerBound..<(ry[i].upperBound - 1)), (old: tx, new: (y.count - 2)..<(y.count + 40))]
            XCTAssertEqual(JSONByteDiff.diff(x, y, arrays: (rx, ry), same: wrong), expected, "element \(i), wrong pairs")
        }
    }

    /// Quotes and backslashes inside strings and keys (the scanner jumps from quote to quote).
    func testEscapesInStringsAndKeys() throws {
        let a: JSON = .obj(["k\"1": "x\\", "b": "q\"\\\"", "c": .array(["\\", "\"", "a\\\\\"b"]), "d": 1])
        let b: JSON = .obj(["k\"1": "x\\\\", "b": "q\"\\\"", "c": .array(["\\", "\""]), "d": 2])
        try assertSame(a, b, "escapes")
        try assertSame(b, a, "escapes, reversed")
        XCTAssertNil(JSONByteDiff.diff(Array("[\"a\\\"]".utf8), Array("[1]".utf8)), "an escaped closing quote leaves the string open")
    }

    func testTextItCannotVouchForFallsBack() {
        XCTAssertNil(JSONByteDiff.diff(Array("{\"a\":1}".utf8), Array("{\"a\":".utf8)))
        XCTAssertNil(JSONByteDiff.diff(Array("[1,2] x".utf8), Array("[1]".utf8)))
        XCTAssertNil(JSONByteDiff.diff(Array("{\"a\" 1}".utf8), Array("{\"a\":2}".utf8)))
        XCTAssertEqual(JSONByteDiff.diff(Array("[1,2,3]".utf8), Array("[1,3]".utf8)), JSONPatch.diff([1, 2, 3], [1, 3]))
    }
}
