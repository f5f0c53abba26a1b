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
    /// The term stage: term shards and vocabulary files (see `Terms`).
    public func terms(_ docs: Source, folder: String, threads: Int = 1) throws -> Terms {
        let s = settings
        // Weighted term frequencies per document, in parallel chunks; each chunk gathers its own term → postings
        // map, merged in chunk order, so every list is in document order whatever the thread count.
        // Terms are numbered per chunk (each distinct term hashed once per chunk, each ASCII token analysed once), and
        // a document's frequencies are summed in a scratch array by term number.
        var parts = Chunks.partials(docs.count, threads: threads, perThread: 2) { range -> ChunkTerms in
            var chunk = ChunkTerms()
            chunk.lengths.reserveCapacity(range.count)
            for i in range { chunk.add(docs.document(i), number: i) }
            return chunk
        }
        let lengths = parts.flatMap(\.lengths)
        // The chunks' lists joined in chunk order: every list is in document order whatever the thread count.
        // (Each chunk is released once merged; a term's first list is kept as it is, not copied.)
        var postings: [String: [(Int, Double)]] = [:]
        for c in parts.indices {
            let p = parts[c]
            parts[c] = ChunkTerms()
            for (k, w) in p.words.enumerated() {
                if postings[w] == nil { postings[w] = p.lists[k] } else { postings[w]! += p.lists[k] }
            }
        }
        let n = Double(docs.count)
        let avgdl = lengths.isEmpty ? 1 : max(lengths.reduce(0, +) / n, 1e-9)
        // Scores per term, in parallel (each term's list on its own, released once scored).
        var termList = Array(postings)
        postings = [:]
        var scored = termList.withUnsafeMutableBufferPointer { terms in
            Chunks.map(terms.count, threads: threads) { k -> (term: String, list: [Int32]) in
                let t = terms[k].key, list = terms[k].value
                terms[k].value = []
                let df = Double(list.count)
                let idf = log(1 + (n - df + 0.5) / (df + 0.5))
                var flat: [Int32] = []
                flat.reserveCapacity(list.count * 2)
                var last = 0
                for (doc, tf) in list {
                    let norm = s.k1 * (1 - s.b + s.b * lengths[doc] / avgdl)
                    let score = idf * tf * (s.k1 + 1) / (tf + norm)
                    flat.append(Int32(doc - last)); last = doc          // doc ids as gaps
                    flat.append(Int32(max(1, Int((score * s.scale).rounded()))))
                }
                return (t, flat)
            }
        }
        termList = []
        scored.sort { Self.byteOrder($0.term, $1.term) }

        let writer = JSONWriter()
        var files: [(path: String, text: [UInt8])] = []
        // Term shards by term range, written as text (millions of postings: no JSON value per number).
        var shardEntries: [JSON] = []
        var i = 0
        while i < scored.count {
            let shardStart = i
            var bytes = 0
            while i < scored.count {
                let cost = scored[i].term.utf8.count + 4 + scored[i].list.count * 4
                if i > shardStart && bytes + cost > s.termShardBytes { break }
                bytes += cost; i += 1
            }
            let t = JSONStream(capacity: bytes + 64)
            t.beginObject()
            t.key("terms"); t.beginArray(); for k in shardStart..<i { t.string(scored[k].term) }; t.endArray()
            t.key("postings"); t.beginArray()
            for k in shardStart..<i {
                t.beginArray(); for v in scored[k].list { t.int(Int(v)) }; t.endArray()
                scored[k].list = []   // written: released
            }
            t.endArray()
            t.endObject()
            let text = t.bytes
            let path = "\(folder)/terms/\(Self.contentName(text)).json"
            files.append((path, text))
            shardEntries.append(.obj(["first": .string(scored[shardStart].term), "last": .string(scored[i - 1].term), "path": .string(path)]))
        }
        // Vocabulary by length, for one-typo candidates (a term within one edit has length L−1, L or L+1).
        var byLength: [Int: [String]] = [:]
        for e in scored where e.term.count >= Query.typoMinimumLength - 1 { byLength[e.term.count, default: []].append(e.term) }
        var vocab: [JSON] = []
        for (len, terms) in byLength.sorted(by: { $0.key < $1.key }) {
            let text = try writer.bytes(.obj(["length": .int(len), "terms": .strings(terms)]))
            let path = "\(folder)/vocab/\(len)-\(Self.contentName(text)).json"
            files.append((path, text))
            vocab.append(.obj(["length": .int(len), "path": .string(path)]))
        }
        return Terms(files: files, count: scored.count, shards: .array(shardEntries), vocabulary: .array(vocab))
    }

    /// The term shards and vocabulary files, and what the meta file says of them: made from the documents' text
    /// (fields, their weights, the order) alone, so an index whose documents changed only in what is stored (a price)
    /// may keep them from an earlier build (see `init(meta:)`).
    public struct Terms: @unchecked Sendable {
        /// The files' text; empty for terms read from an earlier meta file (their files are kept where they are).
        public var files: [(path: String, text: [UInt8])]
        public var count: Int
        /// The meta file's `termShards` and `vocabulary`.
        public var shards: JSON, vocabulary: JSON

        /// The terms an earlier meta file of this builder lists; nil when it does not list them as this builder writes.
        public init?(meta: JSON) {
            guard let count = meta["terms"]?.intValue, let shards = meta["termShards"], let vocabulary = meta["vocabulary"],
                  let s = shards.arrayValue, let v = vocabulary.arrayValue,
                  s.allSatisfy({ $0["path"]?.stringValue != nil && $0["first"]?.stringValue != nil && $0["last"]?.stringValue != nil }),
                  v.allSatisfy({ $0["path"]?.stringValue != nil && $0["length"]?.intValue != nil }) else { return nil }
            self.files = []; self.count = count; self.shards = shards; self.vocabulary = vocabulary
        }
        init(files: [(path: String, text: [UInt8])], count: Int, shards: JSON, vocabulary: JSON) {
            self.files = files; self.count = count; self.shards = shards; self.vocabulary = vocabulary
        }

        /// The paths of the term shards and vocabulary files, as the meta file lists them.
        public var paths: [String] {
            (shards.arrayValue ?? []).compactMap { $0["path"]?.stringValue } + (vocabulary.arrayValue ?? []).compactMap { $0["path"]?.stringValue }
        }
    }

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

    /// One chunk's terms, numbered in order of appearance, with their postings and the documents' lengths.
    /// (A struct, not closures over local variables: those are boxed and every access is checked at run time.)
    struct ChunkTerms {
        var numbers: [String: Int32] = [:], words: [String] = [], lists: [[(Int, Double)]] = []
        var lengths: [Double] = []
        private var tf: [Double] = [], mark: [Int] = []
        private var tokens = TokenTable<[Int32]>()
        private var touched: [Int32] = []

        mutating func number(_ t: String) -> Int32 {
            if let n = numbers[t] { return n }
            let n = Int32(words.count)
            numbers[t] = n; words.append(t); lists.append([]); tf.append(0); mark.append(-1)
            return n
        }

        mutating func terms(_ text: String) -> [Int32] {
            var out: [Int32] = []
            // The table is moved out for the call (`number` needs all of self meanwhile) and back.
            var table = TokenTable<[Int32]>.empty
            swap(&table, &tokens)
            defer { swap(&table, &tokens) }
            if TermMemo.perToken(text, &table, into: &out, { Analyzer.terms($0).map { number($0) } }) { return out }
            return Analyzer.terms(text).map { number($0) }
        }

        /// Weighted term frequencies of document `i`, appended to the postings.
        mutating func add(_ doc: RankedDocument, number i: Int) {
            var len = 0.0
            var seen: [(text: String, terms: [Int32])] = []
            touched.removeAll(keepingCapacity: true)
            for f in doc.fields {
                // A field that repeats another (a description that is the name) is analysed once.
                let ts = seen.first { $0.text == f.text }?.terms ?? terms(f.text)
                seen.append((f.text, ts))
                for t in ts {
                    let k = Int(t)
                    if mark[k] != i { mark[k] = i; tf[k] = 0; touched.append(t) }
                    tf[k] += f.weight; len += f.weight
                }
            }
            // tf kept to a millionth, so scores never depend on the order weights were summed in.
            for t in touched { lists[Int(t)].append((i, Double(Int(tf[Int(t)] * 1_000_000)) / 1_000_000)) }
            lengths.append(len)
        }
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
        let h = text.withUnsafeBufferPointer { ByteHash.of($0) }
        return String(format: "%016llx", h)
    }
}
