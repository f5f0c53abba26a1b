import Foundation
import Schemas

/// `types/index.d.ts`: TypeScript declarations for web apps, generated from the output schemas, so the types cannot
/// drift from the files. One exported type per output kind: named as the apps' models where the design documents
/// name them (`ProductDetail`, `CategoryResponse`, `TotalsAnalysisResponse`, …, and a collection's `types`
/// declaration), otherwise as the kind's component in openapi.json (`SearchMeta`, `FileIndex`, …). A list whose
/// element the documents name (`TeamStanding[]`) exports the element too; a schema equal to another kind's is
/// written as that kind's name.
public enum TypeScriptTypes {
    public static let path = "types/index.d.ts"
    // GitHub Pages sends .ts files as MPEG transport streams (mime-db); `generator serve` does the same.
    public static let asset = AssetKind(name: "typescript-types", pathTemplate: path, mediaType: "video/mp2t",
                                        summary: "TypeScript declarations of every JSON file of the tree, one exported type per output kind, generated from the schemas.")

    /// Kinds the design documents have a model for.
    static let modelNames: [String: String] = [
        "app-config": "AppConfig", "update-manifest": "UpdateManifest", "featured-content": "FeaturedContent",
        "category-index": "CategoryIndex", "category-page": "CategoryResponse", "product-details": "ProductDetail",
        "search-index": "SearchIndex", "auction-property": "PropertyResponse", "nba-totals": "TotalsAnalysisResponse",
        "json-schema": "JSONSchemaDocument",
    ]
    /// Parts of a kind the documents name as models of their own, by path: a property name, `[]` for an array's
    /// items, `?` for the value of a nullable (deepest first, so an outer part refers to an inner one by name).
    static let partNames: [String: [(path: [String], name: String)]] = [
        "nba-totals": [(["games", "[]", "monte_carlo", "?"], "MonteCarloResult"), (["games", "[]", "ev_metrics", "?"], "EVMetrics"),
                       (["games", "[]"], "TotalsAnalysisGame")],
        "category-page": [(["products", "[]"], "Product")],
        "category-index": [(["categories", "[]"], "Category")],
        "search-index": [(["products", "[]"], "SearchProduct")],
    ]

    static func part(_ schema: JSON, _ path: [String]) -> JSON? {
        var s: JSON? = schema
        for step in path {
            switch step {
            case "[]": s = s?["items"]
            case "?": s = s?["anyOf"]?.arrayValue?.first { $0 != .obj(["type": "null"]) }
            default: s = s?["properties"]?[step]
            }
        }
        return s
    }

    /// Lists whose element the documents name: the kind's type is an array of it.
    static let elementNames: [String: String] = [
        "nba-teams": "TeamStanding", "nba-season-teams": "TeamStanding", "nba-games": "Game", "nba-season-games": "Game",
        "nba-players": "PlayerStats", "nba-season-players": "PlayerStats",
    ]

    /// A kind's declared type name (a collection's `types`) wins over the built-in ones.
    public static func render(kinds: [OutputKind], site: SiteConfig) -> [UInt8] {
        let sorted = kinds.sorted { $0.name < $1.name }
        func name(_ k: OutputKind) -> String { k.typeName ?? modelNames[k.name] ?? OpenAPIDocument.componentName(k) }
        // Named schemas, first the kinds the documents name (so equal schemas refer to them), then list elements.
        var named: [(schema: JSON, name: String)] = []
        for k in sorted where k.typeName != nil || modelNames[k.name] != nil { named.append((body(k), name(k))) }
        var out = """
        // TypeScript declarations of the JSON files of \(site.siteName) (\(site.baseURL)), generated from the
        // output schemas (schemas/*.schema.json) by the same build: every file of this tree fits its kind's type.
        // One type per output kind; its path template is in the comment above it.

        """
        var emitted: Set<String> = []
        func emit(_ typeName: String, _ doc: String, _ text: String) {
            guard emitted.insert(typeName).inserted else { return }
            out += "\n/** \(doc.replacingOccurrences(of: "*/", with: "* /")) */\nexport type \(typeName) = \(text);\n"
        }
        for k in sorted {
            let schema = body(k)
            let doc = "\(k.pathTemplate): \(k.summary)"
            for (path, partName) in partNames[k.name] ?? [] {
                guard let p = part(schema, path), !named.contains(where: { $0.name == partName }) else { continue }
                emit(partName, "Part of \(k.pathTemplate) (\(path.joined(separator: ".")))", type(p, named: named, depth: 0))
                named.append((p, partName))
            }
            if let element = elementNames[k.name], let items = schema["items"], schema["type"] == "array" {
                emit(element, "An element of \(k.pathTemplate).", type(items, named: named, depth: 0))
                named.append((items, element))
                emit(name(k), doc, "\(element)[]")
            } else if let other = named.first(where: { $0.schema == schema && $0.name != name(k) }) {
                emit(name(k), doc, other.name)
            } else {
                emit(name(k), doc, type(schema, named: named.filter { $0.name != name(k) }, depth: 0))
            }
        }
        out += "\n/** Each output kind's type by the kind's name (a file's `schema` in the file index is schemas/{kind}.schema.json). */\n"
        out += "export interface Kinds {\n" + sorted.map { "  \(literal(.string($0.name))): \(name($0));\n" }.joined() + "}\n"
        return Array(out.utf8)
    }

