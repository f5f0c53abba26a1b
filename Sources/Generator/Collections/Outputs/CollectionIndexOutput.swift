import Foundation
import Schemas

/// `collections/{name}/index.json`: what an app needs before it opens a page — item count, number of pages,
/// the fields with their types, facet counts, and exact statistics of numeric fields.
///
/// Statistics are computed in decimal arithmetic from the values as written (never through binary doubles):
/// `sum` is exact; `mean` is `sum / count` rounded half-to-even to 6 decimal places.
/// Generated keys follow the declaration's `keyStyle` (`page_size` or `pageSize`).
struct CollectionIndexOutput: CollectionOutput {
    static let meanScale = 6

    func kind(_ decl: CollectionDeclaration) -> OutputKind {
        let k = decl.key
        let numberOrNull = Schema.nullable(Schema.number)
        let schema = Schema.object([
            k("name"): Schema.nonEmptyString,
            k("title"): Schema.nonEmptyString,
            k("count"): Schema.nonNegativeInteger,
            k("pages"): Schema.integer(min: 1),
            k("page_size"): Schema.integer(min: 1),
            k("first_page"): Schema.relativePath,
            k("id_field"): Schema.nonEmptyString,
            k("search"): Schema.nullable(Schema.relativePath),
            k("fields"): Schema.array(Schema.object([
                k("key"): Schema.nonEmptyString, k("type"): Schema.enumeration(CollectionDeclaration.FieldType.allCases.map(\.rawValue)),
                k("required"): Schema.boolean, k("nullable"): Schema.boolean, k("values"): Schema.optional(Schema.array(Schema.string)),
            ])),
            k("facets"): Schema.map(Schema.object([
                k("values"): Schema.array(Schema.object([k("value"): .obj(["type": ["string", "boolean"]]), k("count"): Schema.nonNegativeInteger])),
                k("missing"): Schema.nonNegativeInteger,
            ])),
            k("stats"): Schema.map(Schema.object([
                k("count"): Schema.nonNegativeInteger, k("min"): numberOrNull, k("max"): numberOrNull,
                k("sum"): Schema.number, k("mean"): numberOrNull,
            ])),
        ])
        return OutputKind(name: "collection-\(decl.name)-index", pathTemplate: "collections/\(decl.name)/index.json",
                          summary: "Overview of the \(decl.title) collection: counts, pages, fields, facets and statistics.", schema: schema,
                          typeName: decl.typeNames["index"])
    }

    func render(_ model: CollectionModel, _ context: BuildContext, kind: OutputKind) throws -> [OutputFile] {
        let decl = model.declaration, k = decl.key
        let pages = CollectionPageOutput.pageCount(items: model.items.count, pageSize: decl.list.pageSize)
        let fields: [JSON] = decl.fields.map { f in
            var o = JSONObject([(k("key"), .string(f.key)), (k("type"), .string(f.type.rawValue)),
                                (k("required"), .bool(f.required)), (k("nullable"), .bool(f.nullable))])
            if f.type == .enumeration { o.append(k("values"), .strings(f.values)) }
            return .object(o)
        }
        var facets = JSONObject()
        for name in decl.facets { facets.append(name, Self.facet(decl.field(name)!, model.items, k)) }
        var stats = JSONObject()
        for f in decl.fields where [.integer, .decimal, .number].contains(f.type) {
            stats.append(f.key, Self.stats(model.items.compactMap { $0.values[f.key]?.numberValue }, k))
        }
        let json: JSON = .object(JSONObject([
            (k("name"), .string(decl.name)), (k("title"), .string(decl.title)), (k("count"), .int(model.items.count)),
            (k("pages"), .int(pages)), (k("page_size"), .int(decl.list.pageSize)),
            (k("first_page"), .string("\(CollectionOutputs.base(decl))/page-1.json")), (k("id_field"), .string(decl.idField)),
            (k("search"), decl.search.isEmpty ? .null : .string("\(CollectionSearchOutput.folder(decl))/meta.json")),
            (k("fields"), .array(fields)), (k("facets"), .object(facets)), (k("stats"), .object(stats)),
        ]))
        return [OutputFile(path: "\(CollectionOutputs.base(decl))/index.json", json: json, kind: kind)]
    }

    /// Value counts: declared order for enums (zeros included), false/true for booleans, else by count then value.
    static func facet(_ f: CollectionDeclaration.Field, _ items: [CollectionItem], _ k: (String) -> String) -> JSON {
        var counts: [String: Int] = [:], boolCounts: [Bool: Int] = [:]
        var missing = 0
        for item in items {
            switch item.values[f.key] {
            case .string(let s)?: counts[s, default: 0] += 1
            case .bool(let b)?: boolCounts[b, default: 0] += 1
            case .array(let a)?:
                // Each distinct element once per item.
                for s in Set(a.compactMap(\.stringValue)) { counts[s, default: 0] += 1 }
                if a.isEmpty { missing += 1 }
            default: missing += 1
            }
        }
        let values: [JSON]
        switch f.type {
        case .enumeration: values = f.values.map { .object(JSONObject([(k("value"), .string($0)), (k("count"), .int(counts[$0] ?? 0))])) }
        case .boolean: values = [false, true].map { .object(JSONObject([(k("value"), .bool($0)), (k("count"), .int(boolCounts[$0] ?? 0))])) }
        default:
            values = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                .map { .object(JSONObject([(k("value"), .string($0.key)), (k("count"), .int($0.value))])) }
        }
        return .object(JSONObject([(k("values"), .array(values)), (k("missing"), .int(missing))]))
    }

    static func stats(_ numbers: [JSONNumber], _ k: (String) -> String) -> JSON {
        // Exact at any size and precision (Decimal rounds past 38 digits, and 1e300 has no Decimal at all).
        let values = numbers.map(ExactDecimal.init)
        let sum = values.reduce(ExactDecimal.zero, +)
        let mean: JSON = values.isEmpty ? .null : .number(sum.divided(by: values.count, places: meanScale).json)
        return .object(JSONObject([
            (k("count"), .int(values.count)),
            (k("min"), values.min().map { .number($0.json) } ?? .null),
            (k("max"), values.max().map { .number($0.json) } ?? .null),
            (k("sum"), .number(sum.json)), (k("mean"), mean),
        ]))
    }
}
