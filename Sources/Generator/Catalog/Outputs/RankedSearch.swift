import Foundation
import Schemas
import Indexer

/// `search/`: the ranked, sharded index (see `Indexer/RankedIndex.swift`): BM25F with field weights
/// name 3 > brand 2 > category 1.5 > description 1, prefix matching on the last term, one-typo tolerance.
/// Documents are numbered in the context's `rankedOrder` (category, then brand and name), so each category is
/// one run of documents and similar products sit in neighbouring result-store shards.
struct RankedSearchOutput: CatalogOutput {
    /// The field weights of every document (the Search article, Indexer.docc); the one place they are set.
    static let weights = (name: 3.0, brand: 2.0, category: 1.5, description: 1.0)

    static let meta = OutputKind(
        name: "search-meta", pathTemplate: "search/meta.json",
        summary: "Ranked search: ranking settings, analyzer, the lists of term, vocabulary and store files, facets and sorts.",
        schema: metaSchema)
    static let metaSchema = Schema.object([
        "format": Schema.integer(min: 5), "folder": Schema.nonEmptyString, "documents": Schema.nonNegativeInteger, "terms": Schema.nonNegativeInteger,
        "ranking": Schema.object(["model": Schema.string, "k1": Schema.number, "b": Schema.number, "scoreScale": Schema.number,
                                  "scoreStep": Schema.number(min: 0), "fieldWeights": Schema.map(Schema.number(min: 0))]),
        "analyzer": Schema.object(["stopWords": Schema.array(Schema.string), "minimumLength": Schema.integer(min: 1), "stemming": Schema.string, "folding": Schema.string]),
        "query": Schema.object(["matching": Schema.string, "prefixLastTerm": Schema.boolean, "prefixExpansions": Schema.integer(min: 0),
                                "prefixWeight": Schema.number, "secondaryPrefixWeight": Schema.number,
                                "typoMinimumLength": Schema.integer(min: 1), "typoWeight": Schema.number]),
        "termShards": Schema.object(["levels": Schema.nonNegativeInteger, "entries": Schema.array(termEntry)]),
        "vocabulary": Schema.relativePath,
        "store": Schema.object(["slice": Schema.integer(min: 1), "levels": Schema.nonNegativeInteger, "entries": storeEntries]),
        "facets": Schema.array(Schema.object([
            "field": Schema.nonEmptyString, "label": Schema.string, "kind": .obj(["enum": ["value", "ranges", "atLeast"]]),
            "values": Schema.nonNegativeInteger, "shards": Schema.array(shardEntry),
            "edges": Schema.optional(Schema.array(Schema.number)), "thresholds": Schema.optional(Schema.array(Schema.number)),
            "columns": Schema.optional(Schema.object(["levels": Schema.nonNegativeInteger, "entries": Schema.array(contentName)])),
        ])),
        "sorts": Schema.array(Schema.object(["name": Schema.nonEmptyString, "label": Schema.string, "field": Schema.nonEmptyString,
                                             "descending": Schema.boolean])),
        "orders": Schema.array(Schema.object(["field": Schema.nonEmptyString, "path": Schema.relativePath])),
        "browse": Schema.nullable(Schema.string),
    ])
    /// A file's name in a column tree: 16 hex digits of its content's hash.
    static let contentName: JSON = .obj(["type": "string", "pattern": "^[0-9a-f]{16}$"])
    /// A term tree's entry: `[first term, name]`.
    static let termEntry: JSON = .obj(["type": "array", "items": Schema.string, "minItems": 2, "maxItems": 2])
    static let shardEntry = Schema.object(["first": Schema.string, "last": Schema.string, "path": Schema.relativePath])
    static let terms = OutputKind(
        name: "search-terms", pathTemplate: "search/terms/{hash}.json",
        summary: "A term shard: sorted terms, their postings as text (the G scores best first, then one number per document: gap × G + score rank), and the terms no first field has.",
        schema: Schema.object(["terms": Schema.array(Schema.nonEmptyString, minItems: 1),
                               "postings": Schema.array(.obj(["type": "string", "pattern": "^[0-9A-Za-v]+$", "minLength": 3])),
                               "secondary": Schema.array(Schema.nonNegativeInteger)]))
    static let vocabulary = OutputKind(
        name: "search-vocabulary", pathTemplate: "search/vocab/{length}-{hash}.json",
        summary: "Every index term of one length, for one-typo matching.",
        schema: Schema.object(["length": Schema.integer(min: 1), "terms": Schema.array(Schema.nonEmptyString)]))
    static let vocabularyList = OutputKind(
        name: "search-vocabulary-list", pathTemplate: "search/lengths/{hash}.json",
        summary: "The vocabulary files by term length (read only to match a typo).", schema: vocabularyListSchema)
    static let vocabularyListSchema = Schema.object(["files": Schema.array(Schema.object(["length": Schema.integer(min: 1), "path": Schema.relativePath]))])
    static let store = OutputKind(
        name: "search-store", pathTemplate: "search/store/{hash}-{slice}.json",
        summary: "A result-store slice: what a results list shows for a few consecutive documents.",
        schema: Schema.object(["documents": Schema.array(Schema.object([
            "id": Schema.nonEmptyString, "name": Schema.string, "brand": Schema.string, "price": Schema.nullable(Schema.nonNegativeNumber),
            "rating": Schema.nullable(Schema.number(min: 0, max: 5)), "image": Schema.string, "path": Schema.relativePath,
        ]))]))
    static let storeDirectory = OutputKind(
        name: "search-store-directory", pathTemplate: "search/stores/{hash}.json",
        summary: "A store directory: consecutive result-store groups (or store directories) as [documents, name] pairs.", schema: storeDirectorySchema)
    /// `[documents, name]` pairs (each item a positive count or a 16-hex name: the validator's fast path takes no
    /// `prefixItems`).
    static let storeEntries = Schema.array(.obj([
        "type": "array", "items": .obj(["anyOf": [Schema.integer(min: 1), .obj(["type": "string", "pattern": "^[0-9a-f]{16}$"])]]),
        "minItems": 2, "maxItems": 2]))
    static let storeDirectorySchema = Schema.object(["entries": storeEntries])
    static let termDirectory = OutputKind(
        name: "search-term-directory", pathTemplate: "search/termdirs/{hash}.json",
        summary: "A term directory: consecutive term shards (or term directories) as [first term, name] pairs.",
        schema: termDirectorySchema)
    static let termDirectorySchema = Schema.object(["entries": Schema.array(termEntry, minItems: 1)])
    static let facet = OutputKind(
        name: "search-facet", pathTemplate: "search/facets/{hash}.json",
        summary: "A facet shard: values of one field in byte order and their documents as runs (gap, length, … as text).", schema: facetSchema)
    static let facetSchema = Schema.object([
        "field": Schema.nonEmptyString, "values": Schema.array(Schema.string, minItems: 1),
        "postings": Schema.array(.obj(["type": "string", "pattern": "^[0-9A-Za-v]+$", "minLength": 2])),
        "labels": Schema.optional(Schema.array(Schema.string)),
    ])
    static let columns = OutputKind(
        name: "search-columns", pathTemplate: "search/columns/{hash}.json",
        summary: "Facet columns of one term shard: for each of its terms, each document's code of one field (ranges or thresholds), one base-32 digit per document in document order.",
        schema: columnsSchema)
    static let columnsSchema = Schema.object(["field": Schema.nonEmptyString,
                                              "columns": Schema.array(.obj(["type": "string", "pattern": "^[0-9a-v]+$", "minLength": 1]))])
    static let columnDirectory = OutputKind(
        name: "search-column-directory", pathTemplate: "search/coldirs/{hash}.json",
        summary: "A column directory: the names of consecutive column files (or column directories), cut where the term tree is.",
        schema: columnDirectorySchema)
    static let columnDirectorySchema = Schema.object(["entries": Schema.array(contentName, minItems: 1)])
    static let sortChunk = OutputKind(
        name: "search-sort", pathTemplate: "search/sort/{hash}.json",
        summary: "A sort chunk: ascending keys of one field and the documents of each as gaps.", schema: sortChunkSchema)
    static let sortChunkSchema = Schema.object(["keys": Schema.array(Schema.number, minItems: 1),
                                                "documents": Schema.array(.obj(["type": "array", "items": Schema.nonNegativeInteger, "minItems": 1]))])
    static let order = OutputKind(
        name: "search-order", pathTemplate: "search/orders/{hash}.json",
        summary: "A sortable field's chunks in order: first and last key, documents and path of each.", schema: orderSchema)
    static let orderSchema = Schema.object(["documents": Schema.nonNegativeInteger, "chunks": Schema.array(Schema.object([
        "first": Schema.number, "last": Schema.number, "documents": Schema.integer(min: 1), "path": Schema.relativePath]))])
    var kinds: [OutputKind] { [Self.meta, Self.terms, Self.vocabulary, Self.store, Self.storeDirectory, Self.facet, Self.sortChunk, Self.order, Self.termDirectory,
                                 Self.columns, Self.columnDirectory, Self.vocabularyList] }
    var namesFilesByContent: Bool { true }

