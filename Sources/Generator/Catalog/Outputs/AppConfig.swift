import Schemas

/// `app-config.json`: what the app loads first (the document's AppConfig model).
struct AppConfigOutput: CatalogOutput {
    static let kind = OutputKind(
        name: "app-config", pathTemplate: "app-config.json",
        summary: "App configuration: versions, base URL, endpoint templates, features, cache TTLs, image sizes.",
        schema: S.object([
            "appVersion": S.string(pattern: #"^\d+(\.\d+){0,2}$"#),
            "minimumAppVersion": S.string(pattern: #"^\d+(\.\d+){0,2}$"#),
            "dataVersion": S.nonEmptyString,
            "lastUpdated": S.dateTime,
            "baseURL": S.string(pattern: #"^https?://[^\s]+/$"#),
            "endpoints": S.object([
                "appConfig": S.url, "summary": S.url, "searchIndex": S.url, "searchIndexCompact": S.url,
                "searchRanked": S.url, "categories": S.url, "categoryDetails": S.url, "productDetails": S.url,
                "productImage": S.url, "featuredContent": S.url, "offlineCatalog": S.url, "updateManifest": S.url,
                "deeplinkMap": S.url,
            ]),
            "features": S.object(["search": S.boolean, "favorites": S.boolean, "offlineMode": S.boolean,
                                  "categories": S.boolean, "productDetails": S.boolean]),
            "caching": S.object([
                "strategy": S.string,
                "ttl": S.object(["appConfig": S.nonNegativeInteger, "summary": S.nonNegativeInteger,
                                 "searchIndex": S.nonNegativeInteger, "categories": S.nonNegativeInteger,
                                 "products": S.nonNegativeInteger, "images": S.nonNegativeInteger]),
            ]),
            "images": S.object([
                "sizes": S.object(["thumbnail": S.string, "small": S.string, "medium": S.string, "large": S.string]),
                "defaultSize": S.enumeration(["thumbnail", "small", "medium", "large"]),
            ]),
        ]))
    var kinds: [OutputKind] { [Self.kind] }

    func render(_ c: CatalogContext) throws -> [OutputFile] {
        [try Self.file(site: c.site, dataVersion: c.model.dataVersion, generatedAt: c.generatedAt, hasCatalog: true)]
    }

    /// The app's entry point, in every tree whatever domains it holds (the app cannot start without it). A tree
    /// without a catalog keeps the endpoint templates (the app model requires them) but turns off the catalog's
    /// features, so the app does not ask for files the tree does not have.
    static func file(site s: SiteConfig, dataVersion: String, generatedAt: String, hasCatalog: Bool) throws -> OutputFile {
        func url(_ path: String) -> JSON { .string(s.baseURL + path) }
        // Endpoint templates resolve against baseURL; {placeholders} are filled by the app.
        let endpoints: JSON = .obj([
            "appConfig": url("app-config.json"), "summary": url("SUMMARY.json"),
            "searchIndex": url("search-index.json"), "searchIndexCompact": url("search-index-compact.json"),
            "searchRanked": url("search/meta.json"),
            "categories": url("categories/index.json"), "categoryDetails": url("categories/{categoryId}.json"),
            "productDetails": url("products/{productId}/details.json"),
            "productImage": url("products/{productId}/image_{size}.jpg"),
            "featuredContent": url("featured-content.json"), "offlineCatalog": url("offline-catalog.json"),
            "updateManifest": url("update-manifest.json"), "deeplinkMap": url("deeplink-map.json"),
        ])
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
