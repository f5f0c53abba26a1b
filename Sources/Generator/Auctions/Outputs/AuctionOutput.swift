import Foundation
import Schemas

/// One auction output kind: its declared kinds (schemas) and how it renders.
protocol AuctionOutput {
    var kinds: [OutputKind] { get }
    func render(_ m: AuctionsDomain.Model, _ context: BuildContext) throws -> [OutputFile]
}

enum AuctionOutputs {
    /// Every auction output, in emission order. Adding a kind = one file + one line here.
    static let all: [AuctionOutput] = [PropertyListOutput(), PropertyDetailOutput(), CountyOutputs()]

    /// The design document's PropertyResponse (camelCase), plus `grade` and `acreageSource`.
    /// Unknown numbers are 0 where the app's model requires a number: pricePerAcre without a positive acreage,
    /// assessedValue when none is known (then assessedValueRatio is 1.0, as the score takes it).
    static let propertySchema = Schema.object([
        "parcelId": Schema.nonEmptyString, "amount": Schema.nonNegativeNumber, "acreage": Schema.nonNegativeNumber,
        "pricePerAcre": Schema.nonNegativeNumber, "waterScore": Schema.nonNegativeNumber, "investmentScore": Schema.number(min: 0, max: 100),
        "estimatedAllInCost": Schema.nonNegativeNumber, "assessedValue": Schema.nonNegativeNumber, "assessedValueRatio": Schema.nonNegativeNumber,
        "description": Schema.nullable(Schema.string), "county": Schema.string, "ownerName": Schema.nullable(Schema.string), "yearSold": Schema.nullable(Schema.string),
        "rank": Schema.integer(min: 1), "createdAt": Schema.dateTime, "updatedAt": Schema.dateTime,
        "grade": Schema.enumeration(["A", "B", "C", "D", "F"]), "acreageSource": Schema.string,
    ])

    static func json(_ p: Parcel, _ m: AuctionsDomain.Model) -> JSON {
        .obj([
            "parcelId": .string(p.parcelId), "amount": .number(JSONNumber(p.amount)), "acreage": .double(p.acreage ?? 0),
            "pricePerAcre": .double(p.pricePerAcre ?? 0), "waterScore": .double(p.waterScore), "investmentScore": .double(p.investmentScore),
            "estimatedAllInCost": .number(p.allInCost.json), "assessedValue": .number(JSONNumber(p.assessedValue ?? 0)),
            "assessedValueRatio": .double(p.assessedRatio),
            "description": p.description.isEmpty ? .null : .string(p.description), "county": .string(p.county),
            "ownerName": .optional(p.owner), "yearSold": .optional(p.yearSold), "rank": .int(p.rank),
            "createdAt": .string(m.recordedAt), "updatedAt": .string(m.recordedAt),
            "grade": .string(p.grade), "acreageSource": .string(p.acreageSource),
        ])
    }

    /// Files carry the build time only when `auctions.recordedAt` is not set.
    static func stamps(_ m: AuctionsDomain.Model) -> Bool { m.settings.recordedAt == nil }
}
