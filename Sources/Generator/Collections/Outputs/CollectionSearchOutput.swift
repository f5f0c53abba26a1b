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
        ]
    }

    func kind(_ decl: CollectionDeclaration) -> OutputKind { kinds(decl)[0] }

    static func folder(_ decl: CollectionDeclaration) -> String { "\(CollectionOutputs.base(decl))/search" }

    func render(_ model: CollectionModel, _ context: BuildContext, kind: OutputKind) throws -> [OutputFile] {
        let decl = model.declaration
        guard !decl.search.isEmpty else { return [] }
        let listFields = Set(decl.list.fields)
        let docs = model.items.map { item in
            var stored = JSONObject(item.values.members.filter { listFields.contains($0.key) })
            stored.append("path", .string("\(CollectionOutputs.base(decl))/items/\(item.segment).json"))
            return RankedDocument(id: item.id, fields: decl.search.map { f in (f.field, f.weight, Self.text(item.values[f.field])) },
                                  stored: .object(stored))
        }
        let out = try RankedIndexBuilder().build(docs, folder: Self.folder(decl), threads: context.threads)
        let k = kinds(decl)
        return out.files.map { path, text in
            let rest = path.dropFirst(Self.folder(decl).count + 1)
            let kind = path == out.metaPath ? k[0] : rest.hasPrefix("terms/") ? k[1] : rest.hasPrefix("vocab/") ? k[2]
                : rest.hasPrefix("stores/") ? k[4] : rest.hasPrefix("termdirs/") ? k[5] : k[3]
            return OutputFile(path: path, kind: kind, weight: text.count / 64) { $0.raw(text) }
        } + (try WebSearch.files(folder: Self.folder(decl), name: "collection-\(decl.name)-search", title: "Search \(decl.title)"))
    }

    static func text(_ v: JSON?) -> String {
        switch v {
        case .string(let s)?: return s
        case .array(let a)?: return a.compactMap(\.stringValue).joined(separator: " ")
        default: return ""
        }
    }
}
