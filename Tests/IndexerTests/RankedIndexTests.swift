import XCTest
import Schemas
@testable import Indexer

/// The ranked index and its reference client on a small hand-made collection.
final class RankedIndexTests: XCTestCase {
    func doc(_ id: String, _ name: String, _ brand: String, _ description: String = "") -> RankedDocument {
        RankedDocument(id: id, fields: [("name", 3, name), ("brand", 2, brand), ("description", 1, description)],
                       stored: .obj(["id": .string(id), "name": .string(name)]), group: brand.lowercased())
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
        s.storeShardSize = 2
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

    func testStoreShardsKeepAGroupTogether() throws {
        var s = RankedIndexBuilder.Settings()
        s.storeShardSize = 3
        let f = try files(s)
        let meta = try JSONReader.parse(f["search/meta.json"]!)
        // Groups: acme (2), boltz (2), greenly (1): acme fits, boltz would not fit after it, so it starts a shard.
        XCTAssertEqual(meta["store"]?["shards"]?.arrayValue?.compactMap { $0["first"]?.intValue }, [0, 2])
    }
}
