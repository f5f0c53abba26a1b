import Foundation
import Schemas

/// Curated home-screen content (`catalog/featured.json`): sections, banners and quick links.
/// References are checked: a quick link, banner or section naming a missing category or
/// product is an error, not a dead link in the app.
enum FeaturedInput {
    static func read(_ url: URL, display: String, categories: [String: CategoryNode], productIds: Set<String>) throws -> JSON {
        let json: JSON
        do { json = try JSONReader.parse(try InputFiles.read(url, display: display)) } catch let e as JSONSyntaxError {
            throw BuildError(file: display, line: e.line, "invalid JSON at column \(e.column): \(e.message)")
        }
        var errors: [BuildError] = []
        var root = try StrictObject(json, file: display)
        func list(_ o: inout StrictObject, _ key: String) throws -> [JSON] {
            guard let v = o.raw(key) else { return [] }
            guard let a = v.arrayValue else { throw BuildError(file: display, field: key, "expected an array") }
            return a
        }
        func checkCategory(_ id: String?, _ field: String) {
            if let id, categories[id] == nil { errors.append(BuildError(file: display, field: field, "names category \(Excerpt.quote(id)), which does not exist")) }
        }
        var sections: [JSON] = []
        for (i, s) in try list(&root, "sections").enumerated() {
            var o = try StrictObject(s, file: display, path: "sections[\(i)]")
            let productRefs = try o.stringArray("productIds", default: [])
            for p in productRefs where !productIds.contains(p) {
                errors.append(BuildError(file: display, field: "sections[\(i)].productIds", "names product \(Excerpt.quote(p)), which does not exist or has no price"))
            }
            let cat = try o.optionalString("categoryId")
            checkCategory(cat, "sections[\(i)].categoryId")
            sections.append(.obj([
                "id": .string(try o.string("id")), "title": .string(try o.string("title")),
                "subtitle": .string(try o.string("subtitle", default: "")), "type": .string(try o.string("type")),
                "displayStyle": .string(try o.string("displayStyle", default: "carousel")),
                "categoryId": .optional(cat.flatMap { categories[$0]?.path }),
                "productIds": .strings(productRefs),
            ]))
            try o.finish()
        }
        var banners: [JSON] = []
        for (i, b) in try list(&root, "banners").enumerated() {
            var o = try StrictObject(b, file: display, path: "banners[\(i)]")
            let cat = try o.optionalString("categoryId")
            checkCategory(cat, "banners[\(i)].categoryId")
            banners.append(.obj([
                "id": .string(try o.string("id")), "title": .string(try o.string("title")),
                "message": .string(try o.string("message")), "categoryId": .optional(cat.flatMap { categories[$0]?.path }),
            ]))
            try o.finish()
        }
        var links: [JSON] = []
        for (i, l) in try list(&root, "quickLinks").enumerated() {
            var o = try StrictObject(l, file: display, path: "quickLinks[\(i)]")
            let cat = try o.string("categoryId")
            checkCategory(cat, "quickLinks[\(i)].categoryId")
            let color = try o.string("color", default: "#F96302")
            if color.range(of: "^#[0-9A-Fa-f]{6}$", options: .regularExpression) == nil {
                errors.append(BuildError(file: display, field: "quickLinks[\(i)].color", "expected a color like #F96302, found \(Excerpt.quote(color))"))
            }
            links.append(.obj(["title": .string(try o.string("title")), "categoryId": .string(categories[cat]?.path ?? cat), "color": .string(color)]))
            try o.finish()
        }
        try root.finish()
        if !errors.isEmpty { throw BuildErrors(errors) }
        return .obj(["sections": .array(sections), "banners": .array(banners), "quickLinks": .array(links)])
    }
}
