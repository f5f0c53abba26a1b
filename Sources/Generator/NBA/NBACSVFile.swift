import Foundation

/// One CSV file of the NBA folder, read, with the columns its reader uses: each must be in the header and within
/// every row, so a reader can index any row by those columns.
struct NBACSVFile {
    let table: CSVTable
    /// The file as messages name it.
    let file: String
    /// Column index of each name used.
    let columns: [String: Int]

    init(_ table: CSVTable, file: String, columns names: [String]) throws {
        var columns: [String: Int] = [:]
        for c in names {
            guard let i = table.column([c]) else { throw BuildError(file: file, line: 1, field: c, "missing column") }
            columns[c] = i
        }
        // A short row would otherwise be read past its end.
        let width = (columns.values.max() ?? 0) + 1
        if let r = table.records.first(where: { $0.fields.count < width }) {
            throw BuildError(file: file, line: r.line, "has \(r.fields.count) fields; the columns used need \(width)")
        }
        self.table = table
        self.file = file
        self.columns = columns
    }

    var records: [CSVRecord] { table.records }

    /// The cell of `column` as written.
    func text(_ r: CSVRecord, _ column: String) -> String { r.fields[columns[column]!] }

    func int(_ r: CSVRecord, _ column: String) throws -> Int { try number(r, column) { Int($0) } }

    func double(_ r: CSVRecord, _ column: String) throws -> Double { try number(r, column) { Double($0) } }

    /// The cell of `column`, trimmed and parsed; an error naming file, line and column when it is not a number.
    func number<T>(_ r: CSVRecord, _ column: String, _ parse: (String) -> T?) throws -> T {
        let i = columns[column]!
        let s = i < r.fields.count ? r.fields[i].trimmingCharacters(in: .whitespaces) : ""
        // Double("nan") and Double("inf") parse; neither is a number an output can carry.
        guard let v = parse(s), (v as? Double)?.isFinite != false else {
            throw BuildError(file: file, line: r.line, field: column, "expected a number, found \(Excerpt.quote(s))")
        }
        return v
    }
}
