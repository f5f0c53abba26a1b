import Foundation
import Schemas

/// `input/site.json`: the site-wide settings. Every key is documented in the Input and site.json article (Generator.docc);
/// unknown keys are errors. Domain sections (`catalog`, `auctions`, `nba`, …) are kept as JSON
/// and read strictly by their domain.
public struct SiteConfig: Sendable {
    public var siteName: String
    /// Absolute base URL of the published tree, always ending in "/" and never containing a raw space.
    public var baseURL: String
    public var appVersion: String
    public var minimumAppVersion: String
    public var urlScheme: String
    public var webBaseURL: String
    public var features: [(String, Bool)]
    public var cachingStrategy: String
    public var ttl: [(String, Int)]
    public var imageSizes: [(String, String)]
    public var defaultImageSize: String
    /// Byte budget of offline-catalog.json, and products kept per category in it.
    public var offlineBudgetBytes: Int
    public var offlineProductsPerCategory: Int
    /// Products per category page; 0 means one file per category (what the document's app reads).
    public var pageSize: Int
    /// Where the tree is published, and so which size limits the build enforces (see `HostLimits`).
    public var target: HostTarget = .githubPages
    /// Raw domain sections, read strictly by each domain.
    public var sections: [String: JSON]
    /// The bytes of site.json, as a fingerprint (nil for a configuration not read from a file): every output that
    /// depends on a setting includes it in its own fingerprint.
    public var sourceFingerprint: Fingerprint?

    public static let domainSections = ["catalog", "auctions", "nba", "release", "collections"]

    public static func load(_ url: URL, displayName: String) throws -> SiteConfig {
        // site.json itself may be a link: it must resolve inside the input folder like every other input.
        let root = try InputFiles.root(url.deletingLastPathComponent())
        let real = try InputFiles.resolve(url.lastPathComponent, root: root, file: displayName, field: nil)
        let data = try InputFiles.read(real, display: displayName)
        let json: JSON
        do { json = try JSONReader.parse(data) } catch let e as JSONSyntaxError {
            throw BuildError(file: displayName, line: e.line, "invalid JSON at column \(e.column): \(e.message)")
        }
        var site = try parse(json, file: displayName)
        site.sourceFingerprint = Fingerprint.of([UInt8](data))
        return site
    }

