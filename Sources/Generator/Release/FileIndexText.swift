import Foundation
import Schemas

/// Reads a file index (`releases/N/files.json`) straight from its text: its few top-level members as values, and its
/// `files` list as entries without a JSON value per field. A 100,000-file index is 18 MB of text; parsed whole it
/// cost a third of a second and a hundred megabytes, and a release reads up to `keep` of them.
///
/// Only the shape our writer gives is taken this way (an object whose `files` is an array of objects with string
/// `path`, `sha256` and `schema` or null, integer `size`, in any order); anything else — another member in an entry,
/// a number that is not a plain integer, text that is not JSON — returns nil, and the caller parses the text whole.
enum FileIndexText {
    struct Index {
        /// Every top-level member but `files`.
        var members: [String: JSON]
        var files: [FileEntry]
    }

    static func parse(_ b: [UInt8]) -> Index? {
        var r = Reader(b: b)
        var members: [String: JSON] = [:]
        var files: [FileEntry]?
        r.space()
        guard r.take(0x7B) else { return nil }
        r.space()
        if r.take(0x7D) { return nil }   // no files list
        repeat {
            r.space()
            guard let key = r.string() else { return nil }
            r.space()
            guard r.take(0x3A) else { return nil }
            r.space()
            if key == "files" {
                guard files == nil, let list = r.entriesInTwoHalves() else { return nil }
                files = list
            } else {
                let start = r.i
                let all = b[...]   // (`Array.span` needs macOS 26)
                guard let end = JSONByteDiff.Scanner().valueEnd(all.span, start), let v = try? JSONReader.parse(all.span.extracting(start..<end)) else { return nil }
                members[key] = v
                r.i = end
            }
            r.space()
        } while r.take(0x2C)
        guard r.take(0x7D) else { return nil }
        r.space()
        guard r.i == b.count, let files else { return nil }
        return Index(members: members, files: files)
    }

    /// The members of an entry.
    enum EntryKey: CaseIterable {
        case path, sha256, size, schema
        var bytes: [UInt8] {
            switch self {
            case .path: return Self.pathBytes
            case .sha256: return Self.sha256Bytes
            case .size: return Self.sizeBytes
            case .schema: return Self.schemaBytes
            }
        }
        static let pathBytes = Array("path".utf8), sha256Bytes = Array("sha256".utf8), sizeBytes = Array("size".utf8), schemaBytes = Array("schema".utf8)
    }

    /// Reads the text where it is (the array is shared, not copied, with the thread that reads the second half).
    struct Reader {
        let b: [UInt8]
        var i = 0

        mutating func space() { while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 } }

        mutating func take(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }

        /// A JSON string: decoded in place when it has no escape, else by the JSON reader (which checks it).
        mutating func string() -> String? {
            guard let (range, escaped) = stringRange() else { return nil }
            if !escaped {
                // (ASCII, as paths and hashes are, needs no other check: the generic validating initialiser cost more
                // than the rest of reading an entry.)
                if isASCII(range) { return String(decoding: b[range], as: UTF8.self) }
                return String(validating: b[range], as: UTF8.self)
            }
            let all = b[...]   // (`Array.span` needs macOS 26)
            return (try? JSONReader.parse(all.span.extracting((range.lowerBound - 1)..<(range.upperBound + 1))))?.stringValue
        }

        /// The bytes between a JSON string's quotes (read past its closing quote), and whether it has escapes.
        mutating func stringRange() -> (Range<Int>, escaped: Bool)? {
            guard i < b.count, b[i] == 0x22 else { return nil }
            var j = i + 1, escaped = false
            while j < b.count, b[j] != 0x22 {
                if b[j] == 0x5C { escaped = true; j += 2; continue }
                if b[j] < 0x20 { return nil }
                j += 1
            }
            guard j < b.count else { return nil }
            defer { i = j + 1 }
            return ((i + 1)..<j, escaped)
        }

        /// An entry's member name, told by its bytes (no string made for each of 400,000 names); nil for any other
        /// name, or one written with escapes.
        mutating func entryKey() -> EntryKey? {
            guard let (range, escaped) = stringRange(), !escaped else { return nil }
            return EntryKey.allCases.first { same(range, $0.bytes) }
        }

        // (Byte loops over `b` by index: the same tests on slices of it retained and released the text for each of a
        // 100,000-file index's 400,000 members.)
        func isASCII(_ range: Range<Int>) -> Bool {
            for k in range where b[k] >= 0x80 { return false }
            return true
        }

        func same(_ range: Range<Int>, _ bytes: [UInt8]) -> Bool {
            guard range.count == bytes.count else { return false }
            for k in bytes.indices where b[range.lowerBound + k] != bytes[k] { return false }
            return true
        }

