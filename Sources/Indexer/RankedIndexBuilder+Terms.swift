import Foundation
import Schemas

/// The term stage of the ranked index: term shards and vocabulary files, made from the documents' text alone.
extension RankedIndexBuilder {
    /// The term stage: term shards and vocabulary files (see `Terms`). Each step releases what the next one no longer
    /// needs as it goes (chunk lists once merged, postings once scored, scores once written).
    public func terms(_ docs: Source, folder: String, threads: Int = 1) throws -> Terms {
        var scored = score(Self.count(docs, threads: threads), documents: docs.count, threads: threads)
        let (shardFiles, shards) = termShards(&scored, folder: folder)
        let (vocabularyFiles, vocabulary) = try Self.vocabulary(scored, folder: folder)
        let tree = try Self.termTree(shards, folder: folder)
        return Terms(files: shardFiles + tree.files + vocabularyFiles, count: scored.count, shards: tree.meta, vocabulary: .string(vocabulary),
                     paths: (shardFiles + tree.files + vocabularyFiles).map(\.path), shape: tree.shape, shardTexts: shardFiles.map(\.text))
    }

    /// Every term's postings (document, weighted frequency), each list in document order, and each document's length.
    struct Counts {
        var postings: [String: [(Int, Double)]]
        var lengths: [Double]
        /// The terms that occur in some document's first field.
        var primary: Set<String>
    }

    /// Weighted term frequencies per document, in parallel chunks; each chunk gathers its own term → postings map,
    /// merged in chunk order, so every list is in document order whatever the thread count.
    /// Terms are numbered per chunk (each distinct term hashed once per chunk, each ASCII token analysed once), and
    /// a document's frequencies are summed in a scratch array by term number.
    static func count(_ docs: Source, threads: Int) -> Counts {
        var parts = Chunks.partials(docs.count, threads: threads, perThread: 2) { range -> ChunkTerms in
            var chunk = ChunkTerms()
            chunk.lengths.reserveCapacity(range.count)
            for i in range { chunk.add(docs.document(i), number: i) }
            return chunk
        }
        let lengths = parts.flatMap(\.lengths)
        // (Each chunk is released once merged; a term's first list is kept as it is, not copied.)
        var postings: [String: [(Int, Double)]] = [:]
        var primary = Set<String>()
        for c in parts.indices {
            let p = parts[c]
            parts[c] = ChunkTerms()
            for (k, w) in p.words.enumerated() {
                if postings[w] == nil { postings[w] = p.lists[k] } else { postings[w]! += p.lists[k] }
                if p.primary[k] { primary.insert(w) }
            }
        }
        return Counts(postings: postings, lengths: lengths, primary: primary)
    }

    /// A term and its postings as written (`packedPostings`); `primary`: whether the term occurs in some document's first field (a
    /// product's name), so a client can weigh a prefix that reaches only brand or category words less.
    struct ScoredTerm {
        var term: String
        var list: [Int32]
        var documents: Int
        var primary: Bool
    }

    /// A score as stored: round(BM25 × scale), moved to the nearest step of a geometric grid (`scoreStep`) so that the
    /// postings of a term take a few distinct scores, each document's written as its rank among them (on the 100k
    /// catalog the grid made the postings of "cordless" 2.5 times smaller; ranking differences under the step are noise).
    func quantised(_ score: Double) -> Int32 {
        let raw = max(1, score * settings.scale)
        let ratio = 1 + settings.scoreStep
        return Int32(max(1, (pow(ratio, (log(raw) / log(ratio)).rounded())).rounded()))
    }

    /// `quantised` for millions of postings: the grid's points below 2³¹ made once (the same `pow` of the same step
    /// numbers, so the same values), each score's step found with one `log`.
    struct ScoreGrid {
        let scale: Double, ratio: Double, logRatio: Double
        let points: [Int32]

        init(_ s: Settings) {
            scale = s.scale; ratio = 1 + s.scoreStep; logRatio = log(ratio)
            var points: [Int32] = []
            while points.count < 1024, case let p = pow(ratio, Double(points.count)).rounded(), p < Double(Int32.max) {
                points.append(Int32(max(1, p)))
            }
            self.points = points
        }

        func callAsFunction(_ score: Double) -> Int32 {
            let step = (log(max(1, score * scale)) / logRatio).rounded()
            if step >= 0 && step < Double(points.count) { return points[Int(step)] }
            return Int32(max(1, pow(ratio, step).rounded()))
        }