    /// The documents in search order, handed to the builder one at a time (a million products are never all
    /// documents at once): each document's weighted fields when its terms are counted, its stored object written
    /// straight into its result-store shard. (Prices and ratings are finite, checked on input; were one not, the
    /// object would be left incomplete and the store shard would fail its schema check, naming the file.)
    /// What results can be filtered, counted and sorted by (the Search article): brand and category values, price ranges,
    /// rating thresholds, stock; sorted by price either way or by rating; a browse (a filter with no words) by rating.
    static let priceEdges: [Double] = [25, 50, 100, 200, 500, 1000]
    static let ratingThresholds: [Double] = [1, 2, 3, 4]
    static func fields(_ c: CatalogContext) -> SearchFields {
        // Category filters use the category's path (names repeat: "Other"); its name is the label.
        var categories: [String: String] = [:]
        for k in c.model.products.categoryIds.indices { categories[c.categoryPath(index: k)] = c.categoryNodes[k]?.name ?? c.model.products.categoryIds[k] }
        return SearchFields(fields: [
            SearchField(name: "brand", label: "Brand", facet: .value),
            SearchField(name: "category", label: "Category", facet: .value),
            SearchField(name: "price", label: "Price", facet: .ranges(priceEdges), sortable: true),
            SearchField(name: "rating", label: "Rating", facet: .atLeast(ratingThresholds), sortable: true),
            SearchField(name: "inStock", label: "In stock", facet: .value),
        ], sorts: [
            SearchSort(name: "price", label: "Price: low to high", field: "price", descending: false),
            SearchSort(name: "price-desc", label: "Price: high to low", field: "price", descending: true),
            SearchSort(name: "rating", label: "Rating", field: "rating", descending: true),
        ], browse: "rating", labels: ["category": categories])
    }

