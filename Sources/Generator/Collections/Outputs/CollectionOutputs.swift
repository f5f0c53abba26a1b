import Foundation
import Schemas

/// One collection output kind. Kinds are made per collection, because each collection's schema comes from its
/// declaration: `collection-{name}-item`, `collection-{name}-page`, `collection-{name}-index`.
protocol CollectionOutput {
    func kind(_ decl: CollectionDeclaration) -> OutputKind
    func render(_ model: CollectionModel, _ context: BuildContext, kind: OutputKind) throws -> [OutputFile]
}

enum CollectionOutputs {
    /// Every collection output, in emission order. Adding a kind = one file + one line here.
    static let all: [CollectionOutput] = [CollectionItemOutput(), CollectionPageOutput(), CollectionIndexOutput(), CollectionSearchOutput()]

    static func render(_ model: CollectionModel, _ context: BuildContext) throws -> DomainResult {
        var result = DomainResult()
        for unit in all {
            let files = try unit.render(model, context, kind: unit.kind(model.declaration))
            if let search = unit as? CollectionSearchOutput {
                if !files.isEmpty { result.kinds += search.kinds(model.declaration) }
            } else {
                result.kinds.append(unit.kind(model.declaration))
            }
            result.files += files
        }
        return result
    }

    /// The schema of one field's value, from its declaration.
    static func schema(_ f: CollectionDeclaration.Field) -> JSON {
        var s: JSONObject
        switch f.type {
        case .string: s = JSONObject([("type", "string")])
        case .enumeration: s = JSONObject([("type", "string"), ("enum", .strings(f.values))])
        case .url: s = JSONObject([("type", "string"), ("pattern", "^https?://[^\\s]+$")])
        case .boolean: s = JSONObject([("type", "boolean")])
        case .integer: s = JSONObject([("type", "integer")])
        case .decimal, .number: s = JSONObject([("type", "number")])
        case .latitude: s = JSONObject([("type", "number"), ("minimum", -90), ("maximum", 90)])
        case .longitude: s = JSONObject([("type", "number"), ("minimum", -180), ("maximum", 180)])
        case .date: s = JSONObject([("type", "string"), ("pattern", #"^\d{4}-\d{2}-\d{2}$"#)])
        case .dateTime: s = JSONObject([("type", "string"), ("pattern", #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$"#)])
        case .stringArray: s = JSONObject([("type", "array"), ("items", ["type": "string"])])
        }
        if let m = f.minimum { s.append("minimum", .number(JSONNumber(m))) }
        if let m = f.maximum { s.append("maximum", .number(JSONNumber(m))) }
        return f.nullable ? ["anyOf": [.object(s), ["type": "null"]]] : .object(s)
    }

    /// A closed object of the given fields; required fields are required keys.
    static func itemSchema(_ fields: [CollectionDeclaration.Field]) -> JSON {
        var props = JSONObject()
        for f in fields { props.append(f.key, schema(f)) }
        return .obj(["type": "object", "properties": .object(props),
                     "required": .strings(fields.filter(\.required).map(\.key)), "additionalProperties": false])
    }

    static func base(_ decl: CollectionDeclaration) -> String { "collections/\(decl.name)" }
}
