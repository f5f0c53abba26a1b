import Schemas

/// `categories/{categoryId}.json` (+ `categories/{categoryId}/page-{n}.json` when paginated):
/// the products of a category's subtree, each in the document's snake_case Product shape.
/// No build timestamp, so unchanged data gives unchanged pages.
struct CategoryPageOutput: CatalogOutput {
    static let product = Schema.object([
        "product_id": Schema.nonEmptyString, "name": Schema.string, "brand": Schema.nullable(Schema.string),
        "price": Schema.nonNegativeNumber, "rating": Schema.nullable(Schema.number(min: 0, max: 5)), "review_count": Schema.nonNegativeInteger,
        "category": Schema.string, "image_url": Schema.nullable(Schema.string), "in_stock": Schema.boolean,
    ])
    static let kind = OutputKind(
        name: "category-page", pathTemplate: "categories/{categoryId}.json",
        summary: "One category (the document's CategoryResponse): name, exact total and its products; page 1 of a paginated category.",
        schema: Schema.object([
            "category_id": Schema.relativePath, "category_name": Schema.string, "total_products": Schema.nonNegativeInteger,
            "page": Schema.integer(min: 1), "per_page": Schema.nonNegativeInteger, "total_pages": Schema.integer(min: 1),
            "next_page": Schema.nullable(Schema.relativePath), "products": Schema.array(product),
        ]), sizeSetting: SizeSetting("pageSize (products per category page)"))
    var kinds: [OutputKind] { [Self.kind] }

    /// A product's list entry, in the schema's `product` shape, written where the page is. (Written for each page
    /// that lists the product, its category's and every ancestor's, rather than kept: a million entries held as
    /// text for the pages to share would be 350 MB.)
    static func writeEntry(_ p: Product, _ c: CatalogContext, to s: JSONStream) throws {
        s.beginObject()
        s.key("product_id"); p.withSegmentBytes { s.string(utf8: $0) }
        s.key("name"); p.withNameBytes { s.string(utf8: $0) }
        s.key("brand"); s.string(p.brand)
        s.key("price"); try s.number(p.price!)
        s.key("rating"); try s.double(p.ratingAverage)
        s.key("review_count"); s.int(p.ratingCount)
        s.key("category"); s.string(c.categoryPath(p))
        s.key("image_url"); p.withImageUrlBytes { s.string(utf8: $0) }
        s.key("in_stock"); s.bool(p.inStock)
        s.endObject()
    }

    func render(_ c: CatalogContext) throws -> [OutputFile] {
        let m = c.model
        var files: [OutputFile] = []
        for id in m.categoryOrder {
            let node = m.categories[id]!
            let items = m.subtreeProducts[id] ?? []
            let size = c.site.pageSize > 0 ? c.site.pageSize : max(items.count, 1)
            let pages = max(1, (items.count + size - 1) / size)
            for page in 1...pages {
                let slice = items[min(items.count, (page - 1) * size)..<min(items.count, page * size)]
                let path = page == 1 ? "categories/\(node.path).json" : "categories/\(node.path)/page-\(page).json"
                let next = page < pages ? "categories/\(node.path)/page-\(page + 1).json" : nil
                let perPage = c.site.pageSize > 0 ? size : items.count
                // Streamed: written as text when validated and staged.
                var file = OutputFile(path: path, kind: Self.kind, weight: slice.count * 12) { s in
                    let products = c.model.products
                    s.beginObject()
                    s.key("category_id"); s.string(node.path)
                    s.key("category_name"); s.string(node.name)
                    s.key("total_products"); s.int(items.count)
                    s.key("page"); s.int(page)
                    s.key("per_page"); s.int(perPage)
                    s.key("total_pages"); s.int(pages)
                    s.key("next_page"); s.string(next)
                    s.key("products"); s.beginArray()
                    for i in slice { try Self.writeEntry(products[i], c, to: s) }
                    s.endArray()
                    s.endObject()
                }
                file.fingerprint = c.fingerprint(Self.kind.name, products: slice) { h in
                    h.add(node.id); h.add(items.count); h.add(page); h.add(perPage); h.add(pages)
                }
                files.append(file)
            }
        }
        return files
    }
}
