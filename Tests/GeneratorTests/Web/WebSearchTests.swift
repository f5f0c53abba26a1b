import XCTest
import TestTools
import Foundation
@testable import Generator
@testable import Indexer
import Schemas

/// The browser search module (`search/search.js`) and page (`search/index.html`) in a real browser: headless
/// Chromium loads them from a server on 127.0.0.1, and the module's results, scores and downloads are compared with
/// the reference client (`Indexer/Query.swift`, what `generator search --index ranked` runs) on the real corpus.
final class WebSearchTests: XCTestCase {
    /// Every query the comparison runs: the named set (each as a first query), then 400 generated from the corpus
    /// and any kept outside (one after another on one client).
    static func queries(_ tree: URL) throws -> (cold: [String], warm: [String]) {
        var names: [String] = []
        let meta = try JSONReader.parse(Data(contentsOf: tree.appendingPathComponent("search/meta.json")))
        for s in meta["store"]?["shards"]?.arrayValue ?? [] {
            let shard = try JSONReader.parse(Data(contentsOf: tree.appendingPathComponent(s["path"]!.stringValue!)))
            for d in shard["documents"]?.arrayValue ?? [] { names += [d["name"]?.stringValue, d["brand"]?.stringValue].compactMap { $0 } }
        }
        return (SearchQueries.named.map(\.query), SearchQueries.generated(from: names, count: 400) + (try SearchQueries.outside()))
    }

    typealias Answer = (total: Int, results: [(Int, Double)], files: Set<String>)

    /// What the reference client gives for each query: total, page (document, score) and the files it downloaded
    /// for it: a fresh client for each `cold` query, then one client for all the `warm` ones.
    static func reference(_ tree: URL, folder: String, cold: [String], warm: [String], limit: Int) throws -> [Answer] {
        let files = Query.Files()
        func client() throws -> Query {
            try Query(metaPath: "\(folder)/meta.json", shared: files) { p in [UInt8](try Data(contentsOf: tree.appendingPathComponent(p))) }
        }
        /// `since`: the files the client had downloaded before (meta.json, read when it starts, is a first query's).
        func answer(_ c: Query, _ q: String, since: Int) throws -> Answer {
            let (results, total) = try c.search(q, limit: limit, complete: false)
            return (total, results.map { ($0.document, $0.score) }, Set(c.fetched.dropFirst(since).map(\.path)))
        }
        var out = try cold.map { try answer(try client(), $0, since: 0) }
        let warmClient = try client()
        for (i, q) in warm.enumerated() { out.append(try answer(warmClient, q, since: i == 0 ? 0 : warmClient.fetched.count)) }
        return out
    }

    /// Runs the queries through the tree's module in Chromium (Tests/Web/compare.html) and compares each with the
    /// reference; returns the disagreements.
    static func compareInChromium(tree: URL, folder: String, cold: [String], warm: [String], limit: Int = 10) throws
        -> (checked: Int, problems: [String], reference: [Answer]) {
        let request = try JSONWriter().bytes(.obj(["folder": .string(folder), "limit": .int(limit), "cold": .strings(cold), "warm": .strings(warm)]))
        let site = try WebTools.site(tree: tree, extra: ["queries.json": Data(request)])
        let server = try WebTools.Server(site)
        defer { server.stop() }
        let queries = cold + warm
        var clock = ContinuousClock.now
        let dom = try WebTools.dumpDOM(server.url.appendingPathComponent("compare.html"))
        print("Chromium ran \(queries.count) queries in \(ContinuousClock.now - clock)")
        clock = .now
        let want = try reference(tree, folder: folder, cold: cold, warm: warm, limit: limit)
        print("the reference ran them in \(ContinuousClock.now - clock)")
        guard let text = WebTools.output(dom, marker: "RESULTS") else {
            return (0, ["the page did not finish: \(dom.suffix(1500))"], want)
        }
        let got = try JSONReader.parse(text).arrayValue ?? []
        guard got.count == queries.count else { return (0, ["\(got.count) answers for \(queries.count) queries"], want) }
        var problems: [String] = []
        for (i, q) in queries.enumerated() {
            let g = got[i], w = want[i]
            let results = (g["results"]?.arrayValue ?? []).map { ($0[0]?.intValue ?? -1, $0[1]?.doubleValue ?? .nan) }
            let files = Set((g["files"]?.arrayValue ?? []).compactMap(\.stringValue))
            var diff: [String] = []
            if g["total"]?.intValue != w.total { diff.append("total \(g["total"]?.intValue ?? -1) vs \(w.total)") }
            // Same documents in the same order with bit-identical scores.
            if results.count != w.results.count || zip(results, w.results).contains(where: { $0.0 != $1.0 || $0.1.bitPattern != $1.1.bitPattern }) {
                diff.append("results \(results.prefix(4)) vs \(w.results.prefix(4))")
            }
            if files != w.files { diff.append("files \(files.subtracting(w.files).sorted()) more, \(w.files.subtracting(files).sorted()) fewer") }
            if !diff.isEmpty { problems.append("\(q.debugDescription)\(i < cold.count ? "" : " (warm)"): \(diff.joined(separator: "; "))") }
        }
        return (queries.count, problems, want)
    }

