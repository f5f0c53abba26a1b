import Foundation
import Schemas
import Crypto

/// The product catalog: products, category tree and featured content → app config, pages,
/// details, search indexes and the offline catalog.
public struct CatalogDomain: Domain {
    public let name = "catalog"
    public init() {}

    static let defaultProducts = ["catalog/products.jsonl", "catalog/products.json", "catalog/products.csv"]

    public func isPresent(in context: BuildContext) -> Bool {
        // Named in site.json (or the settings are wrong): build() reports what is wrong with it.
        guard let settings = try? CatalogSettings.read(context.site, file: "site.json") else { return true }
        if settings.productsFile != nil { return true }
        // A default name that exists in any form (even a link pointing out, which build() then refuses).
        return Self.defaultProducts.contains { name in
            var st = stat()
            return lstat(context.inputDirectory.appendingPathComponent(name).path, &st) == 0
        }
    }

    /// The products file, resolved inside the input folder, and its name in messages.
    func productsFile(_ context: BuildContext, _ settings: CatalogSettings) throws -> (url: URL, display: String) {
        let siteFile = context.siteFile
        if let p = settings.productsFile {
            let f = try context.inputFile(p, file: siteFile, field: "catalog.products")
            if InputFiles.kind(f.url) == .missing { throw BuildError(file: siteFile, field: "catalog.products", "\(Excerpt.text(p)) not found") }
            return f
        }
        for name in Self.defaultProducts {
            let f = try context.inputFile(name, file: context.displayPath(context.inputDirectory.appendingPathComponent(name)), field: nil)
            if InputFiles.kind(f.url) != .missing { return f }
        }
        throw BuildError(file: context.displayPath(context.inputDirectory.appendingPathComponent("catalog")), "no products file (products.jsonl, products.json or products.csv)")
    }

    /// An optional catalog file (categories, featured): nil when the default path is absent; an error when a path
    /// named in site.json is.
    func optionalFile(_ context: BuildContext, _ path: String, named: Bool, field: String) throws -> (url: URL, display: String)? {
        let siteFile = context.siteFile
        let f = try context.inputFile(path, file: named ? siteFile : context.displayPath(context.inputDirectory.appendingPathComponent(path)),
                                      field: named ? field : nil)
        guard InputFiles.kind(f.url) == .missing else { return f }
        if named { throw BuildError(file: siteFile, field: field, "\(Excerpt.text(path)) not found (remove the key to build without it)") }
        return nil
    }

