import Foundation
import Schemas

/// `collections/{name}/page-{n}.json`: the items in declared sort order, `list.pageSize` per page, under the
/// declared key names (e.g. PropertyListData: properties, total, page, perPage, totalPages) and nothing else.
/// There is always a page 1, so an app can open an empty collection; then total is 0 and totalPages is 1.
struct CollectionPageOutput: CollectionOutput {
    func kind(_ decl: CollectionDeclaration) -> OutputKind {
        let l = decl.list
        let fields = l.fields.compactMap { decl.field($0) }
        var props = JSONObject()
        props.append(l.items, Schema.array(CollectionOutputs.itemSchema(fields)))
        props.append(l.total, Schema.nonNegativeInteger)
        props.append(l.page, Schema.integer(min: 1))
        props.append(l.perPage, Schema.integer(min: 1))
        props.append(l.totalPages, Schema.integer(min: 1))
        let schema: JSON = .obj(["type": "object", "properties": .object(props),
                                 "required": .strings([l.items, l.total, l.page, l.perPage, l.totalPages]), "additionalProperties": false])
        return OutputKind(name: "collection-\(decl.name)-page", pathTemplate: "collections/\(decl.name)/page-{n}.json",
                          summary: "A page of the \(decl.title) collection in its declared order.", schema: schema,
                          typeName: decl.typeNames["page"])
    }

    static func pageCount(items: Int, pageSize: Int) -> Int { max(1, (items + pageSize - 1) / pageSize) }

    func render(_ model: CollectionModel, _ context: BuildContext, kind: OutputKind) throws -> [OutputFile] {
        let decl = model.declaration, l = decl.list
        let pages = Self.pageCount(items: model.items.count, pageSize: l.pageSize)
        let listFields = Set(l.fields)
        return (1...pages).map { n in
            let slice = model.items[min(model.items.count, (n - 1) * l.pageSize)..<min(model.items.count, n * l.pageSize)]
            let entries: [JSON] = slice.map { item in
                .object(JSONObject(item.values.members.filter { listFields.contains($0.key) }))
            }
            var o = JSONObject()
            o.append(l.items, .array(entries))
            o.append(l.total, .int(model.items.count))
            o.append(l.page, .int(n))
            o.append(l.perPage, .int(l.pageSize))
            o.append(l.totalPages, .int(pages))
            return OutputFile(path: "\(CollectionOutputs.base(decl))/page-\(n).json", json: .object(o), kind: kind)
        }
    }
}
