import Foundation
import Crypto
import Indexer
import Schemas

/// The lines of a JSON Lines file cut into chunks by their content, each named by the SHA-256 of its lines: a chunk
/// ends after a line whose fast hash (`ByteHash`) has its low four bits zero, or at its 64th line. An edit, an added
/// or a removed line changes the chunk it falls in (and at most the next), never the chunks before or after, so an
/// earlier build's work on the other chunks can be taken by name (`ProductSnapshot`).
struct LineChunker {
    struct Chunk: Equatable {
        var digest: Fingerprint
        var firstLine: Int
        var lines: Int
    }
    static let boundaryMask: UInt64 = 15, maxLines = 64

    /// Every chunk closed so far, in file order.
    private(set) var chunks: [Chunk] = []
    private var hasher = SHA256()
    private var open = 0            // lines in the open chunk
    private var nextLine = 1
    /// The open chunk's lines from earlier runs, each followed by its newline (kept only with `keepBytes`).
    private var carry: [UInt8] = []
    /// Whether `feed` and `finish` hand each closed chunk's bytes whole (otherwise at most its part in the run at hand).
    let keepBytes: Bool

    init(keepBytes: Bool) { self.keepBytes = keepBytes }

    /// Takes the next run of whole lines (`ProductFileReader.forEachLineRun`); `closed` is told of each chunk that
    /// ends in it, in order, with its lines joined by newlines (no newline after the last) when `keepBytes`.
    mutating func feed(_ run: ArraySlice<UInt8>, _ closed: (Chunk, ArraySlice<UInt8>) throws -> Void) rethrows {
        let text = run.span, base = run.startIndex   // (offsets in `text`, indices of `run` from `base`)
        var lineStart = 0, chunkStart = 0
        while true {
            let end = text.firstIndex(of: 0x0A, from: lineStart) ?? text.count
            open += 1; nextLine += 1
            if ByteHash.of(text.extracting(lineStart..<end)) & Self.boundaryMask == 0 || open >= Self.maxLines {
                try close(run[(base + chunkStart)..<(base + end)], closed)
                chunkStart = end + 1
            }
            if end >= text.count { break }
            lineStart = end + 1
        }
        if open > 0 {   // (the rest of the run belongs to a chunk that ends in a later one)
            let rest = run[(base + chunkStart)...]
            hasher.update(data: rest)
            hasher.update(data: [0x0A])
            if keepBytes { carry += rest; carry.append(0x0A) }
        }
    }

    /// Closes the chunk still open at the end of the file.
    mutating func finish(_ closed: (Chunk, ArraySlice<UInt8>) throws -> Void) rethrows {
        guard open > 0 else { return }
        let chunk = Chunk(digest: Fingerprint(digest: hasher.finalize()), firstLine: nextLine - open, lines: open)
        hasher = SHA256(); open = 0
        if keepBytes { carry.removeLast() }
        chunks.append(chunk)
        try closed(chunk, carry[...])
        carry = []
    }

    private mutating func close(_ part: ArraySlice<UInt8>, _ closed: (Chunk, ArraySlice<UInt8>) throws -> Void) rethrows {
        hasher.update(data: part)
        hasher.update(data: [0x0A])
        let chunk = Chunk(digest: Fingerprint(digest: hasher.finalize()), firstLine: nextLine - open, lines: open)
        hasher = SHA256(); open = 0
        chunks.append(chunk)
        if keepBytes && !carry.isEmpty {
            carry += part
            try closed(chunk, carry[...])
            carry.removeAll(keepingCapacity: true)
        } else {
            try closed(chunk, part)
        }
    }
}

/// What the lines of a products file (JSON Lines) were read and checked into, by chunks (`LineChunker`): the records,
/// their text and the tables they name, as the catalog's `ProductStore.Builder` held them before any policy. A rebuild
/// takes the records of every chunk it finds unchanged instead of parsing and checking its lines again, and parses
/// only the others (a changed price: one chunk of about 16 lines of 100,000).
///
/// Part of the build cache (`<cache>.products` beside it), with the same rules: a pure speed-up, used only when whole
/// (a SHA-256 closes it), made by this very executable with the same field mapping; written only by a build whose
/// products were all read without an error, and only once its tree is in place. Its records are taken only if the
/// whole file then reads without an error and no record read anew claims an id (or, case-insensitively, a file
/// name) that a record taken also claims: anything else reads the file again in full, so messages are a full
/// read's.
final class ProductSnapshot: Sendable {
    struct Chunk { var lines: Int; var records: Range<Int> }

