import Foundation
import Schemas

/// Every sellable product of the catalog, held compactly: the text fields of all products (id, path segment, name,
/// description, image URL) in one byte array, one fixed-size record per product, and tables of the few distinct
/// brands, brand keys, currencies and category ids. A million products cost about 350 MB this way, against 900 MB
/// as an object and five strings each, and nothing here is reference-counted per product (two cores sharing one
/// count slow each other down: `Product` reaches its store `Uncounted`, and the text is lent as spans). Built by
/// `Builder` while the catalog loads (one thread), read-only after that. A collection of `Product` views, in id order.
public final class ProductStore: RandomAccessCollection, Sendable {
    /// Where a product's fields are. Its text is `id`, then `segment` unless it is the id, `name`, `description` unless
    /// it is the name, and the image URL when there is one, back to back from `textStart`.
    struct Record {
        var textStart: Int
        var idLength: UInt32, segmentLength: UInt32, nameLength: UInt32, descriptionLength: UInt32, imageLength: UInt32
        /// Indices into the tables (-1: none).
        var brand: Int32, brandKey: Int32, currency: Int32, category: Int32, extra: Int32
        var line: Int32
        var inStock: Bool
        var ratingCount: Int
        /// NaN: no rating (input ratings are checked to lie between 0 and 5).
        var ratingAverage: Double
        /// Index of its price in `prices` (-1: none). (Kept apart: a record of plain numbers copies as bytes.)
        var price: Int32
        /// True when all its text is ASCII: ids and names then sort by their bytes.
        var ascii: Bool

        static let same = UInt32.max, none = UInt32.max
        var segmentOffset: Int { Int(idLength) }
        var nameOffset: Int { Int(idLength) + (segmentLength == Self.same ? 0 : Int(segmentLength)) }
        var descriptionOffset: Int { nameOffset + Int(nameLength) }
        var imageOffset: Int { descriptionOffset + (descriptionLength == Self.same ? 0 : Int(descriptionLength)) }
        /// All its text, from `textStart`.
        var textLength: Int { imageOffset + (imageLength == Self.none ? 0 : Int(imageLength)) }

        /// Where each field's text is in the store's text.
        var idRange: Range<Int> { textStart..<(textStart + Int(idLength)) }
        var segmentRange: Range<Int> {
            segmentLength == Self.same ? idRange : (textStart + segmentOffset)..<(textStart + segmentOffset + Int(segmentLength))
        }
        var nameRange: Range<Int> { (textStart + nameOffset)..<(textStart + nameOffset + Int(nameLength)) }
        var descriptionRange: Range<Int> {
            descriptionLength == Self.same ? nameRange
                : (textStart + descriptionOffset)..<(textStart + descriptionOffset + Int(descriptionLength))
        }
        var imageRange: Range<Int>? {
            imageLength == Self.none ? nil : (textStart + imageOffset)..<(textStart + imageOffset + Int(imageLength))
        }
        var textRange: Range<Int> { textStart..<(textStart + textLength) }
    }

    /// The text of every product.
    let text: ContiguousArray<UInt8>
    let records: [Record]
    let prices: [JSONNumber]
    let brands: [String], brandKeys: [String], currencies: [String], categoryIds: [String]
    let extras: [[(String, String)]]
    /// The products file, as messages name it.
    let file: String

