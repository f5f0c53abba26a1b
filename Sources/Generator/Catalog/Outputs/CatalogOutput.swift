import Foundation
import Schemas

/// What catalog output units render from: the model and its settings, and what the units share, made once here
/// before any unit renders (the search order, category trails, brand slugs, fingerprints). Immutable: shared by
/// concurrent units and by deferred files rendered later on other threads.
final class CatalogContext: Sendable {
    let model: CatalogModel
    let site: SiteConfig
    let settings: CatalogSettings
    let generatedAt: String
    let threads: Int
    /// What the build before left, for work kept from it (see `PreviousBuild`).
    let previous: PreviousBuild?

    /// Product indices in brand, category, name, id order: the order of both search indexes (similar products side
    /// by side compress better and share result-store shards).
    let searchOrder: [Int]
    /// Each brand's slug, by its index in the products' brand table, and the stand-in's, computed once per brand
    /// (Foundation's folding is slow, and 100,000 pages ask).
    let brandSlugs: (byIndex: [String], unbranded: String)
    /// Each category id of the products' table: its node (nil for an id the tree lacks: none after the policies).
    let categoryNodes: [CategoryNode?]
    /// The same, its trail (see `categoryTrails`).
    let categoryTrailsByIndex: [(names: JSON, joined: String)]
    /// Each category's names from the root down, as the JSON list and as "A > B > C", computed once per category
    /// (every product page shows its category's trail).
    let categoryTrails: [String: (names: JSON, joined: String)]
    /// What every catalog output depends on besides its products: the whole of site.json, the category tree after
    /// the policies, and the stand-in names. Nil when the configuration was not read from a file (no fingerprints).
    let contextFingerprint: Fingerprint?
    /// Every sellable product together (for the files that list them all: the seed search indexes).
    let allProductsFingerprint: Fingerprint?
    /// Every sellable product's searchable text together, in search order (the order is part of it): what the seed
    /// indexes' word maps and the ranked index's terms are made from, besides the context (see `fingerprint`).
    let allSearchTextFingerprint: Fingerprint?

    init(model: CatalogModel, site: SiteConfig, settings: CatalogSettings, generatedAt: String, threads: Int, previous: PreviousBuild? = nil) {
        self.model = model; self.site = site; self.settings = settings; self.generatedAt = generatedAt; self.threads = threads
        self.previous = previous
        let products = model.products
        let nodes = products.categoryIds.map { model.categories[$0] }
        categoryNodes = nodes
        // The search order (a serial sort) is made on a thread of its own beside the rest (parallel inside).
        let paths = products.categoryIds.indices.map { nodes[$0]?.path ?? products.categoryIds[$0] }
        let order = Background { Self.searchOrder(products, categoryPaths: paths, threads: threads, previous: previous) }
        brandSlugs = (products.brands.map(DeeplinkMapOutput.slug), DeeplinkMapOutput.slug(model.unbrandedName))
        let trails = Self.categoryTrails(model.categories)
        categoryTrails = trails
        categoryTrailsByIndex = products.categoryIds.map { trails[$0] ?? (names: .array([]), joined: "") }
        let context = Self.contextFingerprint(model, site)
        contextFingerprint = context
        allProductsFingerprint = context.map { context in
            var h = FingerprintHasher("all-products")
            h.add(context)
            h.add(model.productFingerprints.count)
            for f in model.productFingerprints { h.add(f) }
            return h.finish()
        }
        searchOrder = try! order.take()   // (making it cannot fail)
        if context != nil, model.textFingerprints.count == products.count {
            var h = FingerprintHasher("all-search-text")
            h.add(searchOrder.count)
            for i in searchOrder { h.add(model.textFingerprints[i]) }
            allSearchTextFingerprint = h.finish()
        } else {
            allSearchTextFingerprint = nil
        }
    }

    /// The search order: the build before's when it is still this one (no product moved: a price changed), else
    /// sorted. Brands and categories are ranked once per distinct value (by table index), names compared as bytes
    /// when ASCII (the order Swift strings sort in).
    private static func searchOrder(_ products: ProductStore, categoryPaths: [String], threads: Int, previous: PreviousBuild?) -> [Int] {
        // (A missing brand key sorts as "", the text it stands for.)
        let keyRank = ranks(products.brandKeys + [""]), categoryRank = ranks(categoryPaths)
        let keys = Parallel.map(products.count, threads: threads) { i -> SearchOrderKey in
            let p = products[i]
            let brand = p.brandKeyIndex < 0 ? keyRank[keyRank.count - 1] : keyRank[p.brandKeyIndex]
            return p.withText { SearchOrderKey(group: UInt64(brand) << 32 | UInt64(categoryRank[p.categoryIndex]), $1, index: i, in: $0) }
        }
        // (The comparisons read the keys and the text, borrowed once: a closure over the store would retain it twice per
        // comparison.)
        return products.withText { text in
            if let kept = KeptOrder.taken(previous?.keptOrder(searchOrderName), count: keys.count,
                                          by: { SearchOrderKey.precedes(keys[$0], keys[$1], in: text) }) {
                previous?.note("search order: taken from the build cache (no product moved)")
                return kept
            }
            return Parallel.sorted(keys, threads: threads, by: { SearchOrderKey.precedes($0, $1, in: text) }).map(\.index)
        }
    }

    /// The name the search order is kept under in the build cache (`DomainResult.keptOrders`).
    static let searchOrderName = "catalog.searchOrder"

