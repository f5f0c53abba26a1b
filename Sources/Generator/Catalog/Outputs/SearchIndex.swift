import Foundation
import Schemas
import Indexer

/// `search-index.json` and `search-index-compact.json`: the design document's SearchIndex, for its exact-lookup
/// SearchManager (lowercase the query, split on spaces, union of `keywords[token]`). What each holds is described
/// in `Indexer/SeedIndex.swift`; the compact one keeps only the words of name, brand and category that tell
/// products apart, and drops the per-product keyword lists, image URLs and the derivable brand and category maps.
struct SearchIndexOutput: CatalogOutput {
    /// One product's entry: also the schema its fragment is checked against when the rest of the index is copied.
    static let entry = Schema.object([
        "id": Schema.nonEmptyString, "name": Schema.string, "brand": Schema.string, "category": Schema.string,
        "price": Schema.nullable(Schema.nonNegativeNumber), "rating": Schema.nullable(Schema.number(min: 0, max: 5)),
        "keywords": Schema.array(Schema.string), "imageUrl": Schema.string,
    ])
    static let schema = Schema.object([
        "version": Schema.nonEmptyString,
        "generatedAt": Schema.dateTime,
        "totalProducts": Schema.nonNegativeInteger,
        "products": Schema.array(entry),
        "keywords": Schema.map(Schema.array(Schema.nonEmptyString, minItems: 1)),
        "categories": Schema.map(Schema.array(Schema.nonEmptyString, minItems: 1)),
        "brands": Schema.map(Schema.array(Schema.nonEmptyString, minItems: 1)),
    ])
    /// Each index lists every product in one file: a large catalog leaves them out (`search/` serves search at any size).
    /// A member of the keyword, category or brand map, made anew in a splice: checked as a one-member map.
    static let member = Schema.map(Schema.array(Schema.nonEmptyString, minItems: 1))
    static let sizeSetting = SizeSetting("catalog.seedIndexes to false", leavesOut: true)
    static let full = OutputKind(name: "search-index", pathTemplate: "search-index.json",
                                 summary: "Keyword search index in the design document's SearchIndex shape (exact lookup of lowercased words).",
                                 schema: schema, fragments: [SeedIndex.entryFragment: entry, SeedIndex.memberFragment: member], sizeSetting: sizeSetting)
    static let compact = OutputKind(name: "search-index-compact", pathTemplate: "search-index-compact.json",
                                    summary: "Smaller SearchIndex for the SearchManager: distinguishing words of name, brand and category only; no per-product keyword lists, image URLs or brand and category maps.",
                                    schema: schema, fragments: [SeedIndex.entryFragment: entry, SeedIndex.memberFragment: member], sizeSetting: sizeSetting)
    /// What follows the head of an index with no products: with the head, a whole index the schema checks (the
    /// head's members, when everything after them was copied).
    static let emptyRest = Array(#","products":[],"keywords":{},"categories":{},"brands":{}}"#.utf8)
    var kinds: [OutputKind] { [Self.full, Self.compact] }
    func isIncluded(in c: CatalogContext) -> Bool { c.settings.seedIndexes }

    static func documents(_ c: CatalogContext) -> [SearchDocument] {
        // Whether a brand or category name is a stand-in, decided once per distinct name (Foundation's trimming is slow).
        var standIn: [String: Bool] = [:]
        func isStandIn(_ name: String) -> Bool {
            if let known = standIn[name] { return known }
            let v = SeedIndex.isStandInName(name)
            standIn[name] = v
            return v
        }
        return c.searchOrder.map { document(c, c.model.products[$0], isStandIn: isStandIn) }
    }

    /// One product's document.
    static func document(_ c: CatalogContext, _ p: Product, isStandIn: (String) -> Bool = SeedIndex.isStandInName) -> SearchDocument {
        let name = p.name
        return SearchDocument(id: p.segment, name: name, brand: c.brandName(p), category: c.categoryName(p),
                              description: p.descriptionIsName ? name : p.description, price: p.price, rating: p.ratingAverage, imageUrl: p.imageUrl ?? "",
                              brandIsSearchable: p.brand.map { !isStandIn($0) } ?? false,
                              categoryIsSearchable: p.categoryId != c.model.uncategorizedId && !isStandIn(c.categoryName(p)))
    }

    /// The documents in search order (brand, category, name: similar entries side by side make the files compress
    /// better), made once for both indexes and only when one is written whole (a splice makes just the entries it writes).
    final class Documents: Sendable {
        private let context: CatalogContext
        private let made: Once<[SearchDocument]>
        init(_ c: CatalogContext) {
            context = c; made = Once { SearchIndexOutput.documents(c) }
            ids = SeedIndex.IdPositions(count: c.searchOrder.count, idBytes: { k, body in c.model.products[c.searchOrder[k]].withSegmentBytes(body) })
        }
        var all: [SearchDocument] { try! made.value() }   // (making them cannot fail)
        /// The document at position `k` of the search order.
        func document(_ k: Int) -> SearchDocument { SearchIndexOutput.document(context, context.model.products[context.searchOrder[k]]) }
        /// Their numbers by id, shared by both indexes (its table made only if one of them edits its maps).
        let ids: SeedIndex.IdPositions
    }

    /// An entry's key: the product, whether compact, and the catalog context.
    static func entryKeys(_ c: CatalogContext, compact: Bool) -> [Fingerprint]? {
        guard let salt = c.fingerprint("seed-entry", products: EmptyCollection(), { $0.add(compact) }) else { return nil }
        return c.searchOrder.map { c.model.productFingerprints[$0].salted(salt) }
    }

    /// The tail's key (keyword, category and brand maps): every document's searchable text, in the documents' order
    /// (the compact index's own order is a function of that text).
    static func tailKey(_ c: CatalogContext, compact: Bool) -> Fingerprint? {
        c.allSearchTextFingerprint.flatMap { text in c.fingerprint("seed-tail", products: EmptyCollection()) { $0.add(text); $0.add(compact) } }
    }

    /// The compact index's order: category first (names within a category share more words than names within a brand:
    /// real corpus −2 % gzip), then brand, name and id. (Compared by ranks: string comparisons would retain the strings
    /// the full index reads at the same time.)
    static func compactOrder(_ docs: [SearchDocument]) -> [Int] {
        let categories = CatalogContext.ranks(docs.map(\.category)), brands = CatalogContext.ranks(docs.map(\.brand))
        let names = CatalogContext.ranks(docs.map(\.name))
        return docs.indices.sorted { a, b in
            if categories[a] != categories[b] { return categories[a] < categories[b] }
            if brands[a] != brands[b] { return brands[a] < brands[b] }
            if names[a] != names[b] { return names[a] < names[b] }
            return docs[a].id < docs[b].id
        }
    }

    /// The compact index's order made from the earlier file's, when few entries changed (see `SeedIndex.mapSpliceLimit`):
    /// the entries it keeps in their order there (the order of two entries depends only on their own text), and each
    /// new one placed by the order's comparison. Nil without an earlier file, or when more entries changed.
    static func compactOrder(earlier reuse: FragmentReuse, keys: [Fingerprint], document: (Int) -> SearchDocument) -> [Int]? {
        guard !reuse.isEmpty else { return nil }
        // Each key's entry (the last of two with one key), and whether the earlier order placed it.
        var table = FragmentTable(capacity: keys.count)
        var entry: [Int] = []
        entry.reserveCapacity(keys.count)
        for (i, k) in keys.enumerated() {
            let (n, added) = table.insert(k)
            if added { entry.append(i) } else { entry[n] = i }
        }
        var placed = [Bool](repeating: false, count: entry.count)
        var order: [Int] = []
        order.reserveCapacity(keys.count)
        for k in reuse.earlierKeys() {
            if let n = table.find(k), !placed[n] { placed[n] = true; order.append(entry[n]) }
        }
        let fresh = entry.indices.filter { !placed[$0] }.map { entry[$0] }
        guard fresh.count <= SeedIndex.mapSpliceLimit else { return nil }
        // (The same comparison as `compactOrder(_:)`: ranks order as the texts do.)
        func precedes(_ a: SearchDocument, _ b: SearchDocument) -> Bool { (a.category, a.brand, a.name, a.id) < (b.category, b.brand, b.name, b.id) }
        for i in fresh.sorted() {
            let d = document(i)
            var lo = 0, hi = order.count
            while lo < hi { let mid = (lo + hi) / 2; if precedes(document(order[mid]), d) { lo = mid + 1 } else { hi = mid } }
            order.insert(i, at: lo)
        }
        return order
    }

    /// What to check of an index that copied fragments: the entries it wrote, and its head as a whole index.
    static func checks(_ text: JSONStream, _ reuse: FragmentReuse) -> [FragmentCheck] {
        text.withBytes { bytes in
            reuse.renderedRanges.map { name, r in
                let part = Array(bytes[r])
                switch name {
                case SeedIndex.headFragment: return FragmentCheck(bytes: part + emptyRest, fragment: nil)
                case SeedIndex.memberFragment: return FragmentCheck(bytes: [0x7B] + part + [0x7D], fragment: name)   // ({member})
                default: return FragmentCheck(bytes: part, fragment: name)
                }
            }
        }
    }

    func render(_ c: CatalogContext) throws -> [OutputFile] {
        // Streamed: each index is built and written as text when it is validated and staged, and released right after
        // (the full index of 100,000 products would be 12 million JSON values). Written from fragments (one per
        // entry, and the maps): a rebuild after price changes copies all but the changed entries.
        let docs = Documents(c)
        let count = c.searchOrder.count
        let (version, generatedAt, threads) = (c.model.dataVersion, c.generatedAt, c.threads)
        let weight = count * 100
        let fullKeys = Self.entryKeys(c, compact: false), compactKeys = Self.entryKeys(c, compact: true)
        let fullTail = Self.tailKey(c, compact: false), compactTail = Self.tailKey(c, compact: true)
        var files = [
            OutputFile(path: "search-index.json", kind: Self.full, stampsBuildTime: true, weight: weight) { out, reuse in
                guard let keys = fullKeys, let tail = fullTail else {
                    try SeedIndex.write(docs.all, version: version, generatedAt: generatedAt, compact: false, threads: threads, to: out)
                    return []
                }
                let fragments = SeedIndex.Fragments(entryKeys: keys, tailKey: tail, reuse: reuse)
                if try !SeedIndex.splice(count: count, document: docs.document, ids: docs.ids, version: version, generatedAt: generatedAt,
                                         compact: false, fragments: fragments, to: out) {
                    try SeedIndex.write(docs.all, version: version, generatedAt: generatedAt, compact: false, threads: threads, fragments: fragments, to: out)
                }
                return Self.checks(out, reuse)
            },
            OutputFile(path: "search-index-compact.json", kind: Self.compact, stampsBuildTime: true, weight: weight / 2) { out, reuse in
                guard let keys = compactKeys, let tail = compactTail else {
                    let all = docs.all
                    try SeedIndex.write(all, order: Self.compactOrder(all), version: version, generatedAt: generatedAt, compact: true, threads: threads, to: out)
                    return []
                }
                // Spliced with its maps kept, the entries keep the earlier file's order (the text that decides it has not
                // changed); otherwise the order is made again, and the index spliced when few entries changed.
                var fragments = SeedIndex.Fragments(entryKeys: keys, tailKey: tail, reuse: reuse)
                let order = fragments.reusableOrder ?? Self.compactOrder(earlier: reuse, keys: keys, document: docs.document) ?? Self.compactOrder(docs.all)
                fragments.order = order
                if try !SeedIndex.splice(count: count, document: docs.document, ids: docs.ids, order: order, version: version,
                                         generatedAt: generatedAt, compact: true, fragments: fragments, to: out) {
                    try SeedIndex.write(docs.all, order: order, version: version, generatedAt: generatedAt, compact: true, threads: threads,
                                        fragments: fragments, to: out)
                }
                return Self.checks(out, reuse)
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
