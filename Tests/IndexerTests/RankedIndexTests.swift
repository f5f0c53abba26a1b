import XCTest
import Schemas
@testable import Indexer

/// The ranked index and its reference client on a small hand-made collection.
final class RankedIndexTests: XCTestCase {
    func doc(_ id: String, _ name: String, _ brand: String, _ description: String = "") -> RankedDocument {
        RankedDocument(id: id, fields: [("name", 3, name), ("brand", 2, brand), ("description", 1, description)],
                       stored: .obj(["id": .string(id), "name": .string(name)]))
    }

    lazy var docs = [
        doc("1", "Cordless Drill", "Acme", "a drill for wood"),
        doc("2", "Hammer", "Acme", "not a drill"),
        doc("3", "Impact Driver", "Boltz", "drives screws"),
        doc("4", "Drill Bit Set", "Boltz"),
        doc("5", "Garden Hose", "Greenly", "watering"),
    ]

    func files(_ settings: RankedIndexBuilder.Settings = .init()) throws -> [String: [UInt8]] {
        let out = try RankedIndexBuilder(settings: settings).build(docs, folder: "search")
        var map: [String: [UInt8]] = [:]
        for (p, text) in out.files { map[p] = text }
        return map
    }

    func query(_ files: [String: [UInt8]]) throws -> Query {
        try Query(metaPath: "search/meta.json") { p in
            guard let b = files[p] else { throw NSError(domain: "missing \(p)", code: 1) }
            return b
        }
    }

    func ids(_ q: Query, _ text: String, complete: Bool = true) throws -> [String] {
        try q.search(text, limit: 10, complete: complete).results.compactMap { $0.stored["id"]?.stringValue }
    }

    func testFieldWeightsRankNameAboveDescription() throws {
        let q = try query(files())
        let r = try ids(q, "drill")
        XCTAssertEqual(Set(r.prefix(2)), ["1", "4"])   // drill in the name
        XCTAssertEqual(r.last, "2")                      // drill only in the description
    }

    func testPrefixOnTheLastTermWhileTyping() throws {
        let q = try query(files())
        XCTAssertEqual(try ids(q, "ham", complete: false), ["2"])
        XCTAssertEqual(try ids(q, "ham", complete: true), [])
        XCTAssertEqual(try ids(q, "acme ham", complete: false).first, "2")
    }

    func testOneTypoForLongTerms() throws {
        let q = try query(files())
        XCTAssertEqual(try ids(q, "hammmer"), ["2"])          // insertion
        XCTAssertEqual(try ids(q, "garedn"), ["5"])           // swap of neighbours
        XCTAssertEqual(try ids(q, "drlil").first, "1")        // swapped neighbours: "drill"
        XCTAssertEqual(try ids(q, "drxyl"), [])               // two edits
        XCTAssertEqual(try ids(q, "hose").count, 1)
        XCTAssertEqual(try ids(q, "hse"), [])                 // short terms must match exactly
    }

    /// Two builds give the same bytes, and small shards change no result (order and scores).
    func testBytesAreStableAndShardSizesChangeNoResult() throws {
        var s = RankedIndexBuilder.Settings()
        s.termShardBytes = 40          // many small shards
        s.storeGroupSize = 2
        s.storeSliceSize = 1
        let a = try files(s), b = try files(s)
        XCTAssertEqual(a, b)
        XCTAssertGreaterThan(a.keys.filter { $0.hasPrefix("search/terms/") }.count, 3)
        let small = try query(a), large = try query(files())
        for text in ["drill", "acme drill", "boltz"] {
            let x = try small.rank(text, complete: true), y = try large.rank(text, complete: true)
            XCTAssertEqual(x.map(\.doc), y.map(\.doc), text)
            XCTAssertEqual(x.map(\.score), y.map(\.score), text)
        }
    }

    /// Equal scores go to the earlier document: two identical documents, in either order of their ids.
    func testTiesAreBrokenByDocumentOrder() throws {
        for ids in [["x", "y"], ["y", "x"]] {
            let twins = ids.map { doc($0, "Claw Hammer", "Acme", "steel") } + [doc("z", "Garden Hose", "Greenly")]
            var map: [String: [UInt8]] = [:]
            for (p, text) in try RankedIndexBuilder().build(twins, folder: "search").files { map[p] = text }
            let q = try query(map)
            let ranked = try q.rank("hammer", complete: true)
            XCTAssertEqual(ranked.map(\.doc), [0, 1])
            XCTAssertEqual(ranked[0].score, ranked[1].score)
            XCTAssertEqual(try self.ids(q, "claw hammer"), ids)
        }
    }