    /// What the search order compares first, as integers: brand and category ranks, then a name's first 8 bytes
    /// (big-endian, zero-padded: for two ASCII names that differ there, their order is the names' byte order).
    /// Names equal that far, or not ASCII, are compared whole (a sort of 100,000 products reads 30 bytes each), from
    /// where the name and id are in the store's text.
    struct SearchOrderKey {
        let group: UInt64, namePrefix: UInt64, nameIsASCII: Bool, isASCII: Bool, index: Int
        let name: Range<Int>, id: Range<Int>
        init(group: UInt64, _ r: ProductStore.Record, index: Int, in text: Span<UInt8>) {
            name = r.nameRange; id = r.idRange; isASCII = r.ascii; self.index = index
            let bytes = text.extracting(name)
            var prefix: UInt64 = 0
            for k in 0..<8 { prefix = prefix << 8 | UInt64(k < bytes.count ? bytes[k] : 0) }
            self.group = group; self.namePrefix = prefix
            nameIsASCII = bytes.isASCII
        }

        /// The search order: brand and category, then name, then id.
        static func precedes(_ a: SearchOrderKey, _ b: SearchOrderKey, in text: Span<UInt8>) -> Bool {
            if a.group != b.group { return a.group < b.group }
            if a.namePrefix != b.namePrefix, a.nameIsASCII, b.nameIsASCII { return a.namePrefix < b.namePrefix }
            let ascii = a.isASCII && b.isASCII
            let aName = text.extracting(a.name), bName = text.extracting(b.name)
            if !Product.same(aName, bName, ascii: ascii) { return Product.precedes(aName, bName, ascii: ascii) }
            return Product.precedes(text.extracting(a.id), text.extracting(b.id), ascii: ascii)
        }
    }

    /// Each text's rank among the distinct texts in sorted order: a sort by several texts compares the few distinct
    /// brands or categories once, then integers (same order as comparing the texts).
    static func ranks(_ texts: [String]) -> [Int] {
        let rank = Dictionary(Array(Set(texts)).sorted().enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        return texts.map { rank[$0]! }
    }

    private static func categoryTrails(_ categories: [String: CategoryNode]) -> [String: (names: JSON, joined: String)] {
        var out: [String: (names: JSON, joined: String)] = [:]
        for id in categories.keys {
            var trail: [String] = []
            var cur: String? = id
            while let c = cur, let n = categories[c] { trail.append(n.name); cur = n.parent }
            trail.reverse()
            out[id] = (.strings(trail), trail.joined(separator: " > "))
        }
        return out
    }

    private static func contextFingerprint(_ model: CatalogModel, _ site: SiteConfig) -> Fingerprint? {
        guard let site = site.sourceFingerprint, model.productFingerprints.count == model.products.count else { return nil }
        var h = FingerprintHasher("catalog-context")
        h.add(site)
        h.add(model.unbrandedName); h.add(model.uncategorizedId)
        h.add(model.categoryOrder.count)
        for id in model.categoryOrder {
            let n = model.categories[id]!
            h.add(n.id); h.add(n.path); h.add(n.name); h.add(n.parent); h.add(n.synthetic); h.add(n.children.count)
            for c in n.children { h.add(c) }
        }
        // Categories not reached from a root (none today) would still be named by products.
        h.add(model.categories.count)
        return h.finish()
    }

    /// A file's fingerprint: its kind, what it says of itself (`parts`), the context and the given products.
    func fingerprint(_ kind: String, products: some Sequence<Int>, _ parts: (inout FingerprintHasher) -> Void = { _ in }) -> Fingerprint? {
        guard let context = contextFingerprint else { return nil }
        var h = FingerprintHasher(kind)
        h.add(context)
        parts(&h)
        for i in products { h.add(model.productFingerprints[i]) }
        return h.finish()
    }

    func brandName(_ p: Product) -> String { p.brand ?? model.unbrandedName }
    func brandSlug(_ p: Product) -> String { p.brandIndex < 0 ? brandSlugs.unbranded : brandSlugs.byIndex[p.brandIndex] }
    func categoryName(_ p: Product) -> String { categoryNodes[p.categoryIndex]?.name ?? p.categoryId }
    func categoryPath(_ p: Product) -> String { categoryPath(index: p.categoryIndex) }
    func categoryPath(index k: Int) -> String { categoryNodes[k]?.path ?? model.products.categoryIds[k] }
    /// Absolute URL of a file of the tree.
    func url(_ path: String) -> String { site.baseURL + path }
}

/// One catalog output kind: its declared kinds (schemas) and how it renders.
protocol CatalogOutput: Sendable {
    var kinds: [OutputKind] { get }
    /// The kinds of this catalog's files (schemas are published only for kinds present); `kinds` unless a setting
    /// changes a kind's shape.
    func kinds(for c: CatalogContext) -> [OutputKind]
    /// False when a setting leaves the unit's files out (`catalog.seedIndexes`).
    func isIncluded(in c: CatalogContext) -> Bool
    /// True when its file names depend on their content (hashed shards): such a unit is rendered while the other
    /// files are validated and serialised (see `DomainResult.later`).
    var namesFilesByContent: Bool { get }
    func render(_ c: CatalogContext) throws -> [OutputFile]
}

extension CatalogOutput {
    var namesFilesByContent: Bool { false }
    func kinds(for c: CatalogContext) -> [OutputKind] { kinds }
    func isIncluded(in c: CatalogContext) -> Bool { true }
}

enum CatalogOutputs {
    /// Every catalog output, in emission order. Adding a kind = one file + one line here.
    static let all: [CatalogOutput] = [
        AppConfigOutput(), DeeplinkMapOutput(), FeaturedContentOutput(), SummaryOutput(),
        CategoryIndexOutput(), CategoryPageOutput(), ProductDetailsOutput(), OfflineCatalogOutput(),
        SearchIndexOutput(), RankedSearchOutput(),
    ]
}
