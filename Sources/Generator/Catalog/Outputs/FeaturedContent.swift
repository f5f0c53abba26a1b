import Schemas

/// `featured-content.json`: curated sections, banners and quick links (the document's FeaturedContent).
struct FeaturedContentOutput: CatalogOutput {
    static let kind = OutputKind(
        name: "featured-content", pathTemplate: "featured-content.json",
        summary: "Curated home-screen content; every category and product it names exists.",
        schema: S.object([
            "sections": S.array(S.object(["id": S.nonEmptyString, "title": S.string, "subtitle": S.string, "type": S.string,
                                          "displayStyle": S.string, "categoryId": S.nullable(S.string), "productIds": S.array(S.string)])),
            "banners": S.array(S.object(["id": S.nonEmptyString, "title": S.string, "message": S.string, "categoryId": S.nullable(S.string)])),
            "quickLinks": S.array(S.object(["title": S.string, "categoryId": S.string, "color": S.string(pattern: "^#[0-9A-Fa-f]{6}$")])),
        ]))
    var kinds: [OutputKind] { [Self.kind] }

    func render(_ c: CatalogContext) throws -> [OutputFile] {
        // Without curated input the app still gets a valid, empty document.
        let json = c.model.featured ?? .obj(["sections": [], "banners": [], "quickLinks": []])
        return [OutputFile(path: "featured-content.json", json: json, kind: Self.kind)]
    }
}
