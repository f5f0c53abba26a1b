import Foundation

/// Rows repeating a (county, parcel id), under one rule stated in the summary: a later row (file order; files in
/// their listed or sorted order) is a newer record of the same parcel, as when the original app re-imported a parcel
/// by id. Identical to the parcel's current record, it collapses into it; differing, it replaces it. So every parcel
/// publishes its newest row, and each replaced row is listed by file and line.
struct ParcelDuplicates {
    /// Parcel ids that occur more than once (in any county).
    var repeatedIds = 0
    /// Rows after the first of their (county, parcel id).
    var repeated = 0
    /// `file:line replaced by file:line` for every row a newer one replaced.
    var replaced: [String] = []
    /// Rows whose fields all equal an earlier row's.
    var exactDuplicates = 0

    /// One parcel per (county, parcel id), in order of first appearance, each as its newest row; and what the rule did.
    static func newestRows(_ scored: [(AuctionRow, Parcel)]) -> (parcels: [Parcel], duplicates: ParcelDuplicates) {
        var parcels: [Parcel] = []
        var d = ParcelDuplicates()
        var seenRows = Set<[String]>(), idCounts: [String: Int] = [:]
        var current: [String: (index: Int, row: AuctionRow)] = [:]
        for (row, p) in scored {
            if !seenRows.insert(row.raw).inserted { d.exactDuplicates += 1 }
            idCounts[p.parcelId, default: 0] += 1
            let key = "\(p.county)\u{0}\(p.parcelId)"
            guard let (index, earlier) = current[key] else {
                current[key] = (parcels.count, row)
                parcels.append(p)
                continue
            }
            d.repeated += 1
            if identical(earlier, row) { continue }
            d.replaced.append(earlier.file == row.file ? "\(earlier.file):\(earlier.line) replaced by :\(row.line)"
                                                       : "\(earlier.file):\(earlier.line) replaced by \(row.file):\(row.line)")
            current[key] = (index, row)
            parcels[index] = p
        }
        d.repeatedIds = idCounts.filter { $0.value > 1 }.count
        return (parcels, d)
    }

    /// The same row again: every field as read (from another file, also every column read through the headers, as
    /// two layouts could give equal fields different meanings).
    static func identical(_ a: AuctionRow, _ b: AuctionRow) -> Bool {
        guard a.raw == b.raw else { return false }
        return a.file == b.file || ((a.parcelId, a.amount, a.assessed, a.description) == (b.parcelId, b.amount, b.assessed, b.description)
            && (a.acreage, a.yearSold, a.owner, a.county) == (b.acreage, b.yearSold, b.owner, b.county))
    }

    /// The summary's lines for the rule and what it did.
    func reportItems(domain: String) -> [ReportItem] {
        [
            ReportItem(domain: domain, key: "parcel ids that occur more than once", count: repeatedIds,
                       policy: "one parcel per (county, parcel id): its newest row"),
            ReportItem(domain: domain, key: "rows repeating a (county, parcel id)", count: repeated,
                       policy: "a later row (in file order; files as site.json lists them, else by name) is a newer record of the parcel: identical to its current row it collapses, differing it replaces it"),
            ReportItem(domain: domain, key: "rows replaced by a newer row of the same parcel", count: replaced.count,
                       policy: "the newest row is published; every replaced row is listed by file and line (all of them in build --json)",
                       examples: replaced),
            ReportItem(domain: domain, key: "exact duplicate rows", count: exactDuplicates),
        ]
    }
}
