import Foundation
import Schemas

/// One searchable product as the catalog design document's SearchIndex lists it.
public struct SearchDocument: Sendable {
    public var id: String
    public var name: String
    public var brand: String
    public var category: String
    public var description: String
    public var price: JSONNumber?
    public var rating: Double?
    public var imageUrl: String
    /// False when `brand` / `category` is a stand-in (e.g. "Unbranded") rather than a word of the data: the compact
    /// index does not index it, since every product without a brand would match a query for it.
    public var brandIsSearchable: Bool
    public var categoryIsSearchable: Bool

    public init(id: String, name: String, brand: String, category: String, description: String,
                price: JSONNumber?, rating: Double?, imageUrl: String,
                brandIsSearchable: Bool = true, categoryIsSearchable: Bool = true) {
        self.id = id; self.name = name; self.brand = brand; self.category = category
        self.description = description; self.price = price; self.rating = rating; self.imageUrl = imageUrl
        self.brandIsSearchable = brandIsSearchable; self.categoryIsSearchable = categoryIsSearchable
    }
}

/// `search-index.json` and `search-index-compact.json` in the design document's SearchIndex shape. Its
/// SearchManager lowercases the query, splits it on spaces and unions `keywords[token]`, so the keys hold:
///
/// - full: every space-separated word of name, brand and category as typed (lowercased), the same without
///   surrounding punctuation, their folded and stemmed forms, and the terms of the description; each product
///   lists the keys it is indexed under as its `keywords`;
/// - compact: only the words that client can send and that tell products apart: the space-separated words of name,
///   brand and category without surrounding punctuation, leaving out stop words, single characters, unit
///   abbreviations ("in", "ft", "gal"), numbers and measurements ("12", "1/2-in", "2-pack") and stand-in brand or
///   category names; no per-product keyword lists, no image URLs (an app shows the image from the product's
///   detail page), ratings at display precision (one decimal), and empty `categories` and `brands` maps (the
///   design document's SearchManager reads only `keywords` and `products`, whose entries carry brand and category).
///   Under the client's union semantics the left-out words mostly add noise: "dewalt drill 20" would also list
///   every product with a bare "20" in its name.
public enum SeedIndex {
    /// The index as text, straight into `out` (no `JSON` value: the full index of 100,000 products holds 12 million).
    /// `order`: the documents' order in the index, as positions in `docs` (default: as given); a permutation is
    /// cheaper than a reordered copy of the documents.
    /// The fragments of an index (see `FragmentReuse`): one per product entry (keyed by the document's position in
    /// `docs`), and the tail (the keyword, category and brand maps together), whose key must change whenever any
    /// document's id, name, brand, category, description or searchability changes, or their order.
    public struct Fragments: Sendable {
        public typealias Key = FragmentKey
        public var entryKeys: [Key]
        public var tailKey: Key
        public var reuse: FragmentReuse
        /// The entries' order when it is not the documents' (recorded for the next build, see `reusableOrder`).
        public var order: [Int]? {
            didSet { reuse.order = order.map { $0.map(Int32.init) } ?? [] }
        }
        public init(entryKeys: [Key], tailKey: Key, reuse: FragmentReuse) {
            self.entryKeys = entryKeys; self.tailKey = tailKey; self.reuse = reuse
        }

        /// The earlier file's entry order, usable when its tail (whose key covers every document's text, which decides
        /// the order) is reused and the order is a permutation of these documents; nil otherwise.
        public var reusableOrder: [Int]? {
            let old = reuse.earlierOrder
            guard reuse.has(tailKey), old.count == entryKeys.count else { return nil }
            var seen = [Bool](repeating: false, count: old.count)
            for p in old {
                guard p >= 0, Int(p) < old.count, !seen[Int(p)] else { return nil }
                seen[Int(p)] = true
            }
            return old.map(Int.init)
        }
    }

    /// The names of the parts of an index a splice renders (`FragmentReuse.renderedRanges`): a product entry, or the
    /// head (everything before the products).
    public static let entryFragment = "product", headFragment = "head"