    fileprivate init(text: ContiguousArray<UInt8>, records: [Record], prices: [JSONNumber], brands: [String], brandKeys: [String], currencies: [String],
                     categoryIds: [String], extras: [[(String, String)]], file: String) {
        self.text = text; self.records = records; self.prices = prices; self.brands = brands; self.brandKeys = brandKeys
        self.currencies = currencies; self.categoryIds = categoryIds; self.extras = extras; self.file = file
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { records.count }
    public subscript(i: Int) -> Product { Product(store: self, index: i) }

    /// `body` with the text of every product (a record's ranges say where its fields are). A loop over many products
    /// borrows it once, around the loop.
    @inline(__always) func withText<R>(_ body: (Span<UInt8>) throws -> R) rethrows -> R {
        let text = self.text
        return try body(text.span)
    }

    /// A store of no products (a model made in code).
    public static let empty = Builder(file: "").finish(order: [])

    /// Collects products while the catalog loads: text appended to one growing array (handed to the store, never
    /// copied), strings of the tables interned, records changed in place by the policies; `finish` makes the
    /// read-only store.
    final class Builder {
        private var text = ContiguousArray<UInt8>()
        var records: [Record] = []
        private(set) var prices: [JSONNumber] = []
        private(set) var brands: [String] = [], brandKeys: [String] = [], currencies: [String] = [], categoryIds: [String] = []
        private(set) var extras: [[(String, String)]] = []
        private var tables: [[String: Int32]] = [[:], [:], [:], [:]]
        let file: String

        init(file: String) { self.file = file }

        enum Table: Int { case brand, brandKey, currency, category }

        /// The index of `value` in a table, added when new.
        func intern(_ value: String, in table: Table) -> Int32 {
            if let n = tables[table.rawValue][value] { return n }
            let n: Int32
            switch table {
            case .brand: n = Int32(brands.count); brands.append(value)
            case .brandKey: n = Int32(brandKeys.count); brandKeys.append(value)
            case .currency: n = Int32(currencies.count); currencies.append(value)
            case .category: n = Int32(categoryIds.count); categoryIds.append(value)
            }
            tables[table.rawValue][value] = n
            return n
        }

        private var ascii = true

        private func put(_ s: String) -> UInt32 {
            if ascii && !s.withUTF8Span({ $0.isASCII }) { ascii = false }
            let start = text.count
            text.append(contentsOf: s.utf8)   // (one copy of the string's bytes)
            return UInt32(text.count - start)
        }

        /// A record an earlier build made from the same line (see `ProductSnapshot`): `text` is all its text, its table
        /// entries are indices of this builder's tables, interned in the order `append` interns them.
        func append(stored r: Record, text stored: ArraySlice<UInt8>, line: Int, brand: Int32, brandKey: Int32, currency: Int32,
                    category: Int32, price: JSONNumber?, extra: [(String, String)]?) {
            var n = r
            n.textStart = text.count
            text.append(contentsOf: stored)
            n.extra = -1
            if let extra { n.extra = Int32(extras.count); extras.append(extra) }
            n.price = -1
            if let price { n.price = Int32(prices.count); prices.append(price) }
            n.brand = brand; n.brandKey = brandKey; n.currency = currency; n.category = category
            n.line = Int32(clamping: line)
            records.append(n)
        }

        func append(id: String, segment: String, name: String, description: String, brand: String?, brandKey: String?,
                    price: JSONNumber?, currency: String, inStock: Bool, imageUrl: String?, ratingAverage: Double?,
                    ratingCount: Int, categoryId: String, extra: [(String, String)], line: Int) {
            let start = text.count
            ascii = true
            let idLength = put(id)
            let segmentLength = segment == id ? Record.same : put(segment)
            let nameLength = put(name)
            let descriptionLength = description == name ? Record.same : put(description)
            let imageLength = imageUrl.map(put) ?? Record.none
            var extraIndex: Int32 = -1
            if !extra.isEmpty { extraIndex = Int32(extras.count); extras.append(extra) }
            var priceIndex: Int32 = -1
            if let price { priceIndex = Int32(prices.count); prices.append(price) }
            records.append(Record(textStart: start, idLength: idLength, segmentLength: segmentLength, nameLength: nameLength,
                                  descriptionLength: descriptionLength, imageLength: imageLength,
                                  brand: brand.map { intern($0, in: .brand) } ?? -1, brandKey: brandKey.map { intern($0, in: .brandKey) } ?? -1,
                                  currency: intern(currency, in: .currency), category: intern(categoryId, in: .category),
                                  extra: extraIndex, line: Int32(clamping: line), inStock: inStock, ratingCount: ratingCount,
                                  ratingAverage: ratingAverage ?? .nan, price: priceIndex, ascii: ascii))
        }

        /// Room for `bytes` of text, so it grows without a copy (each copy of a doubling array briefly holds both, about
        /// 80 MB more peak memory at 100k products). The products file's size bounds the text of its products closely
        /// enough: the hint may be short (it then grows), and what is never written is never resident.
        func reserveText(_ bytes: Int) { text.reserveCapacity(bytes) }

        /// `body` with the text appended so far (while loading; appending meanwhile would copy the text).
        func withText<R>(_ body: (Span<UInt8>) throws -> R) rethrows -> R {
            let text = self.text
            return try body(text.span)
        }

        /// A record's id as text (while loading).
        func id(_ r: Record) -> String { withText { String(decodingUTF8: $0.extracting(r.idRange)) } }

        /// The read-only store of the records at `order`, in that order; the text is handed over, and the builder is
        /// empty after.
        func finish(order: [Int]) -> ProductStore {
            let out = order.map { records[$0] }
            records = []
            let all = text
            text = []
            return ProductStore(text: all, records: out, prices: prices, brands: brands, brandKeys: brandKeys, currencies: currencies,
                                categoryIds: categoryIds, extras: extras, file: file)
        }
    }
}

/// A sellable product: a view of its record in the catalog's `ProductStore` (valid while the store is, which the
/// model keeps). Text fields come as strings (made on each call) or, for the hot paths, as the UTF-8 bytes in the
/// store, lent to a closure (`with…Bytes`, no copy).
public struct Product {
    let store: Uncounted<ProductStore>
    public let index: Int

    init(store: ProductStore, index: Int) { self.store = Uncounted(store); self.index = index }

    @inline(__always) var record: ProductStore.Record { store.with { $0.records[index] } }

