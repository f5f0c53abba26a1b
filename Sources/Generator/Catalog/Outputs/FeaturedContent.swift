import Schemas

/// `featured-content.json`: curated sections, banners and quick links (the document's FeaturedContent).
struct FeaturedContentOutput: CatalogOutput {
    static let kind = OutputKind(
        name: "featured-content", pathTemplate: "featured-content.json",
        summary: "Curated home-screen content; every category and product it names exists.",
        schema: Schema.object([
            "sections": Schema.array(Schema.object(["id": Schema.nonEmptyString, "title": Schema.string, "subtitle": Schema.string, "type": Schema.string,
                                          "displayStyle": Schema.string, "categoryId": Schema.nullable(Schema.string), "productIds": Schema.array(Schema.string)])),
            "banners": Schema.array(Schema.object(["id": Schema.nonEmptyString, "title": Schema.string, "message": Schema.string, "categoryId": Schema.nullable(Schema.string)])),
            "quickLinks": Schema.array(Schema.object(["title": Schema.string, "categoryId": Schema.string, "color": Schema.string(pattern: "^#[0-9A-Fa-f]{6}$")])),
        ]))
    var kinds: [OutputKind] { [Self.kind] }

    func render(_ c: CatalogContext) throws -> [OutputFile] {
        // Without curated input the app still gets a valid, empty document.
        let json = c.model.featured ?? .obj(["sections": [], "banners": [], "quickLinks": []])
        return [OutputFile(path: "featured-content.json", json: json, kind: Self.kind)]
    }
}
