import ArgumentParser
import Foundation
import Generator
import Indexer
import Schemas

struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Query a built tree as an app would, and show what the app downloads for it.",
        discussion: """
        full and compact use the design document's exact keyword lookup (lowercase, split on spaces, union); \
        ranked uses the sharded BM25 index under search/ with prefix matching on the last word and one-typo \
        tolerance. Reads only regular files inside the tree. Exit codes: 0 done (with or without results), 2 error (including \
        an index file that is a symlink or special file, or a path in the index that leaves the tree).
        """)

    @Argument(help: "A built tree (e.g. dist).") var dist: String
    @Argument(help: "The query, as a user would type it.") var query: String
    @Option(help: "Number of results to show.") var limit: Int = 10
    @Option(help: "Which index to use: full, compact or ranked.") var index: TreeSearch.IndexKind = .ranked
    @Option(name: .customLong("filter"), help: ArgumentHelp(
        "Narrow to FIELD=VALUE (repeatable: OR within a field, AND across fields); ranges as LOW..HIGH, e.g. price=50..200.",
        valueName: "field=value")) var filters: [String] = []
    @Option(help: "relevance, or a sort the index declares (the catalog: price, price-desc, rating).") var sort: String = "relevance"
    @Option(help: "Results to skip (the page's start).") var offset: Int = 0
    @Flag(help: "Count the results per facet value (downloads the facet files).") var facets = false
    @Flag(help: "Print one JSON object: results, total, partial, facets and every file downloaded.") var json = false
    @Flag(help: "The query is complete: its last word is not also a prefix.") var complete = false
    @Option(help: "Search a declared collection's index (collections/NAME/search/) instead of the catalog's.") var collection: String?

    func validate() throws {
        for f in filters where !f.contains("=") || f.hasPrefix("=") {
            throw ValidationError("--filter \(f): write FIELD=VALUE, e.g. brand=DEWALT or price=50..200")
        }
        if offset < 0 { throw ValidationError("--offset must be 0 or more") }
        if let c = collection, c.isEmpty || c.contains("/") || c.hasPrefix(".") { throw ValidationError("--collection \(c): a collection's name, e.g. listings") }
    }

    func run() throws {
        var grouped: [String: [String]] = [:]
        for f in filters {
            let eq = f.firstIndex(of: "=")!
            grouped[String(f[..<eq]), default: []].append(String(f[f.index(after: eq)...]))
        }
        let request = Query.Request(query, filters: grouped, sort: sort, limit: max(1, limit), offset: offset, facets: facets, complete: complete)
        let outcome: TreeSearch.Outcome
        do { outcome = try TreeSearch.run(dist: OutputGuard.fileURL(dist), request: request, index: index, collection: collection) } catch {
            // E.g. an index file that is a symlink or FIFO (never opened) or a shard path that leaves the tree.
            FileHandle.standardError.write(Data("error: \(TreeReader.terminalSafe("\(error)"))\n".utf8))
            throw ExitCode(2)
        }
        if json { try printJSON(outcome, request); return }
        print("\(outcome.total) result(s) for \"\(query)\" in the \(collection.map { "\($0) collection's" } ?? index.rawValue) index\(outcome.partial ? " (none has every word: these have the most)" : "")")
        for (i, h) in outcome.hits.enumerated() {
            let score = h.score.map { String(format: "  [%.1f]", $0) } ?? ""
            // Names and ids come from the tree: control characters escaped.
            print(TreeReader.terminalSafe(String(format: "%3d. ", i + 1) + "\(h.name) — \(h.brand), \(h.price) (\(h.id))\(score)"))
        }
        for f in outcome.facets {
            print(TreeReader.terminalSafe("\(f.field): " + f.values.prefix(12).map { "\($0.label) (\($0.count))" }.joined(separator: ", ")
                  + (f.values.count > 12 ? ", … \(f.values.count - 12) more" : "")))
        }
        print("downloaded: \(outcome.files.count) file(s), \(outcome.bytes) bytes (\(outcome.gzipBytes) gzip)")
        for f in outcome.files { print("  \(f.path)  \(f.bytes) B, \(f.gzip) B gzip") }
    }

    /// The whole answer as one JSON object (what `search/search.js` returns, plus what was downloaded).
    func printJSON(_ o: TreeSearch.Outcome, _ r: Query.Request) throws {
        let results: [JSON] = zip(o.hits, o.items).map { h, item in .obj(["score": h.score.map(JSON.double) ?? .null, "item": item]) }
        let facets: [JSON] = o.facets.map { f in
            .obj(["field": .string(f.field), "values": .array(f.values.map { .obj(["value": .string($0.value), "label": .string($0.label), "count": .int($0.count)]) })])
        }
        let out: JSON = .obj([
            "query": .string(r.text), "filters": .object(JSONObject(r.filters.sorted { $0.key < $1.key }.map { ($0.key, JSON.strings($0.value)) })),
            "sort": .string(r.sort), "total": .int(o.total), "partial": .bool(o.partial), "results": .array(results), "facets": .array(facets),
            "downloads": .array(o.files.map { .obj(["path": .string($0.path), "bytes": .int($0.bytes), "gzip": .int($0.gzip)]) }),
            "bytes": .int(o.bytes), "gzipBytes": .int(o.gzipBytes),
        ])
        print(try JSONWriter(pretty: true).string(out), terminator: "")
    }
}

extension TreeSearch.IndexKind: ExpressibleByArgument {}
