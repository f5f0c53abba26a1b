import Foundation
import Schemas

/// Alabama tax-sale parcels (CSV as counties publish them) → scored, ranked JSON.
public struct AuctionsDomain: Domain {
    public let name = "auctions"
    public init() {}

    /// The configured files, or every `*.csv` / `*.tsv` listed in `input/auctions/` (each path is resolved and
    /// confined to the input folder when it is read).
    func files(_ context: BuildContext, _ s: AuctionSettings) throws -> [AuctionSettings.FileSpec] {
        if !s.files.isEmpty { return s.files }
        let (dir, display) = try context.inputFile("auctions", file: context.displayPath(context.inputDirectory.appendingPathComponent("auctions")), field: nil)
        return try InputFiles.list(dir, display: display).filter { $0.lowercased().hasSuffix(".csv") || $0.lowercased().hasSuffix(".tsv") }
            .map { AuctionSettings.FileSpec(path: "auctions/\($0)", county: nil) }
    }

    public func isPresent(in context: BuildContext) -> Bool {
        guard let s = try? AuctionSettings.read(context.site, file: "site.json") else { return true }  // let build() report it
        do { return !(try files(context, s)).isEmpty } catch { return true }
    }

    public func build(_ context: BuildContext) throws -> DomainResult {
        let model = try load(context)
        var result = DomainResult(report: model.report)
        for unit in AuctionOutputs.all {
            result.files += try unit.render(model, context)
            result.kinds += unit.kinds
        }
        return result
    }

    struct Model {
        var parcels: [Parcel]          // rank order
        var settings: AuctionSettings
        var recordedAt: String
        var report: [ReportItem]
    }

    /// Every row scored, before de-duplication and filters (what the original computes per row).
    func score(_ rows: [AuctionRow], fileCounty: [String: String?], settings s: AuctionSettings) -> (parcels: [(AuctionRow, Parcel)], errors: [BuildError]) {
        var out: [(AuctionRow, Parcel)] = []
        var errors: [BuildError] = []
        for r in rows {
            do {
                guard let pid = r.parcelId?.trimmingCharacters(in: .whitespaces), !AuctionInput.isMissing(pid) else {
                    throw AuctionRowError(field: "parcel id", message: "is missing")
                }
                let countyText = AuctionInput.isMissing(r.county) ? (fileCounty[r.file] ?? nil) : r.county
                guard let countyText else { throw AuctionRowError(field: "county", message: "no county column and no county for this file in site.json (auctions.files)") }
                guard let county = AlabamaCounties.canonical(countyText) else {
                    throw AuctionRowError(field: "county", message: "\"\(countyText)\" is not one of Alabama's 67 counties")
                }
                guard let amount = try AuctionInput.money(r.amount) else { throw AuctionRowError(field: "amount", message: "is missing") }
                if amount < 0 { throw AuctionRowError(field: "amount", message: "is negative (\(amount))") }
                let assessed = try AuctionInput.money(r.assessed, field: "assessed value")
                let description = (r.description ?? "").trimmingCharacters(in: .whitespaces)
                var acreage: Double?
                var source = "column"
                if !AuctionInput.isMissing(r.acreage) {
                    // The money comma rule: `1,250.5` is 1250.5 acres, `1,5` an error (not 15).
                    let a: Double
                    do { a = try Money.quantity(r.acreage!) } catch { throw AuctionRowError(field: "acreage", message: "\(error)") }
                    if a < 0 { throw AuctionRowError(field: "acreage", message: "is negative (\(r.acreage!))") }
                    acreage = a
                } else if let inferred = AuctionInput.inferAcreage(description) {
                    acreage = inferred.acres; source = inferred.source
                } else { source = "unknown" }
                let amountDouble = Self.double(amount)
                let ppa: Double? = (acreage ?? 0) > 0 ? amountDouble / acreage! : nil
                let water = AuctionScoring.water(description)
                let ratio: Double = assessed.map { $0 > 0 ? amountDouble / Self.double($0) : 1.0 } ?? 1.0
                let score = AuctionScoring.investmentScore(pricePerAcre: ppa ?? 0, acreage: acreage ?? 0, water: water,
                                                           assessedRatio: ratio, weights: s.weights)
                out.append((r, Parcel(parcelId: pid, county: county, amount: amount, amountDouble: amountDouble, acreage: acreage,
                                      acreageSource: source, assessedValue: assessed, description: description,
                                      owner: AuctionInput.isMissing(r.owner) ? nil : r.owner!.trimmingCharacters(in: .whitespaces),
                                      yearSold: AuctionInput.isMissing(r.yearSold) ? nil : r.yearSold!.trimmingCharacters(in: .whitespaces),
                                      pricePerAcre: ppa, waterScore: water, assessedRatio: ratio, investmentScore: score,
                                      allInCost: AuctionScoring.allInCost(amount), grade: AuctionScoring.grade(score, thresholds: s.grades))))
            } catch let e as AuctionRowError {
                errors.append(BuildError(file: r.file, line: r.line, field: e.field, e.message))
            } catch {
                errors.append(BuildError(file: r.file, line: r.line, "\(error)"))
            }
        }
        return (out, errors)
    }