    /// A kind's schema without the keywords of a standalone document.
    static func body(_ k: OutputKind) -> JSON {
        guard case .object(var o) = k.schema else { return k.schema }
        o["$schema"] = nil; o["$id"] = nil; o["title"] = nil
        return .object(o)
    }

    /// The TypeScript type of a schema (the keywords our schemas use: type, enum, anyOf, properties, required,
    /// additionalProperties, items; bounds and patterns have no TypeScript form and are left to the schema).
    static func type(_ schema: JSON, named: [(schema: JSON, name: String)], depth: Int) -> String {
        if depth > 0, let n = named.first(where: { $0.schema == schema }) { return n.name }
        guard case .object(let o) = schema else { return schema == .bool(false) ? "never" : "unknown" }
        if let values = o["enum"]?.arrayValue { return values.map(literal).joined(separator: " | ") }
        if let c = o["const"] { return literal(c) }
        if let branches = o["anyOf"]?.arrayValue {
            return branches.map { parenthesised(type($0, named: named, depth: depth + 1)) }.joined(separator: " | ")
        }
        if let types = o["type"]?.arrayValue {
            return types.map { t -> String in
                var one = o; one["type"] = t
                return parenthesised(type(.object(one), named: named, depth: depth + 1))
            }.joined(separator: " | ")
        }
        switch o["type"]?.stringValue {
        case "string": return "string"
        case "number", "integer": return "number"
        case "boolean": return "boolean"
        case "null": return "null"
        case "array": return parenthesised(type(o["items"] ?? .bool(true), named: named, depth: depth + 1)) + "[]"
        case "object": return object(o, named: named, depth: depth)
        default: return "unknown"
        }
    }

    static func object(_ o: JSONObject, named: [(schema: JSON, name: String)], depth: Int) -> String {
        let indent = String(repeating: "  ", count: depth + 1), close = String(repeating: "  ", count: depth)
        let required = Set((o["required"]?.arrayValue ?? []).compactMap(\.stringValue))
        var lines: [String] = []
        // An index signature must admit every declared property's type (TypeScript's rule 2411), undefined included
        // for an optional one.
        var declared: [String] = []
        for member in o["properties"]?.objectValue?.members ?? [] {
            let key = member.key, value = member.value
            let k = key.range(of: #"^[A-Za-z_$][A-Za-z0-9_$]*$"#, options: .regularExpression) != nil ? key : literal(.string(key))
            var line = ""
            if let d = value["description"]?.stringValue { line += "\(indent)/** \(d.replacingOccurrences(of: "*/", with: "* /")) */\n" }
            let t = type(value, named: named, depth: depth + 1)
            line += "\(indent)\(k)\(required.contains(key) ? "" : "?"): \(t);"
            lines.append(line)
            declared += [t] + (required.contains(key) ? [] : ["undefined"])
        }
        switch o["additionalProperties"] {
        case .bool(false)?: break
        case .object(let extra)?:
            var union: [String] = []
            for t in [type(.object(extra), named: named, depth: depth + 1)] + declared where !union.contains(t) { union.append(t) }
            lines.append("\(indent)[key: string]: \(union.joined(separator: " | "));")
        default: lines.append("\(indent)[key: string]: unknown;")
        }
        return lines.isEmpty ? "Record<string, never>" : "{\n" + lines.joined(separator: "\n") + "\n\(close)}"
    }

    static func literal(_ v: JSON) -> String {
        switch v {
        case .string(let s):
            var t = "\""
            for u in s.unicodeScalars {
                switch u {
                case "\"": t += "\\\""
                case "\\": t += "\\\\"
                case _ where u.value < 0x20 || (0x2028...0x2029).contains(u.value): t += String(format: "\\u%04x", u.value)
                default: t.unicodeScalars.append(u)
                }
            }
            return t + "\""
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        default: return v.compactText
        }
    }

    /// A union in parentheses (before `[]` or inside another union), when its `|` is not inside braces.
    static func parenthesised(_ t: String) -> String {
        var depth = 0, previous: Character = " "
        for c in t {
            if c == "{" { depth += 1 } else if c == "}" { depth -= 1 } else if c == "|", depth == 0, previous == " " { return "(\(t))" }
            previous = c
        }
        return t
    }
}
