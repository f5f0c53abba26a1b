import Schemas

/// `offline-catalog.json`: for each category its top products by Bayesian-average rating
/// (m·C + n·R) / (m + n) — R the product's average, n its review count, C the mean rating of
/// rated products to the hundredth, m = catalog.ratingPrior — within the byte budget `offline.budgetBytes`.
/// Products are stored once and referenced by id from each category.
struct OfflineCatalogOutput: CatalogOutput {
    static let kind = OutputKind(
        name: "offline-catalog", pathTemplate: "offline-catalog.json",
        summary: "Minimal catalog for offline mode: top products per category by Bayesian rating, within a byte budget.",
        schema: Schema.object([
            "budgetBytes": Schema.integer(min: 1), "productsPerCategory": Schema.nonNegativeInteger, "ranking": Schema.string,
            "categories": Schema.array(Schema.object(["id": Schema.relativePath, "name": Schema.string, "productIds": Schema.array(Schema.string)])),
            "products": Schema.map(Schema.object(["name": Schema.string, "brand": Schema.string, "price": Schema.nonNegativeNumber,
                                        "rating": Schema.nullable(Schema.number(min: 0, max: 5)), "reviewCount": Schema.nonNegativeInteger])),
        ]))
    var kinds: [OutputKind] { [Self.kind] }

    func render(_ c: CatalogContext) throws -> [OutputFile] {
        let budget = c.site.offlineBudgetBytes
        var n = c.site.offlineProductsPerCategory
        while true {
            let json = document(c, perCategory: n)
            let size = try JSONWriter().bytes(json).count
            if size <= budget { return [OutputFile(path: "offline-catalog.json", json: json, kind: Self.kind)] }
            if n == 0 {
                throw BuildError(file: "site.json", field: "offline.budgetBytes",
                                 "the offline catalog needs \(size) bytes even without products; raise the budget (now \(budget))")
            }
            n -= 1  // fewer products per category until the budget holds
        }
    }

    func document(_ c: CatalogContext, perCategory n: Int) -> JSON {
        let m = c.model
        var used = Set<Int>()
        let cats: [JSON] = m.categoryOrder.map { id in
            let top = Array((m.subtreeProducts[id] ?? []).prefix(n))  // already ordered by Bayesian average
            used.formUnion(top)
            return .obj(["id": .string(m.categories[id]!.path), "name": .string(m.categories[id]!.name),
                         "productIds": .strings(top.map { m.products[$0].segment })])
        }
        var products = JSONObject()
        for i in used.sorted(by: { m.products[$0].segment < m.products[$1].segment }) {
            let p = m.products[i]
            products.append(p.segment, .obj(["name": .string(p.name), "brand": .string(c.brandName(p)), "price": .number(p.price!),
                                             "rating": .optional(p.ratingAverage), "reviewCount": .int(p.ratingCount)]))
        }
        return .obj(["budgetBytes": .int(c.site.offlineBudgetBytes), "productsPerCategory": .int(n),
                     "ranking": "bayesian-average", "categories": .array(cats), "products": .object(products)])
    }
}