    static let magic = Array("generator products snapshot\n".utf8)
    static let format: UInt32 = 3   // (3: closed by `Checksum`, not SHA-256)

    /// The field mapping the records were checked with.
    let key: Fingerprint
    let chunks: [Fingerprint: Chunk]
    /// In file order; `line` counts from its chunk's first line (0: the first).
    let records: [ProductStore.Record]
    /// Of each record's id and of its path segment as the case-insensitive collision check folds it (`ByteHash`).
    let idHashes: [UInt64], foldedHashes: [UInt64]
    let prices: [JSONNumber]
    let tables: [[String]]   // brands, brand keys, currencies, category ids (`ProductStore.Builder.Table` order)
    let extras: [[(String, String)]]
    /// Each record's fingerprints as the build that made the snapshot made them, after the policies (`Made.none`: none).
    let made: [Made]
    private let bytes: [UInt8]
    private let textStart: Int

    /// A product's fingerprints (`CatalogDomain.fingerprints`) and the brand and category (indices of the snapshot's
    /// tables) they were made with: the only fields of a record the policies change.
    struct Made: Sendable {
        var all: Fingerprint, text: Fingerprint
        var brand: Int32, category: Int32
        static let none = Made(all: Fingerprint(a: 0, b: 0, c: 0, d: 0), text: Fingerprint(a: 0, b: 0, c: 0, d: 0), brand: -2, category: -2)
    }

    private init(key: Fingerprint, chunks: [Fingerprint: Chunk], records: [ProductStore.Record], idHashes: [UInt64], foldedHashes: [UInt64],
                 prices: [JSONNumber], tables: [[String]], extras: [[(String, String)]], made: [Made], bytes: [UInt8], textStart: Int) {
        self.key = key; self.chunks = chunks; self.records = records; self.idHashes = idHashes; self.foldedHashes = foldedHashes
        self.prices = prices; self.tables = tables; self.extras = extras; self.made = made; self.bytes = bytes; self.textStart = textStart
    }

    /// The fingerprints of `p` (in `store`, after the policies), when the snapshot's record `origin` has them for the same
    /// brand and category; nil otherwise.
    func fingerprints(of p: Product, origin: Int32, store: ProductStore) -> (all: Fingerprint, text: Fingerprint)? {
        guard origin >= 0, Int(origin) < made.count else { return nil }
        let m = made[Int(origin)]
        guard m.category >= 0, tables[3][Int(m.category)] == store.categoryIds[p.categoryIndex] else { return nil }
        if m.brand < 0 { guard m.brand == -1, p.brandIndex < 0 else { return nil } }
        else { guard p.brandIndex >= 0, tables[0][Int(m.brand)] == store.brands[p.brandIndex] else { return nil } }
        return (m.all, m.text)
    }

    /// The mapping of logical fields to input names: records checked under another mapping are other records.
    static func key(_ settings: CatalogSettings) -> Fingerprint {
        var h = FingerprintHasher("products snapshot")
        for (name, path) in settings.fields.sorted(by: { $0.key < $1.key }) { h.add(name); h.add(path) }
        return h.finish()
    }

    /// The path of a cache's products snapshot.
    static func location(cache: URL) -> URL { cache.appendingPathExtension("products") }

    // MARK: Reading a file

    /// The snapshot at `url`; nil when there is none or it cannot be used (not one, damaged, another tool's, or any
    /// record pointing outside its text or tables).
    static func read(_ url: URL) -> ProductSnapshot? {
        guard case .success(let bytes) = BuildCache.readWhole(url) else { return nil }
        guard bytes.starts(with: magic), bytes.count >= magic.count + BuildCache.closing, BuildCache.closes(bytes) else { return nil }
        var r = BuildCache.Reader(bytes: bytes, at: magic.count, end: bytes.count - BuildCache.closing)
        guard r.u32() == format, r.fingerprint() == ToolIdentity.digest, let key = r.fingerprint(),
              let (tables, priceTexts, extras) = readTables(&r), let (chunks, recordCount) = readChunks(&r),
              let table = readRecords(&r, count: recordCount),
              let textCount = r.u64(), Int(textCount) == r.end - r.at else { return nil }
        let snapshot = ProductSnapshot(key: key, chunks: chunks, records: table.records, idHashes: table.idHashes,
                                       foldedHashes: table.foldedHashes, prices: priceTexts.map { JSONNumber(literal: $0) }, tables: tables,
                                       extras: extras, made: table.made, bytes: bytes, textStart: r.at)
        // The file is trusted to be ours, never to be sane.
        guard snapshot.pointsInside(textCount: Int(textCount)), snapshot.hasTextAReadMakes(prices: priceTexts),
              // Taken records never claim an id (or a file name) twice: they came from one read without an error.
              Set(table.idHashes).count == table.idHashes.count, Set(table.foldedHashes).count == table.foldedHashes.count else { return nil }
        return snapshot
    }