    /// With `fragments` of an earlier file: the index is spliced when it can be (see `splice`) — each entry copied from
    /// the earlier file when its key is there, else written; the maps copied whole when no text changed, else edited.
    /// Otherwise it is written whole, and every fragment recorded for the next build.
    public static func write(_ docs: [SearchDocument], order: [Int]? = nil, version: String, generatedAt: String, compact: Bool,
                             threads: Int = 1, fragments: Fragments?, to out: JSONStream) throws {
        guard let f = fragments else {
            return try write(docs, order: order, version: version, generatedAt: generatedAt, compact: compact, threads: threads, to: out)
        }
        precondition(f.entryKeys.count == docs.count, "one entry key per document")
        if try splice(count: docs.count, document: { docs[$0] }, order: order, version: version, generatedAt: generatedAt,
                      compact: compact, fragments: f, to: out) { return }
        try write(docs, order: order, version: version, generatedAt: generatedAt, compact: compact, threads: threads, recording: f, to: out)
    }

    /// The index spliced from the earlier file: each entry copied when its key is in the earlier file, else made by
    /// `document(i)` (the i-th document, asked only for these) and written; the maps copied whole when their key is
    /// there (no searchable text changed), else edited for the entries added and dropped (see `MapSplice`), when they
    /// are few (`mapSpliceLimit`). Runs of entries that lay side by side in the earlier file are copied as one.
    /// `ids`: the documents' numbers by id (asked only when maps are edited; else a table is made from `document`,
    /// asked for each then).
    /// False, with nothing written, when the index is better written whole.
    public static func splice(count: Int, document: (Int) -> SearchDocument, ids: IdPositions? = nil, order: [Int]? = nil,
                              version: String, generatedAt: String, compact: Bool, fragments f: Fragments,
                              to out: JSONStream) throws -> Bool {
        precondition(f.entryKeys.count == count, "one entry key per document")
        guard !f.reuse.isEmpty else { return false }
        var entries = EntryMaker(compact: compact)
        // With maps to edit (a few entries, see `mapSpliceLimit`), the entries to make are made first: their keys
        // decide the maps' edits, worked out before anything is written. Otherwise each is made where it is written
        // (a price change to every product makes 100,000 of them).
        var made = MadeEntries()
        var mapWriter: MapSplice.Writer?
        if !f.reuse.has(f.tailKey) {
            // The entries to make: positions in the index whose keys the earlier file does not have.
            made.positions = (0..<count).filter { !f.reuse.has(f.entryKeys[order?[$0] ?? $0]) }
            guard let maps = try mapSplice(made: made.positions.count, fragments: f) else { return false }
            try made.make(document: document, order: order, with: &entries)
            guard let w = try plan(maps, adding: made.additions, count: count, document: document, ids: ids, order: order) else {
                return false
            }
            mapWriter = w   // (and `maps`, the earlier maps' text, let go before the new file grows)
        }
        let headStart = out.count
        writeHead(count, version: version, generatedAt: generatedAt, to: out)
        f.reuse.wroteRendered(headFragment, headStart..<out.count)
        try spliceProducts(count: count, document: document, order: order, made: made, entries: &entries, fragments: f, to: out)
        try spliceMaps(mapWriter, fragments: f, to: out)
        out.endObject()
        return true
    }

    /// Writes product entries one at a time, keeping what they share from one to the next (the keys of each brand,
    /// category and token, the words' numbers).
    struct EntryMaker {
        let compact: Bool
        var memo = FieldKeys()
        var words = Vocabulary()
        /// The last entry's text.
        let scratch = JSONStream(capacity: 1024)

        init(compact: Bool) { self.compact = compact }

        /// Makes `d`'s entry in `scratch`; returns the numbers of its keys (see `entry`).
        mutating func make(_ d: borrowing SearchDocument) throws -> [Int32] {
            scratch.reset()
            return try SeedIndex.entry(d, compact: compact, memo: &memo, words: &words, to: scratch)
        }

        /// Writes `d`'s entry to `out`; returns its length.
        mutating func write(_ d: borrowing SearchDocument, to out: JSONStream) throws -> Int {
            _ = try make(d)
            scratch.withSpan { out.raw($0) }
            return scratch.count
        }
    }

