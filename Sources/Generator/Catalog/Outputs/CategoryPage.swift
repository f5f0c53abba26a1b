import Schemas

/// `categories/{categoryId}.json` (+ `categories/{categoryId}/page-{n}.json` when paginated):
/// the products of a category's subtree, each in the document's snake_case Product shape.
/// No build timestamp, so unchanged data gives unchanged pages.
struct CategoryPageOutput: CatalogOutput {
    static let product = S.object([
        "product_id": S.nonEmptyString, "name": S.string, "brand": S.nullable(S.string),
        "price": S.nonNegativeNumber, "rating": S.nullable(S.number(min: 0, max: 5)), "review_count": S.nonNegativeInteger,
        "category": S.string, "image_url": S.nullable(S.string), "in_stock": S.boolean,
    ])
    static let kind = OutputKind(
        name: "category-page", pathTemplate: "categories/{categoryId}.json",
        summary: "One category (the document's CategoryResponse): name, exact total and its products; page 1 of a paginated category.",
        schema: S.object([
            "category_id": S.relativePath, "category_name": S.string, "total_products": S.nonNegativeInteger,
            "page": S.integer(min: 1), "per_page": S.nonNegativeInteger, "total_pages": S.integer(min: 1),
            "next_page": S.nullable(S.relativePath), "products": S.array(product),
        ]))
    var kinds: [OutputKind] { [Self.kind] }

    static func productJSON(_ p: Product, _ c: CatalogContext) -> JSON {
        .obj([
            "product_id": .string(p.segment), "name": .string(p.name), "brand": .optional(p.brand),
            "price": .number(p.price!), "rating": .optional(p.ratingAverage), "review_count": .int(p.ratingCount),
            "category": .string(c.categoryPath(p)), "image_url": .optional(p.imageUrl), "in_stock": .bool(p.inStock),
        ])
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
                let next: JSON = page < pages ? .string("categories/\(node.path)/page-\(page + 1).json") : .null
                let json: JSON = .obj([
                    "category_id": .string(node.path), "category_name": .string(node.name), "total_products": .int(items.count),
                    "page": .int(page), "per_page": .int(c.site.pageSize > 0 ? size : items.count), "total_pages": .int(pages),
                    "next_page": next, "products": .array(slice.map { c.listEntries[$0] }),
                ])
                files.append(OutputFile(path: path, json: json, kind: Self.kind))
            }
        }
        return files
    }
}
