import Schemas

/// Publishes each kind's schema as `schemas/{name}.schema.json` with a stable `$id` under baseURL.
public enum SchemaPublisher {
    public static let metaSchemaURI = "https://json-schema.org/draft/2020-12/schema"
    /// The kind of schema files themselves (validated against the meta-schema).
    public static let metaKind = OutputKind(name: "json-schema", pathTemplate: "schemas/{kind}.schema.json",
                                            summary: "JSON Schema (draft 2020-12) of one output kind.", schema: true)

    public static func document(for kind: OutputKind, baseURL: String) -> JSON {
        var o = JSONObject()
        o.append("$schema", .string(metaSchemaURI))
        o.append("$id", .string(baseURL + kind.schemaPath))
        o.append("title", .string(kind.name))
        o.append("description", .string(kind.summary + " Published at " + kind.pathTemplate + "."))
        if case .object(let body) = kind.schema { for m in body.members { o.append(m.key, m.value) } }
        return .object(o)
    }
}