    /// Document `k`'s value of field `f` of `fields`.
    static func value(_ c: CatalogContext, _ p: Product, _ f: Int) -> SearchValue? {
        switch f {
        case 0: return .text(c.brandName(p))
        case 1: return .text(c.categoryPath(p))
        case 2: return p.price.map { .number($0.double) }
        case 3: return p.ratingAverage.map { .number($0) }
        default: return .text(p.inStock ? "true" : "false")
        }
    }

    static func documents(_ c: CatalogContext) -> RankedIndexBuilder.Source {
        let order = c.rankedOrder, products = c.model.products
        let w = Self.weights
        return .init(count: order.count, document: { k in
            let p = products[order[k]]
            let name = p.name
            return RankedDocument(id: p.segment, fields: [("name", w.name, name), ("brand", w.brand, c.brandName(p)),
                                                          ("category", w.category, c.categoryName(p)),
                                                          ("description", w.description, p.descriptionIsName ? name : p.description)],
                                  stored: .null)
        }, writeStored: { k, t in
            let p = products[order[k]]
            t.beginObject()
            t.key("id"); p.withSegmentBytes { t.string(utf8: $0) }
            t.key("name"); p.withNameBytes { t.string(utf8: $0) }
            t.key("brand"); t.string(c.brandName(p))
            t.key("price"); if let price = p.price { try? t.number(price) } else { t.null() }
            t.key("rating"); if let r = p.ratingAverage { try? t.double(r) } else { t.null() }
            t.key("image"); p.withImageUrlBytes { if let image = $0 { t.string(utf8: image) } else { t.string("") } }
            t.key("path"); t.string("products/\(p.segment)/details.json")
            t.endObject()
        }, id: { products[order[$0]].segment }, fields: fields(c), value: { value(c, products[order[$0]], $1) })
    }

