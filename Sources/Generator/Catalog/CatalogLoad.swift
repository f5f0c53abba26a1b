import Foundation
import Schemas

/// Read → Check for the catalog, step by step (`CatalogDomain.load` runs them in order): the products read (from the
/// build cache's snapshot when it can be used), the category tree, then each data policy in a function of its own,
/// the orders, the Bayesian scores, the category subtrees, featured content and the fingerprints. Each step reads
/// what the ones before left here.
struct CatalogLoad {
    let context: BuildContext
    let settings: CatalogSettings
    let productsFile: String
    var check: CatalogCheck
    var store: ProductStore.Builder
    var report: [ReportItem] = []
    var nodes: [String: CategoryNode] = [:]
    /// Category ids in the order they were declared or created.
    var order: [String] = []

    init(_ context: BuildContext, settings: CatalogSettings, productsFile: String) {
        self.context = context; self.settings = settings; self.productsFile = productsFile
        check = CatalogCheck(settings: settings, productsFile: productsFile)
        store = ProductStore.Builder(file: productsFile)
    }

    /// A line of the build summary. Examples are input text (brand spellings) printed in the summary: control
    /// characters escaped.
    mutating func note(_ key: String, _ count: Int, _ policy: String, _ examples: [String] = []) {
        report.append(ReportItem(domain: "catalog", key: key, count: count, policy: policy, examples: examples.prefix(5).map(Excerpt.escapingControls)))
    }

    /// `x` (≥ 0) to the nearest hundredth, halves up: ⌊100·x + ½⌋ / 100 (the prior mean of the Bayesian average).
    static func hundredths(_ x: Double) -> Double { (x * 100 + 0.5).rounded(.down) / 100 }
}

extension CatalogDomain {
    /// Read → Check: the typed model with every policy applied and counted.
    public func load(_ context: BuildContext) throws -> CatalogModel {
        let settings = try CatalogSettings.read(context.site, file: context.siteFile)
        let (productsURL, productsFile) = try productsFile(context, settings)
        var load = CatalogLoad(context, settings: settings, productsFile: productsFile)
        var clock = TraceClock()
        let read = try load.readProducts(productsURL)
        clock.lap("read and check products")
        try load.readCategories(categoriesFile: optionalFile(context, settings.categoriesFile, named: settings.categoriesNamed,
                                                             field: "catalog.categories"))
        let readRecords = load.store.records   // (as read, before any policy: the next snapshot's)
        load.note("products read", read.records, "from \(productsFile)")
        if !read.skipped.isEmpty {
            load.note("malformed records skipped", read.skipped.count, "--skip-bad-rows: left out", read.skipped.map { "\($0.file):\($0.line ?? 0)" })
        }
        let anomalies = load.countAnomalies()
        let unpricedIds = load.leaveOutUnpriced()
        try load.bucketUncategorized(missing: anomalies.missingCategory)
        try load.createMissingCategories(namedBy: anomalies.unknownCategory)
        let variants = load.mergeBrandSpellings()
        load.note("products without a brand", anomalies.missingBrand,
                  "shown as \"\(settings.unbrandedName)\" on detail pages and in indexes; null brand on category pages")
        let (products, byId, readIndex) = load.productsInIdOrder(readRecords)
        let dfs = load.depthFirstOrder()
        let popularity = load.popularity(products)
        let lists = load.categoryLists(products, popularity: popularity, depthFirst: dfs)
        clock.lap("policies, popularity, subtrees")
        let featured = try optionalFile(context, settings.featuredFile, named: settings.featuredNamed, field: "catalog.featured").map {
            try FeaturedInput.read($0.url, display: $0.display, categories: load.nodes, productIds: Set(products.map(\.id)))
        }
        var model = CatalogModel(products: products, unpricedIds: unpricedIds, categories: load.nodes, categoryOrder: dfs,
                                 subtreeProducts: lists.subtree, directProducts: lists.direct, brandVariants: variants,
                                 featured: featured, popularity: popularity, unbrandedName: settings.unbrandedName)
        model.report = load.report
        model.uncategorizedId = settings.uncategorizedId
        model.keptOrders = [Self.idOrderName: KeptOrder.keep(byId), Self.popularityOrderName: KeptOrder.keep(lists.byPopularity)]
        load.fingerprint(&model, readIndex: readIndex, taken: read.taken, snapshot: read.snapshot)
        load.writeSnapshot(read, records: readRecords, model: model, readIndex: readIndex)
        clock.lap("data version and product fingerprints")
        return model
    }
}
