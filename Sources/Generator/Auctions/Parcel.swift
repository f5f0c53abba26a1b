import Foundation

/// One scored parcel.
struct Parcel {
    var parcelId: String
    var county: String
    var amount: Decimal
    var amountDouble: Double
    var acreage: Double?
    var acreageSource: String
    var assessedValue: Decimal?
    var description: String
    var owner: String?
    var yearSold: String?
    var pricePerAcre: Double?
    var waterScore: Double
    var assessedRatio: Double
    var investmentScore: Double
    var allInCost: ExactDecimal
    var grade: String
    var rank = 0
    /// File name under auctions/properties/ (the parcel id, with the county when two counties share an id).
    var segment = ""
}