    func testChromiumModuleAgreesWithTheReferenceOnTheRealCorpus() throws {
        try Tool.require(.chromium, .python3)
        let tree = SearchTests.tree
        let (cold, warm) = try Self.queries(tree)
        let queries = cold + warm
        XCTAssertGreaterThanOrEqual(queries.count, SearchQueries.named.count + 400)
        let (checked, problems, want) = try Self.compareInChromium(tree: tree, folder: "search", cold: cold, warm: warm)
        print("search.js in Chromium against the reference: \(checked) queries, \(problems.count) disagreements")
        XCTAssertEqual(checked, queries.count)
        XCTAssertEqual(problems, [], "\(problems.count) of \(queries.count) queries disagree:\n" + problems.prefix(20).joined(separator: "\n"))
        // The comparison is not vacuous: most queries find something, and some use every kind of file.
        XCTAssertGreaterThan(want.filter { $0.total > 0 }.count, queries.count * 2 / 3)
        XCTAssertTrue(want.contains { $0.files.contains { $0.contains("/vocab/") } }, "no query needed a typo")
        XCTAssertTrue(want.prefix(cold.count).contains { $0.files.filter { $0.contains("/terms/") }.count > 2 }, "no query read several term shards")
        XCTAssertTrue(want.dropFirst(cold.count + 1).contains { $0.files.isEmpty }, "the warm client never used its cache")
    }

    /// A collection's module (in collections/listings/search/, three folders deep) on the default tree: queries made
    /// from the listings' addresses, cities and features agree with the reference client of that folder.
    func testCollectionModuleAgreesWithTheReference() throws {
        try Tool.require(.chromium, .python3)
        let tree = try TypeScriptTypesTests.tree.get()
        let folder = "collections/listings/search"
        var names: [String] = []
        let meta = try JSONReader.parse(Data(contentsOf: tree.appendingPathComponent("\(folder)/meta.json")))
        for s in meta["store"]?["shards"]?.arrayValue ?? [] {
            let shard = try JSONReader.parse(Data(contentsOf: tree.appendingPathComponent(s["path"]!.stringValue!)))
            for d in shard["documents"]?.arrayValue ?? [] {
                names += ["street_address", "city", "property_type"].compactMap { d[$0]?.stringValue }
            }
        }
        let cold = ["condo", "Cambridge", "somervile", "single family", "ave", ""]
        let warm = SearchQueries.generated(from: names, count: 100, seed: 7)
        let (checked, problems, want) = try Self.compareInChromium(tree: tree, folder: folder, cold: cold, warm: warm)
        XCTAssertEqual(checked, cold.count + warm.count)
        XCTAssertEqual(problems, [], problems.prefix(20).joined(separator: "\n"))
        XCTAssertGreaterThan(want.filter { $0.total > 0 }.count, checked / 2)
    }

