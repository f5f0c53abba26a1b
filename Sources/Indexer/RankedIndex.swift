import Foundation
import Schemas

/// A document for the ranked index: weighted text fields, and the fields a results list shows.
public struct RankedDocument: Sendable {
    public var id: String
    public var fields: [(name: String, weight: Double, text: String)]
    /// Shown in results (for products: id, name, brand, price, rating, image), kept in the result store.
    public var stored: JSON
    /// The same as JSON text, when the caller wrote it already (then `stored` is not consulted): 100,000 small
    /// objects are cheaper to write than to build.
    public var storedText: [UInt8]?
    /// The document's values of the index's fields (`SearchFields`), by field name.
    public var values: [String: SearchValue]

    public init(id: String, fields: [(name: String, weight: Double, text: String)], stored: JSON, values: [String: SearchValue] = [:]) {
        self.id = id; self.fields = fields; self.stored = stored; self.values = values
    }

    /// `storedText`: the stored object as compact JSON text (what `JSONWriter` gives for it).
    public init(id: String, fields: [(name: String, weight: Double, text: String)], storedText: [UInt8], values: [String: SearchValue] = [:]) {
        self.id = id; self.fields = fields; self.stored = .null; self.storedText = storedText; self.values = values
    }
}

/// The ranked, sharded index under a folder (e.g. `search/`): a small meta file, term shards by term range,
/// vocabulary files by term length (for one-typo matching), and result-store shards. Shard names carry a hash of
/// their content, so a client may cache them forever; only the meta file changes name-less between releases.
///
/// Scores are BM25 over field-weighted term frequencies (BM25F-style: tf = Σ field weight × count, document length
/// = Σ field weight × terms), precomputed per (term, document) at build time and quantised to integers, so a
/// client only adds numbers.
public struct RankedIndexBuilder: Sendable {
    public struct Settings: Sendable {
        public var k1 = 1.2
        public var b = 0.75
        /// Score quantisation: stored score = round(BM25 × scale).
        public var scale = 100.0
        /// Stored scores are moved to a geometric grid of this step (see `quantised`).
        public var scoreStep = 0.06
        /// Target raw size of a term shard; one posting list larger than this gets a shard of its own.
        public var termShardBytes = 4_000
        /// Target raw size of a facet shard; one value's documents larger than this get a shard of their own.
        public var facetShardBytes = 8_000
        /// Documents per sort chunk.
        public var sortChunkDocuments = 2_048
        /// Average documents per result-store group (a group ends where a document's id says, up to twice this).
        public var storeGroupSize = 64
        /// Documents per result-store slice (the file a result is fetched from).
        public var storeSliceSize = 2
        /// Average entries per store directory (see `directoryTree`).
        public var storeDirectoryShards = 8
        public init() {}
    }

    public var settings: Settings
    public init(settings: Settings = Settings()) { self.settings = settings }

    /// The meta file's `format`: 5 writes postings one number per document (`packedPostings`), term trees of
    /// `[first term, name]` pairs (`termTree`) and facet columns (`columns`).
    public static let format = 5

    /// Each file as JSON text, serialised once: its name is a hash of these bytes, and they are what gets published.
    public struct Output {
        public var files: [(path: String, text: [UInt8])]
        public var metaPath: String
        /// The result-store groups in order: each one's name, documents, and whether it was kept (not made: the caller
        /// has its slices already, see `build`'s `keptStore`; listed like the others, its slices absent from `files`).
        public var store: [(name: String, documents: Range<Int>, kept: Bool)] = []
    }

    /// Documents handed over one at a time, so a large index never holds them all: `document(i)` when its terms
    /// are counted (released right after), `writeStored(i, text)` when its result-store shard is written (the stored
    /// object, as `JSONWriter` writes it), `id(i)` for the store's shard boundaries, `value(i, f)` for document i's value
    /// of `fields.fields[f]`.
    public struct Source {
        public var count: Int
        public var document: (Int) -> RankedDocument
        public var writeStored: (Int, JSONStream) throws -> Void
        public var id: (Int) -> String
        public var fields: SearchFields
        public var value: ((Int, Int) -> SearchValue?)?
        public init(count: Int, document: @escaping (Int) -> RankedDocument, writeStored: @escaping (Int, JSONStream) throws -> Void,
                    id: @escaping (Int) -> String, fields: SearchFields = .none, value: ((Int, Int) -> SearchValue?)? = nil) {
            self.count = count; self.document = document; self.writeStored = writeStored; self.id = id
            self.fields = fields; self.value = value
        }
    }

