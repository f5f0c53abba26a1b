import Schemas

/// `products/{productId}/details.json`: the document's ProductDetail (camelCase), one per sellable product.
struct ProductDetailsOutput: CatalogOutput {
    static let kind = OutputKind(
        name: "product-details", pathTemplate: "products/{productId}/details.json",
        summary: "Full product detail (the document's ProductDetail): brand, pricing, rating, media, specifications.",
        schema: S.object([
            "productId": S.nonEmptyString, "title": S.string, "description": S.string,
            "brand": S.object(["name": S.string, "slug": S.string]),
            "pricing": S.object(["currentPrice": S.nonNegativeNumber, "currency": S.string(pattern: "^[A-Z]{3}$")]),
            "rating": S.object(["average": S.number(min: 0, max: 5), "count": S.nonNegativeInteger]),
            "media": S.object(["images": S.array(S.object(["url": S.string, "size": S.string]))]),
            "specifications": S.map(S.string),
            "availability": S.object(["inStock": S.boolean]),
            "category": S.object(["id": S.relativePath, "name": S.string, "path": S.array(S.string)]),
            "links": S.object(["deeplink": S.string, "category": S.relativePath]),
        ]))
    var kinds: [OutputKind] { [Self.kind] }

    func render(_ c: CatalogContext) throws -> [OutputFile] {
        // Deferred: each page is rendered when it is validated and serialised (see OutputFile.Content.deferred).
        c.model.products.indices.map { i in
            OutputFile(path: "products/\(c.model.products[i].segment)/details.json", kind: Self.kind, weight: 40) { try Self.page(c.model.products[i], c) }
        }
    }

    static func page(_ p: Product, _ c: CatalogContext) throws -> JSON {
        let m = c.model
        let node = m.categories[p.categoryId]
        let trail = c.categoryTrails[p.categoryId] ?? (names: .array([]), joined: "")
        var specs = JSONObject()
        specs.append("Brand", .string(c.brandName(p)))
        specs.append("Category", .string(trail.joined))
        specs.append("Availability", .string(p.inStock ? "In stock" : "Out of stock"))
        for (k, v) in p.extra where specs[k] == nil { specs.append(k, .string(v)) }
        let images: [JSON] = p.imageUrl.map { [.obj(["url": .string($0), "size": "default"])] } ?? []
        return .obj([
            "productId": .string(p.segment), "title": .string(p.name), "description": .string(p.description),
            "brand": .obj(["name": .string(c.brandName(p)), "slug": .string(c.brandSlug(p))]),
            "pricing": .obj(["currentPrice": .number(p.price!), "currency": .string(p.currency)]),
            // A product without reviews has average 0 and count 0 (the app's Rating requires numbers).
            "rating": .obj(["average": .double(p.ratingAverage ?? 0), "count": .int(p.ratingAverage == nil ? 0 : p.ratingCount)]),
            "media": .obj(["images": .array(images)]),
            "specifications": .object(specs),
            "availability": .obj(["inStock": .bool(p.inStock)]),
            "category": .obj(["id": .string(node?.path ?? p.categoryId), "name": .string(node?.name ?? p.categoryId), "path": trail.names]),
            "links": .obj(["deeplink": .string("\(c.site.urlScheme)://product/\(p.segment)"),
                           "category": .string("categories/\(node?.path ?? p.categoryId).json")]),
        ])
    }
}
