import XCTest
import TestTools
import Foundation
@testable import Generator
@testable import Indexer
import Schemas

/// The browser search module (`search/search.js`) and page (`search/index.html`) in a real browser: headless
/// Chromium loads them from a server on 127.0.0.1, and the module's results, scores and downloads are compared with
/// the reference client (`Indexer/Query.swift`, what `generator search --index ranked` runs) on the real corpus.
/// The browser search module (`search/search.js`) and page (`search/index.html`) in a real browser: headless
/// Chromium loads them from a server on 127.0.0.1, and the module's answers (results, bit-identical scores, totals,
/// `partial`, facet counts, refusals) and downloads (every file and its bytes) are compared with the reference client
/// (`Indexer/Query.swift`, what `generator search --index ranked` runs) on the real corpus.
final class WebSearchTests: XCTestCase {
    /// A reference client of the index in `folder` of `tree`, reading the tree's files (sharing parsed ones with the
    /// other clients of `shared`).
    static func client(_ tree: URL, folder: String, shared: Query.Files? = nil) throws -> Query {
        try Query(metaPath: "\(folder)/meta.json", shared: shared) { p in [UInt8](try Data(contentsOf: tree.appendingPathComponent(p))) }
    }

    /// Every stored object of an index, in document order, read as a client reads a result's.
    static func documents(_ tree: URL, folder: String) throws -> [JSON] {
        let q = try client(tree, folder: folder)
        return try (0..<(q.meta["documents"]?.intValue ?? 0)).compactMap { try q.stored($0) }
    }

    /// The real corpus' product names and brands (what queries are made from).
    static func names(_ tree: URL) throws -> [String] {
        try documents(tree, folder: "search").flatMap { d in [d["name"]?.stringValue, d["brand"]?.stringValue].compactMap { $0 } }
    }

    /// The plain queries the first comparison runs: the named set (each as a first query), then 400 generated from the
    /// corpus and any kept outside (one after another on one client).
    static func queries(_ tree: URL) throws -> (cold: [String], warm: [String]) {
        (SearchQueries.named.map(\.query), SearchQueries.generated(from: try names(tree), count: 400) + (try SearchQueries.outside()))
    }

    /// The requests the second comparison runs, each as a first query: every named query and 150 generated ones, each
    /// with random filters, sort, page and facets (filter values mostly among those of the query's own results, as
    /// a person picks them from facet counts), then the special ones (browses, refusals).
    static func filteredRequests(_ tree: URL) throws -> [Query.Request] {
        let q = try client(tree, folder: "search")
        let (fields, sorts) = try fieldValues(q)
        XCTAssertEqual(sorts, ["price", "price-desc", "rating"])
        let texts = SearchQueries.named.map(\.query) + SearchQueries.generated(from: try names(tree), count: 150, seed: 99)
        let random = try SearchQueries.filtered(texts, fields: fields, sorts: sorts) { try present(q, $0) }
        let dewalt = try XCTUnwrap(fields.values["brand"]?.first { $0 == "DEWALT" })
        let drills = try XCTUnwrap(fields.values["category"]?.first { $0.hasSuffix("/drills/hammer-drills") })
        return random + SearchQueries.special(brand: dewalt, category: drills)
    }

    /// The facet values of a query's results, most common first, by field.
    static func present(_ q: Query, _ text: String) throws -> [String: [String]] {
        let r = try q.search(Query.Request(text, limit: 0, facets: true))
        return Dictionary(uniqueKeysWithValues: r.facets.map { ($0.field, $0.values.map(\.value)) })
    }

