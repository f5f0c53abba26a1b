import Foundation
import Schemas

extension CollectionDeclaration {
    static let schemaValidator = try! JSONSchemaValidator(schema: schemaDocument, baseURI: "https://json-schema.invalid/collection-declaration.schema.json")

    /// The declaration schema as a standalone draft 2020-12 document (what an editor can be pointed at).
    public static var schemaDocument: JSON {
        guard case .object(var o) = schema else { return schema }
        o = JSONObject([("$schema", .string(SchemaPublisher.metaSchemaURI)), ("title", "Collection declaration")] + o.members.map { ($0.key, $0.value) })
        return .object(o)
    }

    /// The schema of a declaration file. The build checks each declaration against it before reading it, so an
    /// error names the exact location.
    public static let schema: JSON = Schema.object([
            "$schema": Schema.optional(Schema.string),
            "title": Schema.optional(Schema.nonEmptyString),
            "sources": Schema.array(Schema.nonEmptyString, minItems: 1),
            "id": Schema.nonEmptyString,
            "keyStyle": Schema.optional(Schema.enumeration(["snake_case", "camelCase"])),
            "fields": .obj(["type": "object", "minProperties": 1, "additionalProperties": Schema.object([
                "type": Schema.enumeration(FieldType.allCases.map(\.rawValue)),
                "from": Schema.optional(Schema.nonEmptyString),
                "required": Schema.optional(Schema.boolean),
                "nullable": Schema.optional(Schema.boolean),
                "values": Schema.optional(Schema.array(Schema.string, minItems: 1)),
                "timeZone": Schema.optional(Schema.nonEmptyString),
                "separator": Schema.optional(Schema.nonEmptyString),
                "minimum": Schema.optional(Schema.number),
                "maximum": Schema.optional(Schema.number),
            ])]),
            "list": Schema.optional(Schema.object([
                "itemsKey": Schema.optional(Schema.nonEmptyString), "totalKey": Schema.optional(Schema.nonEmptyString),
                "pageKey": Schema.optional(Schema.nonEmptyString), "perPageKey": Schema.optional(Schema.nonEmptyString),
                "totalPagesKey": Schema.optional(Schema.nonEmptyString), "pageSize": Schema.optional(Schema.integer(min: 1, max: 10_000)),
                "fields": Schema.optional(Schema.array(Schema.nonEmptyString)),
            ])),
            "sort": Schema.optional(Schema.array(Schema.object(["field": Schema.nonEmptyString, "order": Schema.optional(Schema.enumeration(["asc", "desc"]))]))),
            "search": Schema.optional(Schema.map(.obj(["type": "number", "exclusiveMinimum": 0]))),
            "facets": Schema.optional(Schema.array(Schema.nonEmptyString)),
            "ranges": Schema.optional(Schema.map(Schema.array(Schema.number, minItems: 1))),
            "types": Schema.optional(Schema.object(["item": Schema.optional(Schema.string(pattern: "^[A-Z][A-Za-z0-9]*$")),
                                          "page": Schema.optional(Schema.string(pattern: "^[A-Z][A-Za-z0-9]*$")),
                                          "index": Schema.optional(Schema.string(pattern: "^[A-Z][A-Za-z0-9]*$"))])),
        ])
}