        /// The score's step on the grid (its stored score is `points[step]`), nil past the points made.
        func step(_ score: Double) -> Int? {
            let step = (log(max(1, score * scale)) / logRatio).rounded()
            return step >= 0 && step < Double(points.count) ? Int(step) : nil
        }
    }

    /// The BM25 score of every posting, per term in parallel (each term's list released once scored), the terms in
    /// byte order.
    func score(_ counts: Counts, documents: Int, threads: Int) -> [ScoredTerm] {
        let s = settings
        let n = Double(documents)
        let lengths = counts.lengths
        let avgdl = lengths.isEmpty ? 1 : max(lengths.reduce(0, +) / n, 1e-9)
        // Each document's length normalisation, once per document rather than once per posting.
        let norms = lengths.map { s.k1 * (1 - s.b + s.b * $0 / avgdl) }
        let grid = ScoreGrid(s)
        var terms = Array(counts.postings)
        let primary = counts.primary
        var scored = Chunks.map(&terms, threads: threads) { term -> ScoredTerm in
            let list = term.value
            term.value = []
            let df = Double(list.count)
            let idf = log(1 + (n - df + 0.5) / (df + 0.5))
            // Each posting's step on the grid, in document order (the list's): no sort.
            var steps: [Int32] = []
            steps.reserveCapacity(list.count)
            var low = Int.max, high = -1
            for (doc, tf) in list {
                guard let k = grid.step(idf * tf * (s.k1 + 1) / (tf + norms[doc])) else { break }
                steps.append(Int32(k)); low = min(low, k); high = max(high, k)
            }
            if steps.count == list.count, low <= high {
                return ScoredTerm(term: term.key, list: Self.packedPostings(list, steps: steps, range: low...high, points: grid.points),
                                  documents: list.count, primary: primary.contains(term.key))
            }
            // A score past the grid's points: (Int32.max − score) << 32 | document, sorted, best score first.
            var keyed: [Int64] = []
            keyed.reserveCapacity(list.count)
            for (doc, tf) in list { keyed.append(Int64(Int32.max - grid(idf * tf * (s.k1 + 1) / (tf + norms[doc]))) << 32 | Int64(doc)) }
            keyed.sort()
            return ScoredTerm(term: term.key, list: Self.packedPostings(keyed), documents: list.count, primary: primary.contains(term.key))
        }
        scored.sort { Self.byteOrder($0.term, $1.term) }
        return scored
    }

    /// A term's postings as written: the number G of distinct scores, the scores best first, then each document in
    /// document order as one number, (its gap from the document before, less one) × G + its score's rank (0 the best).
    /// One number per document: on the 100k catalog 12 % less gzip than groups of equal score with their documents as
    /// gaps (each group's gaps start again from 0 and are longer). Made here from a list in document order and each
    /// posting's grid step (`ScoreGrid.step`; `range`: from the lowest step to the highest), with no sort. (Steps are
    /// looked at within `range` only: most terms of a real catalog have a few postings, and 1,024 grid points per
    /// term cost more than their postings.)
    static func packedPostings(_ list: [(Int, Double)], steps: [Int32], range: ClosedRange<Int>, points: [Int32]) -> [Int32] {
        if range.count == 1 {
            // One score (most terms: a few postings): G = 1, each document its gap less one.
            var flat: [Int32] = [1, points[range.lowerBound]]
            flat.reserveCapacity(2 + list.count)
            var previous = -1
            for (doc, _) in list { flat.append(Int32(doc - previous - 1)); previous = doc }
            return flat
        }
        var seen = [Bool](repeating: false, count: range.count)
        for k in steps { seen[Int(k) - range.lowerBound] = true }
        var scores: [Int32] = []
        var rank = [Int32](repeating: 0, count: range.count)
        for k in range.reversed() where seen[k - range.lowerBound] {
            // (Neighbouring steps may round to the same score: one rank.)
            if scores.last != points[k] { scores.append(points[k]) }
            rank[k - range.lowerBound] = Int32(scores.count - 1)
        }
        let g = scores.count
        var flat: [Int32] = [Int32(g)] + scores
        flat.reserveCapacity(1 + g + list.count)
        var previous = -1
        for (i, (doc, _)) in list.enumerated() {
            flat.append(Int32((doc - previous - 1) * g) + rank[Int(steps[i]) - range.lowerBound])
            previous = doc
        }
        return flat
    }

