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

    /// Read → score → check the bad-row policy → keep each parcel's newest row → filter → rank → name files.
    func load(_ context: BuildContext) throws -> Model {
        let siteFile = context.siteFile
        let settings = try AuctionSettings.read(context.site, file: siteFile)
        let read = try readFiles(context, settings, siteFile: siteFile)
        var report = read.report
        let (scored, errors) = score(read.rows, fileCounty: read.countyOfFile, settings: settings)
        if let skipped = try badRows(errors, context) { report.append(skipped) }
        var parcels: [Parcel], duplicates: ParcelDuplicates
        (parcels, duplicates) = ParcelDuplicates.newestRows(scored)
        report += duplicates.reportItems(domain: name)
        let outside = Self.removeOutsideFilters(&parcels, settings)
        if outside > 0 { report.append(ReportItem(domain: name, key: "parcels outside the configured filters", count: outside, policy: "left out")) }
        report.append(ReportItem(domain: name, key: "parcels published", count: parcels.count))
        Self.rank(&parcels)
        try Self.nameFiles(&parcels)
        return Model(parcels: parcels, settings: settings, recordedAt: settings.recordedAt ?? context.generatedAt, report: report)
    }

    /// Rows that could not be scored fail the build, or with `--skip-bad-rows` become one counted report line.
    func badRows(_ errors: [BuildError], _ context: BuildContext) throws -> ReportItem? {
        if errors.isEmpty { return nil }
        guard context.skipBadRows else { throw BuildErrors(errors) }
        return ReportItem(domain: name, key: "bad rows skipped", count: errors.count, policy: "--skip-bad-rows: left out",
                          examples: errors.prefix(3).map { "\($0.file):\($0.line ?? 0)" })
    }
}
