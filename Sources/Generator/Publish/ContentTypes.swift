/// Content types by file extension, as GitHub Pages sends them (its MIME list is the mime-db one): what `generator serve`
/// answers with and `generator publish` stores with each object; and which of them
/// are worth gzip (text; images and fonts are compressed already).
public enum ContentTypes {
    public struct Entry: Sendable, Equatable {
        public let type: String
        public let compressible: Bool
    }

    static let byExtension: [String: Entry] = {
        var m: [String: Entry] = [:]
        func text(_ type: String, _ exts: String...) { for e in exts { m[e] = Entry(type: type, compressible: true) } }
        func binary(_ type: String, _ exts: String...) { for e in exts { m[e] = Entry(type: type, compressible: false) } }
        text("application/json; charset=utf-8", "json", "map")
        text("application/geo+json; charset=utf-8", "geojson")
        text("application/manifest+json; charset=utf-8", "webmanifest")
        text("application/ld+json; charset=utf-8", "jsonld")
        text("text/html; charset=utf-8", "html", "htm")
        text("text/css; charset=utf-8", "css")
        text("text/javascript; charset=utf-8", "js", "mjs")
        text("text/plain; charset=utf-8", "txt", "text")
        text("text/markdown; charset=utf-8", "md", "markdown")
        text("text/csv; charset=utf-8", "csv")
        text("text/tab-separated-values; charset=utf-8", "tsv")
        text("application/xml; charset=utf-8", "xml", "xsl")
        text("application/rss+xml; charset=utf-8", "rss")
        text("application/atom+xml; charset=utf-8", "atom")
        text("image/svg+xml", "svg")
        text("application/yaml; charset=utf-8", "yaml", "yml")
        text("application/wasm", "wasm")
        binary("image/png", "png")
        binary("image/jpeg", "jpg", "jpeg")
        binary("image/gif", "gif")
        binary("image/webp", "webp")
        binary("image/avif", "avif")
        binary("image/x-icon", "ico")
        binary("font/woff", "woff")
        binary("font/woff2", "woff2")
        binary("font/ttf", "ttf")
        binary("font/otf", "otf")
        binary("application/pdf", "pdf")
        binary("application/zip", "zip")
        binary("application/gzip", "gz")
        binary("audio/mpeg", "mp3")
        binary("video/mp4", "mp4")
        // mime-db's (so GitHub Pages'): a .ts file is an MPEG transport stream to a static host, TypeScript or not.
        binary("video/mp2t", "ts")
        return m
    }()

    /// What a file without a known extension is sent as (`.nojekyll`, `CNAME`, …): the bytes, uninterpreted.
    public static let fallback = Entry(type: "application/octet-stream", compressible: false)

    /// The entry for a tree path (its last segment's extension, case-insensitive).
    public static func entry(for path: String) -> Entry {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return fallback }
        return byExtension[name[name.index(after: dot)...].lowercased()] ?? fallback
    }
}
