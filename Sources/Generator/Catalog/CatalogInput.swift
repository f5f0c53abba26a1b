import Foundation
import LowLevel
import Schemas

/// Settings of the `catalog` section of site.json (all optional).
public struct CatalogSettings: Sendable {
    public var productsFile: String?
    public var categoriesFile: String
    public var featuredFile: String
    /// Whether site.json names these files: a file named there must exist; the default path may be absent.
    public var categoriesNamed = false
    public var featuredNamed = false
    /// Logical field → input field name (dotted paths reach into JSON objects: "rating.average").
    public var fields: [String: String]
    public var unbrandedName: String
    public var uncategorizedId: String
    public var uncategorizedName: String
    /// Weight m of the Bayesian average (a product needs about m reviews to be trusted on its own).
    public var ratingPrior: Double
    /// False leaves out the single-file seed-shaped search indexes (`search-index.json`, `search-index-compact.json`):
    /// they list every product in one file (about 900 MB at a million products); the ranked, sharded `search/`
    /// serves search at any size.
    public var seedIndexes = true

    public static let fieldNames = ["id", "name", "description", "brand", "price", "currency", "inStock",
                                    "imageUrl", "ratingAverage", "ratingCount", "category"]
    static let defaultFields: [String: String] = [
        "id": "id", "name": "name", "description": "description", "brand": "brand", "price": "price",
        "currency": "currency", "inStock": "inStock", "imageUrl": "imageUrl", "ratingAverage": "rating.average",
        "ratingCount": "rating.count", "category": "category",
    ]

    public static func read(_ site: SiteConfig, file: String) throws -> CatalogSettings {
        var o = try site.section("catalog", file: file)
        let categories = try o.optionalString("categories"), featured = try o.optionalString("featured")
        var s = CatalogSettings(productsFile: try o.optionalString("products"),
                                categoriesFile: categories ?? "catalog/categories.json",
                                featuredFile: featured ?? "catalog/featured.json",
                                categoriesNamed: categories != nil, featuredNamed: featured != nil,
                                fields: defaultFields,
                                unbrandedName: try o.string("unbrandedName", default: "Unbranded"),
                                uncategorizedId: try o.string("uncategorizedId", default: "uncategorized"),
                                uncategorizedName: try o.string("uncategorizedName", default: "Uncategorized"),
                                ratingPrior: try o.double("ratingPrior", default: 20))
        s.seedIndexes = try o.bool("seedIndexes", default: true)
        if var f = try o.object("fields") {
            for name in fieldNames { if let v = try f.optionalString(name) { s.fields[name] = v } }
            try f.finish()
        }
        try o.finish()
        return s
    }
}

/// One input record (a JSON object or a CSV row) with its location.
struct RawRecord {
    enum Source { case json(JSON), csv([String: String]) }
    let line: Int
    let source: Source

    /// The value at a field path (["rating", "average"]); CSV columns are named by the joined path.
    func value(_ path: [String]) -> JSON? {
        switch source {
        case .json(let j):
            var cur: JSON? = j
            for part in path { cur = cur?[part] }
            if cur == nil, path.count > 1 { return j[path.joined(separator: ".")] }
            return cur
        case .csv(let row):
            guard let s = row[path.joined(separator: ".")] else { return nil }
            return s.isEmpty ? .null : .string(s)
        }
    }
}

enum ProductFileReader {
    /// Whether a products file is read as JSON Lines: any name but `.csv` and `.json` (as `display`, the name the input
    /// uses, says).
    static func isJSONLines(_ display: String) -> Bool {
        let ext = (display as NSString).pathExtension.lowercased()
        return ext != "csv" && ext != "json"
    }

    /// Records read, and the malformed JSON Lines records left out under --skip-bad-rows.
    struct Result { var records: [RawRecord]; var skipped: [BuildError] }

    /// Reads products from JSON Lines, a JSON array or CSV, chosen by the extension of the name the input uses
    /// (`display`; a link's target may be named otherwise). `url` is resolved (see `InputFiles.resolve`).
    static func read(_ url: URL, display: String, threads: Int, skipBadRecords: Bool = false) throws -> Result {
        let ext = (display as NSString).pathExtension.lowercased()
        if ext == "csv" {
            let table = try CSVReader.read(url, displayName: display)
            return Result(records: table.records.map { r in
                var row: [String: String] = [:]
                for (i, h) in table.header.enumerated() where i < r.fields.count { row[h] = r.fields[i] }
                return RawRecord(line: r.line, source: .csv(row))
            }, skipped: [])
        }
        let data = try InputFiles.read(url, display: display)
        if ext == "json" {
            let json: JSON
            do { json = try JSONReader.parse(data) } catch let e as JSONSyntaxError {
                throw BuildError(file: display, line: e.line, "invalid JSON at column \(e.column): \(e.message)")
            }
            let items = json.arrayValue ?? json["products"]?.arrayValue
            guard let items else { throw BuildError(file: display, "expected a JSON array of products (or {\"products\": [...]})") }
            // The line each entry starts on, so a message's line is a real line (not the entry's number).
            let lines = entryLines([UInt8](data), member: json.arrayValue == nil ? "products" : nil)
            let located = lines.count == items.count ? lines : items.indices.map { $0 + 1 }
            return Result(records: items.enumerated().map { RawRecord(line: located[$0.offset], source: .json($0.element)) }, skipped: [])
        }
        return try readLines(data, display: display, threads: threads, skipBadRecords: skipBadRecords)
    }

