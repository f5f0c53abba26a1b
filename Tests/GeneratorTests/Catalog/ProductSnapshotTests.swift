import XCTest
import Foundation
@testable import Generator
import Schemas

/// The products snapshot: lines cut into chunks by their content, and records of unchanged chunks taken from the
/// build cache instead of read again — only when a full read would give the same products and the same errors.
final class ProductSnapshotTests: XCTestCase {
    typealias Catalog = IncrementalBuildTests.Catalog

    /// The chunks of `text` fed as runs of whole lines cut at `cuts` (line indices), with each chunk's bytes.
    static func chunks(_ lines: [String], cuts: [Int] = []) -> (chunks: [LineChunker.Chunk], bytes: [String]) {
        var chunker = LineChunker(keepBytes: true)
        var bytes: [String] = []
        let bounds = [0] + cuts.sorted() + [lines.count]
        for k in 0..<(bounds.count - 1) where bounds[k] < bounds[k + 1] {
            let run = Array(lines[bounds[k]..<bounds[k + 1]].joined(separator: "\n").utf8)
            chunker.feed(run[...]) { _, b in bytes.append(String(decoding: b, as: UTF8.self)) }
        }
        chunker.finish { _, b in bytes.append(String(decoding: b, as: UTF8.self)) }
        return (chunker.chunks, bytes)
    }

