import Foundation

extension AuctionsDomain {
    /// Every row scored, before de-duplication and filters (what the original computes per row).
    func score(_ rows: [AuctionRow], fileCounty: [String: String?], settings s: AuctionSettings) -> (parcels: [(AuctionRow, Parcel)], errors: [BuildError]) {
        var out: [(AuctionRow, Parcel)] = []
        var errors: [BuildError] = []
        for r in rows {
            do {
                out.append((r, try Self.scoreRow(r, fileCounty: fileCounty, settings: s)))
            } catch let e as AuctionRowError {
                errors.append(BuildError(file: r.file, line: r.line, field: e.field, e.message))
            } catch {
                errors.append(BuildError(file: r.file, line: r.line, "\(error)"))
            }
        }
        return (out, errors)
    }

    /// One row checked (parcel id, county, amount, assessed value, acreage) and scored.
    static func scoreRow(_ r: AuctionRow, fileCounty: [String: String?], settings s: AuctionSettings) throws -> Parcel {
        guard let pid = r.parcelId?.trimmingCharacters(in: .whitespaces), !AuctionInput.isMissing(pid) else {
            throw AuctionRowError(field: "parcel id", message: "is missing")
        }
        let county = try Self.county(of: r, fileCounty: fileCounty)
        guard let amount = try AuctionInput.money(r.amount) else { throw AuctionRowError(field: "amount", message: "is missing") }
        if amount < 0 { throw AuctionRowError(field: "amount", message: "is negative (\(amount))") }
        let assessed = try AuctionInput.money(r.assessed, field: "assessed value")
        let description = (r.description ?? "").trimmingCharacters(in: .whitespaces)
        let (acreage, source) = try Self.acreage(of: r, description: description)
        let amountDouble = Self.double(amount)
        let ppa: Double? = (acreage ?? 0) > 0 ? amountDouble / acreage! : nil
        let water = AuctionScoring.water(description)
        let ratio: Double = assessed.map { $0 > 0 ? amountDouble / Self.double($0) : 1.0 } ?? 1.0
        let score = AuctionScoring.investmentScore(pricePerAcre: ppa ?? 0, acreage: acreage ?? 0, water: water,
                                                   assessedRatio: ratio, weights: s.weights)
        return Parcel(parcelId: pid, county: county, amount: amount, amountDouble: amountDouble, acreage: acreage,
                      acreageSource: source, assessedValue: assessed, description: description,
                      owner: AuctionInput.isMissing(r.owner) ? nil : r.owner!.trimmingCharacters(in: .whitespaces),
                      yearSold: AuctionInput.isMissing(r.yearSold) ? nil : r.yearSold!.trimmingCharacters(in: .whitespaces),
                      pricePerAcre: ppa, waterScore: water, assessedRatio: ratio, investmentScore: score,
                      allInCost: AuctionScoring.allInCost(amount), grade: AuctionScoring.grade(score, thresholds: s.grades))
    }

    /// The row's county column, else the county site.json gives its file; as Alabama's canonical name.
    static func county(of r: AuctionRow, fileCounty: [String: String?]) throws -> String {
        let countyText = AuctionInput.isMissing(r.county) ? (fileCounty[r.file] ?? nil) : r.county
        guard let countyText else { throw AuctionRowError(field: "county", message: "no county column and no county for this file in site.json (auctions.files)") }
        guard let county = AlabamaCounties.canonical(countyText) else {
            throw AuctionRowError(field: "county", message: "\"\(countyText)\" is not one of Alabama's 67 counties")
        }
        return county
    }

    /// The acreage column, else acreage inferred from the description, with where it came from
    /// (`column`, `description: …` or `unknown`).
    static func acreage(of r: AuctionRow, description: String) throws -> (acres: Double?, source: String) {
        if !AuctionInput.isMissing(r.acreage) {
            // The money comma rule: `1,250.5` is 1250.5 acres, `1,5` an error (not 15).
            let a: Double
            do { a = try Money.quantity(r.acreage!) } catch { throw AuctionRowError(field: "acreage", message: "\(error)") }
            if a < 0 { throw AuctionRowError(field: "acreage", message: "is negative (\(r.acreage!))") }
            return (a, "column")
        }
        if let inferred = AuctionInput.inferAcreage(description) { return (inferred.acres, inferred.source) }
        return (nil, "unknown")
    }

    /// The double nearest to a decimal, as Python's float() of its text gives it (the original's arithmetic).
    /// Not NSDecimalNumber's doubleValue, which is not correctly rounded (146.46 → 146.45999999999998).
    static func double(_ d: Decimal) -> Double {
        Double(d.description) ?? NSDecimalNumber(decimal: d).doubleValue
    }
}
