import Schemas

/// `products/{productId}/details.json`: the document's ProductDetail (camelCase), one per sellable product.
struct ProductDetailsOutput: CatalogOutput {
    static let kind = OutputKind(
        name: "product-details", pathTemplate: "products/{productId}/details.json",
        summary: "Full product detail (the document's ProductDetail): brand, pricing, rating, media, specifications.",
        schema: Schema.object([
            "productId": Schema.nonEmptyString, "title": Schema.string, "description": Schema.string,
            "brand": Schema.object(["name": Schema.string, "slug": Schema.string]),
            "pricing": Schema.object(["currentPrice": Schema.nonNegativeNumber, "currency": Schema.string(pattern: "^[A-Z]{3}$")]),
            "rating": Schema.object(["average": Schema.number(min: 0, max: 5), "count": Schema.nonNegativeInteger]),
            "media": Schema.object(["images": Schema.array(Schema.object(["url": Schema.string, "size": Schema.string]))]),
            "specifications": Schema.map(Schema.string),
            "availability": Schema.object(["inStock": Schema.boolean]),
            "category": Schema.object(["id": Schema.relativePath, "name": Schema.string, "path": Schema.array(Schema.string)]),
            "links": Schema.object(["deeplink": Schema.string, "category": Schema.relativePath]),
        ]))
    var kinds: [OutputKind] { [Self.kind] }

    func render(_ c: CatalogContext) throws -> [OutputFile] {
        // Streamed: each page is written as text when it is validated and staged (see OutputFile.Content.streamed).
        // A page is its product in the catalog's context: the product's fingerprint salted with the kind and context.
        let salt = c.fingerprint(Self.kind.name, products: EmptyCollection())
        return c.model.products.indices.map { i in
            var f = OutputFile(path: "products/\(c.model.products[i].segment)/details.json", kind: Self.kind, weight: 40) { try Self.write(c.model.products[i], c, to: $0) }
            f.fingerprint = salt.map { c.model.productFingerprints[i].salted($0) }
            return f
        }
    }

    /// The page, member by member in the schema's order (the schema above checks every page from its text).
    static func write(_ p: Product, _ c: CatalogContext, to s: JSONStream) throws {
        let node = c.categoryNodes[p.categoryIndex]
        let trail = c.categoryTrailsByIndex[p.categoryIndex]
        let brand = c.brandName(p)
        s.beginObject()
        s.key("productId"); p.withSegmentBytes { s.string(utf8: $0) }
        s.key("title"); p.withNameBytes { s.string(utf8: $0) }
        s.key("description"); p.withDescriptionBytes { s.string(utf8: $0) }
        s.key("brand"); s.beginObject(); s.key("name"); s.string(brand); s.key("slug"); s.string(c.brandSlug(p)); s.endObject()
        s.key("pricing"); s.beginObject(); s.key("currentPrice"); try s.number(p.price!); s.key("currency"); s.string(p.currency); s.endObject()
        // A product without reviews has average 0 and count 0 (the app's Rating requires numbers).
        s.key("rating"); s.beginObject()
        s.key("average"); try s.double(p.ratingAverage ?? 0); s.key("count"); s.int(p.ratingAverage == nil ? 0 : p.ratingCount)
        s.endObject()
        s.key("media"); s.beginObject(); s.key("images"); s.beginArray()
        p.withImageUrlBytes { if let url = $0 { s.beginObject(); s.key("url"); s.string(utf8: url); s.key("size"); s.string("default"); s.endObject() } }
        s.endArray(); s.endObject()
        // The three stated specifications first, then the record's own fields (each name once, first one wins).
        s.key("specifications"); s.beginObject()
        s.key("Brand"); s.string(brand)
        s.key("Category"); s.string(trail.joined)
        s.key("Availability"); s.string(p.inStock ? "In stock" : "Out of stock")
        for (i, (k, v)) in p.extra.enumerated()
        where k != "Brand" && k != "Category" && k != "Availability" && !p.extra[..<i].contains(where: { $0.0 == k }) {
            s.key(k); s.string(v)
        }
        s.endObject()
        s.key("availability"); s.beginObject(); s.key("inStock"); s.bool(p.inStock); s.endObject()
        s.key("category"); s.beginObject()
        s.key("id"); s.string(node?.path ?? p.categoryId); s.key("name"); s.string(node?.name ?? p.categoryId); s.key("path"); try s.value(trail.names)
        s.endObject()
        s.key("links"); s.beginObject()
        s.key("deeplink"); s.string("\(c.site.urlScheme)://product/\(p.segment)")
        s.key("category"); s.string("categories/\(node?.path ?? p.categoryId).json")
        s.endObject()
        s.endObject()
    }
}
