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
        let s = c.site
        // Endpoint templates resolve against baseURL; {placeholders} are filled by the app.
        let endpoints: JSON = .obj([
            "appConfig": .string(c.url("app-config.json")), "summary": .string(c.url("SUMMARY.json")),
            "searchIndex": .string(c.url("search-index.json")), "searchIndexCompact": .string(c.url("search-index-compact.json")),
            "searchRanked": .string(c.url("search/meta.json")),
            "categories": .string(c.url("categories/index.json")), "categoryDetails": .string(c.url("categories/{categoryId}.json")),
            "productDetails": .string(c.url("products/{productId}/details.json")),
            "productImage": .string(c.url("products/{productId}/image_{size}.jpg")),
            "featuredContent": .string(c.url("featured-content.json")), "offlineCatalog": .string(c.url("offline-catalog.json")),
            "updateManifest": .string(c.url("update-manifest.json")), "deeplinkMap": .string(c.url("deeplink-map.json")),
        ])
        var members: [(String, JSON)] = [
            ("appVersion", .string(s.appVersion)), ("minimumAppVersion", .string(s.minimumAppVersion)),
            ("dataVersion", .string(c.model.dataVersion)),
            ("baseURL", .string(s.baseURL)), ("endpoints", endpoints),
            ("features", .object(JSONObject(s.features.map { ($0.0, JSON.bool($0.1)) }))),
            ("caching", .obj(["strategy": .string(s.cachingStrategy), "ttl": .object(JSONObject(s.ttl.map { ($0.0, JSON.int($0.1)) }))])),
            ("images", .obj(["sizes": .object(JSONObject(s.imageSizes.map { ($0.0, JSON.string($0.1)) })),
                             "defaultSize": .string(s.defaultImageSize)])),
        ]
        // Versions, features and settings are content of their own (a new minimumAppVersion must make a release);
        // only lastUpdated is the build time, so the release logic compares the rest.
        let key = Build.sha256Hex(try JSONWriter().bytes(.object(JSONObject(members))))
        members.insert(("lastUpdated", .string(c.generatedAt)), at: 3)
        var file = OutputFile(path: "app-config.json", json: .object(JSONObject(members)), kind: Self.kind, stampsBuildTime: true)
        file.contentKey = key
        return [file]
    }
}