    /// The same numbers from sorted `(Int32.max − score) << 32 | document` keys: for scores past the grid's points (a
    /// `scoreStep` so small that 1,024 points stop below them).
    static func packedPostings(_ keyed: [Int64]) -> [Int32] {
        var scores: [Int32] = []
        var docs: [Int64] = []   // document << 16 | rank, sorted by document below
        docs.reserveCapacity(keyed.count)
        var lastHigh: Int64 = -1
        for x in keyed {
            let high = x >> 32
            if high != lastHigh { scores.append(Int32.max - Int32(high)); lastHigh = high }
            docs.append(Int64(Int32(truncatingIfNeeded: x)) << 16 | Int64(scores.count - 1))
        }
        docs.sort()
        let g = Int64(max(1, scores.count))
        var flat: [Int32] = [Int32(scores.count)] + scores
        flat.reserveCapacity(1 + scores.count + docs.count)
        var previous: Int64 = -1
        for x in docs {
            let doc = x >> 16
            flat.append(Int32((doc - previous - 1) * g + (x & 0xFFFF)))
            previous = doc
        }
        return flat
    }

    /// Term shards by term range, each about `termShardBytes` (a longer list gets a shard of its own), written as text
    /// (millions of postings: no JSON value per number); each list is released once written. The files, and each one's
    /// entry in the term tree: `[first term, name]` (a shard holds the terms from its first to the next one's first).
    func termShards(_ scored: inout [ScoredTerm], folder: String) -> (files: [(path: String, text: [UInt8])], entries: [JSON]) {
        var files: [(path: String, text: [UInt8])] = []
        var entries: [JSON] = []
        var i = 0
        while i < scored.count {
            let shardStart = i
            var bytes = 0
            while i < scored.count {
                let cost = scored[i].term.utf8.count + 4 + scored[i].list.count * 3   // (as numbers: the shards keep their ranges)
                if i > shardStart && bytes + cost > settings.termShardBytes { break }
                bytes += cost; i += 1
            }
            let text = Self.termShardText(&scored, shardStart..<i, capacity: bytes + 64)
            let name = Self.contentName(text)
            files.append(("\(folder)/terms/\(name).json", text))
            entries.append(.array([.string(scored[shardStart].term), .string(name)]))
        }
        return (files, entries)
    }

    /// The text of the term shard of `scored[shard]`: `{"terms":[…],"postings":["…",…]}`; the lists are released as
    /// they are written.
    static func termShardText(_ scored: inout [ScoredTerm], _ shard: Range<Int>, capacity: Int) -> [UInt8] {
        let t = JSONStream(capacity: capacity)
        t.beginObject()
        t.key("terms"); t.beginArray(); for k in shard { t.string(scored[k].term) }; t.endArray()
        t.key("postings"); t.beginArray()
        var text: [UInt8] = []
        for k in shard {
            // One string per list (`PostingText`): a sixth less gzip than JSON numbers.
            text.removeAll(keepingCapacity: true)
            for v in scored[k].list { PostingText.append(Int(v), to: &text) }
            t.string(utf8: text.span)
            scored[k].list = []   // written: released
        }
        t.endArray()
        // Terms found in no document's first field (brand or category words): their numbers in this shard.
        t.key("secondary"); t.beginArray(); for k in shard where !scored[k].primary { t.int(k - shard.lowerBound) }; t.endArray()
        t.endObject()
        return t.bytes
    }

    /// Vocabulary files by term length, for one-typo candidates (a term within one edit has length L−1, L or L+1), and
    /// the file that lists them (`lengths/{hash}.json`: `{"files":[{length, path}…]}`): the files, and the meta file's
    /// `vocabulary`, the list's path. (Only a typo reads the list: in the meta file it cost every query 0.4 KB gzip.)
    static func vocabulary(_ scored: [ScoredTerm], folder: String) throws -> (files: [(path: String, text: [UInt8])], list: String) {
        var byLength: [Int: [String]] = [:]
        for e in scored where e.term.count >= Query.typoMinimumLength - 1 { byLength[e.term.count, default: []].append(e.term) }
        var files: [(path: String, text: [UInt8])] = []
        var entries: [JSON] = []
        for (len, terms) in byLength.sorted(by: { $0.key < $1.key }) {
            let text = try JSONWriter().bytes(.obj(["length": .int(len), "terms": .strings(terms)]))
            let path = "\(folder)/vocab/\(len)-\(contentName(text)).json"
            files.append((path, text))
            entries.append(.obj(["length": .int(len), "path": .string(path)]))
        }
        let text = try JSONWriter().bytes(.obj(["files": .array(entries)]))
        let list = "\(folder)/lengths/\(contentName(text)).json"
        files.append((list, text))
        return (files, list)
    }

