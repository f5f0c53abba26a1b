import Foundation
import Schemas
import Indexer

/// `search-index.json` and `search-index-compact.json`: the design document's SearchIndex, for its exact-lookup
/// SearchManager (lowercase the query, split on spaces, union of `keywords[token]`). What each holds is described
/// in `Indexer/SeedIndex.swift`; the compact one keeps only the words of name, brand and category that tell
/// products apart, and drops the per-product keyword lists, image URLs and the derivable brand and category maps.
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
                                    summary: "Smaller SearchIndex for the SearchManager: distinguishing words of name, brand and category only; no per-product keyword lists, image URLs or brand and category maps.",
                                    schema: schema)
    var kinds: [OutputKind] { [Self.full, Self.compact] }

    static func documents(_ c: CatalogContext) -> [SearchDocument] {
        // Brand, category, name order: similar entries side by side make the files compress better.
        // Whether a brand or category name is a stand-in, decided once per distinct name (Foundation's trimming is slow).
        var standIn: [String: Bool] = [:]
        func isStandIn(_ name: String) -> Bool {
            if let known = standIn[name] { return known }
            let v = SeedIndex.isStandInName(name)
            standIn[name] = v
            return v
        }
        return c.searchOrder.map { c.model.products[$0] }.map { p in
            SearchDocument(id: p.segment, name: p.name, brand: c.brandName(p), category: c.categoryName(p),
                           description: p.description, price: p.price, rating: p.ratingAverage, imageUrl: p.imageUrl ?? "",
                           brandIsSearchable: p.brand.map { !isStandIn($0) } ?? false,
                           categoryIsSearchable: p.categoryId != c.model.uncategorizedId && !isStandIn(c.categoryName(p)))
        }
    }

    func render(_ c: CatalogContext) throws -> [OutputFile] {
        // Streamed: each index is built and written as text when it is validated and staged, and released right after
        // (the full index of 100,000 products would be 12 million JSON values).
        let docs = Self.documents(c)
        let (version, generatedAt, threads) = (c.model.dataVersion, c.generatedAt, c.threads)
        let weight = docs.count * 100
        var files = [
            OutputFile(path: "search-index.json", kind: Self.full, stampsBuildTime: true, weight: weight) {
                try SeedIndex.write(docs, version: version, generatedAt: generatedAt, compact: false, threads: threads, to: $0)
            },
            OutputFile(path: "search-index-compact.json", kind: Self.compact, stampsBuildTime: true, weight: weight / 2) {
                // Category-first order suits the compact index, whose entries carry no keyword lists or image URLs:
                // names within a category share more words than names within a brand (real corpus: −2 % gzip).
                // (Compared by ranks: string comparisons would retain the strings the full index reads at the same time.)
                let categories = CatalogContext.ranks(docs.map(\.category)), brands = CatalogContext.ranks(docs.map(\.brand))
                let names = CatalogContext.ranks(docs.map(\.name))
                let order = docs.indices.sorted { a, b in
                    if categories[a] != categories[b] { return categories[a] < categories[b] }
                    if brands[a] != brands[b] { return brands[a] < brands[b] }
                    if names[a] != names[b] { return names[a] < names[b] }
                    return docs[a].id < docs[b].id
                }
                try SeedIndex.write(docs, order: order, version: version, generatedAt: generatedAt, compact: true, threads: threads, to: $0)
            },
        ]
        // Each lists every product, with the build time.
        for k in files.indices {
            files[k].fingerprint = c.allProductsFingerprint.flatMap { all in
                c.fingerprint(files[k].kind!.name, products: EmptyCollection()) { h in h.add(all); h.add(generatedAt); h.add(version) }
            }
        }
        return files
    }
}
