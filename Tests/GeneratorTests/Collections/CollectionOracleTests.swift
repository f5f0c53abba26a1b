import XCTest
import Foundation
@testable import Generator
import Schemas
import TestTools

/// A collection's index.json statistics and facets against Python (its csv module and exact Decimal arithmetic):
/// count, min, max, exact sum and mean = sum / count rounded half-to-even to 6 places (the Collections article");
/// facets: enum values in declared order (zeros included), booleans false then true, other values by count then
/// value, each array element once per item, empty arrays and nulls counted as missing.
final class CollectionOracleTests: XCTestCase {
    static let decl = #"""
    {"sources": ["collections/data/s.csv"], "id": "sku",
     "fields": {"sku": {"type": "string"}, "price": {"type": "decimal", "nullable": true}, "qty": {"type": "integer"},
                "tiny": {"type": "decimal"}, "kind": {"type": "enum", "values": ["A", "B", "C", "D"]},
                "city": {"type": "string", "nullable": true}, "ok": {"type": "boolean"}, "tags": {"type": "array", "separator": "|"}},
     "facets": ["kind", "city", "ok", "tags"]}
    """#
    // tiny: 0.000001, 0.0000005 and three zeros → mean 0.0000003 → 0 at 6 places; price: 1, 1.00, 2, 0.5 and a null.
    static let csv = """
    sku,price,qty,tiny,kind,city,ok,tags
    a,1,3,0.000001,A,Boston,yes,x|y
    b,1.00,4,0,B,Cambridge,no,y|y
    c,2,5,0,A,Boston,true,
    d,,7,0.0000,C,,1,z|y
    e,0.5,-2,0.0000005,A,Salem,0,x

