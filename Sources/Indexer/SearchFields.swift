import Foundation
import Schemas

/// A field of the documents that results can be filtered by, counted by (facets) or sorted by, beside the text that is
/// searched. Each document has at most one value per field.
public struct SearchField: Sendable, Equatable {
    /// How a field filters and counts.
    public enum Facet: Sendable, Equatable {
        /// Each distinct text is a value (a brand, a category id, `true`/`false`).
        case value
        /// Numbers fall into the ranges between these ascending edges: with edges 25, 50 the values are `..25`,
        /// `25..50` and `50..`; a filter picks a span of whole ranges (`25..`, `..50`).
        case ranges([Double])
        /// A number counts for each threshold it reaches: with 3, 4 the values are `3` (at least 3) and `4`.
        case atLeast([Double])
    }

    public var name: String
    /// What a person reads (a facet's heading, a sort menu's entry).
    public var label: String
    /// nil: not a facet (only sorted by).
    public var facet: Facet?
    /// Results can be sorted by it (numbers only).
    public var sortable: Bool

    public init(name: String, label: String, facet: Facet?, sortable: Bool = false) {
        self.name = name; self.label = label; self.facet = facet; self.sortable = sortable
    }
}

/// One document's value of a field.
public enum SearchValue: Sendable, Equatable {
    case text(String)
    case number(Double)
    /// Several values of a `value` facet (a list field: each counts, each admits).
    case texts([String])
}

/// An order results can be given, over a sortable field (ties: relevance, then document order).
public struct SearchSort: Sendable, Equatable {
    public var name: String
    public var label: String
    public var field: String
    public var descending: Bool
    public init(name: String, label: String, field: String, descending: Bool) {
        self.name = name; self.label = label; self.field = field; self.descending = descending
    }
}

/// What an index offers beside text: its fields, its sort orders, and the order of a browse (a filter with no words).
public struct SearchFields: Sendable {
    public var fields: [SearchField]
    public var sorts: [SearchSort]
    /// The sort a filter-only browse takes (nil: document order).
    public var browse: String?
    /// Display names of `value` facets' values, per field (e.g. a category id's name), when they differ from the values.
    public var labels: [String: [String: String]]

    public init(fields: [SearchField] = [], sorts: [SearchSort] = [], browse: String? = nil, labels: [String: [String: String]] = [:]) {
        self.fields = fields; self.sorts = sorts; self.browse = browse; self.labels = labels
    }

    public static let none = SearchFields()

    /// The names a range value or filter is written with: `25..50`, `..25`, `50..` (numbers as JSON writes them).
    public static func rangeName(_ lo: Double?, _ hi: Double?) -> String {
        (lo.map(numberText) ?? "") + ".." + (hi.map(numberText) ?? "")
    }

    /// A number as JSON writes it (and JavaScript's `String(x)` for the edges of a range: `25`, `0.5`).
    public static func numberText(_ x: Double) -> String {
        (try? JSONWriter().string(.double(x))) ?? "\(x)"
    }

    /// A filter's number: a plain decimal (`50`, `+25`, `4.0`, `.5`, `5e1`), or nil. Narrower than `Double(String)`,
    /// which also reads hexadecimal, `inf` and `nan`: every client (search.js too) takes the same filters.
    public static func filterNumber(_ text: some StringProtocol) -> Double? {
        var bytes = text.utf8[...]
        func digits() -> Int {
            let n = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
            bytes = bytes.dropFirst(n); return n
        }
        if let c = bytes.first, c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        var mantissa = digits()
        if bytes.first == UInt8(ascii: ".") { bytes = bytes.dropFirst(); mantissa += digits() }
        guard mantissa > 0 else { return nil }
        if let c = bytes.first, c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let c = bytes.first, c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return nil }
        }
        return bytes.isEmpty ? Double(String(text)) : nil
    }

    /// The values of a range facet with these edges, in order.
    public static func rangeValues(_ edges: [Double]) -> [String] {
        let bounds: [Double?] = [nil] + edges.map { $0 } + [nil]
        return (0..<(bounds.count - 1)).map { rangeName(bounds[$0], bounds[$0 + 1]) }
    }

    /// The range value a number falls in (`lo ≤ x < hi`).
    public static func rangeValue(_ x: Double, _ edges: [Double]) -> String {
        let k = edges.firstIndex { x < $0 } ?? edges.count
        return rangeValues(edges)[k]
    }
}
