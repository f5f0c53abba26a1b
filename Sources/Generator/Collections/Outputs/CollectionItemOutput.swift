import Foundation
import Schemas

/// `collections/{name}/items/{id}.json`: one item with every declared field, in declaration order.
/// A missing optional field is left out; a null stays null.
struct CollectionItemOutput: CollectionOutput {
    func kind(_ decl: CollectionDeclaration) -> OutputKind {
        OutputKind(name: "collection-\(decl.name)-item", pathTemplate: "collections/\(decl.name)/items/{id}.json",
                   summary: "One item of the \(decl.title) collection, typed as declared in collections/\(decl.name).json of the input.",
                   schema: CollectionOutputs.itemSchema(decl.fields), typeName: decl.typeNames["item"])
    }

    func render(_ model: CollectionModel, _ context: BuildContext, kind: OutputKind) throws -> [OutputFile] {
        let base = CollectionOutputs.base(model.declaration)
        return model.items.map { OutputFile(path: "\(base)/items/\($0.segment).json", json: .object($0.values), kind: kind) }
    }
}