    /// Each file's kind by its folder (asked once per file: the prefixes are made once).
    static let folderKinds: [(String, OutputKind)] = [("terms/", terms), ("vocab/", vocabulary), ("store/", store), ("stores/", storeDirectory),
                                                      ("facets/", facet), ("sort/", sortChunk), ("orders/", order), ("termdirs/", termDirectory),
                                                      ("columns/", columns), ("coldirs/", columnDirectory), ("lengths/", vocabularyList)]
                                                      .map { ("search/" + $0.0, $0.1) }
    static func kind(_ path: String) -> OutputKind {
        folderKinds.first { path.hasPrefix($0.0) }?.1 ?? meta
    }

    func render(_ c: CatalogContext) throws -> [OutputFile] {
        let docs = Self.documents(c), builder = RankedIndexBuilder(), threads = c.threads
        // Term shards and vocabulary depend on the documents' text alone: when it is as it was, they stay as they are
        // in the output (found through the earlier meta file) and only the result store and the meta file are made.
        let textKey = c.rankedSearchTextFingerprint.flatMap { text in c.fingerprint("ranked-terms", products: EmptyCollection()) { $0.add(text) } }
        var kept: [OutputFile] = []
        var out: RankedIndexBuilder.Output
        // A result-store group made from the same stored objects as one in the output is kept (found by the fingerprint
        // of its first slice; each slice's fingerprint is the group's and its number).
        let order = c.rankedOrder
        // (Its place is not in its text: a group whose documents moved with a product added before them is kept.)
        let sliceKey = { (r: Range<Int>, k: Int) in Self.sliceKey(Self.groupKey(c, order[r]), k) }
        let keptStore = { (r: Range<Int>) -> String? in
            // (No release in the output, no cache to look in: no key made.)
            guard let previous = c.previous, previous.tree != nil, let key = sliceKey(r, 0),
                  let path = previous.path(madeFrom: key, in: "search/store/"), path.hasSuffix("-0.json") else { return nil }
            return String(path.dropFirst("search/store/".count).dropLast("-0.json".count))
        }
        if let textKey, let earlier = c.previous, let terms = Self.earlierTerms(earlier, textKey) {
            out = try builder.build(docs, folder: "search", threads: threads, terms: terms, keptStore: keptStore)
            earlier.note("search/: \(terms.paths.count) term and vocabulary files kept from the build before (no searchable text changed)")
            // Each is kept by its fingerprint; one the output no longer has as it was is made again (the whole term
            // stage, once, whichever file asks first).
            let whole = Once { try builder.terms(docs, folder: "search", threads: threads).files }
            kept = terms.paths.map { path in
                var f = OutputFile(path: path, kind: Self.kind(path), weight: 1) { text in
                    guard let made = try whole.value().first(where: { $0.path == path }) else { throw RankedTermsChanged(path: path) }
                    text.raw(made.text)
                }
                f.fingerprint = textKey
                return f
            }
        } else {
            out = try builder.build(docs, folder: "search", threads: threads, keptStore: keptStore)
        }
        // In the order a full build gives (openapi.json takes the first file of each kind as its example): term and
        // vocabulary files, the store's shards in document order, the meta file.
        // The slices of the groups this build made, in the order the builder lists them (group by group).
        var made: [(path: String, text: [UInt8])] = []
        var files = kept
        files.reserveCapacity(kept.count + out.files.count + 8)
        for (path, text) in out.files {
            let kind = Self.kind(path)
            if kind === Self.store { made.append((path, text)) }
            else if kind === Self.terms || kind === Self.vocabulary || kind === Self.termDirectory || kind === Self.vocabularyList {
                files.append(Self.file(path, kind, text, textKey))
            }
            else if kind !== Self.meta { files.append(Self.file(path, kind, text, nil)) }
        }
        Self.storeFiles(c, out.store, made: made, docs: docs, builder: builder, into: &files)
        let meta = out.files.last { $0.path == out.metaPath }!
        files.append(Self.file(meta.path, Self.meta, meta.text, nil))
        files += try WebSearch.files(folder: "search", name: "search", title: "Search \(c.site.siteName)")
        return files
    }