    /// Result-store groups end where a document's id says (its hash a multiple of `storeGroupSize`, or at twice that),
    /// each in slices named by the group's hash, and the store directories above them end where an entry says: a
    /// product added in the middle changes its own group's slices, and at each level of directories the one above it
    /// (and a neighbour, when the changed entry now ends a directory or no longer does); every other slice and
    /// directory keeps its name (a client's cached copies stay good). No file says where its documents start, so those
    /// after the product move without renaming anything.
    func testAProductAddedInTheMiddleChangesOnlyItsOwnStoreGroupAndDirectories() throws {
        var s = RankedIndexBuilder.Settings()
        s.storeGroupSize = 4
        s.storeSliceSize = 2
        s.storeDirectoryShards = 4
        let many = (0..<400).map { doc("p\($0)", "Product \($0)", "Brand \($0 / 10)") }
        func build(_ docs: [RankedDocument]) throws -> (groups: [String], slices: Set<String>, directories: Set<String>, files: [String: [UInt8]], meta: JSON) {
            let out = try RankedIndexBuilder(settings: s).build(docs, folder: "search")
            var files: [String: [UInt8]] = [:]
            for (p, text) in out.files { files[p] = text }
            XCTAssertEqual(Set(out.store.map(\.name)).count, out.store.count, "no two groups alike")
            // Each group's slices: its documents two at a time, named by the group and their number.
            for g in out.store {
                for k in 0..<((g.documents.count + 1) / 2) {
                    let slice = try JSONReader.parse(XCTUnwrap(files["search/store/\(g.name)-\(k).json"], "\(g.name)-\(k)"))
                    let ids = slice["documents"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
                    XCTAssertEqual(ids, g.documents.dropFirst(2 * k).prefix(2).map { docs[$0].id })
                }
            }
            return (out.store.map(\.name), Set(files.keys.filter { $0.hasPrefix("search/store/") }),
                    Set(files.keys.filter { $0.hasPrefix("search/stores/") }), files, try JSONReader.parse(XCTUnwrap(files[out.metaPath])))
        }
        let before = try build(many)
        XCTAssertGreaterThan(before.groups.count, 60)
        XCTAssertEqual(before.meta["store"]?["slice"]?.intValue, 2)
        let levels = try XCTUnwrap(before.meta["store"]?["levels"]?.intValue)
        XCTAssertGreaterThanOrEqual(levels, 2, "a tree of directories of directories")
        var added = many
        added.insert(doc("new", "Product New", "Brand 20"), at: 200)
        let after = try build(added)
        XCTAssertEqual(after.meta["store"]?["levels"]?.intValue, levels)
        let newGroups = Set(after.groups).subtracting(before.groups)
        XCTAssertEqual(newGroups.count, 1, "the added product's group is new")
        XCTAssertEqual(Set(before.groups).subtracting(after.groups).count, 1, "and the group it was added to is gone")
        XCTAssertEqual(after.groups.count, before.groups.count)
        let newGroup = try XCTUnwrap(newGroups.first)
        XCTAssertEqual(after.slices.subtracting(before.slices), after.slices.filter { $0.hasPrefix("search/store/\(newGroup)-") },
                       "only the new group's slices are new")
        // The slice and directories a client walks through to the new product are new; beside them at most one
        // directory a level is renamed, and all the others keep their names.
        let q = try query(after.files)
        let hit = try XCTUnwrap(q.search("new", limit: 1, complete: true).results.first)
        XCTAssertEqual(hit.document, 200)
        XCTAssertEqual(hit.stored["id"]?.stringValue, "new")
        let fetched = Set(q.fetched.map(\.path))
        let path = fetched.filter { $0.hasPrefix("search/stores/") }
        XCTAssertEqual(path.count, levels, "one directory a level")
        XCTAssertEqual(fetched.filter { $0.hasPrefix("search/store/") }.count, 1, "one slice")
        XCTAssertTrue(fetched.contains { $0.hasPrefix("search/store/\(newGroup)-") }, "\(fetched)")
        let newDirectories = after.directories.subtracting(before.directories)
        XCTAssertTrue(newDirectories.isSuperset(of: path), "\(path) \(newDirectories)")
        XCTAssertLessThanOrEqual(newDirectories.count, 2 * levels)
        XCTAssertLessThanOrEqual(before.directories.subtracting(after.directories).count, 2 * levels)
        XCTAssertGreaterThan(before.directories.intersection(after.directories).count, 20)
        // Every document is still found where it is, down the tree, before and after.
        let old = try query(before.files)
        for k in [0, 1, 150, 199, 200, 250, 399] {
            XCTAssertEqual(try old.stored(k)?["id"]?.stringValue, "p\(k)")
            XCTAssertEqual(try q.stored(k < 200 ? k : k + 1)?["id"]?.stringValue, "p\(k)")
        }
        XCTAssertNil(try q.stored(401))
    }

    /// Facet columns: shards whose columns are the same (rare words, one price) share one file, listed at each
    /// place; a price filter with words reads the columns and gives what the value lists give.
    func testSameColumnsShareAFileAndFilterAsTheValueLists() throws {
        var s = RankedIndexBuilder.Settings()
        s.termShardBytes = 40   // a shard or two per word
        let fields = SearchFields(fields: [SearchField(name: "price", label: "Price", facet: .ranges([25, 50]))])
        let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"]
        let docs = (0..<96).map { i in
            RankedDocument(id: "\(i)", fields: [("name", 3, "widget \(words[i % 12]) \(words[(i / 12) % 12])x")],
                           stored: .obj(["id": .string("\(i)")]), values: ["price": .number(i < 60 ? 30 : Double(i))])
        }
        let out = try RankedIndexBuilder(settings: s).build(docs, folder: "search", fields: fields)
        let paths = out.files.map(\.path)
        XCTAssertEqual(paths.count, Set(paths).count, "each file once")
        var map: [String: [UInt8]] = [:]
        for (p, text) in out.files { map[p] = text }
        let meta = try JSONReader.parse(XCTUnwrap(map["search/meta.json"]))
        let tree = try XCTUnwrap(meta["facets"]?[0]?["columns"])
        var names = tree["entries"]?.arrayValue ?? []
        for _ in 0..<(tree["levels"]?.intValue ?? 0) {
            names = try names.flatMap { try JSONReader.parse(XCTUnwrap(map["search/coldirs/\($0.stringValue ?? "").json"]))["entries"]?.arrayValue ?? [] }
        }
        XCTAssertGreaterThan(names.count, Set(names.compactMap(\.stringValue)).count, "some shards share their columns' file")
        for text in ["widget", "widget alpha", "bravo charliex"] {
            let viaColumns = try query(map), whole = try query(map)
            let a = try viaColumns.search(Query.Request(text, filters: ["price": ["25..50"]], complete: true))
            let b = try whole.search(Query.Request(text, filters: ["price": ["25..50"]], facets: true, complete: true))
            XCTAssertTrue(viaColumns.fetched.contains { $0.path.hasPrefix("search/columns/") }, text)
            XCTAssertEqual(a.total, b.total, text)
            XCTAssertEqual(a.results.map(\.document), b.results.map(\.document), text)
            XCTAssertGreaterThan(a.total, 0, text)
        }
    }

    /// A sort the index does not have is refused whatever the query, an empty one too (it reads nothing first).
    func testAnUnknownSortIsRefusedEvenForAnEmptyQuery() throws {
        for text in ["", "drill"] {
            let q = try query(try files())
            XCTAssertThrowsError(try q.search(Query.Request(text, sort: "price"))) { e in
                XCTAssertEqual((e as? Query.RequestError)?.description, "no sort \"price\" in this index (it has: relevance)", text)
            }
            XCTAssertEqual(q.fetched.map(\.path), ["search/meta.json"], text)
        }
    }

    /// Filter numbers are plain decimals in any spelling of one; hexadecimal, `inf`, `nan` and spaces, which
    /// `Double(String)` or JavaScript's `Number` would take, are refused with the edges or thresholds listed.
    func testFilterNumbersArePlainDecimals() throws {
        XCTAssertEqual(["50", "+50", "50.", "50.0", "5e1", "5E+1", "500e-1", ".5", "-0"].map(SearchFields.filterNumber),
                       [50, 50, 50, 50, 50, 50, 50, 0.5, -0.0])
        for bad in ["", "+", ".", "e1", "5e", "5e+", "0x32", "0x1p4", "inf", "-infinity", "nan", " 50", "50 ", "5 0", "50\0", "٥٠", "50..", "1_000"] {
            XCTAssertNil(SearchFields.filterNumber(bad), bad)
        }
        let fields = SearchFields(fields: [SearchField(name: "price", label: "Price", facet: .ranges([25, 50])),
                                           SearchField(name: "rating", label: "Rating", facet: .atLeast([3, 4]))])
        let docs = (0..<6).map { i in
            RankedDocument(id: "\(i)", fields: [("name", 3, "widget")], stored: .obj(["id": .string("\(i)")]),
                           values: ["price": .number(Double(i * 15)), "rating": .number(Double(i % 5))])
        }
        var map: [String: [UInt8]] = [:]
        for (p, text) in try RankedIndexBuilder().build(docs, folder: "search", fields: fields).files { map[p] = text }
        let q = try query(map)
        // Prices 0, 15, 30, 45, 60, 75 and ratings 0, 1, 2, 3, 4, 0: only document 3 costs 25–50 with 3 stars or more.
        let plain = try q.search(Query.Request("widget", filters: ["price": ["25..50"], "rating": ["3"]], complete: true))
        let spelled = try q.search(Query.Request("widget", filters: ["price": ["+25.0..5e1"], "rating": ["3e0"]], complete: true))
        XCTAssertEqual(plain.results.map(\.document), [3])
        XCTAssertEqual(spelled.results.map(\.document), plain.results.map(\.document))
        let refused: [(String, String, String)] = [
            ("price", "0x19..50", "price=0x19..50: 0x19 is not an edge of price's ranges (25, 50)"),
            ("price", "25..inf", "price=25..inf: inf is not an edge of price's ranges (25, 50)"),
            ("price", " 25..50", "price= 25..50:  25 is not an edge of price's ranges (25, 50)"),
            ("rating", "nan", "rating=nan: rating filters by at least one of 3, 4"),
            ("rating", "0x4", "rating=0x4: rating filters by at least one of 3, 4"),
        ]
        for (field, value, message) in refused {
            XCTAssertThrowsError(try q.search(Query.Request("widget", filters: [field: [value]]))) { e in
                XCTAssertEqual((e as? Query.RequestError)?.description, message, value)
            }
        }
    }
}
