import Schemas

/// `app-config.json`: what the app loads first (the document's AppConfig model).
struct AppConfigOutput: CatalogOutput {
    /// The kind of a tree with the seed search indexes, and of a tree without a catalog (whose endpoint templates the
    /// app model requires).
    static let kind = kind(seedIndexes: true)
    /// With `catalog.seedIndexes` false: no `searchIndex` or `searchIndexCompact` endpoint, as the tree has neither
    /// file (`searchRanked` names the search).
    static let kindWithoutSeedIndexes = kind(seedIndexes: false)

    static func endpointNames(seedIndexes: Bool) -> [String] {
        ["appConfig", "summary"] + (seedIndexes ? ["searchIndex", "searchIndexCompact"] : [])
            + ["searchRanked", "categories", "categoryDetails", "productDetails", "productImage", "featuredContent",
               "offlineCatalog", "updateManifest", "deeplinkMap"]
    }

    static func kind(seedIndexes: Bool) -> OutputKind { OutputKind(
        name: "app-config", pathTemplate: "app-config.json",
        summary: "App configuration: versions, base URL, endpoint templates, features, cache TTLs, image sizes.",
        schema: Schema.object([
            "appVersion": Schema.string(pattern: #"^\d+(\.\d+){0,2}$"#),
            "minimumAppVersion": Schema.string(pattern: #"^\d+(\.\d+){0,2}$"#),
            "dataVersion": Schema.nonEmptyString,
            "lastUpdated": Schema.dateTime,
            "baseURL": Schema.string(pattern: #"^https?://[^\s]+/$"#),
            // `flags` only in a tree with feature flags (`input/flags.json`).
            "endpoints": Schema.object(endpointNames(seedIndexes: seedIndexes).map { ($0, Schema.url) } + [("flags", Schema.optional(Schema.url))]),
            "features": Schema.object(["search": Schema.boolean, "favorites": Schema.boolean, "offlineMode": Schema.boolean,
                                  "categories": Schema.boolean, "productDetails": Schema.boolean]),
            "caching": Schema.object([
                "strategy": Schema.string,
                "ttl": Schema.object(["appConfig": Schema.nonNegativeInteger, "summary": Schema.nonNegativeInteger,
                                 "searchIndex": Schema.nonNegativeInteger, "categories": Schema.nonNegativeInteger,
                                 "products": Schema.nonNegativeInteger, "images": Schema.nonNegativeInteger]),
            ]),
            "images": Schema.object([
                "sizes": Schema.object(["thumbnail": Schema.string, "small": Schema.string, "medium": Schema.string, "large": Schema.string]),
                "defaultSize": Schema.enumeration(["thumbnail", "small", "medium", "large"]),
            ]),
        ])) }
    var kinds: [OutputKind] { [Self.kind] }
    func kinds(for c: CatalogContext) -> [OutputKind] { [c.settings.seedIndexes ? Self.kind : Self.kindWithoutSeedIndexes] }

    func render(_ c: CatalogContext) throws -> [OutputFile] {
        [try Self.file(site: c.site, dataVersion: c.model.dataVersion, generatedAt: c.generatedAt, hasCatalog: true,
                       seedIndexes: c.settings.seedIndexes, hasFlags: c.hasFlags)]
    }

    /// The app's entry point, in every tree whatever domains it holds (the app cannot start without it). A tree
    /// without a catalog keeps the endpoint templates (the app model requires them) but turns off the catalog's
    /// features, so the app does not ask for files the tree does not have.
    /// `seedIndexes`: false when the catalog leaves out the seed search indexes (their endpoints are left out too);
    /// `hasFlags`: the tree has `config/flags.json` (endpoint `flags`).
    static func file(site s: SiteConfig, dataVersion: String, generatedAt: String, hasCatalog: Bool, seedIndexes: Bool = true,
                     hasFlags: Bool) throws -> OutputFile {
        // Endpoint templates resolve against baseURL; {placeholders} are filled by the app.
        let paths: [String: String] = [
            "appConfig": "app-config.json", "summary": "SUMMARY.json",
            "searchIndex": "search-index.json", "searchIndexCompact": "search-index-compact.json",
            "searchRanked": "search/meta.json",
            "categories": "categories/index.json", "categoryDetails": "categories/{categoryId}.json",
            "productDetails": "products/{productId}/details.json",
            "productImage": "products/{productId}/image_{size}.jpg",
            "featuredContent": "featured-content.json", "offlineCatalog": "offline-catalog.json",
            "updateManifest": "update-manifest.json", "deeplinkMap": "deeplink-map.json",
        ]
        let names = endpointNames(seedIndexes: seedIndexes) + (hasFlags ? ["flags"] : [])
        let endpoints: JSON = .object(JSONObject(names.map { ($0, JSON.string(s.baseURL + (paths[$0] ?? FlagsOutput.path))) }))
        var members: [(String, JSON)] = [
            ("appVersion", .string(s.appVersion)), ("minimumAppVersion", .string(s.minimumAppVersion)),
            ("dataVersion", .string(dataVersion)),
            ("baseURL", .string(s.baseURL)), ("endpoints", endpoints),
            ("features", .object(JSONObject(s.features.map { ($0.0, JSON.bool($0.1 && hasCatalog)) }))),
            ("caching", .obj(["strategy": .string(s.cachingStrategy), "ttl": .object(JSONObject(s.ttl.map { ($0.0, JSON.int($0.1)) }))])),
            ("images", .obj(["sizes": .object(JSONObject(s.imageSizes.map { ($0.0, JSON.string($0.1)) })),
                             "defaultSize": .string(s.defaultImageSize)])),
        ]
        // Versions, features and settings are content of their own (a new minimumAppVersion must make a release);
        // only lastUpdated is the build time, so the release logic compares the rest.
        let key = Build.sha256Hex(try JSONWriter().bytes(.object(JSONObject(members))))
        members.insert(("lastUpdated", .string(generatedAt)), at: 3)
        var file = OutputFile(path: "app-config.json", json: .object(JSONObject(members)), kind: Self.kind, stampsBuildTime: true)
        file.contentKey = key
        return file
    }
}