    public struct Terms: Sendable {
        /// The files' text; empty for terms read from an earlier meta file (their files are kept where they are).
        public var files: [(path: String, text: [UInt8])]
        public var count: Int
        /// The meta file's `termShards` (the term tree) and `vocabulary`.
        public var shards: JSON, vocabulary: JSON
        /// Every term shard, term directory and vocabulary file.
        public var paths: [String]
        /// The term tree's cuts (`DirectoryTree.shape`) and the text of each term shard in order: what facet columns
        /// are made from (`columns`).
        var shape: [[Int]]
        var shardTexts: [[UInt8]]

        /// The terms an earlier meta file of this builder lists (an index in `folder`), its term directories and shards
        /// read through `read`; nil when it does not list them as this builder writes.
        public init?(meta: JSON, folder: String, read: (String) -> [UInt8]?) {
            guard meta["format"]?.intValue == RankedIndexBuilder.format, let count = meta["terms"]?.intValue, let shards = meta["termShards"],
                  let vocabulary = meta["vocabulary"], let list = vocabulary.stringValue, let listText = read(list),
                  let v = (try? JSONReader.parse(listText))?["files"]?.arrayValue,
                  let levels = shards["levels"]?.intValue, let top = shards["entries"]?.arrayValue,
                  v.allSatisfy({ $0["path"]?.stringValue != nil && $0["length"]?.intValue != nil }) else { return nil }
            var paths: [String] = [], entries = top, shape: [[Int]] = [], texts: [[UInt8]] = []
            for _ in 0..<levels {
                var below: [JSON] = [], sizes: [Int] = []
                for e in entries {
                    guard let name = e[1]?.stringValue, case let p = "\(folder)/termdirs/\(name).json", let bytes = read(p),
                          let j = try? JSONReader.parse(bytes), let list = j["entries"]?.arrayValue else { return nil }
                    paths.append(p); below += list; sizes.append(list.count)
                }
                entries = below
                shape.insert(sizes, at: 0)   // read top down, kept bottom up
            }
            for e in entries {
                guard let name = e[1]?.stringValue, case let p = "\(folder)/terms/\(name).json", let text = read(p) else { return nil }
                paths.append(p); texts.append(text)
            }
            self.files = []; self.count = count; self.shards = shards; self.vocabulary = vocabulary
            self.paths = paths + v.compactMap { $0["path"]?.stringValue } + [list]
            self.shape = shape; self.shardTexts = texts
        }
        init(files: [(path: String, text: [UInt8])], count: Int, shards: JSON, vocabulary: JSON, paths: [String], shape: [[Int]],
             shardTexts: [[UInt8]]) {
            self.files = files; self.count = count; self.shards = shards; self.vocabulary = vocabulary; self.paths = paths
            self.shape = shape; self.shardTexts = shardTexts
        }
    }


    /// One chunk's terms, numbered in order of appearance, with their postings and the documents' lengths.
    /// (A struct, not closures over local variables: those are boxed and every access is checked at run time.)
    struct ChunkTerms {
        var numbers: [String: Int32] = [:], words: [String] = [], lists: [[(Int, Double)]] = [], primary: [Bool] = []
        var lengths: [Double] = []
        private var tf: [Double] = [], mark: [Int] = []
        private var tokens = TokenTable<[Int32]>()
        private var touched: [Int32] = []

        mutating func number(_ t: String) -> Int32 {
            if let n = numbers[t] { return n }
            let n = Int32(words.count)
            numbers[t] = n; words.append(t); lists.append([]); tf.append(0); mark.append(-1); primary.append(false)
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
                // The first field's terms (a product's name) are primary: a prefix reaching them weighs more.
                if seen.isEmpty { for t in ts { primary[Int(t)] = true } }
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
}