    /// The entries a splice makes before it writes anything (when it edits the maps): their positions in the index,
    /// their text, and the ids each adds to the keyword, category and brand maps' lists.
    struct MadeEntries {
        var positions: [Int] = []
        var texts: [[UInt8]] = []
        var additions: [[MapSplice.Addition]] = [[], [], []]

        /// Makes the entries at `positions` (document `order[k]` for position `k`).
        mutating func make(document: (Int) -> SearchDocument, order: [Int]?, with entries: inout EntryMaker) throws {
            let keyText = JSONStream(capacity: 64)
            func text(_ s: String) -> [UInt8] { keyText.reset(); keyText.string(s); return keyText.bytes }
            for k in positions {
                let d = document(order?[k] ?? k)
                let keys = try entries.make(d)
                texts.append(entries.scratch.bytes)
                let id = text(d.id)
                for n in keys {
                    let word = entries.words.words[Int(n)]
                    additions[0].append(.init(keyText: text(word), key: word, position: k, id: id))
                }
                if !entries.compact {
                    additions[1].append(.init(keyText: text(d.category), key: d.category, position: k, id: id))
                    additions[2].append(.init(keyText: text(d.brand), key: d.brand, position: k, id: id))
                }
            }
        }
    }

    /// The maps' edits for the entries made, worked out before anything is written; nil when a list holds an id the
    /// new index does not have (the index is then written whole).
    static func plan(_ maps: MapSplice, adding additions: [[MapSplice.Addition]], count: Int, document: (Int) -> SearchDocument,
                     ids: IdPositions?, order: [Int]?) throws -> MapSplice.Writer? {
        // Each id's position in the index, looked up only to place an id in a list: the document's number (from the
        // caller's table, else one made here from the documents), then its place in `order`.
        // (A table made here lives only while the maps are planned.)
        do {
            return try withoutActuallyEscaping(document) { document in
                let ids = ids ?? IdPositions(count: count, idBytes: { k, body in document(k).id.withUTF8Span(body) })
                var places: [Int]?
                func position(_ of: String) -> Int? {
                    guard let i = ids.position(of), i < count else { return nil }
                    guard let order else { return i }
                    if places == nil {
                        var p = [Int](repeating: 0, count: count)
                        for (k, i) in order.enumerated() { p[i] = k }
                        places = p
                    }
                    return places![i]
                }
                return maps.writer(try maps.plan(adding: additions, position: position))
            }
        } catch is SpliceFailed { return nil }
    }

    /// The products array: runs of entries the earlier file has side by side, copied as one; the others written (taken
    /// from `made` when it has them, else made here).
    static func spliceProducts(count: Int, document: (Int) -> SearchDocument, order: [Int]?, made: MadeEntries,
                               entries: inout EntryMaker, fragments f: Fragments, to out: JSONStream) throws {
        out.key("products"); out.beginArray()
        var run = FragmentReuse.Run()
        var next = 0
        for k in 0..<count {
            let key = f.entryKeys[order?[k] ?? k]
            if f.reuse.extend(&run, with: key) { continue }
            try f.reuse.copy(&run, to: out)
            if f.reuse.extend(&run, with: key) { continue }
            let length: Int
            if made.texts.isEmpty {
                length = try entries.write(document(order?[k] ?? k), to: out)
            } else {
                precondition(made.positions[next] == k, "an entry to make was not made")
                out.raw(made.texts[next])
                length = made.texts[next].count
            }
            let r = (out.count - length)..<out.count
            next += 1
            f.reuse.wrote(key, r, copied: false)
            f.reuse.wroteRendered(entryFragment, r)
        }
        try f.reuse.copy(&run, to: out)
        out.endArray()
    }