    static func file(_ path: String, _ kind: OutputKind, _ text: [UInt8], _ fingerprint: Fingerprint?) -> OutputFile {
        // Already text (its name is a hash of it): checked against the kind's schema from these bytes.
        var f = OutputFile(path: path, kind: kind, weight: text.count / 64) { $0.raw(text) }
        f.fingerprint = fingerprint
        return f
    }

    /// The result store's slices in document order, each with its fingerprint (its group's products, their count and
    /// the slice's number: see `sliceKey`); `made`: the slices of the groups made by this build, in order (group by
    /// group, each group's slices in order: the builder's `store`).
    static func storeFiles(_ c: CatalogContext, _ groups: [(name: String, documents: Range<Int>, kept: Bool)], made: [(path: String, text: [UInt8])],
                           docs: RankedIndexBuilder.Source, builder: RankedIndexBuilder, into files: inout [OutputFile]) {
        let order = c.rankedOrder, slice = builder.settings.storeSliceSize
        // Groups in parallel (25,000 groups of 100,000 products), each group's products hashed once for all its slices.
        let keys = Parallel.map(groups.count, threads: c.threads) { g in groupKey(c, order[groups[g].documents]) }
        var keptGroups = 0, next = 0
        files.reserveCapacity(files.count + made.count)
        for (g, (name, r, wasKept)) in groups.enumerated() {
            let count = (r.count + slice - 1) / slice
            if !wasKept, next + count <= made.count {
                for k in 0..<count { files.append(file(made[next + k].path, store, made[next + k].text, sliceKey(keys[g], k))) }
                next += count
                continue
            }
            for k in 0..<count {
                let path = "search/store/\(name)-\(k).json"
                // Kept: made again only if the output no longer has it as it was; made, it must be the text its name says.
                var f = OutputFile(path: path, kind: Self.store, weight: 1) { text in
                    let (made, slices) = try builder.groupSlices(docs, r)
                    guard made == name else { throw RankedTermsChanged(path: path) }
                    text.raw(slices[k])
                }
                f.fingerprint = sliceKey(keys[g], k)
                files.append(f)
            }
            if wasKept { keptGroups += 1 }
        }
        if keptGroups > 0 { c.previous?.note("search/store/: \(keptGroups) of \(groups.count) result-store groups kept from the build before") }
    }

    /// A result-store group's fingerprint: its products (their stored objects) and how many they are.
    static func groupKey(_ c: CatalogContext, _ products: ArraySlice<Int>) -> Fingerprint? {
        c.fingerprint("ranked-store", products: products) { $0.add(products.count) }
    }

    /// A slice's fingerprint: its group's salted by its number (`Fingerprint.salted`, a bijection: two slices share a
    /// fingerprint only when their groups and numbers do). Four XORs per slice, not a hash (50,000 slices at 100,000
    /// products).
    static func sliceKey(_ group: Fingerprint?, _ k: Int) -> Fingerprint? {
        guard let group else { return nil }
        return group.salted(k < sliceSalts.count ? sliceSalts[k] : sliceSalt(k))
    }

    static func sliceSalt(_ k: Int) -> Fingerprint {
        var h = FingerprintHasher("ranked-store-slice")
        h.add(k)
        return h.finish()
    }

    /// The salts of the first slices of a group (a group has at most 2 × `storeGroupSize` documents).
    static let sliceSalts = (0..<64).map(sliceSalt)

    /// The terms of the earlier build, when its term files were made from the same text (their fingerprint) and its
    /// meta file lists exactly those files.
    static func earlierTerms(_ earlier: PreviousBuild, _ textKey: Fingerprint) -> RankedIndexBuilder.Terms? {
        let paths = earlier.paths(madeFrom: textKey)
        guard !paths.isEmpty, let bytes = earlier.read("search/meta.json"), let meta = try? JSONReader.parse(bytes),
              let terms = RankedIndexBuilder.Terms(meta: meta, folder: "search", read: { earlier.read($0) }), terms.paths.count == paths.count, Set(terms.paths) == paths else { return nil }
        return terms
    }

    struct RankedTermsChanged: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path): the ranked index's file came out differently from the build before with the same inputs" }
    }
}
