import Foundation
import Schemas

/// `auctions/properties.json`: every parcel in rank order (the document's `[PropertyResponse]`), and the same list in
/// pages at `auctions/pages/page-{n}.json` for apps that load it piece by piece.
struct PropertyListOutput: AuctionOutput {
    static let list = OutputKind(name: "auction-properties", pathTemplate: "auctions/properties.json",
                                 summary: "Every auction parcel, scored, in rank order (PropertyResponse array).",
                                 schema: Schema.array(AuctionOutputs.propertySchema))
    static let page = OutputKind(name: "auction-page", pathTemplate: "auctions/pages/page-{n}.json",
                                 summary: "A page of the ranked parcel list.",
                                 schema: Schema.object(["properties": Schema.array(AuctionOutputs.propertySchema), "total": Schema.nonNegativeInteger,
                                                   "page": Schema.integer(min: 1), "perPage": Schema.integer(min: 1), "totalPages": Schema.integer(min: 1)]))
    var kinds: [OutputKind] { [Self.list, Self.page] }

    func render(_ m: AuctionsDomain.Model, _ context: BuildContext) throws -> [OutputFile] {
        let all = m.parcels.map { AuctionOutputs.json($0, m) }
        let stamps = AuctionOutputs.stamps(m)
        var files = [OutputFile(path: "auctions/properties.json", json: .array(all), kind: Self.list, stampsBuildTime: stamps)]
        let size = m.settings.pageSize
        let pages = max(1, (all.count + size - 1) / size)
        for n in 1...pages {
            let slice = all[min(all.count, (n - 1) * size)..<min(all.count, n * size)]
            files.append(OutputFile(path: "auctions/pages/page-\(n).json", json: .obj([
                "properties": .array(Array(slice)), "total": .int(all.count), "page": .int(n), "perPage": .int(size), "totalPages": .int(pages),
            ]), kind: Self.page, stampsBuildTime: stamps))
        }
        return files
    }
}