    /// The maps after the products: edited as planned, or copied whole from the earlier file (no searchable text
    /// changed).
    static func spliceMaps(_ mapWriter: MapSplice.Writer?, fragments f: Fragments, to out: JSONStream) throws {
        if let mapWriter, let earlier = f.reuse.earlierLast {
            let tailStart = out.count + 1   // (after the comma that ends the products)
            let layouts = try mapWriter.write(to: out, copy: { r in try f.reuse.copyEarlier((earlier.lowerBound + r.lowerBound)..<(earlier.lowerBound + r.upperBound), to: out) },
                                              rendered: { f.reuse.wroteRendered(memberFragment, $0) })
            // (The earlier maps' places, from the earlier file's start.)
            for (old, new) in layouts { f.reuse.wroteObject(old: old.shifted(by: earlier.lowerBound), new: new) }
            f.reuse.wrote(f.tailKey, tailStart..<out.count, copied: false)
        } else {
            guard let n = try f.reuse.copy(f.tailKey, to: out) else { throw FragmentReuse.Unreadable() }
            f.reuse.wrote(f.tailKey, (out.count - n)..<out.count, copied: true)
        }
    }

    /// The earlier maps, ready to be edited for `made` new entries and the entries the earlier file had and this one
    /// drops (their ids read from their earlier text); nil when that is more than `mapSpliceLimit` entries, or the
    /// earlier text is not as the writer makes it.
    static func mapSplice(made: Int, fragments f: Fragments) throws -> MapSplice? {
        guard made <= mapSpliceLimit, let tail = f.reuse.earlierLast else { return nil }
        // (Entries kept are the new file's but the made ones: the earlier file had more only when it had some dropped.)
        let kept = f.entryKeys.count - made
        let dropped = f.reuse.earlierCount - 1 == kept ? [] : f.reuse.earlierRanges(notIn: Set(f.entryKeys))
        guard made + dropped.count <= mapSpliceLimit else { return nil }
        // An entry starts with its id: {"id":"…",
        let head = Array(#"{"id":"#.utf8)
        var ids: [[UInt8]] = []
        for r in dropped {
            let text = try f.reuse.earlierBytes(r)
            guard text.starts(with: head), let end = JSONText.stringEnd(text, from: head.count) else { return nil }
            ids.append(Array(text[head.count..<end]))
        }
        return MapSplice(tail: try f.reuse.earlierBytes(tail), dropped: ids)
    }

    static func writeHead(_ count: Int, version: String, generatedAt: String, to out: JSONStream) {
        out.beginObject()
        out.key("version"); out.string(version)
        out.key("generatedAt"); out.string(generatedAt)
        out.key("totalProducts"); out.int(count)
    }

    public static func write(_ docs: [SearchDocument], order: [Int]? = nil, version: String, generatedAt: String, compact: Bool,
                             threads: Int = 1, to out: JSONStream) throws {
        try write(docs, order: order, version: version, generatedAt: generatedAt, compact: compact, threads: threads,
                  recording: nil, to: out)
    }

    /// The whole index, written; with `recording`, each entry's and the tail's place in it is noted.
    static func write(_ docs: [SearchDocument], order: [Int]?, version: String, generatedAt: String, compact: Bool,
                      threads: Int, recording: Fragments?, to out: JSONStream) throws {
        let at = order ?? Array(docs.indices)
        precondition(at.count == docs.count, "order must list every document once")
        let chunks = entryChunks(docs, at: at, compact: compact, threads: threads, recordingEnds: recording != nil)
        let keywords = keywordLists(chunks)
        let ids = IdTexts(docs, at: at)
        var categories: [String: [Int]] = [:], brands: [String: [Int]] = [:]
        for i in docs.indices where !compact {
            categories[docs[at[i]].category, default: []].append(i)
            brands[docs[at[i]].brand, default: []].append(i)
        }
        writeHead(docs.count, version: version, generatedAt: generatedAt, to: out)
        try writeProducts(chunks, at: at, recording: recording, to: out)
        let tailStart = out.count + 1   // (after the comma that ends the products)
        out.key("keywords"); ids.writeMap(keywords, threads: threads, to: out)
        out.key("categories"); ids.writeMap(categories, threads: threads, to: out)
        out.key("brands"); ids.writeMap(brands, threads: threads, to: out)
        if let f = recording { f.reuse.wrote(f.tailKey, tailStart..<out.count, copied: false) }
        out.endObject()
    }

    /// A chunk of consecutive products' entries: their text, where each ends (when recorded), and the chunk's words
    /// (see `Vocabulary`) with the products indexed under each.
    struct EntryChunk {
        var words: Vocabulary
        var entries: Result<JSONStream, Error>
        var ends: [Int]
    }

    /// Each product's entry text and keys, in parallel chunks (index positions; position `i` is document `at[i]`).
    static func entryChunks(_ docs: [SearchDocument], at: [Int], compact: Bool, threads: Int, recordingEnds: Bool) -> [EntryChunk] {
        Chunks.partials(docs.count, threads: threads, perThread: 2) { range -> EntryChunk in
            var words = Vocabulary()
            var memo = FieldKeys()
            let text = JSONStream(capacity: range.count * 256)
            var ends: [Int] = []
            if recordingEnds { ends.reserveCapacity(range.count) }
            let written = Result<JSONStream, Error> {
                for i in range {
                    for k in try entry(docs[at[i]], compact: compact, memo: &memo, words: &words, to: text) { words.postings[Int(k)].append(i) }
                    if recordingEnds { ends.append(text.count) }
                }
                return text
            }
            return EntryChunk(words: words, entries: written, ends: ends)
        }
    }

    /// The keyword map's lists: the chunks' words joined in chunk order, so every list stays in product order whatever
    /// the thread count.
    static func keywordLists(_ chunks: [EntryChunk]) -> [String: [Int]] {
        var keywordIds: [String: [Int]] = [:]
        for p in chunks {
            for (k, w) in p.words.words.enumerated() where !p.words.postings[k].isEmpty { keywordIds[w, default: []] += p.words.postings[k] }
        }
        return keywordIds
    }

    /// The products array, from the chunks' text; with `recording`, each entry's place in `out`.
    static func writeProducts(_ chunks: [EntryChunk], at: [Int], recording: Fragments?, to out: JSONStream) throws {
        out.key("products"); out.beginArray()
        var k = 0
        for p in chunks {
            let entries = try p.entries.get()
            guard entries.count > 0 else { continue }
            entries.withSpan { out.raw($0) }
            if let f = recording {
                // Entry j of the chunk ends at ends[j] (chunk offsets) and starts after the comma that ends the one before.
                let base = out.count - entries.count
                var start = base
                for end in p.ends {
                    f.reuse.wrote(f.entryKeys[at[k]], start..<(base + end), copied: false)
                    start = base + end + 1
                    k += 1
                }
            }
        }
        out.endArray()
    }

    /// Each product's id as JSON text once, all in one buffer (the id at index position `i` is
    /// `text[starts[i]..<starts[i + 1] - 1]`): the maps repeat every id a hundred times, and an array per id would be
    /// retained and released at each use, by two threads at once.
    struct IdTexts {
        let text: ContiguousArray<UInt8>
        let starts: [Int]

        init(_ docs: [SearchDocument], at: [Int]) {
            let stream = JSONStream(capacity: docs.count * 16)
            var starts = [0]
            starts.reserveCapacity(docs.count + 1)
            for i in docs.indices { stream.string(docs[at[i]].id); starts.append(stream.count + 1) }   // (+1: the comma between)
            text = ContiguousArray(stream.bytes)
            self.starts = starts
        }

        /// A map from words to lists of products, as an object of arrays of ids.
        func writeMap(_ m: [String: [Int]], threads: Int, to out: JSONStream) {
            // Keys in the order of their first product (then by name), not alphabetically: the words of one product
            // sit together and their lists start alike, which gzip turns into back-references (real corpus: compact
            // −4.4 %, full −2.9 % gzip). A client reads the maps as dictionaries, so the order is free.
            let keys = m.keys.map { ($0, m[$0]![0]) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.map(\.0)
            let chunks = Chunks.partials(keys.count, threads: threads) { range -> [UInt8] in
                let t = JSONStream(capacity: range.count * 64)
                let ids = text.span
                for k in keys[range] {
                    t.key(k); t.beginArray()
                    for i in m[k]! { t.raw(ids.extracting(starts[i]..<starts[i + 1] - 1)) }
                    t.endArray()
                }
                return t.bytes
            }
            out.beginObject()
            for c in chunks where !c.isEmpty { out.raw(c) }
            out.endObject()
        }
    }

    /// The index as a `JSON` value (tests and tools; the build streams it with `write`).
    public static func build(_ docs: [SearchDocument], version: String, generatedAt: String, compact: Bool, threads: Int = 1) throws -> JSON {
        let out = JSONStream()
        try write(docs, version: version, generatedAt: generatedAt, compact: compact, threads: threads, to: out)
        return try out.withSpan { try JSONReader.parse($0) }
    }

    /// The words of one chunk, numbered in order of appearance, with the products indexed under each: a product's
    /// keys are collected as numbers (sorted and deduplicated as integers), so each word is hashed once per chunk
    /// rather than once per product.
    struct Vocabulary {
        var numbers: [String: Int32] = [:]
        var words: [String] = []
        var postings: [[Int]] = []
        /// The number of the empty word, once seen (never a key).
        private(set) var empty: Int32?
        /// Each word's UTF-8 and its JSON text, back to back (word k: `utf8[utf8Starts[k]..<utf8Starts[k + 1]]`, the
        /// same with `json`): an entry lists its keywords by copying their text (not escaping each word again),
        /// sorted by comparing bytes where both words are ASCII (String order is byte order there).
        private var utf8: ContiguousArray<UInt8> = [], utf8Starts: [Int] = [0]
        private var json: ContiguousArray<UInt8> = [], jsonStarts: [Int] = [0]
        private var isASCII: [Bool] = []
        private let scratch = JSONStream(capacity: 64)

        mutating func number(_ word: String) -> Int32 {
            if let n = numbers[word] { return n }
            let n = Int32(words.count)
            // Kept in one spelling, NFC: Strings equal as Swift compares them ("é" composed or not) are one word, and
            // which spelling a chunk of products met first must not decide the bytes (nor a splice's, see `MapSplice`).
            let ascii = word.utf8.allSatisfy { $0 < 0x80 }
            let w = ascii ? word : word.precomposedStringWithCanonicalMapping
            numbers[w] = n; words.append(w); postings.append([])
            utf8 += w.utf8; utf8Starts.append(utf8.count)
            scratch.reset(); scratch.string(w); json += scratch.bytes; jsonStarts.append(json.count)
            isASCII.append(ascii)
            if w.isEmpty { empty = n }
            return n
        }
        mutating func numbers<S: Sequence<String>>(_ ws: S) -> [Int32] { ws.map { number($0) } }

        /// Whether word `a` sorts before word `b` as Strings do (`<`).
        func precedes(_ a: Int32, _ b: Int32) -> Bool {
            let i = Int(a), j = Int(b)
            guard isASCII[i] && isASCII[j] else { return words[i] < words[j] }
            let sa = utf8Starts[i], la = utf8Starts[i + 1] - sa, sb = utf8Starts[j], lb = utf8Starts[j + 1] - sb
            let bytes = utf8.span
            for k in 0..<min(la, lb) {
                let x = bytes[sa + k], y = bytes[sb + k]
                if x != y { return x < y }
            }
            return la < lb
        }

        /// Writes word `k` as a JSON string (array element) to `out`.
        func write(_ k: Int32, to out: JSONStream) {
            let k = Int(k)
            out.raw(json.span.extracting(jsonStarts[k]..<jsonStarts[k + 1]))
        }
    }

    /// The keys of a brand or category text, computed once per distinct text (a catalog has far fewer brands and
    /// categories than products), and of each space-separated token of ASCII names and descriptions (a word never
    /// spans a space, see `TermMemo`).
    struct FieldKeys {
        var full: [String: [Int32]] = [:]
        var compact: [String: [Int32]] = [:]
        var fullTokens = TokenTable<[Int32]>()
        var compactTokens = TokenTable<[Int32]>()
        var descriptionTokens = TokenTable<[Int32]>()
    }

    /// Writes the product's entry and returns the numbers of the keys it is indexed under.
    // (`borrowing`: the document is read in place; a copy would retain its six strings, and both indexes read the
    // same documents on two threads at once.)
    static func entry(_ d: borrowing SearchDocument, compact: Bool, memo: inout FieldKeys, words: inout Vocabulary,
                      to out: JSONStream) throws -> [Int32] {
        var keys: [Int32] = []
        if compact {
            if !TermMemo.perToken(d.name, &memo.compactTokens, into: &keys, { words.numbers(compactWords($0).filter(isDistinguishing)) }) {
                keys = words.numbers(compactWords(d.name).filter(isDistinguishing))
            }
            func add(_ text: String) {
                if let known = memo.compact[text] { keys += known; return }
                let found = words.numbers(compactWords(text).filter(isDistinguishing))
                memo.compact[text] = found
                keys += found
            }
            if d.brandIsSearchable { add(d.brand) }
            if d.categoryIsSearchable { add(d.category) }
            // A name made only of left-out words still finds its product.
            if keys.isEmpty { keys = words.numbers(compactWords(d.name)) }
        } else {
            if !TermMemo.perToken(d.name, &memo.fullTokens, into: &keys, { words.numbers(fullKeys($0)) }) {
                keys = words.numbers(fullKeys(d.name))
            }
            func add(_ text: String) {
                if let known = memo.full[text] { keys += known; return }
                let found = words.numbers(fullKeys(text))
                memo.full[text] = found
                keys += found
            }
            add(d.brand)
            add(d.category)
            // The description's terms; a description that repeats the name adds none (its terms are among the name's
            // words and stems), and in the real corpus every description does.
            if d.description != d.name {
                if !TermMemo.perToken(d.description, &memo.descriptionTokens, into: &keys, { words.numbers(Analyzer.terms($0)) }) {
                    keys += words.numbers(Analyzer.terms(d.description))
                }
            }
        }
        // Each key once, never the empty word.
        keys.sort()
        var unique: [Int32] = []
        unique.reserveCapacity(keys.count)
        let empty = words.empty
        for k in keys where k != unique.last && k != empty { unique.append(k) }
        out.beginObject()
        out.key("id"); out.string(d.id)
        out.key("name"); out.string(d.name)
        out.key("brand"); out.string(d.brand)
        out.key("category"); out.string(d.category)
        out.key("price"); if let p = d.price { try out.number(p) } else { out.null() }
        out.key("rating"); try out.double(d.rating.map { compact ? ($0 * 10).rounded() / 10 : $0 })
        // A product lists exactly the keys it is indexed under (the full index only).
        out.key("keywords"); out.beginArray()
        if !compact { for k in unique.sorted(by: { words.precedes($0, $1) }) { words.write(k, to: out) } }
        out.endArray()
        out.key("imageUrl"); out.string(compact ? "" : d.imageUrl)
        out.endObject()
        return unique
    }

    /// The full index's keys of a name, brand or category: its words as the client can send them (lowercased, with
    /// and without surrounding punctuation) and its analysed words and their stems (two characters or more).
    static func fullKeys(_ text: String) -> Set<String> {
        var keys = clientWords(text)
        for w in Analyzer.words(text) {
            if w.count >= Analyzer.minimumLength { keys.insert(w) }
            let s = Analyzer.stem(w)
            if s.count >= Analyzer.minimumLength { keys.insert(s) }
        }
        return keys
    }

    /// Category or brand names that only say "no particular one" ("Other", "Misc"): like "Uncategorized", every
    /// product filed under them would match a query for the word, so the compact index does not index them.
    public static func isStandInName(_ name: String) -> Bool {
        standInNames.contains(name.trimmingCharacters(in: .whitespaces).lowercased())
    }
    static let standInNames: Set<String> = ["other", "others", "misc", "misc.", "miscellaneous", "general", "n/a", "none"]

    /// Unit abbreviations of product names: on their own they match most of a catalog.
    static let unitWords: Set<String> = [
        "in", "ft", "cu", "sq", "yd", "mm", "cm", "gal", "qt", "oz", "lb", "lbs", "ah", "hp", "btu", "amp", "amps",
        "volt", "watt", "psi", "gpm", "cfm", "rpm", "pc", "pk", "ct",
    ]

    /// Whether a compact-index word tells products apart: not a unit, and not a number or a measurement (a word that
    /// starts with a digit and is all digits, holds punctuation, or ends in a unit: "12", "1/2", "2-pack", "1,000",
    /// "12in").
    /// Model-like words ("20v", "m18", "dcd771c2") stay.
    /// A number fused with a unit ("12in", "5ah", "6000psi") is a measurement too, as "1.3ah" and "12" are.
    static func isDistinguishing(_ w: String) -> Bool {
        if unitWords.contains(w) { return false }
        guard let first = w.utf8.first, first >= 0x30 && first <= 0x39 else { return true }
        let unit = String(decoding: w.utf8.drop { $0 >= 0x30 && $0 <= 0x39 }, as: UTF8.self)
        return !unit.isEmpty && !unitWords.contains(unit) && w.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) }
    }

