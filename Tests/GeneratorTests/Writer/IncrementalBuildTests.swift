import XCTest
import Foundation
@testable import Generator
import Schemas
import Indexer

/// Incremental rebuilds are exact: after any sequence of random changes to a real catalog, the tree a build makes
/// with its cache (files kept by fingerprint, changes applied in place) is byte for byte the tree a full build makes
/// from the same input on the same previous release; a damaged, deleted or foreign cache gives a full build.
final class IncrementalBuildTests: XCTestCase {
    typealias Random = TestSupport.Random

    /// The input as the changes edit it: product records (JSON objects, real corpus), the category tree, site.json.
    struct Catalog {
        var products: [[String: Any]]
        var categories: [String: Any]
        var site: [String: Any]

        func write(to dir: URL) throws {
            let lines = try products.map { String(decoding: try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]), as: UTF8.self) }
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("catalog"), withIntermediateDirectories: true)
            try (lines.joined(separator: "\n") + "\n").write(to: dir.appendingPathComponent("catalog/products.jsonl"), atomically: true, encoding: .utf8)
            try JSONSerialization.data(withJSONObject: categories, options: [.sortedKeys]).write(to: dir.appendingPathComponent("catalog/categories.json"))
            try JSONSerialization.data(withJSONObject: site, options: [.sortedKeys, .prettyPrinted]).write(to: dir.appendingPathComponent("site.json"))
        }
    }

    /// The first `count` products of the real corpus with its category tree.
    static func realCatalog(count: Int) throws -> Catalog {
        let src = TestSupport.testData.appendingPathComponent("catalog")
        let lines = try String(contentsOf: src.appendingPathComponent("products.jsonl"), encoding: .utf8).split(separator: "\n").prefix(count)
        let products = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        let categories = try JSONSerialization.jsonObject(with: Data(contentsOf: src.appendingPathComponent("categories.json"))) as! [String: Any]
        var site = try JSONSerialization.jsonObject(with: Data(contentsOf: TestSupport.defaultInput.appendingPathComponent("site.json"))) as! [String: Any]
        site["catalog"] = ["fields": ["id": "itemId"]]
        for k in ["auctions", "nba"] { site.removeValue(forKey: k) }
        return Catalog(products: products, categories: categories, site: site)
    }

    /// Changes to some products, and changes that touch what every output depends on (which would hide a product
    /// change made in the same release: everything is rendered again).
    static let productChanges = ["price", "name", "brand", "category move", "product added", "product removed"]
    static let globalChanges = ["category renamed", "settings changed"]

    /// One change of the given kind; returns what it did, for messages.
    static func change(_ kind: String, _ c: inout Catalog, _ r: inout Random, serial: Int) -> String {
        func anyProduct(priced: Bool = false) -> Int {
            var i = r.below(c.products.count)
            while priced && c.products[i]["price"] is NSNull || (priced && c.products[i]["price"] == nil) { i = (i + 1) % c.products.count }
            return i
        }
        var cats = c.categories["categories"] as? [[String: Any]] ?? []
        switch kind {
        case "price":
            let i = anyProduct(priced: true)
            let old = (c.products[i]["price"] as? NSNumber)?.doubleValue ?? 10
            c.products[i]["price"] = NSDecimalNumber(string: String(format: "%.2f", old + Double(1 + r.below(500)) / 100))
            return "price of \(c.products[i]["itemId"]!)"
        case "name":
            // (A product with a description other than its name when there is one: only its name changes then. In
            // the corpus each description is the name, and stops being it here.)
            var i = anyProduct()
            func own(_ p: [String: Any]) -> Bool { (p["description"] as? String).map { $0 != p["name"] as? String } ?? false }
            if let d = c.products.indices.first(where: { own(c.products[($0 + i) % c.products.count]) }) { i = (i + d) % c.products.count }
            c.products[i]["name"] = "\(c.products[i]["name"] ?? "") Pro \(serial)"
            return "name of \(c.products[i]["itemId"]!)"
        case "brand":
            // (Always a real change: another product's brand when it differs, else a new one.)
            let i = anyProduct(), j = anyProduct()
            let other = c.products[j]["brand"] as? String
            c.products[i]["brand"] = r.below(3) == 0 || other == nil || other == c.products[i]["brand"] as? String ? "Brandnew \(serial)" : other!
            return "brand of \(c.products[i]["itemId"]!)"
        case "category move":
            let i = anyProduct()
            let others = cats.compactMap { $0["id"] as? String }.filter { $0 != c.products[i]["category"] as? String }
            c.products[i]["category"] = others.isEmpty ? "tools" : others[r.below(others.count)]
            return "category of \(c.products[i]["itemId"]!)"
        case "product added":
            var p = c.products[anyProduct()]
            p["itemId"] = "added-\(serial)"
            p["name"] = "Added Product \(serial)"
            c.products.insert(p, at: r.below(c.products.count))
            return "added added-\(serial)"
        case "product removed":
            let i = anyProduct()
            let id = c.products[i]["itemId"]!
            c.products.remove(at: i)
            return "removed \(id)"
        case "appVersion":
            // (A setting only: no product, and so no content-named file of the search index, changes.)
            c.site["appVersion"] = "2.1.\(serial)"; c.site["minimumAppVersion"] = "2.0.0"
            return "appVersion 2.1.\(serial)"
        case "category renamed":
            // A category some products are in (renaming one no product is in would change no product page).
            let used = Set(c.products.compactMap { $0["category"] as? String })
            let named = cats.indices.filter { used.contains(cats[$0]["id"] as? String ?? "") }
            guard !named.isEmpty else { return "no category" }
            let k = named[r.below(named.count)]
            cats[k]["name"] = "\(cats[k]["name"] ?? "") \(serial)"
            c.categories["categories"] = cats
            return "renamed \(cats[k]["id"]!)"
        default:   // settings
            switch r.below(3) {
            // (Each one a real change: a setting set to the value it had would make no release.)
            case 0:
                let old = c.site["pageSize"] as? Int ?? 0
                c.site["pageSize"] = [25, 40, 100].filter { $0 != old }[r.below(2)]
                return "pageSize \(old) → \(c.site["pageSize"]!)"
            case 1:
                var offline = c.site["offline"] as? [String: Any] ?? [:]
                let old = offline["productsPerCategory"] as? Int ?? 10
                offline["productsPerCategory"] = old + 1 + r.below(5)
                // (The budget doubled too: a count the budget lowers again would change nothing.)
                offline["budgetBytes"] = 2 * (offline["budgetBytes"] as? Int ?? 102_400)
                c.site["offline"] = offline
                return "offline.productsPerCategory \(old) → \(offline["productsPerCategory"]!), budget doubled"
            default:
                c.site["appVersion"] = "2.1.\(serial)"; c.site["minimumAppVersion"] = "2.0.0"
                return "appVersion 2.1.\(serial)"
            }
        }
    }

    func build(_ input: URL, _ out: URL, day: Int, cache: Bool = true, threads: Int = 2) throws -> BuildSummary {
        var o = BuildOptions(input: input, output: out, threads: threads, epochSeconds: 1_700_000_000 + day * 86_400)
        o.useCache = cache
        return try Build.run(o)
    }

    /// A real catalog of `count` products in a work folder, built once into `inc` (its first release, with a cache);
    /// `full` is where `incrementalAndFull` builds the full side.
    func firstRelease(_ name: String, count: Int, prepare: (inout Catalog) -> Void = { _ in }) throws -> (catalog: Catalog, input: URL, inc: URL, full: URL) {
        var catalog = try Self.realCatalog(count: count)
        prepare(&catalog)
        let work = TestSupport.tempDir(name), input = work.appendingPathComponent("input")
        let inc = work.appendingPathComponent("inc/dist"), full = work.appendingPathComponent("full/dist")
        try catalog.write(to: input)
        _ = try build(input, inc, day: 0)
        return (catalog, input, inc, full)
    }

    /// The next release built twice from the same previous tree: into `inc` with its cache, and into `full`, a copy of
    /// `inc` made first, as a full one-thread build without a cache. (Side by side: the suite leaves a core idle.)
    func incrementalAndFull(_ input: URL, _ inc: URL, _ full: URL, day: Int) throws -> (BuildSummary, BuildSummary) {
        try? FileManager.default.removeItem(at: full)
        try FileManager.default.createDirectory(at: full.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: inc, to: full)
        let both = TestSupport.concurrently(2) { k in
            k == 0 ? try self.build(input, inc, day: day) : try self.build(input, full, day: day, cache: false, threads: 1)
        }
        return (try both[0].get(), try both[1].get())
    }

    /// Several releases of random change sets (every kind of change at least once), each tree built with the cache
    /// compared byte for byte with a full build (no cache, one thread) from a copy of the same previous tree.
    func testRandomChangeSetsGiveTheBytesOfAFullBuild() throws {
        let seed: UInt64 = 20_261_125
        var r = Random(state: seed)
        var (catalog, input, inc, full) = try firstRelease("incremental", count: 2_000)
        // Releases 1–3: two product changes each (all six kinds, in random order); 4 and 5: one global change each
        // (each renders everything again; together, a settings change would hide what a renamed category alone
        // must change); 6: two or three random product changes.
        let local = Self.productChanges.shuffledBy(&r)
        let rounds = [Array(local[0..<2]), Array(local[2..<4]), Array(local[4..<6])] + Self.globalChanges.map { [$0] }
            + [(0..<(2 + r.below(2))).map { _ in Self.productChanges[r.below(Self.productChanges.count)] }]
        var reusedSome = false, inPlaceSome = false
        for (k, kinds) in rounds.enumerated() {
            let round = k + 1
            let did = kinds.enumerated().map { Self.change($1, &catalog, &r, serial: round * 10 + $0) }
            try catalog.write(to: input)
            let (a, b) = try incrementalAndFull(input, inc, full, day: round)
            XCTAssertEqual(a.version, round + 1, did.joined(separator: "; "))
            XCTAssertEqual(b.reused, 0)
            // A product change leaves most pages as they were: kept by the cache, not rendered.
            if kinds.allSatisfy(Self.productChanges.contains) { XCTAssertGreaterThan(a.reused, 1_500, "round \(round)") }
            // Records of unchanged lines are taken from the cache's products snapshot (two or three changed lines).
            XCTAssertGreaterThan(a.productLinesReused, 2_000 - 4 * LineChunker.maxLines, "round \(round)")
            XCTAssertEqual(b.productLinesReused, 0)
            reusedSome = reusedSome || a.reused > 0
            inPlaceSome = inPlaceSome || a.inPlace
            let x = TestSupport.snapshot(inc), y = TestSupport.snapshot(full)
            let differ = Set(x.keys).union(y.keys).filter { x[$0] != y[$0] }.sorted()
            XCTAssertEqual(differ, [], "seed \(seed), round \(round) (\(did.joined(separator: "; "))): incremental and full trees differ")
        }
        XCTAssertTrue(reusedSome, "no file was ever kept by the cache: the comparison proved nothing")
        XCTAssertTrue(inPlaceSome, "no change was applied in place")
        // The tree passes its own validation after all of it.
        let report = try TreeValidation.check(inc)
        XCTAssertTrue(report.problems.isEmpty, "\(report.problems.prefix(5))")
    }

    /// Each product change alone in its release (in a random set, one change can hide what another alone must
    /// change: a new product moves the search order, and a renamed one's new words then reach the keyword maps
    /// anyway). Each tree is the full build's, and most pages are kept.
    func testEachProductChangeAloneGivesTheBytesOfAFullBuild() throws {
        // (In the corpus each product's description is its name: a fifth get one of their own, so that a renamed
        // product can be one whose description neither is nor was its name.)
        var (catalog, input, inc, full) = try firstRelease("each-change", count: 400) { c in
            for i in stride(from: 0, to: c.products.count, by: 5) { c.products[i]["description"] = "Sturdy and light, with a two-year warranty" }
        }
        var r = Random(state: 7)
        for (k, kind) in Self.productChanges.enumerated() {
            let day = k + 1
            let did = Self.change(kind, &catalog, &r, serial: day)
            try catalog.write(to: input)
            let (a, _) = try incrementalAndFull(input, inc, full, day: day)
            XCTAssertGreaterThan(a.reused, 250, did)
            let x = TestSupport.snapshot(inc), y = TestSupport.snapshot(full)
            XCTAssertEqual(Set(x.keys).union(y.keys).filter { x[$0] != y[$0] }.sorted(), [], "\(did): incremental and full trees differ")
        }
    }

    /// Sorted orders are kept in the build cache (`KeptOrder`: the search order, the products' id and popularity orders,
    /// the files' order by path) and each is taken again only while it is still the sorted order: after a change of a
    /// setting it is; after a price change the products' orders are; after an added product none is; nor is an order
    /// made wrong in a cache that is otherwise whole (two neighbours swapped, one item twice, one index too many). Each
    /// tree is the full build's.
    func testKeptOrdersAreTakenOnlyWhileTheyAreStillTheOrder() throws {
        let orders = [(CatalogContext.searchOrderName, "search order: taken from the build cache"),
                      (CatalogDomain.idOrderName, "product id order: taken from the build cache"),
                      (CatalogDomain.popularityOrderName, "popularity order: taken from the build cache"),
                      (Build.pathOrderName, "file order by path: taken from the build cache")]
        // (One release history for all four: each order is checked on its own, and each is made wrong on its own
        // in the poisoned releases, where every one must be refused.)
        var (catalog, input, inc, full) = try firstRelease("kept-orders", count: 300)
        var r = Random(state: 5)
        let cacheFile = BuildCache.location(for: inc, folder: nil)
        /// Which orders the release took from the cache.
        func release(_ day: Int, _ kind: String, poison: (([Int32]) -> [Int32])? = nil, line: UInt = #line) throws -> [Bool] {
            _ = Self.change(kind, &catalog, &r, serial: day)
            try catalog.write(to: input)
            if let poison {
                var cache = try BuildCache.readFile(cacheFile).get()
                for (name, _) in orders { cache.keptOrders[name] = poison(try XCTUnwrap(cache.keptOrders[name], name, line: line)) }
                try Data(cache.encode()).write(to: cacheFile)
            }
            let (a, _) = try incrementalAndFull(input, inc, full, day: day)
            // (A release of a setting reuses no file; the orders are taken from the cache all the same.)
            if kind != "appVersion" { XCTAssertGreaterThan(a.reused, 200, line: line) }
            XCTAssertEqual(TestSupport.snapshot(inc), TestSupport.snapshot(full), "day \(day): incremental and full trees differ", line: line)
            return orders.map { _, taken in a.notes.contains { $0.hasPrefix(taken) } }
        }
        func check(_ took: [Bool], _ expected: Bool, checkingPathOrder: Bool = true, line: UInt = #line) {
            for ((name, _), t) in zip(orders, took) where checkingPathOrder || name != Build.pathOrderName {
                XCTAssertEqual(t, expected, name, line: line)
            }
        }
        // (The first release's tree lacks a file every later one has: the files' order is taken from the second.)
        _ = try release(1, "price")
        // A price renames the small content-named files that hold it (its result-store group's slices and the store
        // directories above it, the price sort chunk and order file), which then sort elsewhere by path: whether the
        // files' order is still the order depends on those names, so it is checked on the releases of a setting alone.
        check(try release(2, "price"), true, checkingPathOrder: false)
        check(try release(3, "appVersion"), true)
        // The cache holds one index per item, each once; read and written again, it is the same file.
        for (name, _) in orders {
            let order = try XCTUnwrap(try BuildCache.readFile(cacheFile).get().keptOrders[name], name)
            XCTAssertEqual(Set(order).count, order.count, name)
            XCTAssertGreaterThan(order.count, 250, name)
        }
        XCTAssertEqual(Data(try BuildCache.readFile(cacheFile).get().encode()), try Data(contentsOf: cacheFile))
        check(try release(4, "product added"), false)
        check(try release(5, "price"), true, checkingPathOrder: false)
        check(try release(6, "appVersion"), true)
        // (A setting changed, so that each order is refused for the poison alone.)
        check(try release(7, "appVersion") { o in var o = o; o.swapAt(10, 11); return o }, false)
        check(try release(8, "appVersion") { o in var o = o; o[1] = o[0]; return o }, false)
        check(try release(9, "appVersion") { o in o + [o[0]] }, false)
        check(try release(10, "appVersion"), true)
        check(try release(11, "price"), true, checkingPathOrder: false)
    }

    /// Only prices change (1 % of the products), twice: the seed search indexes are spliced — every other entry and
    /// the keyword maps copied from the previous files, the second time from files that were spliced themselves — and
    /// each tree is still the full build's, byte for byte.
    func testPriceChangesSpliceTheSearchIndexes() throws {
        var (catalog, input, inc, full) = try firstRelease("splice", count: 800)
        var r = Random(state: 11)
        let termsKept = "term and vocabulary files kept from the build before"
        for day in 1...2 {
            for k in 0..<8 { _ = Self.change("price", &catalog, &r, serial: day * 10 + k) }
            try catalog.write(to: input)
            // The second time, a term shard is missing from the output: the terms are made again (the facet columns are
            // made from every shard's text).
            let shards = try FileManager.default.contentsOfDirectory(atPath: inc.appendingPathComponent("search/terms").path).sorted()
            if day == 2 { try FileManager.default.removeItem(at: inc.appendingPathComponent("search/terms/\(shards[shards.count / 2])")) }
            let (a, b) = try incrementalAndFull(input, inc, full, day: day)
            let priced = catalog.products.filter { ($0["price"] as? NSNumber) != nil }.count
            // Both indexes: every entry but the (at most 8) changed ones, and the tail of each.
            XCTAssertGreaterThanOrEqual(a.copiedFragments, 2 * (priced - 8) + 2, "release \(day + 1): the indexes were not spliced")
            XCTAssertEqual(b.copiedFragments, 0)
            // Prices are not searchable text: the ranked index's terms are kept, only its result store (and the columns)
            // made; but not from an output that lost one of them.
            XCTAssertEqual(a.notes.contains { $0.contains(termsKept) }, day == 1, "release \(day + 1): \(a.notes)")
            XCTAssertFalse(b.notes.contains { $0.contains(termsKept) })
            XCTAssertEqual(TestSupport.snapshot(inc), TestSupport.snapshot(full), "release \(day + 1)")
        }
        // A name is: the terms are made again.
        _ = Self.change("name", &catalog, &r, serial: 99)
        try catalog.write(to: input)
        XCTAssertFalse(try build(input, inc, day: 3).notes.contains { $0.contains(termsKept) })
    }

    /// The result-store groups of a tree (`RankedIndexReading.storeGroups`).
    static func storeGroups(_ tree: URL) throws -> [RankedIndexReading.StoreGroup] {
        let meta = try JSONReader.parse(Data(contentsOf: tree.appendingPathComponent("search/meta.json")))
        return try RankedIndexReading.storeGroups(meta, folder: "search") { p in try JSONReader.parse(Data(contentsOf: tree.appendingPathComponent(p))) }
    }

    /// Whether one of a group's slices holds the product `id`.
    static func group(_ g: RankedIndexReading.StoreGroup, in tree: URL, holds id: String) throws -> Bool {
        try g.slices.contains { try String(contentsOf: tree.appendingPathComponent($0), encoding: .utf8).contains("\"id\":\"\(id)\"") }
    }

    /// One price changed: the ranked index's result-store groups of the other products are kept by their fingerprint
    /// (their slices not made, checked or hashed again), its own group's slices are made; a kept slice the output no
    /// longer has is made again. Each tree is the full build's.
    func testOnePriceKeepsEveryOtherResultStoreGroup() throws {
        var (catalog, input, inc, full) = try firstRelease("store", count: 1500)
        var r = Random(state: 5)
        let groups = try Self.storeGroups(inc).count
        XCTAssertGreaterThan(groups, 4)
        for day in 1...2 {
            let did = Self.change("price", &catalog, &r, serial: day)
            try catalog.write(to: input)
            // The second time, a slice the new release keeps (of a group without the changed product) is missing from
            // the output.
            var removed: String?
            if day == 2 {
                let id = did.replacingOccurrences(of: "price of ", with: "")
                let other = try XCTUnwrap(Self.storeGroups(inc).first { try !Self.group($0, in: inc, holds: id) && $0.slices.count > 1 })
                removed = other.slices[1]
                try FileManager.default.removeItem(at: inc.appendingPathComponent(removed!))
            }
            let (a, b) = try incrementalAndFull(input, inc, full, day: day)
            XCTAssertTrue(a.notes.contains("search/store/: \(groups - 1) of \(groups) result-store groups kept from the build before"),
                          "release \(day + 1) (\(did)): \(a.notes)")
            XCTAssertFalse(b.notes.contains { $0.contains("result-store groups kept") })
            XCTAssertEqual(TestSupport.snapshot(inc), TestSupport.snapshot(full), "release \(day + 1) (\(did))")
            if let removed { XCTAssertTrue(FileManager.default.fileExists(atPath: inc.appendingPathComponent(removed).path), "\(removed) not made again") }
        }
    }

    /// A product added early in the search order: the result-store groups but its own keep their names (they do not
    /// say where they start: the sizes in the store tree do), so a release re-makes and apps download only that one's
    /// slices and the directories above it; each group's documents are where the store tree says, and the tree is the
    /// full build's.
    func testAProductAddedKeepsTheResultStoreGroupsAfterIt() throws {
        var (catalog, input, inc, full) = try firstRelease("store-added", count: 1500)
        let before = try Self.storeGroups(inc)
        XCTAssertGreaterThan(before.count, 5)
        // A copy of a product of the first group (same brand and category: its neighbours in the search order).
        let firstSlice = try JSONReader.parse(Data(contentsOf: inc.appendingPathComponent(before[0].slices[0])))
        let neighbour = try XCTUnwrap(firstSlice["documents"]?[0]?["id"]?.stringValue)
        var added = try XCTUnwrap(catalog.products.first { "\($0["itemId"]!)" == neighbour })
        added["itemId"] = "added-early"
        catalog.products.insert(added, at: 700)
        try catalog.write(to: input)
        let (a, _) = try incrementalAndFull(input, inc, full, day: 1)
        XCTAssertEqual(TestSupport.snapshot(inc), TestSupport.snapshot(full))
        let after = try Self.storeGroups(inc)
        // Each document is where the store tree says: the added one among them.
        var found: [Int: String] = [:]
        for g in after {
            for (k, path) in g.slices.enumerated() {
                let text = try JSONReader.parse(Data(contentsOf: inc.appendingPathComponent(path)))
                XCTAssertNil(text["first"], "a slice does not say where it starts")
                for (i, d) in (text["documents"]?.arrayValue ?? []).enumerated() { found[g.first + k * g.slice + i] = d["id"]?.stringValue }
            }
        }
        let documents = try XCTUnwrap(JSONReader.parse(Data(contentsOf: inc.appendingPathComponent("search/meta.json")))["documents"]?.intValue)
        XCTAssertEqual(Set(found.keys), Set(0..<documents), "every document once, numbered from 0")
        let position = try XCTUnwrap(found.first { $0.value == "added-early" }?.key)
        // Every group but the added product's own (cut where an id says: one group, or two when the new id ends one)
        // is the same as before: before it at the same place, after it one later.
        let old = Dictionary(uniqueKeysWithValues: before.map { ($0.name, $0.first) })
        let kept = after.filter { old[$0.name] != nil }
        XCTAssertGreaterThanOrEqual(kept.count, after.count - 2, "\(after.count - kept.count) of \(after.count) groups made again")
        XCTAssertGreaterThanOrEqual(kept.count, before.count - 1)
        for g in kept { XCTAssertEqual(g.first, old[g.name]! + (g.first > position ? 1 : 0), g.name) }
        let own = try XCTUnwrap(after.last { $0.first <= position })
        XCTAssertNil(old[own.name], "its own group is new")
        XCTAssertTrue(a.notes.contains("search/store/: \(kept.count) of \(after.count) result-store groups kept from the build before"), "\(a.notes)")
        let q = try Query(metaPath: "search/meta.json") { p in [UInt8](try Data(contentsOf: inc.appendingPathComponent(p))) }
        let hit = try q.search(String(describing: added["name"]!), limit: 50, complete: true).results
        XCTAssertTrue(hit.contains { $0.stored["id"]?.stringValue == "added-early" }, "the added product is found with its stored object")
    }

    /// A kept result-store slice the output has lost is made again, and its group must come out under the name it was
    /// kept under: a cache that names the wrong group for a fingerprint (two groups' first slices' fingerprints swapped,
    /// one of those slices lost) stops the build, naming the file, with the tree and the cache as they were.
    func testAKeptGroupMadeAgainUnderAnotherNameStopsTheBuild() throws {
        var (catalog, input, inc, _) = try firstRelease("store-wrong", count: 800)
        let cacheURL = BuildCache.location(for: inc, folder: nil)
        var cache = try BuildCache.readFile(cacheURL).get()
        // The price changed is of a product in neither group (a group that holds it is made again anyway). A group is
        // kept by its first slice's fingerprint: those of two groups are swapped.
        var r = Random(state: 9)
        let changed = Self.change("price", &catalog, &r, serial: 1)
        let id = try XCTUnwrap(changed.split(separator: " ").last)
        let shards = try Self.storeGroups(inc).filter { try !Self.group($0, in: inc, holds: String(id)) }.map { $0.slices[0] }
        XCTAssertGreaterThan(shards.count, 2)
        let (a, b) = (shards[0], shards[1])
        XCTAssertNotNil(cache.entries[a])
        XCTAssertNotNil(cache.entries[b])
        (cache.entries[a]!.fingerprint, cache.entries[b]!.fingerprint) = (cache.entries[b]!.fingerprint, cache.entries[a]!.fingerprint)
        try Data(cache.encode()).write(to: cacheURL)
        // (A cache read and written again keeps every entry.)
        XCTAssertEqual(try BuildCache.readFile(cacheURL).get().entries.count, cache.entries.count)
        try FileManager.default.removeItem(at: inc.appendingPathComponent(b))
        try catalog.write(to: input)
        let tree = TestSupport.snapshot(inc), cacheBytes = try Data(contentsOf: cacheURL)
        XCTAssertThrowsError(try build(input, inc, day: 1)) { e in
            XCTAssertTrue("\(e)".contains("came out differently from the build before"), "\(e)")
        }
        XCTAssertEqual(TestSupport.snapshot(inc), tree, "the tree changed")
        XCTAssertEqual(try Data(contentsOf: cacheURL), cacheBytes, "the cache changed")
    }

    /// Products added, removed and renamed (searchable text changes): the seed indexes are still spliced — entries
    /// copied, the keyword, category and brand maps edited rather than made again — and each tree is the full build's.
    func testAddedRemovedAndRenamedProductsSpliceTheSearchIndexes() throws {
        var (catalog, input, inc, full) = try firstRelease("splice-text", count: 800)
        var r = Random(state: 17)
        for day in 1...2 {
            let did = ["product added", "product removed", "name", "brand", "product added"].enumerated().map { Self.change($1, &catalog, &r, serial: day * 10 + $0) }
            try catalog.write(to: input)
            let (a, b) = try incrementalAndFull(input, inc, full, day: day)
            let priced = catalog.products.filter { ($0["price"] as? NSNumber) != nil }.count
            // Both indexes: every entry but the (at most 5) changed ones.
            XCTAssertGreaterThanOrEqual(a.copiedFragments, 2 * (priced - 5), "release \(day + 1) (\(did)): the indexes were not spliced")
            XCTAssertEqual(b.copiedFragments, 0)
            XCTAssertEqual(TestSupport.snapshot(inc), TestSupport.snapshot(full), "release \(day + 1) (\(did))")
        }
    }

    /// A spliced index checks the entries it wrote against the entry schema: a bad one is refused, naming the file.
    func testWrittenFragmentsAreChecked() throws {
        let checker = try OutputValidation(kinds: [SearchIndexOutput.full], baseURL: "https://example.invalid/")
        let good = Array(#"{"id":"1","name":"Drill","brand":"B","category":"Tools","price":9.5,"rating":null,"keywords":["drill"],"imageUrl":""}"#.utf8)
        let bad = Array(#"{"id":"1","name":"Drill","brand":"B","category":"Tools","price":-1,"rating":null,"keywords":["drill"],"imageUrl":""}"#.utf8)
        XCTAssertNil(checker.check(text: good, path: "search-index.json", kind: SearchIndexOutput.full, fragment: SeedIndex.entryFragment))
        let e = checker.check(text: bad, path: "search-index.json", kind: SearchIndexOutput.full, fragment: SeedIndex.entryFragment)
        XCTAssertTrue("\(e.map { "\($0)" } ?? "accepted")".contains("search-index.json"), "\(String(describing: e))")
        // The head of an index with everything after it copied is checked as a whole index.
        let head = Array(#"{"version":"","generatedAt":"2023-11-14T22:13:20Z","totalProducts":1"#.utf8) + SearchIndexOutput.emptyRest
        XCTAssertNotNil(checker.check(text: head, path: "search-index.json", kind: SearchIndexOutput.full), "an empty version passed")
        // In the build: an index written from fragments with none copied (a first build) is checked whole.
        let staged = try StagedTree(output: TestSupport.tempDir("fragment-check").appendingPathComponent("dist"), previous: [:])
        defer { staged.discard() }
        func index(version: String) -> [OutputFile] {
            [OutputFile(path: "search-index.json", kind: SearchIndexOutput.full, weight: 1, fragments: { out, _ in
                out.raw(Array(#"{"version":"\#(version)","generatedAt":"2023-11-14T22:13:20Z","totalProducts":0"#.utf8) + SearchIndexOutput.emptyRest)
                return []
            })]
        }
        var empty = index(version: ""), whole = index(version: "v1")
        XCTAssertThrowsError(try Build.serialise(&empty, checkers: [checker], into: staged), "an index with an empty version was staged") {
            XCTAssertTrue("\($0)".contains("search-index.json"), "\($0)")
        }
        XCTAssertEqual(try Build.serialise(&whole, checkers: [checker], into: staged).map(\.path), ["search-index.json"])
    }

    /// A damaged cache (one byte flipped), a deleted one, one made by another build of the tool and one describing
    /// another release are each ignored, said in the summary, and the build gives the same bytes as with a good cache.
    func testDamagedDeletedOrForeignCacheFallsBackToAFullBuild() throws {
        var catalog = try Self.realCatalog(count: 400)
        let work = TestSupport.tempDir("cache-fallback"), input = work.appendingPathComponent("input")
        let out = work.appendingPathComponent("good/dist")
        try catalog.write(to: input)
        _ = try build(input, out, day: 0)
        var r = Random(state: 7)
        _ = Self.change("price", &catalog, &r, serial: 1)
        try catalog.write(to: input)
        let previous = work.appendingPathComponent("previous")
        try FileManager.default.copyItem(at: out, to: previous)
        let cacheFile = BuildCache.location(for: out, folder: nil)
        let goodCache = try Data(contentsOf: cacheFile)
        let good = try build(input, out, day: 1)
        XCTAssertGreaterThan(good.reused, 300)
        let expected = TestSupport.snapshot(out)
        let newerCache = try Data(contentsOf: cacheFile)

        func rebuild(_ name: String, cache: (URL) throws -> Void) throws -> BuildSummary {
            let dir = work.appendingPathComponent(name), o = dir.appendingPathComponent("dist")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: previous, to: o)
            try cache(BuildCache.location(for: o, folder: nil))
            let s = try build(input, o, day: 1)
            XCTAssertEqual(TestSupport.snapshot(o), expected, name)
            XCTAssertEqual(s.reused, 0, name)
            return s
        }
        var damaged = goodCache
        damaged[damaged.count / 2] ^= 0x20
        let d = try rebuild("damaged") { try damaged.write(to: $0) }
        XCTAssertTrue(d.notes.contains(BuildCache.Unused.damaged.description), "\(d.notes)")
        let m = try rebuild("deleted") { _ in }
        XCTAssertTrue(m.notes.contains(BuildCache.Unused.missing.description), "\(m.notes)")
        // Another build of the tool: its identity differs (the rest of the file is intact and closed by its digest).
        var foreign = [UInt8](goodCache)
        let at = BuildCache.magic.count + 4
        foreign[at] ^= 0xFF
        foreign.replaceSubrange((foreign.count - BuildCache.closing)..., with: Checksum.of(Array(foreign[..<(foreign.count - BuildCache.closing)])))
        let f = try rebuild("foreign") { try Data(foreign).write(to: $0) }
        XCTAssertTrue(f.notes.contains(BuildCache.Unused.otherTool.description), "\(f.notes)")
        // A whole cache of this very tool that describes another release (the next one's, beside this tree).
        let o = try rebuild("other release") { try newerCache.write(to: $0) }
        XCTAssertTrue(o.notes.contains(BuildCache.Unused.otherRelease.description), "\(o.notes)")
        // Someone's file at the cache's name is neither read nor replaced.
        let mine = Data("my notes\n".utf8)
        let s = try rebuild("someone") { try mine.write(to: $0) }
        XCTAssertTrue(s.notes.contains(BuildCache.Unused.notACache.description), "\(s.notes)")
        XCTAssertEqual(try Data(contentsOf: BuildCache.location(for: work.appendingPathComponent("someone/dist"), folder: nil)), mine)
    }

    /// The cache keeps the stamps of the two seed indexes as the build left them, and a later build trusts them only
    /// while they hold: an index touched (same bytes, new times) is hashed again and still spliced from; one changed
    /// in place with its size kept is hashed, found not to be the file its release lists, and the build stops with the
    /// tree as it was.
    func testStampsOfLargeFilesAreTrustedOnlyWhileTheyHold() throws {
        var (catalog, input, inc, full) = try firstRelease("stamps", count: 300)
        let cache = try BuildCache.readFile(BuildCache.location(for: inc, folder: nil)).get()
        XCTAssertEqual(cache.stamps.keys.sorted(), ["search-index-compact.json", "search-index.json"])
        for (path, stamp) in cache.stamps { XCTAssertEqual(FileStamp(path: inc.appendingPathComponent(path).path), stamp, path) }
        var r = Random(state: 5)
        let index = inc.appendingPathComponent("search-index.json")
        for day in 1...2 {
            // The second time the index is touched first: its stamp no longer holds, its bytes do.
            if day == 2 {
                let before = FileStamp(path: index.path)
                try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: index.path)
                XCTAssertNotEqual(FileStamp(path: index.path), before)
            }
            _ = Self.change("price", &catalog, &r, serial: day)
            try catalog.write(to: input)
            let (a, _) = try incrementalAndFull(input, inc, full, day: day)
            XCTAssertGreaterThan(a.copiedFragments, 2 * 250, "day \(day)")
            XCTAssertEqual(TestSupport.snapshot(inc), TestSupport.snapshot(full), "day \(day)")
        }
        // Someone edits the index in place, keeping its size.
        var bytes = try [UInt8](Data(contentsOf: index))
        let at = try XCTUnwrap(bytes.indices.dropFirst(bytes.count / 2).first { bytes[$0] == UInt8(ascii: "a") })
        bytes[at] = UInt8(ascii: "e")
        let handle = try FileHandle(forWritingTo: index)
        try handle.write(contentsOf: bytes)
        try handle.close()
        let tree = TestSupport.snapshot(inc)
        _ = Self.change("price", &catalog, &r, serial: 3)
        try catalog.write(to: input)
        XCTAssertThrowsError(try build(input, inc, day: 3)) { XCTAssertTrue("\($0)".contains("search-index.json: sha256 differs"), "\($0)") }
        XCTAssertEqual(TestSupport.snapshot(inc), tree)
    }

    /// An earlier file whose stamp is known is read without hashing; otherwise it is hashed and must be the entry's.
    func testEarlierFileHashesUnlessItsStampIsKnown() throws {
        let url = TestSupport.tempDir("earlier").appendingPathComponent("f.json")
        try Data("[1,2,3]".utf8).write(to: url)
        let listed = FileEntry(path: "f.json", sha256: Build.sha256Hex(Array("[1,2,4]".utf8)), size: 7, schema: nil)
        func open() -> Int32 { Glibc.open(url.path, O_RDONLY) }
        XCTAssertNil(EarlierFile(fd: open(), expected: listed), "bytes that are not the entry's were accepted")
        let stamp = try XCTUnwrap(FileStamp(path: url.path))
        XCTAssertNotNil(EarlierFile(fd: open(), expected: listed, known: { $0 == stamp }), "a known stamp was hashed")
        XCTAssertNil(EarlierFile(fd: open(), expected: listed, known: { _ in false }))
        let right = FileEntry(path: "f.json", sha256: Build.sha256Hex(Array("[1,2,3]".utf8)), size: 7, schema: nil)
        XCTAssertNotNil(EarlierFile(fd: open(), expected: right))
    }

    /// A symlink planted at the cache's name is neither followed when reading nor written through: the file it points
    /// to stays as it was, and the build is a full one.
    func testASymlinkAtTheCachesNameIsNotFollowed() throws {
        var catalog = try Self.realCatalog(count: 50)
        let work = TestSupport.tempDir("cache-link"), input = work.appendingPathComponent("input")
        try catalog.write(to: input)
        let out = work.appendingPathComponent("dist")
        _ = try build(input, out, day: 0)
        var r = Random(state: 3)
        _ = Self.change("price", &catalog, &r, serial: 1)
        try catalog.write(to: input)
        let target = work.appendingPathComponent("elsewhere.txt")
        let mine = Data("not yours\n".utf8)
        try mine.write(to: target)
        let cacheFile = BuildCache.location(for: out, folder: nil)
        try FileManager.default.removeItem(at: cacheFile)
        try FileManager.default.createSymbolicLink(at: cacheFile, withDestinationURL: target)
        let s = try build(input, out, day: 1)
        XCTAssertTrue(s.notes.contains(BuildCache.Unused.notACache.description), "\(s.notes)")
        XCTAssertEqual(s.version, 2)
        XCTAssertEqual(s.reused, 0)
        XCTAssertTrue(s.warnings.contains { $0.contains("is not a build cache") }, "\(s.warnings)")
        XCTAssertEqual(try Data(contentsOf: target), mine)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: cacheFile.path), target.path)
    }

    /// `--cache DIR` keeps the cache there (not beside the output), and refuses a folder inside the input or output.
    func testCacheFolderOption() throws {
        let catalog = try Self.realCatalog(count: 50)
        let work = TestSupport.tempDir("cache-dir"), input = work.appendingPathComponent("input")
        try catalog.write(to: input)
        let out = work.appendingPathComponent("dist"), folder = work.appendingPathComponent("caches")
        let first = try TestSupport.runCLI(["build", "--input", input.path, "--out", out.path, "--cache", folder.path])
        XCTAssertEqual(first.status, 0, first.output)
        XCTAssertTrue(BuildCache.isCacheFile(folder.appendingPathComponent("dist.cache")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent(".dist.cache").path))
        for bad in [input.appendingPathComponent("cache"), out, out.appendingPathComponent("c")] {
            let before = TestSupport.snapshot(out)
            let r = try TestSupport.runCLI(["build", "--input", input.path, "--out", out.path, "--cache", bad.path])
            XCTAssertEqual(r.status, 2, r.output)
            XCTAssertTrue(r.output.contains("refusing to keep the build cache in"), r.output)
            XCTAssertEqual(TestSupport.snapshot(out), before)
        }
    }
}

extension Array {
    /// The elements in an order drawn from `r` (Fisher–Yates).
    func shuffledBy(_ r: inout TestSupport.Random) -> [Element] {
        var a = self
        for i in stride(from: a.count - 1, to: 0, by: -1) { a.swapAt(i, r.below(i + 1)) }
        return a
    }
}
