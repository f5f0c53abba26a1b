import Foundation
import Schemas

/// `auctions/properties/{parcelId}.json`: one parcel (PropertyResponse). When two counties publish the same parcel
/// id, the file name adds the county (`{parcelId}-{county-slug}`).
struct PropertyDetailOutput: AuctionOutput {
    static let kind = OutputKind(name: "auction-property", pathTemplate: "auctions/properties/{parcelId}.json",
                                 summary: "One auction parcel with every metric (PropertyResponse).", schema: AuctionOutputs.propertySchema)
    var kinds: [OutputKind] { [Self.kind] }

    func render(_ m: AuctionsDomain.Model, _ context: BuildContext) throws -> [OutputFile] {
        m.parcels.map { OutputFile(path: "auctions/properties/\($0.segment).json", json: AuctionOutputs.json($0, m), kind: Self.kind,
                                   stampsBuildTime: AuctionOutputs.stamps(m)) }
    }
}