    /// The brands, brand keys, currencies and category ids; the prices' text; the extra fields' pairs.
    private static func readTables(_ r: inout BuildCache.Reader) -> ([[String]], [String], [[(String, String)]])? {
        func strings() -> [String]? {
            guard let n = r.u32(), Int(n) <= r.end - r.at else { return nil }
            var out: [String] = []
            out.reserveCapacity(Int(n))
            for _ in 0..<n { guard let t = r.text() else { return nil }; out.append(t) }
            return out
        }
        var tables: [[String]] = []
        for _ in 0..<4 { guard let t = strings() else { return nil }; tables.append(t) }
        guard let priceTexts = strings(), let extraCount = r.u32(), Int(extraCount) <= r.end - r.at else { return nil }
        var extras: [[(String, String)]] = []
        for _ in 0..<extraCount {
            guard let pairs = strings(), pairs.count % 2 == 0 else { return nil }
            extras.append(stride(from: 0, to: pairs.count, by: 2).map { (pairs[$0], pairs[$0 + 1]) })
        }
        return (tables, priceTexts, extras)
    }

    /// Each chunk's digest, lines and records, and the number of records in all.
    private static func readChunks(_ r: inout BuildCache.Reader) -> ([Fingerprint: Chunk], Int)? {
        guard let chunkCount = r.u32(), Int(chunkCount) <= r.end - r.at else { return nil }
        var chunks: [Fingerprint: Chunk] = [:]
        chunks.reserveCapacity(Int(chunkCount))
        var recordCount = 0
        for _ in 0..<chunkCount {
            guard let digest = r.fingerprint(), let lines = r.u32(), let n = r.u32(), lines > 0 else { return nil }
            chunks[digest] = Chunk(lines: Int(lines), records: recordCount..<(recordCount + Int(n)))
            recordCount += Int(n)
        }
        return (chunks, recordCount)
    }

    /// The fixed-size records, read in place (100,000 of them), with their claims' hashes and fingerprints.
    private static func readRecords(_ r: inout BuildCache.Reader, count: Int)
        -> (records: [ProductStore.Record], idHashes: [UInt64], foldedHashes: [UInt64], made: [Made])? {
        guard count <= (r.end - r.at) / recordSize, let table = r.raw(count * recordSize) else { return nil }
        var records: [ProductStore.Record] = [], idHashes: [UInt64] = [], foldedHashes: [UInt64] = [], made: [Made] = []
        records.reserveCapacity(count); idHashes.reserveCapacity(count); foldedHashes.reserveCapacity(count); made.reserveCapacity(count)
        let raw = table.span
        var at = 0   // (records are back to back: each read moves it on)
        func u32(_ raw: Span<UInt8>) -> UInt32 { defer { at += 4 }; return raw.littleEndian(at: at) }
        func u64(_ raw: Span<UInt8>) -> UInt64 { defer { at += 8 }; return raw.littleEndian(at: at) }
        func i32(_ raw: Span<UInt8>) -> Int32 { Int32(bitPattern: u32(raw)) }
        func fingerprint(_ raw: Span<UInt8>) -> Fingerprint {
            defer { at += 32 }
            return Fingerprint(a: raw.bigEndian(at: at), b: raw.bigEndian(at: at + 8), c: raw.bigEndian(at: at + 16), d: raw.bigEndian(at: at + 24))
        }
        for _ in 0..<count {
            let start = u64(raw), idLength = u32(raw), segmentLength = u32(raw), nameLength = u32(raw), descriptionLength = u32(raw)
            let imageLength = u32(raw)
            let brand = i32(raw), brandKey = i32(raw), currency = i32(raw), category = i32(raw), extra = i32(raw), line = i32(raw)
            let flags = raw[at]; at += 1
            let ratingCount = u64(raw), rating = u64(raw), price = i32(raw)
            idHashes.append(u64(raw)); foldedHashes.append(u64(raw))
            let all = fingerprint(raw), text = fingerprint(raw)
            made.append(Made(all: all, text: text, brand: i32(raw), category: i32(raw)))
            records.append(ProductStore.Record(
                textStart: Int(truncatingIfNeeded: start), idLength: idLength, segmentLength: segmentLength, nameLength: nameLength,
                descriptionLength: descriptionLength, imageLength: imageLength, brand: brand, brandKey: brandKey, currency: currency,
                category: category, extra: extra, line: line, inStock: flags & 1 != 0, ratingCount: Int(Int64(bitPattern: ratingCount)),
                ratingAverage: Double(bitPattern: rating), price: price, ascii: flags & 2 != 0))
        }
        return (records, idHashes, foldedHashes, made)
    }

