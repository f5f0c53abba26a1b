import Foundation
import Schemas
import Indexer

/// `collections/{name}/search/`: the collection's ranked index (the same format and reference client as the
/// catalog's `search/`), over the declared `search` fields with their weights. Stored results hold the list-page
/// fields and the item's path. Absent when the declaration names no search fields.
struct CollectionSearchOutput: CollectionOutput {
    func kinds(_ decl: CollectionDeclaration) -> [OutputKind] {
        let base = "collection-\(decl.name)-search"
        let listFields = decl.list.fields.compactMap { decl.field($0) }
        var stored = CollectionOutputs.itemSchema(listFields).objectValue!
        var props = stored["properties"]!.objectValue!
        props.append("path", Schema.relativePath)
        stored["properties"] = .object(props)
        stored["required"] = .array((stored["required"]?.arrayValue ?? []) + ["path"])
        return [
            OutputKind(name: "\(base)-meta", pathTemplate: "collections/\(decl.name)/search/meta.json",
                       summary: "Ranked search over \(decl.title): settings and shard lists.", schema: RankedSearchOutput.meta.schema),
            OutputKind(name: "\(base)-terms", pathTemplate: "collections/\(decl.name)/search/terms/{hash}.json",
                       summary: "A term shard of the \(decl.title) search index.", schema: RankedSearchOutput.terms.schema),
            OutputKind(name: "\(base)-vocabulary", pathTemplate: "collections/\(decl.name)/search/vocab/{length}-{hash}.json",
                       summary: "Terms of one length in the \(decl.title) search index (typo matching).", schema: RankedSearchOutput.vocabulary.schema),
            OutputKind(name: "\(base)-store", pathTemplate: "collections/\(decl.name)/search/store/{hash}-{slice}.json",
                       summary: "A result-store shard of the \(decl.title) search index.",
                       schema: Schema.object(["documents": Schema.array(.object(stored))])),
            OutputKind(name: "\(base)-store-directory", pathTemplate: "collections/\(decl.name)/search/stores/{hash}.json",
                       summary: "A store directory of the \(decl.title) search index.", schema: RankedSearchOutput.storeDirectorySchema),
            OutputKind(name: "\(base)-term-directory", pathTemplate: "collections/\(decl.name)/search/termdirs/{hash}.json",
                       summary: "A term directory of the \(decl.title) search index.", schema: RankedSearchOutput.termDirectorySchema),
            OutputKind(name: "\(base)-facet", pathTemplate: "collections/\(decl.name)/search/facets/{hash}.json",
                       summary: "A facet shard of the \(decl.title) search index.", schema: RankedSearchOutput.facetSchema),
            OutputKind(name: "\(base)-sort", pathTemplate: "collections/\(decl.name)/search/sort/{hash}.json",
                       summary: "A sort chunk of the \(decl.title) search index.", schema: RankedSearchOutput.sortChunkSchema),
            OutputKind(name: "\(base)-order", pathTemplate: "collections/\(decl.name)/search/orders/{hash}.json",
                       summary: "A sortable field's chunks in the \(decl.title) search index.", schema: RankedSearchOutput.orderSchema),
            OutputKind(name: "\(base)-columns", pathTemplate: "collections/\(decl.name)/search/columns/{hash}.json",
                       summary: "Facet columns of one term shard of the \(decl.title) search index.", schema: RankedSearchOutput.columnsSchema),
            OutputKind(name: "\(base)-column-directory", pathTemplate: "collections/\(decl.name)/search/coldirs/{hash}.json",
                       summary: "A column directory of the \(decl.title) search index.", schema: RankedSearchOutput.columnDirectorySchema),
            OutputKind(name: "\(base)-vocabulary-list", pathTemplate: "collections/\(decl.name)/search/lengths/{hash}.json",
                       summary: "The vocabulary files of the \(decl.title) search index.", schema: RankedSearchOutput.vocabularyListSchema),
        ]
    }

    func kind(_ decl: CollectionDeclaration) -> OutputKind { kinds(decl)[0] }

    static func folder(_ decl: CollectionDeclaration) -> String { "\(CollectionOutputs.base(decl))/search" }

