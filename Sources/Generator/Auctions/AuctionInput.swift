import Foundation
import Schemas

/// `auctions` in site.json. Every key is optional.
struct AuctionSettings {
    struct FileSpec { var path: String; var county: String? }
    /// CSV files (relative to the input folder) with an optional county for files without a county column;
    /// default: every `*.csv` / `*.tsv` under `input/auctions/`.
    var files: [FileSpec] = []
    var weights = AuctionScoring.Weights()
    /// Lowest score of each grade, best first.
    var grades: [(String, Double)] = [("A", 80), ("B", 60), ("C", 40), ("D", 20)]
    var minAcres: Double?, maxAcres: Double?, maxPrice: Decimal?
    var pageSize = 100
    /// `createdAt` / `updatedAt` of the records (ISO-8601); default: the build time.
    var recordedAt: String?

    static func read(_ site: SiteConfig, file: String) throws -> AuctionSettings {
        var s = AuctionSettings()
        var o = try site.section("auctions", file: file)
        if case .array(let items)? = o.raw("files") {
            for (i, item) in items.enumerated() {
                if let p = item.stringValue { s.files.append(FileSpec(path: p, county: nil)); continue }
                var f = try StrictObject(item, file: file, path: "auctions.files[\(i)]")
                s.files.append(FileSpec(path: try f.string("path"), county: try f.optionalString("county")))
                try f.finish()
            }
        }
        if var w = try o.object("weights") {
            s.weights.pricePerAcre = try w.double("pricePerAcre", default: 0.4)
            s.weights.acreage = try w.double("acreage", default: 0.3)
            s.weights.water = try w.double("water", default: 0.2)
            s.weights.assessedRatio = try w.double("assessedRatio", default: 0.1)
            try w.finish()
        }
        if var g = try o.object("grades") {
            s.grades = try ["A", "B", "C", "D"].map { ($0, try g.double($0)) }
            try g.finish()
            if zip(s.grades, s.grades.dropFirst()).contains(where: { $0.1 <= $1.1 }) {
                throw BuildError(file: file, field: "auctions.grades", "thresholds must decrease from A to D")
            }
        }
        if var f = try o.object("filters") {
            if f.has("minAcres") { s.minAcres = try f.double("minAcres") }
            if f.has("maxAcres") { s.maxAcres = try f.double("maxAcres") }
            if let v = f.raw("maxPrice") {
                // From its literal, exactly: Decimal(0.3 as a double) is 0.29999…, which would leave out a 0.30 bid.
                guard let n = v.numberValue, let d = try? Money.decimal(n) else {
                    throw BuildError(file: file, field: "auctions.filters.maxPrice", "expected an amount of money such as 500, found \(v.compactText)")
                }
                s.maxPrice = d
            }
            try f.finish()
        }
        s.pageSize = try o.int("pageSize", default: 100, min: 1, max: 10_000)
        s.recordedAt = try o.optionalString("recordedAt")
        if let r = s.recordedAt, r.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"#, options: .regularExpression) == nil {
            throw BuildError(file: file, field: "auctions.recordedAt", "expected an ISO-8601 UTC date-time such as 2025-12-15T00:00:00Z")
        }
        try o.finish()
        return s
    }
}

/// One CSV row as read, before checks: its file, line and the columns found through the header aliases.
struct AuctionRow {
    var file: String
    var line: Int
    var parcelId: String?
    var amount: String?
    var assessed: String?
    var description: String?
    var acreage: String?
    var yearSold: String?
    var owner: String?
    var county: String?
    /// Every field as read, for spotting exact duplicate rows.
    var raw: [String]
}

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

struct AuctionRowError: Error { let field: String; let message: String }
