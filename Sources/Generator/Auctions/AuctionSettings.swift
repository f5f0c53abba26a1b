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