    func testChunksAreCutByContentWhateverTheRuns() throws {
        let lines = try String(contentsOf: TestSupport.testData.appendingPathComponent("catalog/products.jsonl"), encoding: .utf8)
            .split(separator: "\n").prefix(3_000).map(String.init)
        let whole = Self.chunks(lines)
        // Every line in exactly one chunk, in order, none longer than the cap, most ended by content.
        XCTAssertEqual(whole.bytes.joined(separator: "\n"), lines.joined(separator: "\n"))
        XCTAssertEqual(whole.chunks.map(\.lines).reduce(0, +), lines.count)
        XCTAssertEqual(whole.chunks.first?.firstLine, 1)
        for (a, b) in zip(whole.chunks, whole.chunks.dropFirst()) { XCTAssertEqual(b.firstLine, a.firstLine + a.lines) }
        XCTAssertLessThanOrEqual(whole.chunks.map(\.lines).max() ?? 0, LineChunker.maxLines)
        XCTAssertGreaterThan(whole.chunks.filter { $0.lines < LineChunker.maxLines }.count, whole.chunks.count * 9 / 10)
        XCTAssertGreaterThan(whole.chunks.count, 3_000 / 40)
        // The same chunks however the file arrives (blocks end anywhere between lines).
        var r = TestSupport.Random(state: 3)
        for _ in 0..<3 {
            let cuts = (0..<(1 + r.below(20))).map { _ in r.below(lines.count) }
            let split = Self.chunks(lines, cuts: cuts)
            XCTAssertEqual(split.chunks, whole.chunks, "cuts \(cuts)")
            XCTAssertEqual(split.bytes, whole.bytes, "cuts \(cuts)")
        }
        // A line added, one removed and one edited change the chunks they fall in (and at most the next), no other.
        var edited = lines
        edited.insert(#"{"itemId":"new-1","name":"New"}"#, at: 700)
        edited.remove(at: 1_800)
        edited[2_500] = edited[2_500].replacingOccurrences(of: "\"price\":", with: "\"price\": ")
        let after = Self.chunks(edited)
        let before = Set(whole.chunks.map(\.digest))
        XCTAssertLessThanOrEqual(after.chunks.filter { !before.contains($0.digest) }.count, 6)
        XCTAssertGreaterThan(after.chunks.filter { before.contains($0.digest) }.count, whole.chunks.count - 7)
    }

    /// A snapshot is trusted to be ours, never to be sane: one whose text a read could not have made (a price that is
    /// not a JSON number, a field that is not UTF-8, a record past the text) is not used.
    func testASnapshotWhoseTextNoReadMakesIsNotUsed() throws {
        let dir = TestSupport.tempDir("snapshot-sane")
        func snapshot(price: String, name: [UInt8], length: UInt32? = nil) throws -> ProductSnapshot? {
            let builder = ProductStore.Builder(file: "products.jsonl")
            builder.append(id: "p1", segment: "p1", name: "Drill", description: "Drill", brand: "Acme", brandKey: "acme", price: JSONNumber(literal: price),
                           currency: "USD", inStock: true, imageUrl: nil, ratingAverage: nil, ratingCount: 0, categoryId: "tools", extra: [], line: 1)
            var r = builder.records[0]
            r.nameLength = UInt32(name.count)
            builder.records[0] = r
            // The stored record's text: its id, then the name given.
            let stored = ProductStore.Builder(file: "products.jsonl")
            stored.append(stored: r, text: (Array("p1".utf8) + name)[...], line: 1, brand: stored.intern("Acme", in: .brand),
                          brandKey: stored.intern("acme", in: .brandKey), currency: stored.intern("USD", in: .currency),
                          category: stored.intern("tools", in: .category), price: JSONNumber(literal: price), extra: nil)
            let records = stored.records, store = stored.finish(order: [0])
            let chunk = LineChunker.Chunk(digest: Fingerprint(a: 1, b: 2, c: 3, d: 4), firstLine: 1, lines: 1)
            let url = dir.appendingPathComponent("s-\(price)-\(name.count)-\(length ?? 0)")
            XCTAssertTrue(BuildCache.write(toNew: url) { ProductSnapshot.write(to: $0, key: Fingerprint(a: 0, b: 0, c: 0, d: 0), chunks: [chunk], records: records, store: store) })
            if let length {
                // The record's name made longer in the file (the closing checksum made anew): past the text.
                var bytes = [UInt8](try Data(contentsOf: url))
                let end = bytes.count - BuildCache.closing, textCount = 2 + name.count
                let nameLength = end - textCount - 8 - 161 + 8 + 4 + 4   // (the record: start, id and segment lengths, then this)
                XCTAssertEqual(Array(bytes[nameLength..<(nameLength + 4)]), [UInt8(name.count), 0, 0, 0])
                for k in 0..<4 { bytes[nameLength + k] = UInt8(truncatingIfNeeded: length >> (8 * k)) }
                bytes.replaceSubrange(end..., with: Checksum.of(bytes[..<end]))
                try Data(bytes).write(to: url)
            }
            return ProductSnapshot.read(url)
        }
        XCTAssertNotNil(try snapshot(price: "12.5", name: Array("Drill é".utf8)), "a sane snapshot was refused: the checks below prove nothing")
        XCTAssertNil(try snapshot(price: "12,5", name: Array("Drill".utf8)))
        XCTAssertNil(try snapshot(price: "12.5", name: [0x44, 0xC3, 0x28]))
        XCTAssertNil(try snapshot(price: "12.5", name: Array("Drill".utf8), length: 400))
        for good in ["0", "-1", "12.50", "1e5", "2E-3"] { XCTAssertTrue(ProductSnapshot.isNumber(good), good) }
        for bad in ["", "-", "01", "1.", ".5", "1e", "1e+", "NaN", "0x1", "1 "] { XCTAssertFalse(ProductSnapshot.isNumber(bad), bad) }
    }

    func build(_ input: URL, _ out: URL, day: Int, cache: Bool = true) throws -> BuildSummary {
        var o = BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000 + day * 86_400)
        o.useCache = cache
        return try Build.run(o)
    }

