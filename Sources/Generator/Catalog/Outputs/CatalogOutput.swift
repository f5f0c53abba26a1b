import Foundation
import Schemas

/// What catalog output units render from.
struct CatalogContext {
    let model: CatalogModel
    let site: SiteConfig
    let generatedAt: String

    func brandName(_ p: Product) -> String { p.brand ?? model.unbrandedName }
    func categoryName(_ p: Product) -> String { model.categories[p.categoryId]?.name ?? p.categoryId }
    func categoryPath(_ p: Product) -> String { model.categories[p.categoryId]?.path ?? p.categoryId }
    /// Absolute URL of a file of the tree.
    func url(_ path: String) -> String { site.baseURL + path }
}

/// One catalog output kind: its declared kinds (schemas) and how it renders.
protocol CatalogOutput {
    var kinds: [OutputKind] { get }
    func render(_ c: CatalogContext) throws -> [OutputFile]
}

enum CatalogOutputs {
    /// Every catalog output, in emission order. Adding a kind = one file + one line here.
    static let all: [CatalogOutput] = [
        AppConfigOutput(), DeeplinkMapOutput(), FeaturedContentOutput(), SummaryOutput(),
        CategoryIndexOutput(), CategoryPageOutput(), ProductDetailsOutput(), OfflineCatalogOutput(),
    ]
}
