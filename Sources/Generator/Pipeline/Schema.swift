import Schemas

/// Small helpers to declare output schemas next to their emitters, readably.
/// `Schema.object([...])` makes every listed property required unless wrapped in `Schema.optional`,
/// and forbids unknown properties: our own objects are closed.
public enum Schema {
    public static let string: JSON = ["type": "string"]
    public static let nonEmptyString: JSON = ["type": "string", "minLength": 1]
    public static let boolean: JSON = ["type": "boolean"]
    public static let number: JSON = ["type": "number"]
    public static let integer: JSON = ["type": "integer"]
    public static let nonNegativeInteger: JSON = ["type": "integer", "minimum": 0]
    public static let nonNegativeNumber: JSON = ["type": "number", "minimum": 0]
    public static let sha256: JSON = ["type": "string", "pattern": "^[0-9a-f]{64}$"]
    public static let dateTime: JSON = ["type": "string", "pattern": #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"#]
    public static let date: JSON = ["type": "string", "pattern": #"^\d{4}-\d{2}-\d{2}$"#]
    /// A relative path inside the tree (no leading slash, no dot segments, no spaces).
    public static let relativePath: JSON = ["type": "string", "pattern": #"^(?!/)(?!.*(^|/)\.\.?(/|$))[A-Za-z0-9._~/-]+$"#]
    public static let url: JSON = ["type": "string", "pattern": #"^[a-z][a-z0-9+.-]*://[^\s]+$"#]

    public static func string(pattern: String) -> JSON { ["type": "string", "pattern": .string(pattern)] }
    public static func number(min: Double? = nil, max: Double? = nil) -> JSON {
        var o: JSONObject = JSONObject([("type", "number")])
        if let min { o["minimum"] = .double(min) }
        if let max { o["maximum"] = .double(max) }
        return .object(o)
    }
    public static func integer(min: Int? = nil, max: Int? = nil) -> JSON {
        var o: JSONObject = JSONObject([("type", "integer")])
        if let min { o["minimum"] = .int(min) }
        if let max { o["maximum"] = .int(max) }
        return .object(o)
    }
    public static func enumeration(_ values: [String]) -> JSON { ["type": "string", "enum": .strings(values)] }
    public static func nullable(_ s: JSON) -> JSON { ["anyOf": [s, ["type": "null"]]] }
    public static func array(_ items: JSON, minItems: Int? = nil) -> JSON {
        var o = JSONObject([("type", "array"), ("items", items)])
        if let minItems { o["minItems"] = .int(minItems) }
        return .object(o)
    }
    /// An object used as a map: any key, values of one schema.
    public static func map(_ values: JSON) -> JSON { ["type": "object", "additionalProperties": values] }

    /// Marks a property as optional inside `Schema.object`.
    public static func optional(_ s: JSON) -> JSON { ["$optional": s] }

    /// A closed object: listed properties, required unless marked with `Schema.optional`.
    public static func object(_ props: KeyValuePairs<String, JSON>, additional: Bool = false) -> JSON {
        object(props.map { ($0.key, $0.value) }, additional: additional)
    }

    /// The same from a list built in code (properties that depend on a setting).
    public static func object(_ props: [(String, JSON)], additional: Bool = false) -> JSON {
        var properties = JSONObject()
        var required: [JSON] = []
        for (k, v) in props {
            if case .object(let o) = v, o.count == 1, let inner = o["$optional"] { properties.append(k, inner) }
            else { properties.append(k, v); required.append(.string(k)) }
        }
        return .obj(["type": "object", "properties": .object(properties), "required": .array(required),
                     "additionalProperties": .bool(additional)])
    }
}