    func render(_ model: CollectionModel, _ context: BuildContext, kind: OutputKind) throws -> [OutputFile] {
        let decl = model.declaration
        guard !decl.search.isEmpty else { return [] }
        let fields = Self.fields(decl)
        let listFields = Set(decl.list.fields)
        let docs = model.items.map { item in
            var stored = JSONObject(item.values.members.filter { listFields.contains($0.key) })
            stored.append("path", .string("\(CollectionOutputs.base(decl))/items/\(item.segment).json"))
            return RankedDocument(id: item.id, fields: decl.search.map { f in (f.field, f.weight, Self.text(item.values[f.field])) },
                                  stored: .object(stored), values: Self.values(item, fields))
        }
        let out = try RankedIndexBuilder().build(docs, folder: Self.folder(decl), fields: fields, threads: context.threads)
        let k = kinds(decl)
        let folders = ["terms/": k[1], "vocab/": k[2], "store/": k[3], "stores/": k[4], "termdirs/": k[5], "facets/": k[6], "sort/": k[7], "orders/": k[8],
                       "columns/": k[9], "coldirs/": k[10], "lengths/": k[11]]
        return out.files.map { path, text in
            let rest = path.dropFirst(Self.folder(decl).count + 1)
            let kind = path == out.metaPath ? k[0] : folders.first { rest.hasPrefix($0.key) }?.value ?? k[0]
            return OutputFile(path: path, kind: kind, weight: text.count / 64) { $0.raw(text) }
        } + (try WebSearch.files(folder: Self.folder(decl), name: "collection-\(decl.name)-search", title: "Search \(decl.title)"))
    }

    /// What the collection's search offers beside text: its declared facets (values), its declared ranges, and its
    /// declared sort fields that hold numbers or dates and its range fields, both ways; the first declared sort is the
    /// browse order.
    static func fields(_ decl: CollectionDeclaration) -> SearchFields {
        var fields = decl.facets.map { SearchField(name: $0, label: $0, facet: .value) }
        for r in decl.ranges { fields.append(SearchField(name: r.field, label: r.field, facet: .ranges(r.edges), sortable: true)) }
        var sorts: [SearchSort] = []
        for key in decl.sort {
            guard let f = decl.field(key.field), [.integer, .decimal, .number, .date, .dateTime].contains(f.type) else { continue }
            if let k = fields.firstIndex(where: { $0.name == key.field }) { fields[k].sortable = true }
            else { fields.append(SearchField(name: key.field, label: key.field, facet: nil, sortable: true)) }
            for descending in [key.descending, !key.descending] {
                sorts.append(SearchSort(name: descending ? "\(key.field)-desc" : key.field, label: "\(key.field) \(descending ? "descending" : "ascending")",
                                        field: key.field, descending: descending))
            }
        }
        let browse = sorts.first?.name
        // A range field sorts both ways too (a price: cheapest or dearest first).
        for r in decl.ranges where !sorts.contains(where: { $0.field == r.field }) {
            for descending in [false, true] {
                sorts.append(SearchSort(name: descending ? "\(r.field)-desc" : r.field, label: "\(r.field) \(descending ? "descending" : "ascending")",
                                        field: r.field, descending: descending))
            }
        }
        return SearchFields(fields: fields, sorts: sorts, browse: browse)
    }

    /// An item's values of the search fields: texts for facets (true/false for booleans, each element of a list), numbers
    /// for ranges and sorts (dates as seconds since 1970).
    static func values(_ item: CollectionItem, _ fields: SearchFields) -> [String: SearchValue] {
        var out: [String: SearchValue] = [:]
        for f in fields.fields {
            switch item.values[f.name] {
            case .string(let s)?:
                if f.facet == .value { out[f.name] = .text(s) } else if let t = Self.seconds(s) { out[f.name] = .number(t) }
            case .bool(let b)?: out[f.name] = .text(b ? "true" : "false")
            case .number(let n)?: out[f.name] = f.facet == .value ? .text(SearchFields.numberText(n.double)) : .number(n.double)
            case .array(let a)?: out[f.name] = .texts(a.compactMap(\.stringValue))
            default: break
            }
        }
        return out
    }

    /// An ISO 8601 date (`2024-03-01`) or date-time with an offset, as seconds since 1970.
    static func seconds(_ s: String) -> Double? {
        let withTime = ISO8601DateFormatter()
        if let d = withTime.date(from: s) { return d.timeIntervalSince1970 }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        return day.date(from: s)?.timeIntervalSince1970
    }

    static func text(_ v: JSON?) -> String {
        switch v {
        case .string(let s)?: return s
        case .array(let a)?: return a.compactMap(\.stringValue).joined(separator: " ")
        default: return ""
        }
    }
}