    /// A real catalog of 300 products built once (a release and its cache with a snapshot).
    func firstBuild(_ name: String) throws -> (catalog: Catalog, work: URL, input: URL, out: URL) {
        var catalog = try IncrementalBuildTests.realCatalog(count: 300)
        catalog.products[5]["itemId"] = "Drill-Kit-5"   // (ids of the corpus are digits: one with letters to fold)
        let work = TestSupport.tempDir(name), input = work.appendingPathComponent("input"), out = work.appendingPathComponent("a/dist")
        try catalog.write(to: input)
        let first = try build(input, out, day: 0)
        XCTAssertEqual(first.productLinesReused, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: ProductSnapshot.location(cache: BuildCache.location(for: out, folder: nil)).path))
        return (catalog, work, input, out)
    }

    /// A copy of `out` (and its cache and snapshot) in `name`, to build again from the same state.
    func copy(_ out: URL, to dir: URL, cache: Bool = true) throws -> URL {
        let o = dir.appendingPathComponent("dist")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: out, to: o)
        if cache {
            let c = BuildCache.location(for: out, folder: nil)
            try FileManager.default.copyItem(at: c, to: BuildCache.location(for: o, folder: nil))
            try FileManager.default.copyItem(at: ProductSnapshot.location(cache: c), to: ProductSnapshot.location(cache: BuildCache.location(for: o, folder: nil)))
        }
        return o
    }

    /// A price changed: every other chunk's records are taken, and the tree is a full build's; a damaged snapshot is
    /// not used (same bytes); someone's file at its name is left alone.
    func testTakenRecordsGiveAFullBuildsTree() throws {
        var (catalog, work, input, out) = try firstBuild("snapshot-take")
        let i = catalog.products.firstIndex { $0["price"] is NSNumber }!
        catalog.products[i]["price"] = NSDecimalNumber(string: "1234.56")
        try catalog.write(to: input)
        let full = try copy(out, to: work.appendingPathComponent("full"), cache: false)
        let damaged = try copy(out, to: work.appendingPathComponent("damaged"))
        let someone = try copy(out, to: work.appendingPathComponent("someone"))
        let linked = try copy(out, to: work.appendingPathComponent("linked"))
        let a = try build(input, out, day: 1)
        XCTAssertGreaterThanOrEqual(a.productLinesReused, 300 - LineChunker.maxLines)
        XCTAssertLessThan(a.productLinesReused, 300)
        XCTAssertEqual(try build(input, full, day: 1, cache: false).productLinesReused, 0)
        let expected = TestSupport.snapshot(full)
        XCTAssertEqual(TestSupport.snapshot(out), expected)

        // A damaged snapshot: not used, the same tree; the build's own replaces it.
        let snap = ProductSnapshot.location(cache: BuildCache.location(for: damaged, folder: nil))
        var bytes = try Data(contentsOf: snap)
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: snap)
        XCTAssertEqual(try build(input, damaged, day: 1).productLinesReused, 0)
        XCTAssertEqual(TestSupport.snapshot(damaged), expected)
        XCTAssertNotEqual(try Data(contentsOf: snap), bytes, "the damaged snapshot was not replaced by the build's")

        // Someone's file at its name: neither read nor replaced.
        let theirs = ProductSnapshot.location(cache: BuildCache.location(for: someone, folder: nil))
        try Data("my notes\n".utf8).write(to: theirs)
        let s = try build(input, someone, day: 1)
        XCTAssertEqual(s.productLinesReused, 0)
        XCTAssertTrue(s.warnings.contains { $0.contains("is not a products snapshot") }, "\(s.warnings)")
        XCTAssertEqual(try Data(contentsOf: theirs), Data("my notes\n".utf8))
        XCTAssertEqual(TestSupport.snapshot(someone), expected)

        // A link at its name, to a good snapshot outside: not followed to read it, nor to write (target and link stay).
        let link = ProductSnapshot.location(cache: BuildCache.location(for: linked, folder: nil))
        let outside = work.appendingPathComponent("outside.products")
        try FileManager.default.moveItem(at: link, to: outside)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)
        let target = try Data(contentsOf: outside)
        let l = try build(input, linked, day: 1)
        XCTAssertEqual(l.productLinesReused, 0)
        XCTAssertTrue(l.warnings.contains { $0.contains("is not a products snapshot") }, "\(l.warnings)")
        XCTAssertEqual(try Data(contentsOf: outside), target)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link.path), outside.path)
        XCTAssertEqual(TestSupport.snapshot(linked), expected)

        // The snapshot written now describes the new file: the next build takes every line.
        catalog.site["appVersion"] = "9.9.9"
        try catalog.write(to: input)
        XCTAssertEqual(try build(input, out, day: 2).productLinesReused, 300)
    }

    /// A brand spelled two ways is shown in its most common spelling: when changed lines make the other spelling the
    /// common one, the products of unchanged lines (records taken) show it too, and their pages are made again.
    func testTakenRecordsFollowThePoliciesOfTheWholeFile() throws {
        var (catalog, work, input, out) = try firstBuild("snapshot-policies")
        let brand = catalog.products[0]["brand"] as! String
        let same = catalog.products.indices.filter { catalog.products[$0]["brand"] as? String == brand }
        XCTAssertGreaterThan(same.count, 4, "the corpus has changed: pick a brand with more products")
        // The first build showed `brand`; now most of its products (the last ones) spell it in capitals.
        for i in same.suffix(same.count / 2 + 1) { catalog.products[i]["brand"] = brand.uppercased() }
        try catalog.write(to: input)
        let full = try copy(out, to: work.appendingPathComponent("full"), cache: false)
        let a = try build(input, out, day: 1)
        XCTAssertGreaterThan(a.productLinesReused, 0)
        _ = try build(input, full, day: 1, cache: false)
        XCTAssertEqual(TestSupport.snapshot(out), TestSupport.snapshot(full))
        let page = try String(contentsOf: out.appendingPathComponent("products/\(catalog.products[same[0]]["itemId"]!)/details.json"), encoding: .utf8)
        XCTAssertTrue(page.contains(brand.uppercased()), page)
    }

    /// A line read anew that claims an id, or (case-insensitively) a file name, a taken record also claims, and a chunk
    /// repeated whole: the build fails with a full read's errors, and the tree and snapshot stay as they were.
    func testClaimsOfTakenRecordsFailAsAFullReadDoes() throws {
        let (catalog, work, input, out) = try firstBuild("snapshot-claims")
        let ids = catalog.products.map { $0["itemId"] as! String }
        var k = 0
        func failure(_ edit: (inout Catalog) -> Void, raw: ((inout [String]) -> Void)? = nil) throws {
            k += 1
            var c = catalog
            edit(&c)
            try c.write(to: input)
            if let raw {
                let file = input.appendingPathComponent("catalog/products.jsonl")
                var lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
                raw(&lines)
                try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
            }
            var messages: [String] = []
            for cache in [true, false] {
                let o = try copy(out, to: work.appendingPathComponent("case\(k)-\(cache)"), cache: cache)
                let before = TestSupport.snapshot(o.deletingLastPathComponent())
                XCTAssertThrowsError(try build(input, o, day: 1, cache: cache)) { messages.append("\($0)") }
                XCTAssertEqual(TestSupport.snapshot(o.deletingLastPathComponent()), before, "case \(k): a failed build changed something")
            }
            XCTAssertEqual(messages.count, 2)
            XCTAssertEqual(messages.first, messages.last, "case \(k)")
            XCTAssertTrue(messages.first?.contains("products.jsonl:") == true, "case \(k): \(messages)")
        }
        // The last product takes the first one's id; then the same id in other letter case.
        try failure { $0.products[299]["itemId"] = ids[0] }
        try failure { $0.products[299]["itemId"] = ids[5].uppercased() }
        // The first 80 lines again at the end: their chunks are the snapshot's, and taken once only.
        try failure { $0.products += $0.products.prefix(80) }
        // A line read anew that a check refuses, and one that is not JSON: a full read's messages (every one).
        try failure { $0.products[150]["price"] = "a lot"; $0.products[20]["itemId"] = ids[21] }
        try failure { $0.products[150]["name"] = NSNull() }
        try failure({ _ in }, raw: { $0[150] = String($0[150].dropLast(3)) })
    }
}
