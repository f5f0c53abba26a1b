import Foundation

/// One CSV record with the line it starts on (1-based, header is line 1), for diagnostics.
public struct CSVRecord: Sendable {
    public let line: Int
    public let fields: [String]
}

/// A parsed CSV table: header names and records. Read never decides policy.
public struct CSVTable: Sendable {
    public let file: String
    public let header: [String]
    public let records: [CSVRecord]
    public let delimiter: Character

    /// Index of the first header matching one of `aliases` (case-insensitive, trimmed), in alias order.
    public func column(_ aliases: [String]) -> Int? {
        let norm = header.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        for a in aliases { if let i = norm.firstIndex(of: a.lowercased()) { return i } }
        return nil
    }

    public func value(_ record: CSVRecord, _ column: Int?) -> String? {
        guard let column, column < record.fields.count else { return nil }
        return record.fields[column]
    }
}

/// RFC 4180 CSV reader: quoted fields with doubled quotes and embedded newlines, CRLF or LF,
/// UTF-8 with or without BOM (Windows-1252 when the bytes are not valid UTF-8), and comma,
/// semicolon or tab delimiters (detected from the header line unless given).
public enum CSVReader {
    /// `url` is a resolved input file (see `InputFiles.resolve`); it is read through `InputFiles.read`.
    public static func read(_ url: URL, displayName: String, delimiter: Character? = nil) throws -> CSVTable {
        try parse(decode(InputFiles.read(url, display: displayName)), file: displayName, delimiter: delimiter)
    }

    /// Text of a file: UTF-8 (BOM stripped) or, failing that, Windows-1252.
    public static func decode(_ data: Data) -> String {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if let s = String(data: Data(bytes), encoding: .utf8) { return s }
        return String(data: Data(bytes), encoding: .windowsCP1252) ?? String(decoding: bytes, as: UTF8.self)
    }

    public static func detectDelimiter(_ text: String) -> Character {
        let firstLine = text.prefix { $0 != "\n" && $0 != "\r\n" }
        var best: Character = ",", bestCount = 0
        for d in [",", ";", "\t"] as [Character] {
            var inQuotes = false, n = 0
            for c in firstLine { if c == "\"" { inQuotes.toggle() } else if c == d && !inQuotes { n += 1 } }
            if n > bestCount { best = d; bestCount = n }
        }
        return best
    }

    public static func parse(_ text: String, file: String, delimiter: Character? = nil) throws -> CSVTable {
        let delim = delimiter ?? detectDelimiter(text)
        let d = delim.asciiValue ?? UInt8(ascii: ",")
        var rows: [CSVRecord] = []
        var fields: [String] = []
        var field = [UInt8]()
        var line = 1, recordLine = 1
        var inQuotes = false, quoteLine = 0, wasQuoted = false
        var text = text
        try text.withUTF8 { buf in
            var i = 0
            let n = buf.count
            func endField() {
                fields.append(String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
                wasQuoted = false
            }
            func endRecord() {
                endField()
                // Skip blank lines (a single empty field).
                if !(fields.count == 1 && fields[0].isEmpty) { rows.append(CSVRecord(line: recordLine, fields: fields)) }
                fields.removeAll(keepingCapacity: true)
            }
            while i < n {
                let c = buf[i]
                if inQuotes {
                    if c == 0x22 {
                        if i + 1 < n, buf[i + 1] == 0x22 { field.append(0x22); i += 2; continue }
                        inQuotes = false; i += 1; continue
                    }
                    if c == 0x0A { line += 1 }
                    field.append(c); i += 1; continue
                }
                switch c {
                case 0x22:
                    if field.isEmpty && !wasQuoted { inQuotes = true; wasQuoted = true; quoteLine = line }
                    else { throw BuildError(file: file, line: line, "stray quote inside an unquoted field") }
                    i += 1
                case d: endField(); i += 1
                case 0x0D:
                    if i + 1 < n, buf[i + 1] == 0x0A { i += 1 }
                    fallthrough
                case 0x0A:
                    endRecord(); i += 1; line += 1; recordLine = line
                default:
                    if wasQuoted { throw BuildError(file: file, line: line, "unexpected text after a closing quote") }
                    field.append(c); i += 1
                }
            }
            if inQuotes { throw BuildError(file: file, line: quoteLine, "unterminated quoted field (a '\"' opened here is never closed)") }
            if !field.isEmpty || !fields.isEmpty || wasQuoted { endRecord() }
        }
        guard let header = rows.first else { throw BuildError(file: file, line: 1, "the file is empty (a header line is required)") }
        return CSVTable(file: file, header: header.fields.map { $0.trimmingCharacters(in: .whitespaces) },
                        records: Array(rows.dropFirst()), delimiter: delim)
    }
}
