import Foundation
import Schemas

/// A collection declared in `input/collections/<name>.json`: where its records come from, the type of each field,
/// and the shape of its list pages. Read strictly: an unknown key is an error naming the file and the key.
public struct CollectionDeclaration: Sendable {
    public enum FieldType: String, Sendable, CaseIterable {
        case string, integer, decimal, number, boolean, date, dateTime = "date-time", url, latitude, longitude
        case enumeration = "enum", stringArray = "array"
    }

    public struct Field: Sendable {
        /// The key written in the output.
        public var key: String
        /// Where the value is read: a CSV column or a JSON member (dotted path for nested JSON, e.g. `rating.average`).
        public var from: String
        public var type: FieldType
        /// A required field must be present in every record; an optional one may be missing (its key is then omitted).
        public var required: Bool
        /// Whether `null` (a JSON null or an empty CSV cell) is allowed; it is written as null.
        public var nullable: Bool
        /// Allowed values of an `enum` field.
        public var values: [String]
        /// Time zone of date-times written without an offset (MySQL `YYYY-MM-DD HH:MM:SS`).
        public var timeZone: TimeZone
        /// Separator of an `array` field in a CSV cell.
        public var separator: String
        public var minimum: Decimal?
        public var maximum: Decimal?
    }

    public enum KeyStyle: String, Sendable { case snakeCase = "snake_case", camelCase = "camelCase" }

    /// Names of the keys of a list page, so a declared shape such as PropertyListData is met exactly.
    public struct ListShape: Sendable {
        public var items: String, total: String, page: String, perPage: String, totalPages: String
        public var pageSize: Int
        /// Keys of each item in list pages (default: every field).
        public var fields: [String]
    }

    public struct SortKey: Sendable { public var field: String; public var descending: Bool }

    public var name: String
    public var file: String
    public var title: String
    public var sources: [String]
    public var idField: String
    public var fields: [Field]
    public var keyStyle: KeyStyle
    public var list: ListShape
    public var sort: [SortKey]
    /// Searchable fields with their BM25 weight.
    public var search: [(field: String, weight: Double)]
    public var facets: [String]
    /// Numeric fields whose search results are filtered and counted by range, with the edges between ranges.
    public var ranges: [(field: String, edges: [Double])] = []
    /// Type names in `types/index.d.ts` for the collection's `item`, `page` and `index` kinds (the app's models,
    /// e.g. `Property`, `PropertyListData`); unnamed ones are named from the kind.
    public var typeNames: [String: String] = [:]

    public func field(_ key: String) -> Field? { fields.first { $0.key == key } }

    /// A generated key in the declared style (`per_page` / `perPage`).
    func key(_ snake: String) -> String {
        guard keyStyle == .camelCase else { return snake }
        let parts = snake.split(separator: "_")
        return parts.enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.prefix(1).uppercased() + $0.element.dropFirst() }.joined()
    }
}