    /// The 1-based line on which each element of a JSON array starts: the root array (`member` nil), or the array
    /// under that member of the root object. A minimal scan (strings, escapes, nesting) of a file already parsed.
    static func entryLines(_ b: [UInt8], member: String?) -> [Int] {
        let inMember = member != nil, wanted = Array((member ?? "").utf8)
        var lines: [Int] = []
        var line = 1, depth = 0, i = 0
        var expectValue = false     // inside the target array, before an element
        var targetDepth = -1        // depth of the products array once entered
        var lastKeyAtRoot: [UInt8] = [], afterColon = false
        while i < b.count {
            let c = b[i]
            switch c {
            case 0x0A: line += 1
            case 0x20, 0x09, 0x0D: break
            case 0x22:  // a string: skip it (keys of the root object are remembered)
                let start = i + 1
                i += 1
                while i < b.count, b[i] != 0x22 { if b[i] == 0x5C { i += 1 } else if b[i] == 0x0A { line += 1 }; i += 1 }
                if depth == targetDepth, expectValue { lines.append(line); expectValue = false }
                else if inMember, depth == 1, !afterColon { lastKeyAtRoot = Array(b[start..<min(i, b.count)]) }
                afterColon = false
            case 0x5B, 0x7B:  // [ {
                if depth == targetDepth, expectValue { lines.append(line); expectValue = false }
                depth += 1
                if targetDepth < 0, c == 0x5B, (!inMember && depth == 1) || (inMember && depth == 2 && afterColon && lastKeyAtRoot == wanted) {
                    targetDepth = depth; expectValue = true
                }
                afterColon = false
            case 0x5D, 0x7D:  // ] }
                if depth == targetDepth { targetDepth = -2 }   // the products array is done
                depth -= 1; afterColon = false
            case 0x2C:  // ,
                if depth == targetDepth { expectValue = true }
                afterColon = false
            case 0x3A: afterColon = depth == 1
            default:  // a number, true, false or null
                if depth == targetDepth, expectValue { lines.append(line); expectValue = false }
                while i + 1 < b.count, ![0x2C, 0x5B, 0x5D, 0x7B, 0x7D, 0x22, 0x3A, 0x20, 0x0A, 0x0D, 0x09].contains(b[i + 1]) { i += 1 }
                afterColon = false
            }
            i += 1
        }
        return lines
    }

    /// JSON Lines, parsed in parallel chunks; errors name the line. With `skipBadRecords` a malformed record is
    /// left out and returned as a skipped error (counted in the summary) instead of failing the build.
    static func readLines(_ data: Data, display: String, threads: Int, skipBadRecords: Bool = false) throws -> Result {
        let bytes = [UInt8](data)
        let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes[3...] : bytes[...]
        let parsed = parseLines(text.span, firstLine: 1, display: display, threads: threads)
        if !parsed.errors.isEmpty && !skipBadRecords { throw BuildErrors(parsed.errors) }
        return Result(records: parsed.records, skipped: parsed.errors)
    }

