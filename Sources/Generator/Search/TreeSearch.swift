import Foundation
import Schemas
import Indexer

/// Queries a built tree as an app would, through one of its three indexes, and counts what the app downloads.
public enum TreeSearch {
    public enum IndexKind: String, CaseIterable, Sendable { case full, compact, ranked }

    public struct Hit: Sendable { public let id: String; public let name: String; public let brand: String; public let price: String; public let score: Double? }

    public struct Outcome: Sendable {
        public var hits: [Hit]
        public var total: Int
        /// No product matched every word: these match the most words (ranked index only).
        public var partial = false
        /// Per facet field, values and counts over the whole result set, when asked for (ranked index only).
        public var facets: [Query.FacetCount] = []
        /// The stored objects of the page, as the index has them (ranked index only).
        public var items: [JSON] = []
        public var files: [(path: String, bytes: Int, gzip: Int)]
        public var bytes: Int { files.reduce(0) { $0 + $1.bytes } }
        public var gzipBytes: Int { files.reduce(0) { $0 + $1.gzip } }
    }

    public static func run(dist: URL, query: String, index: IndexKind, limit: Int) throws -> Outcome {
        try run(dist: dist, request: Query.Request(query, limit: limit), index: index)
    }

    /// The same with filters, a sort, an offset and facet counts (the ranked index; the seed indexes have none of them).
    /// `collection`: search that collection's ranked index (`collections/{name}/search/`) instead of the catalog's.
    public static func run(dist: URL, request: Query.Request, index: IndexKind, collection: String? = nil) throws -> Outcome {
        let query = request.text, limit = request.limit
        if index != .ranked && (!request.filters.isEmpty || request.sort != "relevance" || request.facets || request.offset > 0 || collection != nil) {
            throw BuildError(file: dist.path, "filters, sorts, facets, offsets and collections need the ranked index (--index ranked)")
        }
        var files: [(String, Int, Int)] = []
        let tree: TreeReader
        do { tree = try TreeReader(root: dist) } catch { throw BuildError(file: dist.path, "not a folder") }
        // Paths come from the tree itself (search/meta.json names the shards): read only as regular files inside it.
        func load(_ path: String) throws -> [UInt8] {
            let bytes: [UInt8]
            do { bytes = try tree.read(path) } catch let p as TreeProblem where p.kind == .missing && p.path == path {
                // A large catalog leaves out the seed indexes (catalog.seedIndexes false): say so, and what to use.
                let seed = index != .ranked ? " (a tree built with catalog.seedIndexes false has none: use --index ranked)" : ""
                throw BuildError(file: dist.path, "\(p.description): is \(dist.path) a built tree with the \(index.rawValue) index?\(seed)")
            } catch { throw BuildError(file: dist.path, "\(error)") }
            files.append((path, bytes.count, Gzip.compressedSize(bytes)))
            return bytes
        }
        switch index {
        case .full, .compact:
            let json = try JSONReader.parse(load(index == .full ? "search-index.json" : "search-index-compact.json"))
            let ids = Set(SeedIndex.Client(json).query(query))
            let products = (json["products"]?.arrayValue ?? []).filter { ids.contains($0["id"]?.stringValue ?? "") }
            let hits = products.prefix(limit).map { p in
                Hit(id: p["id"]?.stringValue ?? "", name: p["name"]?.stringValue ?? "", brand: p["brand"]?.stringValue ?? "",
                    price: p["price"]?.numberValue?.description ?? "-", score: nil)
            }
            return Outcome(hits: Array(hits), total: products.count, files: files)
        case .ranked:
            let q = try Query(metaPath: collection.map { "collections/\($0)/search/meta.json" } ?? "search/meta.json", load: load)
            let response: Query.Response
            do { response = try q.search(request) } catch let e as Query.RequestError { throw BuildError(file: dist.path, e.description) }
            let hits = response.results.map { r in
                // A collection's item has its own fields: shown as its compact JSON.
                Hit(id: r.stored["id"]?.stringValue ?? r.stored["path"]?.stringValue ?? "",
                    name: r.stored["name"]?.stringValue ?? String(r.stored.compactText.prefix(100)), brand: r.stored["brand"]?.stringValue ?? "",
                    price: r.stored["price"]?.numberValue?.description ?? "-", score: r.score)
            }
            return Outcome(hits: hits, total: response.total, partial: response.partial, facets: response.facets,
                           items: response.results.map(\.stored), files: files)
        }
    }
}