    /// The double nearest to a decimal, as Python's float() of its text gives it (the original's arithmetic).
    /// Not NSDecimalNumber's doubleValue, which is not correctly rounded (146.46 → 146.45999999999998).
    static func double(_ d: Decimal) -> Double {
        Double(d.description) ?? NSDecimalNumber(decimal: d).doubleValue
    }

    /// The same row again: every field as read (from another file, also every column read through the headers, as
    /// two layouts could give equal fields different meanings).
    static func identical(_ a: AuctionRow, _ b: AuctionRow) -> Bool {
        guard a.raw == b.raw else { return false }
        return a.file == b.file || ((a.parcelId, a.amount, a.assessed, a.description) == (b.parcelId, b.amount, b.assessed, b.description)
            && (a.acreage, a.yearSold, a.owner, a.county) == (b.acreage, b.yearSold, b.owner, b.county))
    }

    func load(_ context: BuildContext) throws -> Model {
        let siteFile = context.displayPath(context.inputDirectory.appendingPathComponent("site.json"))
        let s = try AuctionSettings.read(context.site, file: siteFile)
        var rows: [AuctionRow] = []
        var fileCounty: [String: String?] = [:]
        var report: [ReportItem] = []
        for (i, spec) in try files(context, s).enumerated() {
            // A configured path is checked as a field of site.json; a listed one is named by itself.
            let listed = s.files.isEmpty
            let field = listed ? nil : "auctions.files[\(i)]"
            let (url, display) = try context.inputFile(spec.path, file: listed ? context.displayPath(context.inputDirectory.appendingPathComponent(spec.path)) : siteFile, field: field)
            guard InputFiles.kind(url) != .missing else { throw BuildError(file: siteFile, field: field ?? "auctions.files", "\(Excerpt.text(spec.path)) not found") }
            let table = try CSVReader.read(url, displayName: display)
            if let c = spec.county, AlabamaCounties.canonical(c) == nil {
                throw BuildError(file: siteFile, field: field ?? "auctions.files", "\(Excerpt.quote(c)) (for \(Excerpt.text(spec.path))) is not one of Alabama's 67 counties")
            }
            fileCounty[display] = spec.county
            try AuctionInput.checkHeader(table, display: display)
            let r = AuctionInput.rows(table, display: display)
            report.append(ReportItem(domain: name, key: "rows read from \(display)", count: r.count))
            rows += r
        }
        let (scored, errors) = score(rows, fileCounty: fileCounty, settings: s)
        if !errors.isEmpty {
            if context.skipBadRows {
                report.append(ReportItem(domain: name, key: "bad rows skipped", count: errors.count, policy: "--skip-bad-rows: left out",
                                         examples: errors.prefix(3).map { "\($0.file):\($0.line ?? 0)" }))
            } else { throw BuildErrors(errors) }
        }
        // Rows repeating a (county, parcel id) — one rule, stated in the summary: a later row (file order; files in
        // their listed or sorted order) is a newer record of the same parcel, as when the original app re-imported a
        // parcel by id. Identical to the parcel's current record, it collapses into it; differing, it replaces it.
        // So every parcel publishes its newest row, and each replaced row is listed by file and line.
        var seenRows = Set<[String]>(), idCounts: [String: Int] = [:]
        var current: [String: (index: Int, row: AuctionRow)] = [:]
        var exactDuplicates = 0, repeated = 0
        var replaced: [String] = []
        var parcels: [Parcel] = []
        for (row, p) in scored {
            if !seenRows.insert(row.raw).inserted { exactDuplicates += 1 }
            idCounts[p.parcelId, default: 0] += 1
            let key = "\(p.county)\u{0}\(p.parcelId)"
            guard let (index, earlier) = current[key] else {
                current[key] = (parcels.count, row)
                parcels.append(p)
                continue
            }
            repeated += 1
            if Self.identical(earlier, row) { continue }
            replaced.append(earlier.file == row.file ? "\(earlier.file):\(earlier.line) replaced by :\(row.line)"
                                                     : "\(earlier.file):\(earlier.line) replaced by \(row.file):\(row.line)")
            current[key] = (index, row)
            parcels[index] = p
        }
        let repeatedIds = idCounts.filter { $0.value > 1 }.count
        report.append(ReportItem(domain: name, key: "parcel ids that occur more than once", count: repeatedIds,
                                 policy: "one parcel per (county, parcel id): its newest row"))
        report.append(ReportItem(domain: name, key: "rows repeating a (county, parcel id)", count: repeated,
                                 policy: "a later row (in file order; files as site.json lists them, else by name) is a newer record of the parcel: identical to its current row it collapses, differing it replaces it"))
        report.append(ReportItem(domain: name, key: "rows replaced by a newer row of the same parcel", count: replaced.count,
                                 policy: "the newest row is published; every replaced row is listed by file and line (all of them in build --json)",
                                 examples: replaced))
        report.append(ReportItem(domain: name, key: "exact duplicate rows", count: exactDuplicates))
        // Filters from config.
        let before = parcels.count
        parcels.removeAll { p in
            if let m = s.minAcres, (p.acreage ?? 0) < m { return true }
            if let m = s.maxAcres, (p.acreage ?? 0) > m { return true }
            if let m = s.maxPrice, p.amount > m { return true }
            return false
        }
        if before != parcels.count { report.append(ReportItem(domain: name, key: "parcels outside the configured filters", count: before - parcels.count, policy: "left out")) }
        report.append(ReportItem(domain: name, key: "parcels published", count: parcels.count))
        // Rank: score (high first), price per acre (low first; unknown last), water (high first), parcel id, county.
        parcels.sort { a, b in
            if a.investmentScore != b.investmentScore { return a.investmentScore > b.investmentScore }
            let pa = a.pricePerAcre ?? .infinity, pb = b.pricePerAcre ?? .infinity
            if pa != pb { return pa < pb }
            if a.waterScore != b.waterScore { return a.waterScore > b.waterScore }
            if a.parcelId != b.parcelId { return a.parcelId < b.parcelId }
            return a.county < b.county
        }
        // File names: the parcel id, with the county slug when two counties publish the same id.
        var idCounties: [String: Set<String>] = [:]
        for p in parcels { idCounties[p.parcelId, default: []].insert(p.county) }
        var claims = CollisionDetector()
        for i in parcels.indices {
            parcels[i].rank = i + 1
            let base = idCounties[parcels[i].parcelId]!.count > 1 ? "\(parcels[i].parcelId)-\(AlabamaCounties.slug(parcels[i].county))" : parcels[i].parcelId
            do { parcels[i].segment = try SafePath.segment(base) } catch {
                throw BuildError(file: "auctions", field: "parcel id", "parcel id \"\(parcels[i].parcelId)\" cannot be a file name: it \(error)")
            }
            if let other = claims.claim(path: parcels[i].segment, id: "\(parcels[i].county)/\(parcels[i].parcelId)") {
                throw BuildError(file: "auctions", field: "parcel id", "parcels \(other) and \(parcels[i].county)/\(parcels[i].parcelId) map to the same file name \(parcels[i].segment)")
            }
        }
        return Model(parcels: parcels, settings: s, recordedAt: s.recordedAt ?? context.generatedAt, report: report)
    }
}
