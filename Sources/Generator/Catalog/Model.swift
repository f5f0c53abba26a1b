import Foundation
import Schemas

/// A product after Check: typed, with its source location kept for diagnostics.
/// A class, not a struct: every page, index and list reads the same products many times over, and a reference costs
/// one retain where a copy of a dozen strings costs a dozen. Policies set `categoryId` and `brand` while the catalog
/// loads (one thread); after that the model is read-only, which is what makes sharing it across threads safe.
// Every field is a `let`: a class's `var`s are checked for exclusive access at run time on each read, and every output
// reads a dozen fields of each of 100,000 products. The two fields policies change are changed by copying (`with`).
public final class Product: @unchecked Sendable {
    public let id: String
    /// `id` as a safe path segment (what links use).
    public let segment: String
    public let name: String
    public let description: String
    /// Display brand after case-folded merging; nil when the input has none.
    public let brand: String?
    /// The brand's case-folded key (merging DEWALT and Dewalt).
    public let brandKey: String?
    /// Exact price from the input's decimal text; nil means "not a sellable listing".
    public let price: JSONNumber?
    public let currency: String
    public let inStock: Bool
    public let imageUrl: String?
    public let ratingAverage: Double?
    public let ratingCount: Int
    /// Category id after policy (missing → the uncategorized bucket, unknown → created node).
    public let categoryId: String
    /// Other input fields, as strings, shown as specifications.
    public let extra: [(String, String)]
    public let file: String
    public let line: Int

    public var priceValue: Double? { price?.double }

    public init(id: String, segment: String, name: String, description: String, brand: String?, brandKey: String?,
                price: JSONNumber?, currency: String, inStock: Bool, imageUrl: String?, ratingAverage: Double?, ratingCount: Int,
                categoryId: String, extra: [(String, String)], file: String, line: Int) {
        self.id = id; self.segment = segment; self.name = name; self.description = description; self.brand = brand
        self.brandKey = brandKey; self.price = price; self.currency = currency; self.inStock = inStock; self.imageUrl = imageUrl
        self.ratingAverage = ratingAverage; self.ratingCount = ratingCount; self.categoryId = categoryId; self.extra = extra
        self.file = file; self.line = line
    }

    /// A copy with another display brand or category (the policies of `CatalogDomain.load`).
    func with(brand: String?? = .none, categoryId: String? = nil) -> Product {
        Product(id: id, segment: segment, name: name, description: description, brand: brand ?? self.brand, brandKey: brandKey,
                price: price, currency: currency, inStock: inStock, imageUrl: imageUrl, ratingAverage: ratingAverage,
                ratingCount: ratingCount, categoryId: categoryId ?? self.categoryId, extra: extra, file: file, line: line)
    }
}

/// A node of the category tree.
public struct CategoryNode: Sendable {
    public var id: String
    /// Nested path under `categories/` (mapped segments joined by "/").
    public var path: String
    public var name: String
    public var parent: String?
    public var children: [String]
    /// Where the node came from: the tree file, or created for products whose category was missing.
    public var synthetic: Bool
}

/// The checked catalog: what every catalog output renders from.
public struct CatalogModel: Sendable {
    public var products: [Product]            // sellable products, sorted by id
    public var unpriced: [Product]            // left out of pages and indexes
    public var categories: [String: CategoryNode]
    public var categoryOrder: [String]        // depth-first, tree order
    /// Distinct sellable products of each category's subtree, ordered for display.
    public var subtreeProducts: [String: [Int]]
    public var directProducts: [String: [Int]]
    public var brandVariants: [String: [String: Int]]  // brandKey → spelling → count
    public var featured: JSON?
    public var popularity: [Double]           // Bayesian average per product index
    public var unbrandedName: String
    /// The bucket of products whose input has no category (a stand-in, not a word of the data).
    public var uncategorizedId: String = ""
    public var report: [ReportItem] = []
    /// Short digest of the sellable catalog's content (changes when any listed product changes).
    public var dataVersion: String = ""
    /// Each sellable product's fingerprint (every field, after the policies), in `products` order; empty when the
    /// site's configuration was not read from a file (then no output is fingerprinted).
    public var productFingerprints: [Fingerprint] = []
}
