import Foundation
import Schemas

/// Auction CSV files read into rows: the header aliases of each column, what counts as missing, and money and
/// acreage as counties write them.
enum AuctionInput {
    /// Header aliases, matched case-insensitively, in order of preference.
    static let aliases: [(field: String, names: [String])] = [
        ("parcelId", ["parcel id", "parcel_id", "parcel number", "cs number", "parcel", "pin", "tax id"]),
        ("amount", ["amount bid at tax sale", "bid amount", "sale price", "amount", "price", "tax sale amount", "minimum bid"]),
        ("assessed", ["assessed value", "appraised value", "market value", "value"]),
        ("description", ["description", "property description", "legal description", "location"]),
        ("acreage", ["acreage", "acres", "acre", "lot size"]),
        ("yearSold", ["year sold", "sale year", "year"]),
        ("owner", ["owner name", "owner_name", "owner", "property owner", "name"]),
        ("county", ["county", "county name"]),
    ]

    /// Headers compare with spaces, underscores and case folded ("Parcel_ID" = "parcel id").
    static func norm(_ s: String) -> String { s.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: "_", with: " ") }

    /// Column of each field found in the header, through its aliases.
    static func columns(_ table: CSVTable) -> [String: Int] {
        let header = table.header.map(norm)
        var col: [String: Int] = [:]
        for (field, names) in aliases {
            for n in names { if let i = header.firstIndex(of: norm(n)) { col[field] = i; break } }
        }
        return col
    }

    /// Every row needs a parcel id and an amount: a header without either column is an error for the file (rather
    /// than one per row, or nothing at all for a file without rows, or a silent skip under --skip-bad-rows).
    static func checkHeader(_ table: CSVTable, display: String) throws {
        let col = columns(table)
        let missing = aliases.filter { ["parcelId", "amount"].contains($0.field) && col[$0.field] == nil }
        guard !missing.isEmpty else { return }
        let wanted = missing.map { f in
            "\(f.field == "parcelId" ? "parcel id" : "amount") column (expected one of: \(f.names.joined(separator: ", ")))"
        }.joined(separator: " and no ")
        let found = table.header.isEmpty ? "none" : Excerpt.text(table.header.joined(separator: ", "), limit: 200)
        throw BuildError(file: display, line: 1, "the header has no \(wanted); found: \(found)")
    }

    static func rows(_ table: CSVTable, display: String) -> [AuctionRow] {
        let col = columns(table)
        return table.records.map { r in
            func v(_ f: String) -> String? { col[f].flatMap { $0 < r.fields.count ? r.fields[$0] : nil } }
            return AuctionRow(file: display, line: r.line, parcelId: v("parcelId"), amount: v("amount"), assessed: v("assessed"),
                              description: v("description"), acreage: v("acreage"), yearSold: v("yearSold"), owner: v("owner"),
                              county: v("county"), raw: r.fields)
        }
    }

    /// Empty, N/A, NA, null, none → missing.
    static func isMissing(_ s: String?) -> Bool {
        guard let t = s?.trimmingCharacters(in: .whitespaces) else { return true }
        return t.isEmpty || ["n/a", "na", "null", "none", "-"].contains(t.lowercased())
    }

    /// `$1,234.56` → 1234.56 exactly; nil when missing; throws for text that is not money or is ambiguous (`12,99`),
    /// naming `field` (see `Money` for the rules).
    static func money(_ s: String?, field: String = "amount") throws -> Decimal? {
        if isMissing(s) { return nil }
        do { return try Money.parse(s!) } catch { throw AuctionRowError(field: field, message: "\(error)") }
    }

    /// Acreage inferred from a legal description, with the text it came from:
    /// `2.5 AC`, `1/2 ACRE` (0.5), `21,780 SQ FT`, `75' X 150'` or `100 X 200` (feet, ÷ 43,560).
    static func inferAcreage(_ description: String) -> (acres: Double, source: String)? {
        let d = description.uppercased()
        func first(_ pattern: String) -> [String]? {
            guard let r = try? NSRegularExpression(pattern: pattern),
                  let m = r.firstMatch(in: d, range: NSRange(d.startIndex..., in: d)) else { return nil }
            return (0..<m.numberOfRanges).map { i in Range(m.range(at: i), in: d).map { String(d[$0]) } ?? "" }
        }
        if let m = first(#"(?<![\d.])(\d+)\s*/\s*(\d+)\s*(?:AC|ACS|ACRE|ACRES)\b"#), let a = Double(m[1]), let b = Double(m[2]), b > 0 {
            return (a / b, "description: \(m[0])")
        }
        if let m = first(#"(?<![\d./])(\d+(?:\.\d+)?|\.\d+)\s*(?:AC|ACS|ACRE|ACRES)\b"#), let a = Double(m[1]) { return (a, "description: \(m[0])") }
        if let m = first(#"(\d[\d,]*(?:\.\d+)?)\s*(?:SQ\.?\s*FT|SQFT|SF|SQUARE FEET)\b"#), let a = Double(m[1].replacingOccurrences(of: ",", with: "")) {
            return (a / 43_560, "description: \(m[0])")
        }
        if let m = first(#"(\d+(?:\.\d+)?)\s*'?\s*X\s*(\d+(?:\.\d+)?)\s*'?"#), let a = Double(m[1]), let b = Double(m[2]) {
            return (a * b / 43_560, "description: \(m[0].trimmingCharacters(in: .whitespaces))")
        }
        return nil
    }
}