    public func build(_ context: BuildContext) throws -> DomainResult {
        let traceMode = TraceClock.mode
        let trace = TraceClock.isOn
        var clock = TraceClock()
        let model = try load(context)
        clock.lap("catalog load")
        let settings = try CatalogSettings.read(context.site, file: context.siteFile)
        let catalog = CatalogContext(model: model, site: context.site, settings: settings, generatedAt: context.generatedAt, threads: context.threads,
                                     earlier: context.earlier)
        var result = DomainResult(report: model.report)
        // Units render concurrently (each is also parallel inside): their serial parts overlap. Shared lazy state is
        // built first, and results are collected by unit, so the output order never depends on timing.
        // GENERATOR_TRACE=units renders them one after another, so each unit's traced time is its own (benchmarks).
        let timeUnits = traceMode == "units"
        let concurrent = context.threads > 1 && !timeUnits
        // The search order (a serial sort) is computed beside the list entries (parallel inside).
        _ = catalog.categoryNodes   // (read by the search order, on another thread)
        let order = Background { [catalog] in _ = catalog.searchOrder }
        _ = catalog.brandSlugs
        _ = catalog.categoryTrails
        _ = catalog.categoryTrailsByIndex
        _ = catalog.allProductsFingerprint   // (and the context's)
        try order.wait()
        // (Only now: it reads the search order, which a lazy property must not be made on two threads at once.)
        _ = catalog.allSearchTextFingerprint
        // Content-named units (the ranked index) are built on a thread of their own from here on, alongside the other units'
        // rendering and then the validation and serialisation of the rest; their files join the others when those are done.
        let included = CatalogOutputs.all.filter { $0.isIncluded(in: catalog) }
        let units = included.filter { timeUnits || !$0.namesFilesByContent }
        for unit in included where !timeUnits && unit.namesFilesByContent {
            result.kinds += unit.kinds(for: catalog)
            // Started now, on a thread of its own: its term stage fills the cores the other units leave idle.
            let early = Background { try unit.render(catalog) }
            result.later.append { try early.take() }
        }
        var rendered = [Result<[OutputFile], Error>?](repeating: nil, count: units.count)
        var seconds = [Double](repeating: 0, count: units.count)
        rendered.withUnsafeMutableBufferPointer { out in
            seconds.withUnsafeMutableBufferPointer { secs in
                DispatchQueue.concurrentPerform(iterations: concurrent ? units.count : 1) { i in
                    let range = concurrent ? i..<(i + 1) : 0..<units.count
                    for k in range {
                        let start = Date()
                        // Timed units render their deferred files now, so the time is the unit's own.
                        out[k] = Result { timeUnits ? try units[k].render(catalog).map { try $0.materialised() } : try units[k].render(catalog) }
                        secs[k] = Date().timeIntervalSince(start)
                    }
                }
            }
        }
        // One list of the right size, each unit's released once copied (a million product pages are 200 MB of files).
        result.files.reserveCapacity(rendered.reduce(0) { $0 + ((try? $1!.get())?.count ?? 0) })
        for (k, unit) in units.enumerated() {
            result.files += try rendered[k]!.get()
            rendered[k] = .success([])
            result.kinds += unit.kinds(for: catalog)
            if trace { FileHandle.standardError.write(Data("  [trace] render \(unit.kinds.first?.name ?? "?"): \(String(format: "%.3f", seconds[k])) s\n".utf8)) }
        }
        clock.lap("render (all units)")
        // The search order, for the next build to check and take (a sort of every product otherwise).
        result.memos = model.keptOrders
        result.memos[CatalogContext.searchOrderMemo] = KeptOrder.memo(catalog.searchOrder)
        return result
    }

    /// The names the products' id and popularity orders are kept under in the build cache (see `KeptOrder`).
    static let idOrderMemo = "catalog.idOrder", popularityOrderMemo = "catalog.popularityOrder"

    /// `x` (≥ 0) to the nearest hundredth, halves up: ⌊100·x + ½⌋ / 100 (the prior mean of the Bayesian average).
    static func hundredths(_ x: Double) -> Double { (x * 100 + 0.5).rounded(.down) / 100 }

