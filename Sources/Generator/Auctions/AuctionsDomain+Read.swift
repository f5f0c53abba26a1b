import Foundation

extension AuctionsDomain {
    /// What reading the auction files hands to scoring: every row in file order, the county configured for each
    /// file (by its display name), and one report line per file.
    struct FilesRead {
        var rows: [AuctionRow] = []
        var countyOfFile: [String: String?] = [:]
        var report: [ReportItem] = []
    }

    /// Every configured or listed file, checked (found, a known county, a header with the columns every row needs)
    /// and read into rows, in order.
    func readFiles(_ context: BuildContext, _ settings: AuctionSettings, siteFile: String) throws -> FilesRead {
        var read = FilesRead()
        for (i, spec) in try files(context, settings).enumerated() {
            // A configured path is checked as a field of site.json; a listed one is named by itself.
            let listed = settings.files.isEmpty
            let field = listed ? nil : "auctions.files[\(i)]"
            let (url, display) = try context.inputFile(spec.path, file: listed ? context.displayPath(context.inputDirectory.appendingPathComponent(spec.path)) : siteFile, field: field)
            guard InputFiles.kind(url) != .missing else { throw BuildError(file: siteFile, field: field ?? "auctions.files", "\(Excerpt.text(spec.path)) not found") }
            let table = try CSVReader.read(url, displayName: display)
            if let c = spec.county, AlabamaCounties.canonical(c) == nil {
                throw BuildError(file: siteFile, field: field ?? "auctions.files", "\(Excerpt.quote(c)) (for \(Excerpt.text(spec.path))) is not one of Alabama's 67 counties")
            }
            read.countyOfFile[display] = spec.county
            try AuctionInput.checkHeader(table, display: display)
            let rows = AuctionInput.rows(table, display: display)
            read.report.append(ReportItem(domain: name, key: "rows read from \(display)", count: rows.count))
            read.rows += rows
        }
        return read
    }
}
