import Foundation
import Schemas
import Indexer

/// `search-index.json` and `search-index-compact.json`: the design document's SearchIndex, for its exact-lookup
/// SearchManager (lowercase the query, split on spaces, union of `keywords[token]`). What each holds is described
/// in `Indexer/SeedIndex.swift`; the compact one drops description words, folded and stemmed variants and the
/// per-product keyword lists.
struct SearchIndexOutput: CatalogOutput {
    static let schema = S.object([
        "version": S.nonEmptyString,
        "generatedAt": S.dateTime,
        "totalProducts": S.nonNegativeInteger,
        "products": S.array(S.object([
            "id": S.nonEmptyString, "name": S.string, "brand": S.string, "category": S.string,
            "price": S.nullable(S.nonNegativeNumber), "rating": S.nullable(S.number(min: 0, max: 5)),
            "keywords": S.array(S.string), "imageUrl": S.string,
        ])),
        "keywords": S.map(S.array(S.nonEmptyString, minItems: 1)),
        "categories": S.map(S.array(S.nonEmptyString, minItems: 1)),
        "brands": S.map(S.array(S.nonEmptyString, minItems: 1)),
    ])
    static let full = OutputKind(name: "search-index", pathTemplate: "search-index.json",
                                 summary: "Keyword search index in the design document's SearchIndex shape (exact lookup of lowercased words).",
                                 schema: schema)
    static let compact = OutputKind(name: "search-index-compact", pathTemplate: "search-index-compact.json",
                                    summary: "Smaller SearchIndex: only the words of name, brand and category, no per-product keyword lists.",
                                    schema: schema)
    var kinds: [OutputKind] { [Self.full, Self.compact] }

    static func documents(_ c: CatalogContext) -> [SearchDocument] {
        // Brand, category, name order: similar entries side by side make the files compress better.
        RankedSearchOutput.storeOrder(c).map { c.model.products[$0] }.map { p in
            SearchDocument(id: p.segment, name: p.name, brand: c.brandName(p), category: c.categoryName(p),
                           description: p.description, price: p.price, rating: p.ratingAverage, imageUrl: p.imageUrl ?? "")
        }
    }

    func render(_ c: CatalogContext) throws -> [OutputFile] {
        let docs = Self.documents(c)
        var full: JSON = .null, compact: JSON = .null
        full = SeedIndex.build(docs, version: c.model.dataVersion, generatedAt: c.generatedAt, compact: false, threads: c.threads)
        compact = SeedIndex.build(docs, version: c.model.dataVersion, generatedAt: c.generatedAt, compact: true, threads: c.threads)
        return [OutputFile(path: "search-index.json", json: full, kind: Self.full, stampsBuildTime: true),
                OutputFile(path: "search-index-compact.json", json: compact, kind: Self.compact, stampsBuildTime: true)]
    }
}