    /// Read → Check: the typed model with every policy applied and counted.
    public func load(_ context: BuildContext) throws -> CatalogModel {
        let settings = try CatalogSettings.read(context.site, file: context.siteFile)
        let (productsURL, productsFile) = try productsFile(context, settings)
        var check = CatalogCheck(settings: settings, productsFile: productsFile)
        var clock = TraceClock()
        var store = ProductStore.Builder(file: productsFile)
        // JSON Lines: the records of lines an earlier build read are taken from the cache's snapshot when it can be used
        // (see `ProductSnapshot`); the file is cut into chunks as it is read, for the next snapshot.
        let snapshotFile = ProductFileReader.isJSONLines(productsFile) ? context.productSnapshot : nil
        let snapshotKey = ProductSnapshot.key(settings)
        var chunker = LineChunker(keepBytes: true)
        var read: (records: Int, skipped: [BuildError])
        var taken: ProductSnapshot.Taken?, memo: ProductSnapshot?
        if let snapshot = snapshotFile?.take(), snapshot.key == snapshotKey,
           let t = try snapshot.read(productsURL, display: productsFile, check: &check, into: store, chunker: &chunker, threads: context.threads) {
            read = (t.records, [])
            taken = t
            memo = snapshot
        } else {
            // Read and checked a batch at a time: the records of a batch are released once its products are made.
            check = CatalogCheck(settings: settings, productsFile: productsFile)
            store = ProductStore.Builder(file: productsFile)
            chunker = LineChunker(keepBytes: false)
            let builder = store
            read = try ProductFileReader.forEachBatch(productsURL, display: productsFile, threads: context.threads, skipBadRecords: context.skipBadRows,
                                                      lines: snapshotFile == nil ? nil : { chunker.feed($0) { _, _ in } }) {
                check.products($0, threads: context.threads, into: builder)
            }
            if snapshotFile != nil { chunker.finish { _, _ in } }
        }
        // Policy: an empty products file is an error, not an empty catalog: a truncated export would otherwise
        // publish a release that removes every product.
        if read.records == 0 {
            let why = read.skipped.isEmpty ? "has no products" : "has no readable products (\(read.skipped.count) malformed records skipped)"
            throw BuildError(file: productsFile, "\(why); an empty catalog is refused (remove the file, or catalog.products in site.json, to build without a catalog)")
        }
        clock.lap("read and check products")

        var nodes: [String: CategoryNode] = [:], order: [String] = []
        if let (catURL, catFile) = try optionalFile(context, settings.categoriesFile, named: settings.categoriesNamed, field: "catalog.categories") {
            let bytes = [UInt8](try InputFiles.read(catURL, display: catFile))
            let json: JSON
            do { json = try JSONReader.parse(bytes) } catch let e as JSONSyntaxError {
                throw BuildError(file: catFile, line: e.line, "invalid JSON at column \(e.column): \(e.message)")
            }
            (nodes, order) = check.categories(json, file: catFile, lines: ProductFileReader.entryLines(bytes, member: json.arrayValue == nil ? "categories" : nil))
        }
        if !check.errors.isEmpty { throw BuildErrors(check.errors) }
        let readRecords = store.records   // (as read, before any policy: the next snapshot's)

        var report = check.report
        func note(_ key: String, _ count: Int, _ policy: String, _ examples: [String] = []) {
            // Examples are input text (brand spellings) printed in the summary: control characters escaped.
            report.append(ReportItem(domain: "catalog", key: key, count: count, policy: policy, examples: examples.prefix(5).map(Excerpt.escapingControls)))
        }
        note("products read", read.records, "from \(productsFile)")
        if !read.skipped.isEmpty {
            note("malformed records skipped", read.skipped.count, "--skip-bad-rows: left out", read.skipped.map { "\($0.file):\($0.line ?? 0)" })
        }

        // Anomalies are counted over every product read, before any is left out (per category id, not per product).
        let emptyCategory = store.intern("", in: .category)
        var perCategory = [Int](repeating: 0, count: store.categoryIds.count)
        var missingBrand = 0
        for r in store.records {
            perCategory[Int(r.category)] += 1
            if r.brand < 0 { missingBrand += 1 }
        }
        let missingCategory = perCategory[Int(emptyCategory)]
        var unknownCategory = 0
        for (k, id) in store.categoryIds.enumerated() where !id.isEmpty && nodes[id] == nil { unknownCategory += perCategory[k] }

        // Policy: unpriced products are not sellable listings (their text stays in the buffer, unused: a few bytes).
        let unpricedIds = store.records.filter { $0.price < 0 }.map(store.id).sorted()
        store.records.removeAll { $0.price < 0 }
        note("products without a price", unpricedIds.count, "left out of pages and indexes; ids listed here", unpricedIds)

        // Policy: a product without a category goes to the uncategorized bucket (a top-level category).
        let uncategorized = store.records.indices.filter { store.records[$0].category == emptyCategory }
        if !uncategorized.isEmpty {
            let uid = settings.uncategorizedId
            if nodes[uid] == nil {
                nodes[uid] = CategoryNode(id: uid, path: try SafePath.nested(uid), name: settings.uncategorizedName, parent: nil, children: [], synthetic: true)
                order.append(uid)
            }
            let bucket = store.intern(uid, in: .category)
            for i in uncategorized { store.records[i].category = bucket }
        }
        note("products without a category", missingCategory, "listed under \"\(settings.uncategorizedId)\" (\(uncategorized.count) priced)",
             uncategorized.prefix(5).map { store.id(store.records[$0]) })

        // Policy: a category missing from the tree is created under its nearest existing ancestor (in the order
        // products name them).
        var created: [String] = []
        var settled = [Bool](repeating: false, count: store.categoryIds.count)
        for r in store.records where !settled[Int(r.category)] {
            settled[Int(r.category)] = true
            var chain: [String] = []
            var cur = store.categoryIds[Int(r.category)]
            while nodes[cur] == nil {
                chain.append(cur)
                guard let slash = cur.lastIndex(of: "/") else { break }
                cur = String(cur[..<slash])
            }
            for id in chain.reversed() {
                let parent = id.lastIndex(of: "/").map { String(id[..<$0]) }
                let path: String
                do { path = try SafePath.nested(id) } catch {
                    throw BuildError(file: productsFile, line: Int(r.line), field: settings.fields["category"], "category \(Excerpt.quote(id)) \(error)")
                }
                let slug = String(id.split(separator: "/").last ?? Substring(id))
                nodes[id] = CategoryNode(id: id, path: path, name: CatalogCheck.nameFromSlug(slug), parent: parent.flatMap { nodes[$0] != nil ? $0 : nil }, children: [], synthetic: true)
                order.append(id)
                created.append(id)
            }
        }
        note("categories missing from the tree", created.count, "created under their nearest ancestor (\(unknownCategory) products name them)", created)

        // Policy: brand spellings that differ only by case or accents are one brand, shown in its most common spelling.
        var spellingCounts: [Int: [Int32: Int]] = [:]   // brand key → spelling → count (by table index)
        for r in store.records where r.brand >= 0 && r.brandKey >= 0 { spellingCounts[Int(r.brandKey), default: [:]][r.brand, default: 0] += 1 }
        var variants: [String: [String: Int]] = [:]
        for (k, counts) in spellingCounts {
            variants[store.brandKeys[k]] = Dictionary(uniqueKeysWithValues: counts.map { (store.brands[Int($0.key)], $0.value) })
        }
        var display = [Int32](repeating: -1, count: store.brandKeys.count)
        var merged = 0
        for (k, v) in variants {
            display[Int(store.intern(k, in: .brandKey))] = store.intern(v.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.first!.key, in: .brand)
            if v.count > 1 { merged += 1 }
        }
        for i in store.records.indices {
            let k = store.records[i].brandKey
            if k >= 0, store.records[i].brand >= 0, display[Int(k)] >= 0 { store.records[i].brand = display[Int(k)] }
        }
        note("brands with case variants", merged, "merged case-insensitively; the most common spelling is shown",
             variants.filter { $0.value.count > 1 }.keys.sorted().map { variants[$0]!.keys.sorted().joined(separator: "/") })
        note("products without a brand", missingBrand, "shown as \"\(settings.unbrandedName)\" on detail pages and in indexes; null brand on category pages")

        // Id order (ids are distinct): the build before's when it still is (no product line added, removed or moved).
        let records = store.records
        func idPrecedes(_ a: Int, _ b: Int) -> Bool {
            Product.precedes(store.idUTF8(records[a]), store.idUTF8(records[b]), ascii: records[a].ascii && records[b].ascii)
        }
        let (byId, idOrderTaken) = KeptOrder.order(context.earlier?.memo(Self.idOrderMemo), count: records.count, by: idPrecedes)
        if idOrderTaken { context.earlier?.note("product id order: taken from the build cache") }
        let products = store.finish(order: byId)
        // Each product's record as read (before the policies left some out and the id order moved them).
        let kept = readRecords.indices.filter { readRecords[$0].price >= 0 }
        let readIndex = byId.map { kept[$0] }

        // Children lists and depth-first order.
        for id in order { nodes[id]!.children = [] }
        for id in order { if let p = nodes[id]!.parent { nodes[p]!.children.append(id) } }
        var dfs: [String] = []
        func visit(_ id: String) { dfs.append(id); for c in nodes[id]!.children { visit(c) } }
        for id in order where nodes[id]!.parent == nil { visit(id) }

        // Bayesian average: (m·C + n·R) / (m + n), C the mean rating of rated products to the hundredth, m the prior
        // weight. (Rounded: a product added or rated moves the exact mean by a hair, which moves every product's score
        // and reorders whole category pages, so a release's delta would carry them all. To the hundredth, the mean
        // stays, and so do the pages the change does not touch.)
        var ratedCount = 0, ratedSum = 0.0
        for p in products where p.ratingCount > 0 {
            if let r = p.ratingAverage { ratedCount += 1; ratedSum += r }
        }
        let c = ratedCount == 0 ? 0 : Self.hundredths(ratedSum / Double(ratedCount))
        let m = settings.ratingPrior
        let popularity = products.map { p -> Double in
            let n = Double(p.ratingAverage == nil ? 0 : p.ratingCount)
            return (m * c + n * (p.ratingAverage ?? 0)) / (m + n)
        }

        // Distinct products per subtree, ordered by popularity then id.
        // Each category id of the table, once: its node's slot in the depth-first order, and its ancestors' slots.
        let slot = Dictionary(uniqueKeysWithValues: dfs.enumerated().map { ($1, $0) })
        let chains: [[Int]] = products.categoryIds.map { id in
            var out: [Int] = [], cur: String? = id
            while let x = cur, let node = nodes[x] { out.append(slot[x]!); cur = node.parent }
            return out
        }
        var directLists = [[Int]](repeating: [], count: dfs.count)
        for (i, p) in products.enumerated() { if let own = chains[p.categoryIndex].first { directLists[own].append(i) } }
        // One sort of all products (products are in id order, so the index breaks ties as the id would), then each
        // product joins its category and every ancestor: each list comes out in that order, each product once.
        // (The build before's order when it still is: no rating changed.)
        func popular(_ a: Int, _ b: Int) -> Bool { popularity[a] != popularity[b] ? popularity[a] > popularity[b] : a < b }
        let (byPopularity, popularityTaken) = KeptOrder.order(context.earlier?.memo(Self.popularityOrderMemo), count: products.count, by: popular)
        if popularityTaken { context.earlier?.note("popularity order: taken from the build cache") }
        var subtreeLists = [[Int]](repeating: [], count: dfs.count)
        for i in byPopularity { for k in chains[products[i].categoryIndex] { subtreeLists[k].append(i) } }
        var subtree: [String: [Int]] = [:], direct: [String: [Int]] = [:]
        for (k, id) in dfs.enumerated() {
            subtree[id] = subtreeLists[k]
            if !directLists[k].isEmpty { direct[id] = directLists[k] }
        }

        clock.lap("policies, popularity, subtrees")
        // Featured content: every reference must exist.
        var featured: JSON? = nil
        if let (featURL, featFile) = try optionalFile(context, settings.featuredFile, named: settings.featuredNamed, field: "catalog.featured") {
            featured = try FeaturedInput.read(featURL, display: featFile, categories: nodes,
                                              productIds: Set(products.map(\.id)))
        }

        var model = CatalogModel(products: products, unpricedIds: unpricedIds, categories: nodes, categoryOrder: dfs,
                                 subtreeProducts: subtree, directProducts: direct, brandVariants: variants,
                                 featured: featured, popularity: popularity, unbrandedName: settings.unbrandedName)
        model.report = report
        model.uncategorizedId = settings.uncategorizedId
        model.keptOrders = [Self.idOrderMemo: KeptOrder.memo(byId), Self.popularityOrderMemo: KeptOrder.memo(byPopularity)]
        // Each product's fingerprints (of every field it has, and of its searchable text), in parallel; the data
        // version is the hash of them all in order: it changes whenever anything a product shows does.
        let fingerprinting = context.site.sourceFingerprint != nil
        let none = Fingerprint(a: 0, b: 0, c: 0, d: 0)
        var all = [Fingerprint](repeating: none, count: products.count), text = all
        // A product whose record was taken from the snapshot has the fingerprints made then, unless the policies now
        // give it another brand or category.
        let origins = taken.map { t in readIndex.map { t.origins[$0] } }, earlier = memo
        all.withUnsafeMutableBufferPointer { all in text.withUnsafeMutableBufferPointer { text in
            Parallel.forEachChunk(products.count, threads: context.threads) { range in
                for i in range {
                    let p = products[i]
                    (all[i], text[i]) = origins.flatMap { earlier?.fingerprints(of: p, origin: $0[i], store: products) } ?? Self.fingerprints(p)
                }
            }
        } }
        var version = FingerprintHasher("data-version")
        version.add(all.count)
        for f in all { version.add(f) }
        model.dataVersion = String(BuildCache.hex(version.finish().bytes).prefix(12))
        model.productFingerprints = all
        model.textFingerprints = text
        if let snapshotFile {
            snapshotFile.noteReused(taken?.reusedLines ?? 0)
            if read.skipped.isEmpty {
                // The next snapshot: the records as read, and the fingerprints of those that became products.
                var made = [ProductSnapshot.Made](repeating: .none, count: fingerprinting ? readRecords.count : 0)
                if fingerprinting {
                    for (k, p) in products.enumerated() {
                        made[readIndex[k]] = .init(all: all[k], text: text[k], brand: Int32(p.brandIndex), category: Int32(p.categoryIndex))
                    }
                }
                let chunks = chunker.chunks, hashes = taken.map { ($0.idHashes, $0.foldedHashes) }, fingerprints = made
                snapshotFile.write { fd in
                    ProductSnapshot.write(to: fd, key: snapshotKey, chunks: chunks, records: readRecords, store: products, hashes: hashes, made: fingerprints)
                }
            }
        }
        clock.lap("data version and product fingerprints")
        return model
    }