        func same(_ range: Range<Int>, _ other: Range<Int>) -> Bool {
            guard range.count == other.count else { return false }
            for k in 0..<range.count where b[range.lowerBound + k] != b[other.lowerBound + k] { return false }
            return true
        }

        /// A non-negative integer without sign, fraction or exponent.
        mutating func integer() -> Int? {
            var n = 0, digits = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                let (m, o1) = n.multipliedReportingOverflow(by: 10)
                let (s, o2) = m.addingReportingOverflow(Int(b[i] - 0x30))
                if o1 || o2 { return nil }
                n = s; digits += 1; i += 1
            }
            guard digits > 0, digits == 1 || b[i - digits] != 0x30 else { return nil }
            if i < b.count, b[i] == 0x2E || b[i] == 0x65 || b[i] == 0x45 { return nil }
            return n
        }

        mutating func null() -> Bool {
            guard i + 4 <= b.count, b[i] == 0x6E, b[i + 1] == 0x75, b[i + 2] == 0x6C, b[i + 3] == 0x6C else { return false }
            i += 4
            return true
        }

        /// The `files` array, read in two halves side by side when it is large (a 100,000-file index: 18 MB). The
        /// second half starts at an entry's first byte: after `},{"path":"`, which only the writer's own separators
        /// can be (in a JSON string every `"` is escaped), so each half reads as the whole would.
        mutating func entriesInTwoHalves() -> [FileEntry]? {
            let open = i
            guard b.count - open > 1 << 20 else { return entries() }
            let separator = Array(#"},{"path":""#.utf8)
            var cut = open + (b.count - open) / 2
            while cut + separator.count <= b.count, !separator.indices.allSatisfy({ b[cut + $0] == separator[$0] }) { cut += 1 }
            guard cut + separator.count <= b.count else { return entries() }
            // The first half ends after the entry that ends at `cut` (its `}`); the second starts at the next `{`.
            // (The text outlives the thread: it is joined below whatever happens.)
            let text = b, start = cut + 2
            let second = Background { () -> (entries: [FileEntry], end: Int)? in
                var r = Reader(b: text, i: start)
                guard let list = r.entriesAfterOpen() else { return nil }
                return (list, r.i)
            }
            var first = Reader(b: b, i: open)
            guard first.take(0x5B), let head = first.entriesAfterOpen(until: cut + 1), first.i == cut + 1,
                  let (tail, end) = (try? second.wait()) ?? nil else { second.join(); return nil }
            i = end
            return head + tail
        }

        /// The `files` array.
        mutating func entries() -> [FileEntry]? {
            guard take(0x5B) else { return nil }
            return entriesAfterOpen()
        }

        /// Entries of the `files` array from the first one (its `[` read): to its `]`, or, with `until`, up to the
        /// entry that ends there (the `]` is then not read).
        mutating func entriesAfterOpen(until: Int? = nil) -> [FileEntry]? {
            var out: [FileEntry] = []
            // Each schema path once (a handful of them, each named by thousands of entries; the last one compared by
            // its bytes first: entries of one kind come together).
            var schemas: [String: String] = [:]
            var lastSchema: (bytes: Range<Int>, value: String)?
            space()
            if take(0x5D) { return out }
            repeat {
                space()
                guard take(0x7B) else { return nil }
                var path: String?, sha: String?, size: Int?, schema: String?? = .none
                repeat {
                    space()
                    guard let key = entryKey() else { return nil }
                    space()
                    guard take(0x3A) else { return nil }
                    space()
                    switch key {
                    case .path: guard path == nil, let v = string() else { return nil }; path = v
                    case .sha256: guard sha == nil, let v = string() else { return nil }; sha = v
                    case .size: guard size == nil, let v = integer() else { return nil }; size = v
                    case .schema:
                        guard case .none = schema else { return nil }
                        let start = i
                        if null() {
                            schema = .some(nil)
                        } else if let last = lastSchema, let (range, escaped) = stringRange(), !escaped,
                                  same(range, last.bytes) {
                            schema = .some(last.value)
                        } else {
                            i = start
                            guard let v = string() else { return nil }
                            let known = schemas[v] ?? v
                            schemas[v] = known; schema = .some(known)
                            lastSchema = ((start + 1)..<(i - 1), known)
                        }
                    }
                    space()
                } while take(0x2C)
                guard take(0x7D), let path, let sha, let size else { return nil }
                out.append(FileEntry(path: path, sha256: sha, size: size, schema: schema ?? nil))
                if let until, i >= until { return i == until ? out : nil }
                space()
            } while take(0x2C)
            guard take(0x5D) else { return nil }
            return out
        }
    }
}