    public static func parse(_ json: JSON, file: String) throws -> SiteConfig {
        var o = try StrictObject(json, file: file)
        let siteName = try o.string("siteName")
        var baseURL = try o.string("baseURL")
        guard let comps = URLComponents(string: baseURL.replacingOccurrences(of: " ", with: "%20")),
              let scheme = comps.scheme, ["http", "https"].contains(scheme), comps.host != nil else {
            throw BuildError(file: file, field: "baseURL", "must be an absolute http(s) URL, found \(Excerpt.quote(baseURL))")
        }
        // A raw space breaks URL(string:) in apps; encode it rather than publish it.
        baseURL = baseURL.replacingOccurrences(of: " ", with: "%20")
        if !baseURL.hasSuffix("/") { baseURL += "/" }
        let appVersion = try o.string("appVersion")
        let minimumAppVersion = try o.string("minimumAppVersion", default: appVersion)
        for (k, v) in [("appVersion", appVersion), ("minimumAppVersion", minimumAppVersion)]
        where v.range(of: #"^\d+(\.\d+){0,2}$"#, options: .regularExpression) == nil {
            throw BuildError(file: file, field: k, "must look like 1.2.3, found \(Excerpt.quote(v))")
        }
        let urlScheme = try o.string("urlScheme", default: "app")
        if urlScheme.range(of: "^[a-z][a-z0-9+.-]*$", options: .regularExpression) == nil {
            throw BuildError(file: file, field: "urlScheme", "must be a URL scheme such as \"orangecatalog\", found \(Excerpt.quote(urlScheme))")
        }
        let webBaseURL = try o.string("webBaseURL", default: baseURL)

        let featureNames = ["search", "favorites", "offlineMode", "categories", "productDetails"]
        var features: [(String, Bool)] = []
        if var f = try o.object("features") {
            for n in featureNames { features.append((n, try f.bool(n, default: true))) }
            try f.finish()
        } else { features = featureNames.map { ($0, true) } }

        var cachingStrategy = "cache-first"
        let ttlNames: [(String, Int)] = [("appConfig", 300), ("summary", 3600), ("searchIndex", 3600),
                                        ("categories", 3600), ("products", 86400), ("images", 2_592_000)]
        var ttl = ttlNames
        if var c = try o.object("caching") {
            cachingStrategy = try c.string("strategy", default: cachingStrategy)
            if var t = try c.object("ttl") {
                ttl = try ttlNames.map { ($0.0, try t.int($0.0, default: $0.1, min: 0)) }
                try t.finish()
            }
            try c.finish()
        }

        let sizeNames: [(String, String)] = [("thumbnail", "50x50"), ("small", "100x100"), ("medium", "200x200"), ("large", "400x400")]
        var imageSizes = sizeNames
        var defaultImageSize = "small"
        if var i = try o.object("images") {
            if var s = try i.object("sizes") {
                imageSizes = try sizeNames.map { ($0.0, try s.string($0.0, default: $0.1)) }
                try s.finish()
            }
            defaultImageSize = try i.string("defaultSize", default: defaultImageSize)
            try i.finish()
            guard sizeNames.contains(where: { $0.0 == defaultImageSize }) else {
                throw BuildError(file: file, field: "images.defaultSize", "must be one of thumbnail, small, medium, large")
            }
        }

        var offlineBudget = 100 * 1024, offlinePerCategory = 10
        if var off = try o.object("offline") {
            offlineBudget = try off.int("budgetBytes", default: offlineBudget, min: 1024)
            offlinePerCategory = try off.int("productsPerCategory", default: offlinePerCategory, min: 1)
            try off.finish()
        }
        let pageSize = try o.int("pageSize", default: 0, min: 0)
        let target = try HostTarget.read(&o, file: file)

        var sections: [String: JSON] = [:]
        for name in domainSections { if let v = o.raw(name) { sections[name] = v } }
        _ = o.raw("$schema")  // editors may point at a schema; allowed and ignored
        try o.finish()

        return SiteConfig(siteName: siteName, baseURL: baseURL, appVersion: appVersion, minimumAppVersion: minimumAppVersion,
                          urlScheme: urlScheme, webBaseURL: webBaseURL, features: features, cachingStrategy: cachingStrategy,
                          ttl: ttl, imageSizes: imageSizes, defaultImageSize: defaultImageSize,
                          offlineBudgetBytes: offlineBudget, offlineProductsPerCategory: offlinePerCategory,
                          pageSize: pageSize, target: target, sections: sections)
    }

    /// A domain section as a strict reader (an empty object when absent).
    public func section(_ name: String, file: String) throws -> StrictObject {
        try StrictObject(sections[name] ?? .object(JSONObject()), file: file, path: name)
    }
}

/// Where the tree is published (`target` in site.json): GitHub Pages with its fixed limits, or object storage (S3 and
/// the like, see `generator publish`) with no site limit and a per-file limit of the site's choosing.
public enum HostTarget: Sendable, Equatable {
    case githubPages
    case objectStorage(maxFileBytes: Int)

    /// Object storage's default file limit: the largest file Cloudflare's CDN caches (512 MB); a PUT takes 5 GB, but
    /// `publish` holds each file in memory while it uploads and apps download whole files.
    public static let defaultObjectFileMB = 512
    /// One PUT takes at most 5 GB (what `generator publish` sends per file).
    public static let largestObjectFileMB = 5 * 1024

    public var name: String {
        switch self {
        case .githubPages: return "github-pages"
        case .objectStorage: return "object-storage"
        }
    }

    /// `target` and `maxFileMB` of site.json.
    static func read(_ o: inout StrictObject, file: String) throws -> HostTarget {
        let name = try o.string("target", default: "github-pages")
        let hasMax = o.has("maxFileMB")
        switch name {
        case "github-pages":
            if hasMax {
                throw BuildError(file: file, field: "maxFileMB", "applies to target object-storage only (GitHub Pages' file limit is 100 MB, set by GitHub)")
            }
            return .githubPages
        case "object-storage":
            let mb = try o.int("maxFileMB", default: defaultObjectFileMB, min: 1, max: largestObjectFileMB)
            return .objectStorage(maxFileBytes: mb * 1_048_576)
        default:
            throw BuildError(file: file, field: "target", "must be \"github-pages\" or \"object-storage\", found \(Excerpt.quote(name))")
        }
    }
}