    /// Every record inside the text (`textCount` bytes) and the tables, every fingerprint's brand and category too.
    private func pointsInside(textCount text: Int) -> Bool {
        func inTable(_ v: Int32, _ k: Int, optional: Bool) -> Bool { v >= 0 ? Int(v) < tables[k].count : optional && v == -1 }
        for m in made where !(m.brand == -2 && m.category == -2) {
            guard m.brand >= -1, Int(m.brand) < tables[0].count, m.category >= 0, Int(m.category) < tables[3].count else { return false }
        }
        for x in records {
            guard x.textStart >= 0, x.idLength != ProductStore.Record.same, x.nameLength != ProductStore.Record.same,
                  x.textStart <= text, x.textLength <= text - x.textStart, x.line >= 0,
                  inTable(x.brand, 0, optional: true), inTable(x.brandKey, 1, optional: true), inTable(x.currency, 2, optional: false),
                  inTable(x.category, 3, optional: false), x.extra >= -1, Int(x.extra) < extras.count, x.price >= -1, Int(x.price) < prices.count
            else { return false }
        }
        return true
    }

    /// Its text is what a read makes, since writers copy it into files as it is: each field UTF-8 (a record's whole
    /// text ASCII, or each field checked), each price a JSON number.
    private func hasTextAReadMakes(prices priceTexts: [String]) -> Bool {
        for x in records {
            let all = text(x)
            if all.span.isASCII { continue }
            var fields = [x.idRange, x.nameRange]
            if x.segmentLength != ProductStore.Record.same { fields.append(x.segmentRange) }
            if x.descriptionLength != ProductStore.Record.same { fields.append(x.descriptionRange) }
            if let image = x.imageRange { fields.append(image) }
            // (A record's ranges count from the start of the text, at `textStart`.)
            for f in fields where String(validating: bytes[(textStart + f.lowerBound)..<(textStart + f.upperBound)], as: UTF8.self) == nil { return false }
        }
        return priceTexts.allSatisfy(Self.isNumber)
    }

    /// Whether `text` is a JSON number (RFC 8259: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`).
    static func isNumber(_ text: String) -> Bool {
        let u = Array(text.utf8)
        var i = 0
        func digits() -> Int { let start = i; while i < u.count, u[i] >= 0x30, u[i] <= 0x39 { i += 1 }; return i - start }
        if i < u.count, u[i] == 0x2D { i += 1 }
        if i < u.count, u[i] == 0x30 { i += 1 } else if digits() == 0 { return false }
        if i < u.count, u[i] == 0x2E { i += 1; if digits() == 0 { return false } }
        if i < u.count, u[i] == 0x65 || u[i] == 0x45 {
            i += 1
            if i < u.count, u[i] == 0x2B || u[i] == 0x2D { i += 1 }
            if digits() == 0 { return false }
        }
        return i == u.count
    }

    /// Bytes of one record in the file.
    private static let recordSize = 8 + 11 * 4 + 1 + 8 + 8 + 4 + 8 + 8 + 64 + 8

    /// All the text of a record of the snapshot.
    func text(_ r: ProductStore.Record) -> ArraySlice<UInt8> { bytes[(textStart + r.textStart)..<(textStart + r.textStart + r.textLength)] }

    // MARK: Making one