    /// `folder` is the path prefix of every file (e.g. `search`); documents keep the given order (which is the
    /// store order: put documents that are often found together next to each other).
    public func build(_ docs: [RankedDocument], folder: String, fields: SearchFields = .none, threads: Int = 1) throws -> Output {
        let names = fields.fields.map(\.name)
        return try build(Source(count: docs.count, document: { docs[$0] },
                                writeStored: { i, t in if let text = docs[i].storedText { t.raw(text) } else { try t.value(docs[i].stored) } },
                                id: { docs[$0].id }, fields: fields, value: { docs[$0].values[names[$1]] }),
                         folder: folder, threads: threads)
    }

    /// The same from documents handed over one at a time (see `Source`). Each stage releases what the next one
    /// no longer needs as it goes (chunk lists once merged, postings once scored, scores once written), so a
    /// million documents never hold their postings in three forms at once.
    /// The whole index; with `terms` (from `terms(_:folder:threads:)`, or an earlier meta file for documents of the
    /// same text), only the result store and the meta file are made, and the output lists no term or vocabulary file.
    /// `keptStore`: the name of a result-store group of these documents the caller has already (made from the same
    /// stored objects: its name is then the one it would be made with), listed as it is and not made again.
    public func build(_ docs: Source, folder: String, threads: Int = 1, terms: Terms? = nil,
                      keptStore: (Range<Int>) -> String? = { _ in nil }) throws -> Output {
        let t = try terms ?? self.terms(docs, folder: folder, threads: threads)
        let s = settings
        var files = t.files
        let store = try self.store(docs, folder: folder, threads: threads, keptStore: keptStore)
        files += store.files
        let fields = try fieldFiles(docs, folder: folder, threads: threads, terms: t)
        files += fields.files
        let meta: JSON = .obj([
            "format": .int(Self.format),
            "folder": .string(folder),
            "documents": .int(docs.count),
            "terms": .int(t.count),
            "ranking": .obj(["model": "BM25F", "k1": .double(s.k1), "b": .double(s.b), "scoreScale": .double(s.scale),
                             "scoreStep": .double(s.scoreStep),
                             "fieldWeights": .object(JSONObject(Self.fieldWeights(docs).map { ($0.0, JSON.double($0.1)) }))]),
            "analyzer": .obj(["stopWords": .strings(Analyzer.stopWords.sorted()), "minimumLength": .int(Analyzer.minimumLength),
                              "stemming": "possessives and plurals (Analyzer.stem)", "folding": "NFKD, marks dropped, lowercase"]),
            "query": .obj(["matching": "every word", "prefixLastTerm": true, "prefixExpansions": .int(Query.prefixExpansions),
                           "prefixWeight": .double(Query.prefixWeight), "secondaryPrefixWeight": .double(Query.secondaryPrefixWeight),
                           "typoMinimumLength": .int(Query.typoMinimumLength), "typoWeight": .double(Query.typoWeight)]),
            "termShards": t.shards,
            "vocabulary": t.vocabulary,
            "store": store.tree,
            "facets": .array(fields.facets),
            "sorts": .array(docs.fields.sorts.map { .obj(["name": .string($0.name), "label": .string($0.label),
                                                          "field": .string($0.field), "descending": .bool($0.descending)]) }),
            "orders": .array(fields.sorts),
            "browse": docs.fields.browse.map(JSON.string) ?? .null,
        ])
        let metaPath = "\(folder)/meta.json"
        files.append((metaPath, try JSONWriter().bytes(meta)))
        return Output(files: files, metaPath: metaPath, store: store.groups)
    }

    static func fieldWeights(_ docs: Source) -> [(String, Double)] {
        var seen: [String] = [], w: [String: Double] = [:]
        if docs.count > 0 { for f in docs.document(0).fields where w[f.name] == nil { seen.append(f.name); w[f.name] = f.weight } }
        return seen.map { ($0, w[$0]!) }
    }

    /// Terms are ordered by their UTF-8 bytes, which any client can reproduce.
    public static func byteOrder(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    /// 16 hex digits of a 64-bit hash of the serialised bytes, eight at a time (`ByteHash`): a
    /// cache-busting name, not a security hash (the release's file index carries SHA-256 for every file).
    public static func contentName(_ text: [UInt8]) -> String {
        // (Digits made here, not by `String(format:)`: 54,000 names at 100,000 products.)
        let h = ByteHash.of(text)
        return String(decoding: (0..<16).map { k in
            let d = UInt8(truncatingIfNeeded: h >> (60 - 4 * UInt64(k))) & 0xF
            return d < 10 ? 48 + d : 87 + d
        }, as: UTF8.self)
    }
}