    /// Everything a product is, after the policies (what its page, its list entries and its index entries show), and
    /// its searchable text alone (see `CatalogModel.textFingerprints`; how the context names its brand and category is
    /// in the context's fingerprint). Both at once: the fields they share are read once.
    static func fingerprints(_ p: Product) -> (all: Fingerprint, text: Fingerprint) {
        let id = p.idUTF8, segment = p.segmentUTF8, name = p.nameUTF8, description = p.descriptionUTF8
        let brand = p.brand, brandKey = p.brandKey, categoryId = p.categoryId
        var h = FingerprintHasher("product")
        h.add(utf8: id); h.add(utf8: segment); h.add(utf8: name); h.add(utf8: description); h.add(brand); h.add(brandKey)
        h.add(p.price?.description); h.add(p.currency); h.add(p.inStock); h.add(utf8: p.imageUrlUTF8); h.add(p.ratingAverage)
        h.add(p.ratingCount); h.add(categoryId)
        let extra = p.extra
        h.add(extra.count)
        for (k, v) in extra { h.add(k); h.add(v) }
        var t = FingerprintHasher("product-text")
        t.add(utf8: id); t.add(utf8: segment); t.add(utf8: name); t.add(p.descriptionIsName); t.add(utf8: description)
        t.add(brand); t.add(brandKey); t.add(categoryId)
        return (h.finish(), t.finish())
    }
}
