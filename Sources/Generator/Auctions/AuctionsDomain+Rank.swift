import Foundation

extension AuctionsDomain {
    /// Leaves out the parcels outside `auctions.filters` (acreage, price); returns how many.
    static func removeOutsideFilters(_ parcels: inout [Parcel], _ s: AuctionSettings) -> Int {
        let before = parcels.count
        parcels.removeAll { p in
            if let m = s.minAcres, (p.acreage ?? 0) < m { return true }
            if let m = s.maxAcres, (p.acreage ?? 0) > m { return true }
            if let m = s.maxPrice, p.amount > m { return true }
            return false
        }
        return before - parcels.count
    }

    /// Rank order: score (high first), price per acre (low first; unknown last), water (high first), parcel id, county.
    static func rank(_ parcels: inout [Parcel]) {
        parcels.sort { a, b in
            if a.investmentScore != b.investmentScore { return a.investmentScore > b.investmentScore }
            let pa = a.pricePerAcre ?? .infinity, pb = b.pricePerAcre ?? .infinity
            if pa != pb { return pa < pb }
            if a.waterScore != b.waterScore { return a.waterScore > b.waterScore }
            if a.parcelId != b.parcelId { return a.parcelId < b.parcelId }
            return a.county < b.county
        }
    }

    /// Sets each parcel's rank (1 first) and file name: the parcel id, with the county slug when two counties
    /// publish the same id. Throws when an id cannot be a file name or two parcels would share one.
    static func nameFiles(_ parcels: inout [Parcel]) throws {
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
    }
}