    /// Writes the snapshot of a read without an error to `fd`: `chunks` as `LineChunker` cut the file, `records` the
    /// builder's records before any policy (in file order), `store` the store they became (its text and tables). False
    /// when the records do not fall in the chunks as expected, or the file could not be written.
    /// `hashes`: the records' claim hashes when known (`Taken`), else made here; `made`: each record's fingerprints
    /// (none: not kept).
    static func write(to fd: Int32, key: Fingerprint, chunks: [LineChunker.Chunk], records: [ProductStore.Record], store: ProductStore,
                      hashes: (ids: [UInt64], folded: [UInt64])? = nil, made: [Made] = []) -> Bool {
        if let hashes, hashes.ids.count != records.count || hashes.folded.count != records.count { return false }
        if !made.isEmpty && made.count != records.count { return false }
        var w = BuildCache.Writer(magic, fd: fd)
        w.u32(format)
        w.fingerprint(ToolIdentity.digest)
        w.fingerprint(key)
        for table in [store.brands, store.brandKeys, store.currencies, store.categoryIds] {
            w.u32(UInt32(table.count)); for t in table { w.text(t) }
        }
        w.u32(UInt32(store.prices.count)); for p in store.prices { w.text(p.description) }
        w.u32(UInt32(store.extras.count))
        for e in store.extras { w.u32(UInt32(e.count * 2)); for (k, v) in e { w.text(k); w.text(v) } }
        // Each chunk's records: those whose line falls in it (records are in line order).
        w.u32(UInt32(chunks.count))
        w.spill()
        var next = 0
        var firstLines: [Int] = []
        firstLines.reserveCapacity(records.count)
        for c in chunks {
            let first = next
            while next < records.count, Int(records[next].line) < c.firstLine + c.lines {
                guard Int(records[next].line) >= c.firstLine else { return false }
                firstLines.append(c.firstLine)
                next += 1
            }
            w.fingerprint(c.digest); w.u32(UInt32(c.lines)); w.u32(UInt32(next - first))
        }
        guard next == records.count else { return false }
        // Records, each pointing into the text that follows them (each record's text, in record order).
        var text = 0
        for (k, x) in records.enumerated() {
            w.u64(UInt64(text)); w.u32(x.idLength); w.u32(x.segmentLength); w.u32(x.nameLength); w.u32(x.descriptionLength)
            w.u32(x.imageLength)
            for v in [x.brand, x.brandKey, x.currency, x.category, x.extra, Int32(x.line) - Int32(firstLines[k])] { w.u32(UInt32(bitPattern: v)) }
            w.byte((x.inStock ? 1 : 0) | (x.ascii ? 2 : 0))
            w.u64(UInt64(bitPattern: Int64(x.ratingCount))); w.u64(x.ratingAverage.bitPattern); w.u32(UInt32(bitPattern: x.price))
            if let hashes { w.u64(hashes.ids[k]); w.u64(hashes.folded[k]) } else {
                store.withText { text in w.u64(ByteHash.of(text.extracting(x.idRange))); w.u64(foldedHash(text.extracting(x.segmentRange))) }
            }
            let m = made.isEmpty ? Made.none : made[k]
            w.fingerprint(m.all); w.fingerprint(m.text); w.u32(UInt32(bitPattern: m.brand)); w.u32(UInt32(bitPattern: m.category))
            text += x.textLength
            w.spill()
        }
        w.u64(UInt64(text))
        for x in records { w.raw(store.text[x.textRange]) }
        return w.finish()
    }

    // MARK: Taking records

    /// Reads the JSON Lines products file at `url` into `store` and `check`, taking the records of unchanged chunks
    /// from this snapshot. Nil when the read must be done in full instead (an error anywhere, or a claim a taken record
    /// shares): `store` and `check` are then to be thrown away. `chunker` cuts the file as it is read.
    func read(_ url: URL, display: String, check: inout CatalogCheck, into store: ProductStore.Builder,
              chunker: inout LineChunker, threads: Int) throws -> Taken? {
        var taking = Taking(self, check: check, store: store, display: display, threads: threads)
        try ProductFileReader.forEachLineRun(url, display: display) { run in chunker.feed(run) { taking.take($0, $1) } }
        chunker.finish { taking.take($0, $1) }
        let taken = taking.finish()
        check = taking.check
        return taken
    }

    /// What `read` took: the number of records read and of lines taken; for each record of the builder, the snapshot
    /// record it was taken from (-1: read anew), and its claims' hashes (the next snapshot's).
    struct Taken {
        var records: Int, reusedLines: Int
        var origins: [Int32]
        var idHashes: [UInt64], foldedHashes: [UInt64]
    }

    /// The hash of a path segment as the case-insensitive collision check folds it (`CatalogCheck`: lowercased).
    static func foldedHash(_ segment: Span<UInt8>) -> UInt64 {
        String(decodingUTF8: segment).lowercased().withUTF8Span { ByteHash.of($0) }
    }
}