    /// `body` with the store's text and this product's record (whose ranges say where its fields are): for code that
    /// reads several fields.
    @inline(__always) func withText<R>(_ body: (_ text: Span<UInt8>, _ record: ProductStore.Record) throws -> R) rethrows -> R {
        try store.with { s in try s.withText { try body($0, s.records[index]) } }
    }

    public func withIdBytes<R>(_ body: (Span<UInt8>) throws -> R) rethrows -> R { try withText { try body($0.extracting($1.idRange)) } }
    /// `id` as a safe path segment (what links use).
    public func withSegmentBytes<R>(_ body: (Span<UInt8>) throws -> R) rethrows -> R { try withText { try body($0.extracting($1.segmentRange)) } }
    public func withNameBytes<R>(_ body: (Span<UInt8>) throws -> R) rethrows -> R { try withText { try body($0.extracting($1.nameRange)) } }
    public func withDescriptionBytes<R>(_ body: (Span<UInt8>) throws -> R) rethrows -> R {
        try withText { try body($0.extracting($1.descriptionRange)) }
    }
    /// True when the description is the name (its storage is shared).
    public var descriptionIsName: Bool { record.descriptionLength == ProductStore.Record.same }
    /// The image URL's bytes; nil when there is none.
    public func withImageUrlBytes<R>(_ body: (Span<UInt8>?) throws -> R) rethrows -> R {
        try withText { text, r in
            guard let range = r.imageRange else { return try body(nil) }
            return try body(text.extracting(range))
        }
    }

    public var id: String { withIdBytes { String(decodingUTF8: $0) } }
    public var segment: String { withSegmentBytes { String(decodingUTF8: $0) } }
    public var name: String { withNameBytes { String(decodingUTF8: $0) } }
    public var description: String { withDescriptionBytes { String(decodingUTF8: $0) } }
    public var imageUrl: String? { withImageUrlBytes { u in if let u { String(decodingUTF8: u) } else { nil } } }
    /// Display brand after case-folded merging; nil when the input has none.
    public var brand: String? { let b = record.brand; return b < 0 ? nil : store.with { $0.brands[Int(b)] } }
    /// Index of the display brand in the store's table (-1: none).
    public var brandIndex: Int { Int(record.brand) }
    /// The brand's case-folded key (merging DEWALT and Dewalt).
    public var brandKey: String? { let k = record.brandKey; return k < 0 ? nil : store.with { $0.brandKeys[Int(k)] } }
    public var brandKeyIndex: Int { Int(record.brandKey) }
    /// Exact price from the input's decimal text; every sellable product has one.
    public var price: JSONNumber? { let k = record.price; return k < 0 ? nil : store.with { $0.prices[Int(k)] } }
    /// True when all its text is ASCII.
    public var isASCII: Bool { record.ascii }
    public var priceValue: Double? { price?.double }
    public var currency: String { let k = record.currency; return store.with { $0.currencies[Int(k)] } }
    public var inStock: Bool { record.inStock }
    public var ratingAverage: Double? { let a = record.ratingAverage; return a.isNaN ? nil : a }
    public var ratingCount: Int { record.ratingCount }
    /// Category id after policy (missing → the uncategorized bucket, unknown → created node).
    public var categoryId: String { let k = record.category; return store.with { $0.categoryIds[Int(k)] } }
    /// Index of the category id in the store's table.
    public var categoryIndex: Int { Int(record.category) }
    /// Other input fields, as strings, shown as specifications.
    public var extra: [(String, String)] { let e = record.extra; return e < 0 ? [] : store.with { $0.extras[Int(e)] } }
    public var file: String { store.with { $0.file } }
    public var line: Int { Int(record.line) }

    /// Whether `a` sorts before `b` as Swift strings do: by bytes when both are ASCII (`ascii`, or found so: the same
    /// order), else as strings.
    static func precedes(_ a: Span<UInt8>, _ b: Span<UInt8>, ascii: Bool = false) -> Bool {
        if ascii || (a.isASCII && b.isASCII) { return a.lexicographicallyPrecedes(b) }
        return String(decodingUTF8: a) < String(decodingUTF8: b)
    }

    /// Whether `a` and `b` are equal as Swift strings (canonically equivalent): bytes when both are ASCII.
    static func same(_ a: Span<UInt8>, _ b: Span<UInt8>, ascii: Bool = false) -> Bool {
        if a.elementsEqual(b) { return true }
        if ascii || (a.isASCII && b.isASCII) { return false }
        return String(decodingUTF8: a) == String(decodingUTF8: b)
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
    public var products: ProductStore         // sellable products, sorted by id
    public var unpricedIds: [String]          // left out of pages and indexes
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
    /// Each sellable product's searchable text (id, segment, name, description, brand, brand key, category), in
    /// `products` order: the search indexes' keyword maps and term shards depend on nothing else of a product, so a
    /// price change leaves them as they were. Empty when `productFingerprints` is.
    public var textFingerprints: [Fingerprint] = []
    /// The id and popularity orders, for the next build to check and take (see `KeptOrder`).
    var keptOrders: [String: [Int32]] = [:]
}