    /// The records of a products file, handed to `batch` a block at a time in file order: JSON Lines is read in
    /// blocks of whole lines (`blockSize` bytes of the file), each parsed in parallel and released after its batch,
    /// so a file of a million products never sits in memory as records all together; a JSON array or a CSV file is
    /// one batch. Returns the number of records and, with `skipBadRecords`, the malformed records left out; without
    /// it, malformed records fail the build once the whole file is read (every one reported, as `read` does).
    /// `batch` runs on a thread of its own, one batch at a time, while the next block is read and parsed (so at most
    /// two blocks' records exist at once); every batch is done when this returns.
    /// `lines`, when given, sees the text of a JSON Lines file first, in file order, as `forEachLineRun` gives it.
    static func forEachBatch(_ url: URL, display: String, threads: Int, skipBadRecords: Bool = false, blockSize: Int = 16 << 20,
                             lines: ((ArraySlice<UInt8>) -> Void)? = nil,
                             _ batch: @escaping ([RawRecord]) -> Void) throws -> (records: Int, skipped: [BuildError]) {
        if !isJSONLines(display) {
            let r = try read(url, display: display, threads: threads, skipBadRecords: skipBadRecords)
            batch(r.records)
            return (r.records.count, r.skipped)
        }
        var count = 0, malformed: [BuildError] = []
        var line = 1
        let checking = DispatchQueue(label: "products batches")
        let idle = DispatchSemaphore(value: 1)
        defer { checking.sync {} }   // (every batch handed over is done, also after a failure)
        func parse(_ run: ArraySlice<UInt8>) throws {
            lines?(run)
            let parsed = parseLines(run.span, firstLine: line, display: display, threads: threads)
            line += parsed.lines
            malformed += parsed.errors
            count += parsed.records.count
            guard !parsed.records.isEmpty else { return }
            // (Handed to the checking thread, which releases the records in parallel once checked: 600,000
            // allocations for 30,000 records.)
            let block = Locked(parsed.records)
            idle.wait()
            checking.async {
                block.withLock { records in
                    batch(records)
                    Parallel.release(&records, placeholder: RawRecord(line: 0, source: .csv([:])), threads: threads)
                }
                idle.signal()
            }
        }
        try forEachLineRun(url, display: display, blockSize: blockSize, parse)
        if !malformed.isEmpty && !skipBadRecords { throw BuildErrors(malformed) }
        return (count, malformed)
    }

    /// The text of a JSON Lines file (a byte order mark at its start left out), read in blocks of `blockSize` bytes and
    /// handed to `body` in file order as runs of whole lines: each run is one or more lines, joined by newlines, with
    /// no newline after its last (a run of n newlines holds n + 1 lines, the last possibly empty).
    static func forEachLineRun(_ url: URL, display: String, blockSize: Int = 16 << 20,
                               _ body: (ArraySlice<UInt8>) throws -> Void) throws {
        var pending: [UInt8] = []   // the start of a line the block ended in
        var first = true
        try InputFiles.forEachBlock(url, display: display, blockSize: blockSize) { read in
            let block = first && read.starts(with: [0xEF, 0xBB, 0xBF]) ? read.dropFirst(3) : read
            first = false
            guard let last = block.lastIndex(of: 0x0A) else { pending += block; return }
            var start = block.startIndex
            if !pending.isEmpty, let nl = block.firstIndex(of: 0x0A) {
                // The line begun in the previous block, completed by this one's first line.
                pending += block[..<nl]
                try body(pending[...])
                pending.removeAll(keepingCapacity: false)
                start = nl + 1
            }
            if start <= last { try body(block[start..<last]) }
            pending += block[(last + 1)...]
        }
        if !pending.isEmpty { try body(pending[...]) }
    }

    /// The lines of `text` (without a final newline: a text of n newlines holds n + 1 lines), the first one numbered
    /// `firstLine`, parsed in parallel chunks: the records in line order, blank lines skipped, and an error for each
    /// malformed one; `lines` is the number of lines.
    static func parseLines(_ text: Span<UInt8>, firstLine: Int, display: String, threads: Int)
        -> (records: [RawRecord], errors: [BuildError], lines: Int) {
        var starts: [Int] = [0]
        starts.reserveCapacity(text.count / 256)
        var at = 0
        while let i = text.firstIndex(of: 0x0A, from: at) { starts.append(i + 1); at = i + 1 }
        let lineCount = starts.count
        let chunks = max(1, min(threads * 4, lineCount))
        let parts = Parallel.map(chunks, threads: threads) { _, c -> (records: [RawRecord], errors: [BuildError]) in
            var records: [RawRecord] = [], errors: [BuildError] = []
            for li in (c * lineCount / chunks)..<((c + 1) * lineCount / chunks) {
                let s = starts[li]
                var e = li + 1 < lineCount ? starts[li + 1] - 1 : text.count
                if e > s, text[e - 1] == 0x0D { e -= 1 }
                // Blank lines are allowed (editors add a trailing newline).
                var blank = true
                for k in s..<e where text[k] != 0x20 && text[k] != 0x09 { blank = false; break }
                if blank { continue }
                let number = firstLine + li
                do {
                    records.append(RawRecord(line: number, source: .json(try JSONReader.parse(text.extracting(s..<e)))))
                } catch let err as JSONSyntaxError {
                    errors.append(BuildError(file: display, line: number, "malformed JSON Lines record at column \(err.column): \(err.message)"))
                } catch {
                    errors.append(BuildError(file: display, line: number, "\(error)"))
                }
            }
            return (records, errors)
        }
        return (parts.flatMap(\.records), parts.flatMap(\.errors), lineCount)
    }
}
