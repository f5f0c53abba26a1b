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
                                     previous: context.previous, hasFlags: FlagsDomain.hasInput(context))
        var result = DomainResult(report: model.report)
        // Units render concurrently (each is also parallel inside): their serial parts overlap. What they share was
        // made with the context, and results are collected by unit, so the output order never depends on timing.
        // GENERATOR_TRACE=units renders them one after another, so each unit's traced time is its own (benchmarks).
        let timeUnits = traceMode == "units"
        let concurrent = context.threads > 1 && !timeUnits
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
        var rendered = Parallel.map(units.count, threads: concurrent ? units.count : 1) { _, k in
            let start = Date()
            // Timed units render their deferred files now, so the time is the unit's own.
            let files = Result { timeUnits ? try units[k].render(catalog).map { try $0.materialised() } : try units[k].render(catalog) }
            return (files: files, seconds: Date().timeIntervalSince(start))
        }
        // One list of the right size, each unit's released once copied (a million product pages are 200 MB of files).
        result.files.reserveCapacity(rendered.reduce(0) { $0 + ((try? $1.files.get())?.count ?? 0) })
        for (k, unit) in units.enumerated() {
            result.files += try rendered[k].files.get()
            rendered[k].files = .success([])
            result.kinds += unit.kinds(for: catalog)
            if trace { FileHandle.standardError.write(Data("  [trace] render \(unit.kinds.first?.name ?? "?"): \(String(format: "%.3f", rendered[k].seconds)) s\n".utf8)) }
        }
        clock.lap("render (all units)")
        // The search order, for the next build to check and take (a sort of every product otherwise).
        result.keptOrders = model.keptOrders
        result.keptOrders[CatalogContext.searchOrderName] = KeptOrder.keep(catalog.searchOrder)
        return result
    }

    /// The names the products' id and popularity orders are kept under in the build cache (see `KeptOrder`).
    static let idOrderName = "catalog.idOrder", popularityOrderName = "catalog.popularityOrder"

    /// Everything a product is, after the policies (what its page, its list entries and its index entries show), and
    /// its searchable text alone (see `CatalogModel.textFingerprints`; how the context names its brand and category is
    /// in the context's fingerprint). Both at once: the fields they share are read once.
    static func fingerprints(_ p: Product) -> (all: Fingerprint, text: Fingerprint) {
        let brand = p.brand, brandKey = p.brandKey, categoryId = p.categoryId, extra = p.extra
        return p.withText { text, r in
            let id = text.extracting(r.idRange), segment = text.extracting(r.segmentRange), name = text.extracting(r.nameRange)
            let description = text.extracting(r.descriptionRange)
            var h = FingerprintHasher("product")
            h.add(utf8: id); h.add(utf8: segment); h.add(utf8: name); h.add(utf8: description); h.add(brand); h.add(brandKey)
            h.add(p.price?.description); h.add(p.currency); h.add(p.inStock)
            p.withImageUrlBytes { h.add(utf8: $0) }
            h.add(p.ratingAverage); h.add(p.ratingCount); h.add(categoryId)
            h.add(extra.count)
            for (k, v) in extra { h.add(k); h.add(v) }
            var t = FingerprintHasher("product-text")
            t.add(utf8: id); t.add(utf8: segment); t.add(utf8: name); t.add(p.descriptionIsName); t.add(utf8: description)
            t.add(brand); t.add(brandKey); t.add(categoryId)
            return (h.finish(), t.finish())
        }
    }
}
