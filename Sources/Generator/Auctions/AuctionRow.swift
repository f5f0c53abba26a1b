import Foundation

/// One CSV row as read, before checks: its file, line and the columns found through the header aliases.
struct AuctionRow {
    var file: String
    var line: Int
    var parcelId: String?
    var amount: String?
    var assessed: String?
    var description: String?
    var acreage: String?
    var yearSold: String?
    var owner: String?
    var county: String?
    /// Every field as read, for spotting exact duplicate rows.
    var raw: [String]
}

/// Why one row cannot be scored, naming the field; the caller adds its file and line.
struct AuctionRowError: Error { let field: String; let message: String }
