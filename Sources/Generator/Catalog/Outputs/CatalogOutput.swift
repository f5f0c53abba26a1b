import Foundation
import Schemas

/// What catalog output units render from. Shared by concurrent units and by deferred files rendered later on other
/// threads: everything is immutable except the lazy caches, which `CatalogDomain.build` fills before any of that starts.
final class CatalogContext: @unchecked Sendable {
    let model: CatalogModel
    let site: SiteConfig
    let settings: CatalogSettings
    let generatedAt: String
    let threads: Int
    /// What the build before left, for work kept from it (see `PreviousBuild`).
    let previous: PreviousBuild?

    init(model: CatalogModel, site: SiteConfig, settings: CatalogSettings, generatedAt: String, threads: Int, previous: PreviousBuild? = nil) {
        self.model = model; self.site = site; self.settings = settings; self.generatedAt = generatedAt; self.threads = threads
        self.previous = previous
    }

    /// Product indices in brand, category, name, id order: the order of both search indexes (similar products side
    /// by side compress better and share result-store shards). Brands and categories are ranked once per distinct
    /// value (by table index), names compared as bytes when ASCII (the order Swift strings sort in).
    lazy var searchOrder: [Int] = {
        let products = model.products
        // (A missing brand key sorts as "", the text it stands for.)
        let keyRank = Self.ranks(products.brandKeys + [""]), categoryRank = Self.ranks(products.categoryIds.indices.map(categoryPath(index:)))
        let keys = Parallel.map(products.count, threads: threads) { i -> SearchOrderKey in
            let p = products[i]
            let brand = p.brandKeyIndex < 0 ? keyRank[keyRank.count - 1] : keyRank[p.brandKeyIndex]
            return SearchOrderKey(group: UInt64(brand) << 32 | UInt64(categoryRank[p.categoryIndex]), p)
        }
        // The build before's order when it is still this one (no product moved: a price changed), else sorted.
        if let kept = KeptOrder.taken(previous?.keptOrder(Self.searchOrderName), count: keys.count, by: { SearchOrderKey.precedes(keys[$0], keys[$1]) }) {
            previous?.note("search order: taken from the build cache (no product moved)")
            return kept
        }
        // (The comparison reads only the keys: a closure over the store would retain it twice per comparison.)
        return Parallel.sorted(keys, threads: threads, by: SearchOrderKey.precedes).map(\.index)
    }()

    /// The name the search order is kept under in the build cache (`DomainResult.keptOrders`).
    static let searchOrderName = "catalog.searchOrder"

    /// What the search order compares first, as integers: brand and category ranks, then a name's first 8 bytes
    /// (big-endian, zero-padded: for two ASCII names that differ there, their order is the names' byte order).
    /// Names equal that far, or not ASCII, are compared whole (a sort of 100,000 products reads 30 bytes each).
    /// The name and id point into the product store, which outlives the sort.
    struct SearchOrderKey {
        let group: UInt64, namePrefix: UInt64, nameIsASCII: Bool, isASCII: Bool, index: Int
        let name: UnsafeBufferPointer<UInt8>, id: UnsafeBufferPointer<UInt8>
        init(group: UInt64, _ p: Product) {
            name = p.nameUTF8; id = p.idUTF8; isASCII = p.isASCII; index = p.index
            var prefix: UInt64 = 0
            for k in 0..<8 { prefix = prefix << 8 | UInt64(k < name.count ? name[k] : 0) }
            self.group = group; self.namePrefix = prefix
            nameIsASCII = ProductStore.isASCII(name)
        }

        /// The search order: brand and category, then name, then id.
        static func precedes(_ a: SearchOrderKey, _ b: SearchOrderKey) -> Bool {
            if a.group != b.group { return a.group < b.group }
            if a.namePrefix != b.namePrefix, a.nameIsASCII, b.nameIsASCII { return a.namePrefix < b.namePrefix }
            let ascii = a.isASCII && b.isASCII
            if !Product.same(a.name, b.name, ascii: ascii) { return Product.precedes(a.name, b.name, ascii: ascii) }
            return Product.precedes(a.id, b.id, ascii: ascii)
        }
    }

    /// Each text's rank among the distinct texts in sorted order: a sort by several texts compares the few distinct
    /// brands or categories once, then integers (same order as comparing the texts).
    static func ranks(_ texts: [String]) -> [Int] {
        let rank = Dictionary(Array(Set(texts)).sorted().enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        return texts.map { rank[$0]! }
    }

    /// Each brand's slug, by its index in the products' brand table, and the stand-in's, computed once per brand
    /// (Foundation's folding is slow, and 100,000 pages ask).
    lazy var brandSlugs: (byIndex: [String], unbranded: String) = (model.products.brands.map(DeeplinkMapOutput.slug), DeeplinkMapOutput.slug(model.unbrandedName))

    /// Each category id of the products' table: its node (nil for an id the tree lacks: none after the policies).
    lazy var categoryNodes: [CategoryNode?] = model.products.categoryIds.map { model.categories[$0] }
    /// The same, its trail (see `categoryTrails`).
    lazy var categoryTrailsByIndex: [(names: JSON, joined: String)] = model.products.categoryIds.map { categoryTrails[$0] ?? (names: .array([]), joined: "") }

    /// Each category's names from the root down, as the JSON list and as "A > B > C", computed once per category
    /// (every product page shows its category's trail).
    lazy var categoryTrails: [String: (names: JSON, joined: String)] = {
        var out: [String: (names: JSON, joined: String)] = [:]
        for id in model.categories.keys {
            var trail: [String] = []
            var cur: String? = id
            while let c = cur, let n = model.categories[c] { trail.append(n.name); cur = n.parent }
            trail.reverse()
            out[id] = (.strings(trail), trail.joined(separator: " > "))
        }
        return out
    }()

    /// What every catalog output depends on besides its products: the whole of site.json, the category tree after
    /// the policies, and the stand-in names. Nil when the configuration was not read from a file (no fingerprints).
    lazy var contextFingerprint: Fingerprint? = {
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
    }()

    /// Every sellable product together (for the files that list them all: the seed search indexes).
    lazy var allProductsFingerprint: Fingerprint? = {
        guard let context = contextFingerprint else { return nil }
        var h = FingerprintHasher("all-products")
        h.add(context)
        h.add(model.productFingerprints.count)
        for f in model.productFingerprints { h.add(f) }
        return h.finish()
    }()

    /// A file's fingerprint: its kind, what it says of itself (`parts`), the context and the given products.
    func fingerprint(_ kind: String, products: some Sequence<Int>, _ parts: (inout FingerprintHasher) -> Void = { _ in }) -> Fingerprint? {
        guard let context = contextFingerprint else { return nil }
        var h = FingerprintHasher(kind)
        h.add(context)
        parts(&h)
        for i in products { h.add(model.productFingerprints[i]) }
        return h.finish()
    }

    /// Every sellable product's searchable text together, in search order (the order is part of it): what the seed
    /// indexes' word maps and the ranked index's terms are made from, besides the context (see `fingerprint`).
    lazy var allSearchTextFingerprint: Fingerprint? = {
        guard contextFingerprint != nil, model.textFingerprints.count == model.products.count else { return nil }
        var h = FingerprintHasher("all-search-text")
        h.add(searchOrder.count)
        for i in searchOrder { h.add(model.textFingerprints[i]) }
        return h.finish()
    }()

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