    /// The page, used with the keyboard in Chromium: results for `?q=`, arrows move the selection (and wrap),
    /// typing updates the results and the address, Escape clears, Enter opens the selected result; every URL it
    /// loads is inside the tree. A phone-sized screenshot is not blank and shows the result titles' colour.
    func testSearchPageInChromium() throws {
        try Tool.require(.chromium, .python3)
        let site = try WebTools.site(tree: SearchTests.tree)
        let server = try WebTools.Server(site)
        defer { server.stop() }
        let dom = try WebTools.dumpDOM(server.url.appendingPathComponent("page-check.html"))
        let report = try JSONReader.parse(XCTUnwrap(WebTools.output(dom, marker: "REPORT"), String(dom.suffix(2000))))
        let initial = report["initial"]?["titles"]?.arrayValue?.compactMap(\.stringValue) ?? []
        XCTAssertEqual(initial.count, 20, "\(report)")
        XCTAssertTrue(initial.allSatisfy { $0.lowercased().contains("drill") }, "\(initial)")
        XCTAssertTrue(report["initial"]?["status"]?.stringValue?.hasSuffix("results, best 20 shown") == true, "\(report)")
        XCTAssertEqual(report["afterTwoDowns"], "result-1")
        XCTAssertEqual(report["selected"], ["result-1"])
        XCTAssertEqual(report["afterUp"], "result-0")
        XCTAssertEqual(report["wrapped"], "result-19")
        // Typed "RYOBI": the same page as the reference client's first 20 results.
        let typed = report["typed"]?["titles"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let reference = try TreeSearch.run(dist: SearchTests.tree, query: "RYOBI", index: .ranked, limit: 20).hits
        XCTAssertEqual(typed, reference.map(\.name))
        XCTAssertTrue((report["typed"]?["details"]?.arrayValue ?? []).allSatisfy { $0.stringValue?.hasPrefix("RYOBI · ") == true })
        XCTAssertEqual(report["typed"]?["url"], "?q=RYOBI")
        XCTAssertEqual(report["escaped"]?["count"], 0)
        XCTAssertEqual(report["escaped"]?["value"], "")
        // Nothing from outside the tree: every resource the page loaded is a file of the tree, from this server.
        let origin = try XCTUnwrap(report["origin"]?.stringValue)
        let resources = report["resources"]?.arrayValue?.compactMap(\.stringValue) ?? []
        XCTAssertGreaterThan(resources.count, 3)
        for r in resources { XCTAssertTrue(r.hasPrefix(origin + "/tree/search/"), r) }
        // Enter opened the first result (a product page of the tree).
        let first = try XCTUnwrap(report["firstLink"]?.stringValue)
        XCTAssertEqual(first, origin + "/tree/" + "products/\(reference[0].id)/details.json")
        XCTAssertEqual(report["afterEnter"]?.stringValue, first)

        let png = TestSupport.tempDir("web-shot").appendingPathComponent("search.png")
        let shot = try WebTools.screenshot(server.url.appendingPathComponent("tree/search/index.html").appending(queryItems: [.init(name: "q", value: "dewalt drill")]), to: png)
        XCTAssertTrue(FileManager.default.fileExists(atPath: png.path), shot.output)
        let looked = try TestSupport.run(["python3", "-c", TestSupport.pngScript, png.path, "accent=#1f6fb4"])
        XCTAssertEqual(looked.status, 0, looked.output)
        let seen = try JSONReader.parse(looked.output)
        XCTAssertEqual(seen["width"]?.intValue, 390)
        let inked = try XCTUnwrap(seen["inked"]?.doubleValue)
        XCTAssertGreaterThan(inked, 0.04, "the page is almost blank")
        XCTAssertLessThan(inked, 0.6, "the page is mostly ink")
        XCTAssertGreaterThan(seen["accent"]?.intValue ?? 0, 2000, "no result titles drawn")
    }
}
