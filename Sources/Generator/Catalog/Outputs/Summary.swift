import Foundation
import Schemas

/// `SUMMARY.json`: catalog totals, top brands (case variants merged) and departments with counts.
struct SummaryOutput: CatalogOutput {
    static let kind = OutputKind(
        name: "summary", pathTemplate: "SUMMARY.json",
        summary: "Catalog statistics: totals, top brands with merged case variants, departments with exact counts, anomalies.",
        schema: Schema.object([
            "dataVersion": Schema.nonEmptyString,
            "totals": Schema.object(["products": Schema.nonNegativeInteger, "productsInStock": Schema.nonNegativeInteger,
                                "unpricedProducts": Schema.nonNegativeInteger, "categories": Schema.nonNegativeInteger,
                                "departments": Schema.nonNegativeInteger, "brands": Schema.nonNegativeInteger]),
            "priceRange": Schema.object(["min": Schema.nullable(Schema.nonNegativeNumber), "max": Schema.nullable(Schema.nonNegativeNumber),
                                    "average": Schema.nullable(Schema.nonNegativeNumber)]),
            "topBrands": Schema.array(Schema.object(["name": Schema.string, "productCount": Schema.integer(min: 1), "variants": Schema.array(Schema.string)])),
            "departments": Schema.array(Schema.object(["id": Schema.string, "name": Schema.string, "productCount": Schema.nonNegativeInteger,
                                             "subcategories": Schema.nonNegativeInteger])),
            "anomalies": Schema.array(Schema.object(["what": Schema.string, "count": Schema.nonNegativeInteger, "policy": Schema.string])),
        ]))
    var kinds: [OutputKind] { [Self.kind] }

    func render(_ c: CatalogContext) throws -> [OutputFile] {
        let m = c.model
        var brandCounts: [String: Int] = [:]
        for p in m.products { if let k = p.brandKey { brandCounts[k, default: 0] += 1 } }
        let top = brandCounts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(20)
        let topBrands: [JSON] = top.map { key, count in
            let variants = m.brandVariants[key] ?? [:]
            let name = variants.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.first?.key ?? key
            return .obj(["name": .string(name), "productCount": .int(count), "variants": .strings(variants.keys.sorted())])
        }
        let departments: [JSON] = m.categoryOrder.compactMap { m.categories[$0] }.filter { $0.parent == nil }.map { d in
            var descendants = 0
            var stack = d.children
            while let x = stack.popLast() { descendants += 1; stack += m.categories[x]?.children ?? [] }
            return .obj(["id": .string(d.path), "name": .string(d.name), "productCount": .int(m.subtreeProducts[d.id]?.count ?? 0),
                         "subcategories": .int(descendants)])
        }
        // Exact sum of decimal prices (any size), then one rounding for the average: to cents, half to even.
        let prices = m.products.compactMap(\.price)
        let average = prices.isEmpty ? nil : Self.exactSum(prices).divided(by: prices.count, places: Self.averagePlaces)
        let anomalies: [JSON] = m.report.filter { $0.policy != nil && $0.key != "products read" }.map {
            .obj(["what": .string($0.key), "count": .int($0.count), "policy": .string($0.policy!)])
        }
        let json: JSON = .obj([
            "dataVersion": .string(m.dataVersion),
            "totals": .obj([
                "products": .int(m.products.count), "productsInStock": .int(m.products.filter(\.inStock).count),
                "unpricedProducts": .int(m.unpricedIds.count), "categories": .int(m.categories.count),
                "departments": .int(departments.count), "brands": .int(brandCounts.count),
            ]),
            "priceRange": .obj([
                "min": Self.extreme(prices, largest: false).map(JSON.number) ?? .null,
                "max": Self.extreme(prices, largest: true).map(JSON.number) ?? .null,
                "average": average.map { .number($0.json) } ?? .null,
            ]),
            "topBrands": .array(topBrands), "departments": .array(departments), "anomalies": .array(anomalies),
        ])
        return [OutputFile(path: "SUMMARY.json", json: json, kind: Self.kind)]
    }

    /// What `prices.min()` (or, `largest`, `prices.max()`) gives — the first price no later one is below (above) —
    /// with each price's value read once: prices keep the text they were written with, and comparing two of those
    /// parsed both every time (400,000 parses at 100,000 products). Two different finite doubles order the exact
    /// values as they order themselves; only equal (or infinite) ones ask the exact order of the digits.
    static func extreme(_ prices: [JSONNumber], largest: Bool) -> JSONNumber? {
        guard var best = prices.first else { return nil }
        var bestValue = best.double
        for p in prices.dropFirst() {
            let v = p.double
            let wins = v.isFinite && bestValue.isFinite && v != bestValue ? (largest ? v > bestValue : v < bestValue)
                : (largest ? best < p : p < best)
            if wins { best = p; bestValue = v }
        }
        return best
    }

    /// `priceRange.average` is the exact mean rounded half to even to this many decimal places (cents).
    static let averagePlaces = 2

    /// The exact sum of the prices: as integers scaled to the most decimals any price has (the usual case: plain
    /// decimals, a few digits), else digit by digit (exponents, long literals, sums past Int).
    static func exactSum(_ prices: [JSONNumber]) -> ExactDecimal {
        func slowSum() -> ExactDecimal { ExactDecimal.sum(prices) }
        var scaled: [(units: Int, decimals: Int)] = []
        scaled.reserveCapacity(prices.count)
        var most = 0
        for p in prices {
            // -?digits(.digits)? with at most 17 digits in all; anything else (exponents, long literals) is summed digit by digit.
            var units = 0, decimals = 0, digits = 0, negative = false, point = false
            for (k, b) in p.description.utf8.enumerated() {
                if b == UInt8(ascii: "-") && k == 0 { negative = true; continue }
                if b == UInt8(ascii: ".") && !point { point = true; continue }
                guard b >= 0x30 && b <= 0x39, digits < 17 else { return slowSum() }
                units = units * 10 + Int(b - 0x30); digits += 1
                if point { decimals += 1 }
            }
            scaled.append((negative ? -units : units, decimals))
            most = max(most, decimals)
        }
        guard most <= 6 else { return slowSum() }
        var sum = 0
        for (units, decimals) in scaled {
            var v = units
            for _ in decimals..<most { let (x, o) = v.multipliedReportingOverflow(by: 10); if o { return slowSum() }; v = x }
            let (t, o) = sum.addingReportingOverflow(v)
            if o { return slowSum() }
            sum = t
        }
        return ExactDecimal(units: sum, scale: most)
    }
}