    static let trimSet = CharacterSet.punctuationCharacters.union(.symbols)

    /// What the design document's client can look up for a text: its space-separated words, lowercased, as typed
    /// and without surrounding punctuation ("drill," → "drill,", "drill").
    public static func clientWords(_ text: String) -> Set<String> {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return asciiWords(text, raw: true, compact: false) }
        return foundationWords(text, compact: false)
    }

    /// The general path (any Unicode text), with Foundation's punctuation and symbol sets.
    static func foundationWords(_ text: String, compact: Bool) -> Set<String> {
        if compact {
            var out = Set<String>()
            for w in text.lowercased().split(separator: " ") {
                let trimmed = w.trimmingCharacters(in: trimSet)
                if trimmed.count >= Analyzer.minimumLength, !Analyzer.stopWords.contains(trimmed) { out.insert(trimmed) }
            }
            return out
        }
        var out = Set<String>()
        for w in text.lowercased().split(separator: " ") {
            out.insert(String(w))
            let trimmed = w.trimmingCharacters(in: trimSet)
            if !trimmed.isEmpty { out.insert(trimmed) }
        }
        return out
    }

    /// The compact index's keys for a text: its space-separated words, lowercased, without surrounding punctuation,
    /// leaving out stop words and single characters.
    public static func compactWords(_ text: String) -> Set<String> {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return asciiWords(text, raw: false, compact: true) }
        return foundationWords(text, compact: true)
    }

    /// clientWords / compactWords on ASCII text: lowercase bytes, split on spaces, trim ASCII punctuation and symbols
    /// (the ASCII members of those character sets).
    static func asciiWords(_ text: String, raw: Bool, compact: Bool) -> Set<String> {
        var b = Array(text.utf8)
        for i in b.indices where b[i] >= 0x41 && b[i] <= 0x5A { b[i] += 32 }
        @inline(__always) func isPunct(_ c: UInt8) -> Bool { (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E) }
        var out = Set<String>()
        var start = 0
        for k in 0...b.count where k == b.count || b[k] == 0x20 {
            if k > start {
                if raw { out.insert(String(decoding: b[start..<k], as: UTF8.self)) }
                var lo = start, hi = k
                while lo < hi && isPunct(b[lo]) { lo += 1 }
                while hi > lo && isPunct(b[hi - 1]) { hi -= 1 }
                if hi > lo {
                    let w = String(decoding: b[lo..<hi], as: UTF8.self)
                    if !compact || (hi - lo >= Analyzer.minimumLength && !Analyzer.stopWords.contains(w)) { out.insert(w) }
                }
            }
            start = k + 1
        }
        return out
    }

    /// The design document's SearchManager, verbatim in behaviour: lowercase, split on spaces, union of keyword ids,
    /// results in index order. Load an index once, then query it many times.
    public struct Client {
        let keywords: [String: [String]]
        let order: [String]

        public init(_ index: JSON) {
            var k: [String: [String]] = [:]
            for m in index["keywords"]?.objectValue?.members ?? [] { k[m.key] = m.value.arrayValue?.compactMap(\.stringValue) ?? [] }
            keywords = k
            order = (index["products"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        }

        public func query(_ q: String) -> [String] {
            var ids = Set<String>()
            for token in q.lowercased().split(separator: " ").map(String.init) { ids.formUnion(keywords[token] ?? []) }
            return order.filter { ids.contains($0) }
        }

        /// Whether the product is among the results, without listing them all.
        public func finds(_ id: String, _ q: String) -> Bool {
            q.lowercased().split(separator: " ").contains { keywords[String($0)]?.contains(id) == true }
        }
    }
}