    """

    func testIndexStatisticsAndFacetsAgainstPython() throws {
        let input = TestSupport.makeInput(site: { $0.removeValue(forKey: "catalog") },
                                          files: ["collections/s.json": Self.decl, "collections/data/s.csv": Self.csv])
        let out = TestSupport.tempDir("coll-oracle").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000))
        let index = try JSONReader.parse(Data(contentsOf: out.appendingPathComponent("collections/s/index.json")))

        let script = #"""
        import csv, io, json, sys
        from decimal import Decimal, ROUND_HALF_EVEN
        rows = list(csv.DictReader(io.StringIO(sys.stdin.read())))
        stats = {}
        for field in ["price", "qty", "tiny"]:
            vals = [Decimal(r[field]) for r in rows if r[field] != ""]
            total = sum(vals, Decimal(0))
            mean = (total / len(vals)).quantize(Decimal("0.000001"), rounding=ROUND_HALF_EVEN)
            stats[field] = {"count": len(vals), "min": str(min(vals)), "max": str(max(vals)), "sum": str(total), "mean": str(mean)}
        def counted(values):
            c = {}
            for v in values: c[v] = c.get(v, 0) + 1
            return [[k, n] for k, n in sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))]
        truth = {"yes": True, "true": True, "1": True, "no": False, "false": False, "0": False}
        kinds = [r["kind"] for r in rows]
        facets = {
            "kind": [[k, kinds.count(k)] for k in ["A", "B", "C", "D"]],
            "city": counted([r["city"] for r in rows if r["city"]]),
            "ok": [[False, sum(1 for r in rows if not truth[r["ok"]])], [True, sum(1 for r in rows if truth[r["ok"]])]],
            "tags": counted([t for r in rows for t in set(r["tags"].split("|")) if r["tags"]]),
        }
        missing = {"kind": 0, "city": sum(1 for r in rows if not r["city"]), "ok": 0, "tags": sum(1 for r in rows if not r["tags"])}
        print(json.dumps({"stats": stats, "facets": facets, "missing": missing}))
        """#
        try Tool.require(.python3)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script]
        let inPipe = Pipe(), outPipe = Pipe()
        p.standardInput = inPipe; p.standardOutput = outPipe; p.standardError = outPipe
        try p.run()
        inPipe.fileHandleForWriting.write(Data(Self.csv.utf8))
        try inPipe.fileHandleForWriting.close()
        let data = outPipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, String(decoding: data, as: UTF8.self))
        let expected = try JSONReader.parse(data)

        for field in ["price", "qty", "tiny"] {
            let got = try XCTUnwrap(index["stats"]?[field], field), want = try XCTUnwrap(expected["stats"]?[field], field)
            XCTAssertEqual(got["count"]?.intValue, want["count"]?.intValue, field)
            for k in ["min", "max", "sum", "mean"] {
                // Compared as exact decimals: the published number's value against Python's Decimal text.
                let g = try XCTUnwrap(got[k]?.numberValue, "\(field).\(k)"), w = try XCTUnwrap(want[k]?.stringValue, "\(field).\(k)")
                XCTAssertEqual(Decimal(string: g.description), Decimal(string: w), "\(field).\(k): \(g) vs \(w)")
            }
        }
        // By hand: price mean 4.5/4 = 1.125; tiny 0.0000015/5 = 0.0000003 → 0.000000; qty 17/5 = 3.4.
        XCTAssertEqual(index["stats"]?["price"]?["mean"]?.numberValue?.description, "1.125")
        XCTAssertEqual(index["stats"]?["tiny"]?["mean"]?.doubleValue, 0)
        XCTAssertEqual(index["stats"]?["qty"]?["mean"]?.numberValue?.description, "3.4")
        for field in ["kind", "city", "ok", "tags"] {
            let got = index["facets"]?[field]?["values"]?.arrayValue?.map { JSON.array([$0["value"]!, $0["count"]!]) }
            XCTAssertEqual(got.map(JSON.array), expected["facets"]?[field], field)
            XCTAssertEqual(index["facets"]?[field]?["missing"]?.intValue, expected["missing"]?[field]?.intValue, field)
        }
    }

    /// The mean's rounding at its sixth place: half to even, both ways (0.0000005 → 0, 0.0000015 → 0.000002).
    func testMeanRoundsHalfToEvenAtSixPlaces() throws {
        func mean(_ values: [String]) throws -> String? {
            let decl = #"{"sources": ["collections/data/m.csv"], "id": "id", "fields": {"id": {"type": "string"}, "v": {"type": "decimal"}}}"#
            let csv = "id,v\n" + values.enumerated().map { "r\($0.offset),\($0.element)" }.joined(separator: "\n") + "\n"
            let input = TestSupport.makeInput(site: { $0.removeValue(forKey: "catalog") }, files: ["collections/m.json": decl, "collections/data/m.csv": csv])
            let out = TestSupport.tempDir("coll-mean").appendingPathComponent("dist")
            _ = try Build.run(BuildOptions(input: input, output: out, threads: 1, epochSeconds: 1_700_000_000))
            let index = try JSONReader.parse(Data(contentsOf: out.appendingPathComponent("collections/m/index.json")))
            return index["stats"]?["v"]?["mean"]?.numberValue.map { Decimal(string: $0.description)!.description }
        }
        XCTAssertEqual(try mean(["0.000001", "0"]), "0")              // 0.0000005
        XCTAssertEqual(try mean(["0.000003", "0"]), "0.000002")       // 0.0000015
        XCTAssertEqual(try mean(["1", "1", "2"]), "1.333333")
        XCTAssertEqual(try mean(["2", "2", "1"]), "1.666667")
    }

    /// The collection's ranked index uses the declared search fields and weights: every stored score against BM25F
    /// computed here (k1 1.2, b 0.75, score × 100 on the 6 % grid of format 3; the Search article), with name 3 and city
    /// 1.5 as declared, and an array field's elements as its words.
    func testSearchScoresUseTheDeclaredWeights() throws {
        let decl = #"""
        {"sources": ["collections/data/h.csv"], "id": "id",
         "fields": {"id": {"type": "string"}, "name": {"type": "string"}, "city": {"type": "string"}, "tags": {"type": "array", "separator": "|"}},
         "list": {"fields": ["id", "name"]}, "search": {"name": 3, "city": 1.5, "tags": 0.5}}
        """#
        let rows: [(String, String, String, String)] = [
            ("h1", "harbor view loft", "boston", "loft|view"), ("h2", "garden cottage", "salem", "garden"),
            ("h3", "harbor cottage", "boston", ""), ("h4", "city loft", "cambridge", "loft"), ("h5", "view point", "salem", "harbor|view"),
        ]
        let csv = "id,name,city,tags\n" + rows.map { "\($0.0),\($0.1),\($0.2),\($0.3)" }.joined(separator: "\n") + "\n"
        let input = TestSupport.makeInput(site: { $0.removeValue(forKey: "catalog") }, files: ["collections/h.json": decl, "collections/data/h.csv": csv])
        let out = TestSupport.tempDir("coll-search-oracle").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000))
        func file(_ p: String) throws -> JSON { try JSONReader.parse(Data(contentsOf: out.appendingPathComponent(p))) }

        // The oracle.
        var tf: [String: [String: Double]] = [:], dl: [String: Double] = [:], df: [String: Int] = [:]
        for r in rows {
            var t: [String: Double] = [:], len = 0.0
            for (w, text) in [(3.0, r.1), (1.5, r.2), (0.5, r.3.replacingOccurrences(of: "|", with: " "))] {
                for word in text.split(separator: " ") { t[String(word), default: 0] += w; len += w }
            }
            tf[r.0] = t; dl[r.0] = len
            for word in t.keys { df[word, default: 0] += 1 }
        }
        let n = Double(rows.count), avgdl = dl.values.reduce(0, +) / n
        var expected: [String: [String: Int]] = [:]
        for (id, t) in tf {
            for (word, f) in t {
                let d = Double(df[word]!)
                let idf = Foundation.log(1 + (n - d + 0.5) / (d + 0.5))
                expected[word, default: [:]][id] = RankedIndexReading.quantised(idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * dl[id]! / avgdl)))
            }
        }
        // The index, read as a client would.
        let meta = try file("collections/h/search/meta.json")
        let ids = try RankedIndexReading.storedDocuments(meta, folder: "collections/h/search", file: file).map { $0["id"]?.stringValue }
        let stored = try RankedIndexReading.postings(meta, file: file).mapValues { list in
            Dictionary(uniqueKeysWithValues: list.map { (ids[$0.key]!, $0.value) })
        }
        XCTAssertEqual(Set(ids.compactMap { $0 }), Set(rows.map(\.0)))
        XCTAssertEqual(ids.count, rows.count)
        XCTAssertEqual(Set(stored.keys), Set(expected.keys))
        for (term, list) in expected { XCTAssertEqual(stored[term], list, term) }
        XCTAssertEqual(meta["ranking"]?["fieldWeights"], .obj(["name": 3, "city": 1.5, "tags": 0.5]))
    }
}
