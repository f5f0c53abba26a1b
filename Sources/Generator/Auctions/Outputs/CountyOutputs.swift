import Foundation
import Schemas

/// `auctions/counties/{county}.json` (the county's parcels in rank order, PropertyResponse array) and
/// `auctions/county-index.json` (per county: parcels, total bid, median price per acre, mean score, parcels with
/// water). The index sits outside `counties/` so that folder holds only PropertyResponse arrays, as apps read it.
struct CountyOutputs: AuctionOutput {
    static let county = OutputKind(name: "auction-county", pathTemplate: "auctions/counties/{county}.json",
                                   summary: "One county's parcels in rank order (PropertyResponse array).",
                                   schema: Schema.array(AuctionOutputs.propertySchema))
    static let index = OutputKind(name: "auction-county-index", pathTemplate: "auctions/county-index.json",
                                  summary: "Per-county statistics of the auction parcels.",
                                  schema: Schema.object(["counties": Schema.array(Schema.object([
                                      "county": Schema.nonEmptyString, "slug": Schema.nonEmptyString, "path": Schema.relativePath,
                                      "parcels": Schema.integer(min: 1), "totalBid": Schema.nonNegativeNumber,
                                      "medianPricePerAcre": Schema.nullable(Schema.nonNegativeNumber), "meanScore": Schema.number(min: 0, max: 100),
                                      "parcelsWithWater": Schema.nonNegativeInteger,
                                  ]))]))
    var kinds: [OutputKind] { [Self.county, Self.index] }

    func render(_ m: AuctionsDomain.Model, _ context: BuildContext) throws -> [OutputFile] {
        var byCounty: [String: [Parcel]] = [:]
        for p in m.parcels { byCounty[p.county, default: []].append(p) }
        let stamps = AuctionOutputs.stamps(m)
        var files: [OutputFile] = []
        var entries: [JSON] = []
        for (county, parcels) in byCounty.sorted(by: { $0.key < $1.key }) {
            let slug = AlabamaCounties.slug(county)
            let path = "auctions/counties/\(slug).json"
            files.append(OutputFile(path: path, json: .array(parcels.map { AuctionOutputs.json($0, m) }), kind: Self.county, stampsBuildTime: stamps))
            let ppas = parcels.compactMap(\.pricePerAcre).sorted()
            let median: JSON = ppas.isEmpty ? .null : .double(ppas.count % 2 == 1 ? ppas[ppas.count / 2] : (ppas[ppas.count / 2 - 1] + ppas[ppas.count / 2]) / 2)
            // Exact at any size: a Decimal sum rounds past 38 digits.
            let total = parcels.reduce(ExactDecimal.zero) { $0 + (ExactDecimal(exactly: $1.amount) ?? .zero) }
            let mean = AuctionScoring.pythonRound1(parcels.map(\.investmentScore).reduce(0, +) / Double(parcels.count))
            entries.append(.obj([
                "county": .string(county), "slug": .string(slug), "path": .string(path), "parcels": .int(parcels.count),
                "totalBid": .number(total.json), "medianPricePerAcre": median, "meanScore": .double(mean),
                "parcelsWithWater": .int(parcels.filter { $0.waterScore > 0 }.count),
            ]))
        }
        files.append(OutputFile(path: "auctions/county-index.json", json: .obj(["counties": .array(entries)]), kind: Self.index))
        return files
    }
}
