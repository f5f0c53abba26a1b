import Schemas

/// `categories/index.json`: every category with its exact (distinct, subtree) product count,
/// its parent and children, so the app can draw the tree.
struct CategoryIndexOutput: CatalogOutput {
    static let kind = OutputKind(
        name: "category-index", pathTemplate: "categories/index.json",
        summary: "All categories (the document's Category: id, name, product_count) with parent, children and depth.",
        schema: Schema.object([
            "totalCategories": Schema.nonNegativeInteger,
            "categories": Schema.array(Schema.object([
                "id": Schema.relativePath, "name": Schema.string, "product_count": Schema.nonNegativeInteger,
                "direct_product_count": Schema.nonNegativeInteger, "parent": Schema.nullable(Schema.relativePath),
                "children": Schema.array(Schema.relativePath), "depth": Schema.nonNegativeInteger, "path": Schema.relativePath,
                "total_pages": Schema.integer(min: 1),
            ])),
        ]))
    var kinds: [OutputKind] { [Self.kind] }

    func render(_ c: CatalogContext) throws -> [OutputFile] {
        let m = c.model
        let pageSize = c.site.pageSize
        let list: [JSON] = m.categoryOrder.map { id in
            let n = m.categories[id]!
            var depth = 0, cur = n.parent
            while let p = cur { depth += 1; cur = m.categories[p]?.parent }
            let count = m.subtreeProducts[id]?.count ?? 0
            return .obj([
                "id": .string(n.path), "name": .string(n.name), "product_count": .int(count),
                "direct_product_count": .int(m.directProducts[id]?.count ?? 0),
                "parent": .optional(n.parent.flatMap { m.categories[$0]?.path }),
                "children": .strings(n.children.compactMap { m.categories[$0]?.path }),
                "depth": .int(depth), "path": .string("categories/\(n.path).json"),
                "total_pages": .int(pageSize > 0 ? max(1, (count + pageSize - 1) / pageSize) : 1),
            ])
        }
        return [OutputFile(path: "categories/index.json", json: .obj(["totalCategories": .int(list.count), "categories": .array(list)]), kind: Self.kind)]
    }
}
