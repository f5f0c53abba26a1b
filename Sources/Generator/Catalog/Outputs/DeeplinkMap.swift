import Foundation
import Schemas

/// `deeplink-map.json`: the app's URL scheme, its route patterns and the matching web links.
struct DeeplinkMapOutput: CatalogOutput {
    static let route = Schema.object([
        "name": Schema.string, "pattern": Schema.string, "webURL": Schema.url, "example": Schema.string, "exampleWebURL": Schema.url,
    ])
    static let kind = OutputKind(
        name: "deeplink-map", pathTemplate: "deeplink-map.json",
        summary: "Deep-link URL scheme and route patterns, with percent-encoded web links.",
        schema: Schema.object(["scheme": Schema.string(pattern: "^[a-z][a-z0-9+.-]*$"), "routes": Schema.array(route),
                          "brands": Schema.array(Schema.object(["name": Schema.string, "slug": Schema.string(pattern: "^[a-z0-9-]+$"), "link": Schema.string]))]))
    var kinds: [OutputKind] { [Self.kind] }

    /// RFC 3986 unreserved characters stay; everything else is percent-encoded.
    static func encode(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }

    static func slug(_ s: String) -> String {
        let folded = s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: Locale(identifier: "en_US_POSIX"))
        let parts = folded.unicodeScalars.split { !(CharacterSet.alphanumerics.contains($0) && $0.isASCII) }
        return parts.map { String(String.UnicodeScalarView($0)) }.joined(separator: "-")
    }

    func render(_ c: CatalogContext) throws -> [OutputFile] {
        let scheme = c.site.urlScheme
        let sample = c.model.products.first
        let sampleCategory = c.model.categoryOrder.first.flatMap { c.model.categories[$0] }
        let web = c.site.webBaseURL
        // Search and brand links open the search: the seed index when the tree has it, else the search page.
        let searchWeb = c.settings.seedIndexes ? web + "search-index.json" : web + "search/index.html?q={query}"
        let brandWeb = c.settings.seedIndexes ? web + "search-index.json" : web + "search/index.html?q={brandSlug}"
        func searchExample(_ q: String) -> String { c.settings.seedIndexes ? web + "search-index.json" : web + "search/index.html?q=" + Self.encode(q) }
        let brandExample = Self.slug(sample.map(c.brandName) ?? "brand")
        let routes: [JSON] = [
            .obj(["name": "product", "pattern": .string("\(scheme)://product/{productId}"),
                  "webURL": .string(web + "products/{productId}/details.json"),
                  "example": .string("\(scheme)://product/\(Self.encode(sample?.segment ?? "id"))"),
                  "exampleWebURL": .string(web + "products/\(Self.encode(sample?.segment ?? "id"))/details.json")]),
            .obj(["name": "category", "pattern": .string("\(scheme)://category/{categoryId}"),
                  "webURL": .string(web + "categories/{categoryId}.json"),
                  "example": .string("\(scheme)://category/\(sampleCategory?.path ?? "id")"),
                  "exampleWebURL": .string(web + "categories/\(sampleCategory?.path ?? "id").json")]),
            .obj(["name": "search", "pattern": .string("\(scheme)://search?q={query}"),
                  "webURL": .string(searchWeb),
                  "example": .string("\(scheme)://search?q=\(Self.encode("cordless drill"))"),
                  "exampleWebURL": .string(searchExample("cordless drill"))]),
            .obj(["name": "brand", "pattern": .string("\(scheme)://brand/{brandSlug}"),
                  "webURL": .string(brandWeb),
                  "example": .string("\(scheme)://brand/\(brandExample)"),
                  "exampleWebURL": .string(searchExample(brandExample))]),
        ]
        var seen = Set<String>()
        var brands: [JSON] = []
        for name in Set(c.model.products.map(c.brandName)).sorted() {
            let slug = Self.slug(name)
            guard !slug.isEmpty, seen.insert(slug).inserted else { continue }
            brands.append(.obj(["name": .string(name), "slug": .string(slug), "link": .string("\(scheme)://brand/\(slug)")]))
        }
        return [OutputFile(path: "deeplink-map.json", json: .obj(["scheme": .string(scheme), "routes": .array(routes), "brands": .array(brands)]), kind: Self.kind)]
    }
}
