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
    /// Documents of one group (e.g. a brand) are kept in one result-store shard when the group fits in one.
    public var group: String

    public init(id: String, fields: [(name: String, weight: Double, text: String)], stored: JSON, group: String = "") {
        self.id = id; self.fields = fields; self.stored = stored; self.group = group
    }

    /// `storedText`: the stored object as compact JSON text (what `JSONWriter` gives for it).
    public init(id: String, fields: [(name: String, weight: Double, text: String)], storedText: [UInt8], group: String = "") {
        self.id = id; self.fields = fields; self.stored = .null; self.storedText = storedText; self.group = group
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
        /// Target raw size of a term shard; one posting list larger than this gets a shard of its own.
        public var termShardBytes = 48_000
        /// Documents per result-store shard.
        public var storeShardSize = 256
        public init() {}
    }

    public var settings: Settings
    public init(settings: Settings = Settings()) { self.settings = settings }

    /// Each file as JSON text, serialised once: its name is a hash of these bytes, and they are what gets published.
    public struct Output {
        public var files: [(path: String, text: [UInt8])]
        public var metaPath: String
        /// The result-store shards in order: each one's path, documents, and whether it was kept (not made: the caller
        /// has it already, see `build`'s `keptStore`; listed by the meta file like the others, absent from `files`).
        public var store: [(path: String, documents: Range<Int>, kept: Bool)] = []
    }

    /// Documents handed over one at a time, so a large index never holds them all: `document(i)` when its terms
    /// are counted (released right after), `writeStored(i, text)` when its result-store shard is written (the stored
    /// object, as `JSONWriter` writes it), `group(i)` for the store's shard boundaries.
    public struct Source {
        public var count: Int
        public var document: (Int) -> RankedDocument
        public var writeStored: (Int, JSONStream) throws -> Void
        public var group: (Int) -> String
        public init(count: Int, document: @escaping (Int) -> RankedDocument, writeStored: @escaping (Int, JSONStream) throws -> Void,
                    group: @escaping (Int) -> String) {
            self.count = count; self.document = document; self.writeStored = writeStored; self.group = group
        }
    }

    /// `folder` is the path prefix of every file (e.g. `search`); documents keep the given order (which is the
    /// store order: put documents that are often found together next to each other).
    public func build(_ docs: [RankedDocument], folder: String, threads: Int = 1) throws -> Output {
        try build(Source(count: docs.count, document: { docs[$0] },
                         writeStored: { i, t in if let text = docs[i].storedText { t.raw(text) } else { try t.value(docs[i].stored) } },
                         group: { docs[$0].group }), folder: folder, threads: threads)
    }

    /// The same from documents handed over one at a time (see `Source`). Each stage releases what the next one
    /// no longer needs as it goes (chunk lists once merged, postings once scored, scores once written), so a
    /// million documents never hold their postings in three forms at once.
    /// The whole index; with `terms` (from `terms(_:folder:threads:)`, or an earlier meta file for documents of the
    /// same text), only the result store and the meta file are made, and the output lists no term or vocabulary file.
    /// `keptStore`: the path of a result-store shard of these documents the caller has already (made from the same
    /// stored objects: its name is then that of the text it would be made with), listed as it is and not made again.
    public func build(_ docs: Source, folder: String, threads: Int = 1, terms: Terms? = nil,
                      keptStore: (Range<Int>) -> String? = { _ in nil }) throws -> Output {
        let t = try terms ?? self.terms(docs, folder: folder, threads: threads)
        let s = settings
        var files = t.files
        var store: [JSON] = [], shards: [(path: String, documents: Range<Int>, kept: Bool)] = []
        for r in storeShards(docs) {
            let path: String
            if let known = keptStore(r) {
                path = known
                shards.append((path, r, true))
            } else {
                let text = try storeText(docs, r)
                path = "\(folder)/store/\(Self.contentName(text)).json"
                files.append((path, text))
                shards.append((path, r, false))
            }
            store.append(.obj(["first": .int(r.lowerBound), "path": .string(path)]))
        }
        let meta: JSON = .obj([
            "format": 2,
            "documents": .int(docs.count),
            "terms": .int(t.count),
            "ranking": .obj(["model": "BM25F", "k1": .double(s.k1), "b": .double(s.b), "scoreScale": .double(s.scale),
                             "fieldWeights": .object(JSONObject(Self.fieldWeights(docs).map { ($0.0, JSON.double($0.1)) }))]),
            "analyzer": .obj(["stopWords": .strings(Analyzer.stopWords.sorted()), "minimumLength": .int(Analyzer.minimumLength),
                              "stemming": "possessives and plurals (Analyzer.stem)", "folding": "NFKD, marks dropped, lowercase"]),
            "query": .obj(["prefixLastTerm": true, "prefixExpansions": .int(Query.prefixExpansions),
                           "prefixWeight": .double(Query.prefixWeight), "typoMinimumLength": .int(Query.typoMinimumLength),
                           "typoWeight": .double(Query.typoWeight)]),
            "termShards": t.shards,
            "vocabulary": t.vocabulary,
            "store": .obj(["maxShardSize": .int(s.storeShardSize), "shards": .array(store)]),
        ])
        let metaPath = "\(folder)/meta.json"
        files.append((metaPath, try JSONWriter().bytes(meta)))
        return Output(files: files, metaPath: metaPath, store: shards)
    }

    /// The result store's shards, as document ranges in order. A shard ends early rather than split a group that
    /// would fit in the next one, so the results of a query within one group (one brand) need one shard.
    public func storeShards(_ docs: Source) -> [Range<Int>] {
        let size = settings.storeShardSize
        // Each document's group, asked once.
        var groups: [String] = []
        groups.reserveCapacity(docs.count)
        for i in 0..<docs.count { groups.append(docs.group(i)) }
        var shards: [Range<Int>] = []
        var start = 0
        while start < docs.count {
            var end = start
            while end < docs.count {
                var groupEnd = end + 1
                while groupEnd < docs.count && groups[groupEnd] == groups[end] { groupEnd += 1 }
                if groupEnd - start <= size { end = groupEnd; continue }
                if end == start || groupEnd - end > size { end = min(start + size, groupEnd) }
                break
            }
            shards.append(start..<end)
            start = end
        }
        return shards
    }

    /// The text of the result-store shard of documents `r` (its file is named by a hash of it: `contentName`). It does
    /// not say where it starts (the meta file does): a shard of the same stored objects keeps its name when documents
    /// before it are added or removed, so a release that adds one product re-makes the shards around it, not every
    /// shard after it (format 2; format 1 had `first` in each shard).
    public func storeText(_ docs: Source, _ r: Range<Int>) throws -> [UInt8] {
        let t = JSONStream(capacity: r.count * 256)
        t.beginObject(); t.key("documents"); t.beginArray()
        for i in r { try docs.writeStored(i, t) }
        t.endArray(); t.endObject()
        return t.bytes
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
        String(format: "%016llx", ByteHash.of(text))
    }
}