    /// What an index's meta file says its fields offer (every value of a value field, from its facet shards), and its
    /// sorts' names.
    static func fieldValues(_ q: Query) throws -> (SearchQueries.FieldValues, sorts: [String]) {
        var fields = SearchQueries.FieldValues()
        for entry in q.meta["facets"]?.arrayValue ?? [] {
            guard let field = entry["field"]?.stringValue else { continue }
            switch entry["kind"]?.stringValue {
            case "ranges": fields.edges[field] = (entry["edges"]?.arrayValue ?? []).compactMap(\.doubleValue).map(SearchFields.numberText)
            case "atLeast": fields.thresholds[field] = (entry["thresholds"]?.arrayValue ?? []).compactMap(\.doubleValue).map(SearchFields.numberText)
            default:
                for s in Query.shards(entry["shards"]) { fields.values[field, default: []] += (try q.file(s.path)["values"]?.arrayValue ?? []).compactMap(\.stringValue) }
            }
        }
        return (fields, (q.meta["sorts"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue })
    }

    /// An answer to a request: what a client returns (or the refusal's message) and the files it downloaded for it,
    /// as "path bytes", sorted (the browser fetches some files side by side, the reference one after another).
    struct Answer {
        var total = 0, partial = false
        var results: [(Int, Double)] = []
        var facets: [Query.FacetCount] = []
        var error: String?
        var files: [String] = []
    }

    /// What the reference client gives for each request: a fresh client for each `cold` one, then one client for
    /// all the `warm` ones (its downloads for each: what the request added).
    static func reference(_ tree: URL, folder: String, cold: [Query.Request], warm: [Query.Request]) throws -> [Answer] {
        let files = Query.Files()
        /// `since`: the files the client had downloaded before (meta.json, read when it starts, is a first query's).
        func answer(_ c: Query, _ request: Query.Request, since: Int) throws -> Answer {
            var a = Answer()
            do {
                let r = try c.search(request)
                (a.total, a.partial, a.results, a.facets) = (r.total, r.partial, r.results.map { ($0.document, $0.score) }, r.facets)
            } catch let e as Query.RequestError { a.error = e.description }
            a.files = c.fetched.dropFirst(since).map { "\($0.path) \($0.bytes)" }.sorted()
            return a
        }
        var out = try cold.map { try answer(try client(tree, folder: folder, shared: files), $0, since: 0) }
        let warmClient = try client(tree, folder: folder, shared: files)
        for (i, r) in warm.enumerated() { out.append(try answer(warmClient, r, since: i == 0 ? 0 : warmClient.fetched.count)) }
        return out
    }

    /// A request as search.js takes it (compare.html: the query and search's options).
    static func json(_ r: Query.Request) -> JSON {
        .obj(["query": .string(r.text), "limit": .int(r.limit), "offset": .int(r.offset), "complete": .bool(r.complete),
              "filters": .object(JSONObject(r.filters.sorted { $0.key < $1.key }.map { ($0.key, JSON.strings($0.value)) })),
              "sort": .string(r.sort), "facets": .bool(r.facets)])
    }

    /// An answer of search.js (a line of compare.html's output, or a search command's --json output) in the same form.
    static func answer(_ g: JSON) -> Answer {
        var a = Answer()
        a.error = g["error"]?.stringValue
        a.total = g["total"]?.intValue ?? -1
        a.partial = g["partial"]?.boolValue ?? false
        a.results = (g["results"]?.arrayValue ?? []).map { ($0[0]?.intValue ?? -1, $0[1]?.doubleValue ?? .nan) }
        a.facets = (g["facets"]?.arrayValue ?? []).map { f in
            Query.FacetCount(field: f["field"]?.stringValue ?? "", values: (f["values"]?.arrayValue ?? []).map {
                (value: $0["value"]?.stringValue ?? "", label: $0["label"]?.stringValue ?? "", count: $0["count"]?.intValue ?? -1)
            })
        }
        let paths = (g["files"]?.arrayValue ?? []).compactMap(\.stringValue), bytes = (g["bytes"]?.arrayValue ?? []).compactMap(\.intValue)
        a.files = zip(paths, bytes).map { "\($0) \($1)" }.sorted()
        return a
    }

    /// How `got` differs from `want` (nothing when they agree): total, partial, the same documents in the same order
    /// with bit-identical scores, facet counts, the refusal's message, and the same files of the same sizes.
    static func differences(_ got: Answer, _ want: Answer) -> [String] {
        var diff: [String] = []
        if got.error != want.error { diff.append("error \(got.error ?? "none") vs \(want.error ?? "none")") }
        // A refused request's downloads are what was read before the refusal: not part of the contract.
        if want.error != nil { return diff }
        if got.total != want.total { diff.append("total \(got.total) vs \(want.total)") }
        if got.partial != want.partial { diff.append("partial \(got.partial) vs \(want.partial)") }
        if got.results.count != want.results.count || zip(got.results, want.results).contains(where: { $0.0 != $1.0 || $0.1.bitPattern != $1.1.bitPattern }) {
            diff.append("results \(got.results.prefix(4)) vs \(want.results.prefix(4))")
        }
        if got.facets != want.facets {
            let field = zip(got.facets, want.facets).first { $0 != $1 }
            diff.append("facets \(got.facets.map(\.field)) vs \(want.facets.map(\.field))" + (field.map { ": \($0.0.field) \($0.0.values.prefix(3)) vs \($0.1.values.prefix(3))" } ?? ""))
        }
        if got.files != want.files {
            diff.append("files \(Set(got.files).subtracting(want.files).sorted()) more, \(Set(want.files).subtracting(got.files).sorted()) fewer")
        }
        return diff
    }

    /// Runs the requests through the tree's module in Chromium (Tests/Web/compare.html) and compares each with the
    /// reference; returns the disagreements, and both sides' answers.
    static func compareInChromium(tree: URL, folder: String, cold: [Query.Request], warm: [Query.Request]) throws
        -> (checked: Int, problems: [String], reference: [Answer], browser: [Answer]) {
        let request = try JSONWriter().bytes(.obj(["folder": .string(folder), "limit": 10, "cold": .array(cold.map(json)), "warm": .array(warm.map(json))]))
        let site = try WebTools.site(tree: tree, extra: ["queries.json": Data(request)])
        let server = try WebTools.Server(site)
        defer { server.stop() }
        let requests = cold + warm
        var clock = ContinuousClock.now
        let dom = try WebTools.dumpDOM(server.url.appendingPathComponent("compare.html"))
        print("Chromium ran \(requests.count) requests in \(ContinuousClock.now - clock)")
        clock = .now
        let want = try reference(tree, folder: folder, cold: cold, warm: warm)
        print("the reference ran them in \(ContinuousClock.now - clock)")
        guard let text = WebTools.output(dom, marker: "RESULTS") else {
            return (0, ["the page did not finish: \(dom.suffix(1500))"], want, [])
        }
        let got = (try JSONReader.parse(text).arrayValue ?? []).map(answer)
        guard got.count == requests.count else { return (0, ["\(got.count) answers for \(requests.count) requests"], want, got) }
        var problems: [String] = []
        for (i, r) in requests.enumerated() {
            let diff = differences(got[i], want[i])
            if !diff.isEmpty { problems.append("\(describe(r))\(i < cold.count ? "" : " (warm)"): \(diff.joined(separator: "; "))") }
        }
        return (requests.count, problems, want, got)
    }

    /// A request as a person reads it (the query, then whatever is not the default).
    static func describe(_ r: Query.Request) -> String {
        var parts = [r.text.debugDescription]
        for (f, v) in r.filters.sorted(by: { $0.key < $1.key }) { parts.append("\(f)=\(v.joined(separator: "|"))") }
        if r.sort != "relevance" { parts.append("sort \(r.sort)") }
        if r.offset > 0 { parts.append("offset \(r.offset)") }
        if r.complete { parts.append("complete") }
        return parts.joined(separator: " ")
    }

    func testChromiumModuleAgreesWithTheReferenceOnTheRealCorpus() throws {
        try Tool.require(.chromium, .python3)
        let tree = SearchTests.tree
        let (cold, warm) = try Self.queries(tree)
        let queries = cold + warm
        XCTAssertGreaterThanOrEqual(queries.count, SearchQueries.named.count + 400)
        let (checked, problems, want, _) = try Self.compareInChromium(tree: tree, folder: "search", cold: cold.map { Query.Request($0) },
                                                                      warm: warm.map { Query.Request($0) })
        print("search.js in Chromium against the reference: \(checked) queries, \(problems.count) disagreements")
        XCTAssertEqual(checked, queries.count)
        XCTAssertEqual(problems, [], "\(problems.count) of \(queries.count) queries disagree:\n" + problems.prefix(20).joined(separator: "\n"))
        // The comparison is not vacuous: most queries find something, some only partly, and some use every kind of file.
        XCTAssertGreaterThan(want.filter { $0.total > 0 }.count, queries.count * 2 / 3)
        XCTAssertGreaterThan(want.filter(\.partial).count, 10)
        XCTAssertTrue(want.contains { $0.files.contains { $0.contains("/vocab/") } }, "no query needed a typo")
        XCTAssertTrue(want.prefix(cold.count).contains { $0.files.filter { $0.contains("/terms/") }.count > 2 }, "no query read several term shards")
        XCTAssertTrue(want.dropFirst(cold.count + 1).contains { $0.files.isEmpty }, "the warm client never used its cache")
    }

    /// 249 requests with filters, sorts, pages and facets, each as a first query on a fresh module: the same answers
    /// and the same downloads, file by file and byte by byte, as the reference; and for a few of them, the same
    /// downloads as `generator search … --json` reports.
    func testFiltersSortsAndFacetsAgreeWithTheReference() throws {
        try Tool.require(.chromium, .python3)
        let tree = SearchTests.tree
        let requests = try Self.filteredRequests(tree)
        XCTAssertGreaterThanOrEqual(requests.count, 200)
        let (checked, problems, want, got) = try Self.compareInChromium(tree: tree, folder: "search", cold: requests, warm: [])
        print("search.js in Chromium against the reference: \(checked) filtered requests, \(problems.count) disagreements")
        XCTAssertEqual(checked, requests.count)
        XCTAssertEqual(problems, [], "\(problems.count) of \(requests.count) requests disagree:\n" + problems.prefix(20).joined(separator: "\n"))

        // Not vacuous: filtered requests that find something, a page of them, partly; every sort walking its chunks
        // past a full page; browses; facet counts of every field; refusals.
        let answered = Array(zip(requests, want))
        XCTAssertGreaterThan(answered.filter { !$0.0.filters.isEmpty && $0.1.total > 0 }.count, requests.count / 2)
        XCTAssertGreaterThan(answered.filter { !$0.0.filters.isEmpty && $0.1.total > 10 }.count, 20)
        XCTAssertGreaterThan(answered.filter { !$0.0.filters.isEmpty && $0.1.partial }.count, 3)
        for sort in ["price", "price-desc", "rating"] {
            XCTAssertGreaterThan(answered.filter { $0.0.sort == sort && $0.1.total > 10 && $0.1.files.contains { $0.contains("/sort/") } }.count, 3, sort)
        }
        XCTAssertGreaterThan(answered.filter { $0.0.offset > 0 && $0.1.results.count > 0 }.count, 5)
        let browses = answered.filter { Query.queryWords($0.0.text).isEmpty && !$0.0.filters.isEmpty && $0.1.total > 10 }
        XCTAssertGreaterThanOrEqual(browses.count, 3, "no filter-only browse found anything")
        XCTAssertTrue(answered.contains { $0.1.facets.count == 5 && $0.1.facets.allSatisfy { !$0.values.isEmpty } })
        XCTAssertGreaterThanOrEqual(want.filter { $0.error != nil }.count, 8)
        // The term and store trees are walked (the real corpus has a level of directories above term shards and store
        // groups).
        XCTAssertTrue(want.contains { $0.files.contains { $0.contains("/stores/") } }, "no request read a store directory")
        XCTAssertTrue(want.contains { $0.files.contains { $0.contains("/termdirs/") } }, "no request read a term directory")

        // What the command line reports for the same requests: the same files, bytes and answers.
        let picked = answered.indices.filter { requests[$0].text.first != "-" && want[$0].error == nil && want[$0].total > 0 }
        for i in Array(picked.prefix(4)) + Array(picked.suffix(4)) {
            let r = requests[i]
            var args = ["search", "--json", "--limit", "\(r.limit)", "--offset", "\(r.offset)", "--sort", r.sort]
            if r.facets { args.append("--facets") }
            if r.complete { args.append("--complete") }
            for (f, vs) in r.filters.sorted(by: { $0.key < $1.key }) { for v in vs { args += ["--filter", "\(f)=\(v)"] } }
            let run = try TestSupport.runCLI(args + ["--", tree.path, r.text])
            XCTAssertEqual(run.status, 0, run.output)
            let cli = try JSONReader.parse(Data(run.output.utf8))
            let files = (cli["downloads"]?.arrayValue ?? []).map { "\($0["path"]?.stringValue ?? "") \($0["bytes"]?.intValue ?? -1)" }.sorted()
            XCTAssertEqual(files, got[i].files, Self.describe(r))
            XCTAssertEqual(cli["total"]?.intValue, got[i].total, Self.describe(r))
            XCTAssertEqual((cli["results"]?.arrayValue ?? []).map { $0["score"]?.doubleValue ?? .nan }, got[i].results.map(\.1), Self.describe(r))
        }
    }

    /// A collection's module (in collections/listings/search/, three folders deep) on the default tree: queries made
    /// from the listings' addresses, cities and features agree with the reference client of that folder, plain and
    /// with random filters on the declared facets and price ranges, the declared sorts and browses.
    func testCollectionModuleAgreesWithTheReference() throws {
        try Tool.require(.chromium, .python3)
        let tree = try TypeScriptTypesTests.tree.get()
        let folder = "collections/listings/search"
        let names = try Self.documents(tree, folder: folder).flatMap { d in ["street_address", "city", "property_type"].compactMap { d[$0]?.stringValue } }
        let q = try Self.client(tree, folder: folder)
        let (fields, sorts) = try Self.fieldValues(q)
        let texts = ["condo", "Cambridge", "somervile", "single family", "ave", "", "", ""] + SearchQueries.generated(from: names, count: 40, seed: 11)
        let cold = texts.prefix(6).map { Query.Request($0) } + (try SearchQueries.filtered(texts, fields: fields, sorts: sorts, seed: 12) { try Self.present(q, $0) })
        let warm = SearchQueries.generated(from: names, count: 100, seed: 7).map { Query.Request($0, facets: true) }
        let (checked, problems, want, _) = try Self.compareInChromium(tree: tree, folder: folder, cold: cold, warm: warm)
        XCTAssertEqual(checked, cold.count + warm.count)
        XCTAssertEqual(problems, [], problems.prefix(20).joined(separator: "\n"))
        XCTAssertGreaterThan(want.filter { $0.total > 0 }.count, checked / 2)
        // The collection's fields are used: filtered requests find something, sorted ones and a browse too.
        let answered = Array(zip(cold, want))
        XCTAssertGreaterThan(answered.filter { !$0.0.filters.isEmpty && $0.1.total > 0 }.count, 10)
        XCTAssertGreaterThan(answered.filter { $0.0.sort != "relevance" && $0.1.total > 1 }.count, 5)
        XCTAssertTrue(answered.contains { $0.0.text.isEmpty && !$0.0.filters.isEmpty && $0.1.total > 0 }, "no browse found anything")
    }

    /// The page, used with the keyboard in Chromium: results for `?q=`, arrows move the selection (and wrap),
    /// typing updates the results and the address; the filters: chips with the reference's facet counts, a category
    /// chip pressed, the sort changed, a price range picked (each time the reference's page of results, and the
    /// address saying so), then cleared; Escape clears, Enter opens the selected result; every URL it loads is inside
    /// the tree. A phone-sized screenshot is not blank and shows the result titles' colour.
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

        // The filters, as the reference answers the same requests.
        func ask(_ r: Query.Request) throws -> TreeSearch.Outcome { try TreeSearch.run(dist: SearchTests.tree, request: r, index: .ranked) }
        func titles(_ step: String) -> [String] { report[step]?["titles"]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        /// Chips of one field as value → count (the count is the chip's last "(N)").
        func chips(_ step: String, _ field: String) -> [String: Int] {
            var out: [String: Int] = [:]
            for c in report[step]?["chips"]?.arrayValue ?? [] where c["field"]?.stringValue == field {
                let text = c["text"]?.stringValue ?? ""
                out[c["value"]?.stringValue ?? ""] = Int(text.split(separator: "(").last?.dropLast() ?? "")
            }
            return out
        }
        func counts(_ o: TreeSearch.Outcome, _ field: String) -> [String: Int] {
            Dictionary(uniqueKeysWithValues: (o.facets.first { $0.field == field }?.values ?? []).map { ($0.value, $0.count) })
        }
        XCTAssertEqual(report["panelClosed"], true, "the filters take no room on a phone until asked for")
        XCTAssertEqual(report["panelOpen"], true)
        XCTAssertEqual(report["sorts"], [["relevance", "Best match"], ["price", "Price: low to high"], ["price-desc", "Price: high to low"], ["rating", "Rating"]])
        let legends = Set(report["legends"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        XCTAssertTrue(legends.isSuperset(of: ["Brand", "Category", "Price", "Rating"]), "\(legends)")
        let ryobi = try ask(Query.Request("RYOBI", limit: 20, facets: true))
        XCTAssertEqual(chips("", "brand"), [:])
        XCTAssertEqual(report["chips"]?.arrayValue?.first { $0["value"] == "RYOBI" }?["text"]?.stringValue, "RYOBI (\(ryobi.total))")
        // Chips show a field's most common values with the reference's counts.
        let categoryChips = chips("chipped", "category")
        XCTAssertGreaterThanOrEqual(categoryChips.count, 2, "\(report["chipped"] ?? .null)")
        let category = try XCTUnwrap(report["chipped"]?["value"]?.stringValue)
        let chipped = try ask(Query.Request("RYOBI", filters: ["category": [category]], limit: 20, facets: true))
        XCTAssertEqual(titles("chipped"), chipped.hits.map(\.name))
        XCTAssertTrue(report["chipped"]?["status"]?.stringValue?.hasPrefix("\(chipped.total) result") == true, "\(report["chipped"] ?? .null)")
        XCTAssertEqual(report["chipped"]?["url"]?.stringValue, "?q=RYOBI&category=" + (category.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        XCTAssertEqual(report["chipped"]?["focused"]?.stringValue, category, "the pressed chip keeps the keyboard")
        XCTAssertEqual(report["chipped"]?["chips"]?.arrayValue?.filter { $0["pressed"] == "true" }.compactMap { $0["value"]?.stringValue }, [category])
        // A filtered field counts without its own filter (what another value would add); the others with it.
        for (value, count) in categoryChips { XCTAssertEqual(count, counts(ryobi, "category")[value], value) }
        XCTAssertEqual(chips("chipped", "brand"), counts(chipped, "brand"))
        let sorted = try ask(Query.Request("RYOBI", filters: ["category": [category]], sort: "price", limit: 20))
        XCTAssertEqual(titles("sorted"), sorted.hits.map(\.name))
        XCTAssertTrue(report["sorted"]?["url"]?.stringValue?.hasSuffix("&sort=price&category=" + (category.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")) == true,
                      "\(report["sorted"] ?? .null)")
        let ranged = try ask(Query.Request("RYOBI", filters: ["category": [category], "price": ["25..100"]], sort: "price", limit: 20))
        XCTAssertEqual(titles("ranged"), ranged.hits.map(\.name))
        XCTAssertEqual(report["ranged"]?["range"], ["25", "100"])
        // The span's ranges are pressed chips (the span covers them), counted without the price filter.
        let pricePressed = (report["ranged"]?["chips"]?.arrayValue ?? []).filter { $0["field"] == "price" && $0["pressed"] == "true" }
        XCTAssertEqual(pricePressed.compactMap { $0["value"]?.stringValue }, ["25..50", "50..100"])
        XCTAssertEqual(chips("ranged", "price"), counts(chipped, "price"))
        XCTAssertTrue(report["ranged"]?["url"]?.stringValue?.hasSuffix("&price=25..100") == true, "\(report["ranged"] ?? .null)")
        XCTAssertTrue(report["ranged"]?["status"]?.stringValue?.hasPrefix("\(ranged.total) result") == true || ranged.total == 0, "\(report["ranged"] ?? .null)")
        XCTAssertEqual(titles("cleared"), reference.map(\.name))
        XCTAssertEqual(report["cleared"]?["url"], "?q=RYOBI")
        XCTAssertEqual(report["cleared"]?["pressed"], 0)
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
