import Foundation

/// Compiles schema JSON into `SchemaNode`s: base URIs from `$id`, anchors, dynamic anchors, and every `$ref` /
/// `$dynamicRef` resolved before validation starts (remote documents come from the registry, never the network).
final class SchemaCompiler {
    let registry: SchemaRegistry
    /// "base#json-pointer" → node.
    var nodes: [String: SchemaNode] = [:]
    /// "base#anchor" → node (both `$anchor` and `$dynamicAnchor`).
    var anchors: [String: SchemaNode] = [:]
    /// resource base → dynamic anchor name → node.
    var dynamicAnchors: [String: [String: SchemaNode]] = [:]
    var raw: [String: JSON] = [:]
    var pending: [SchemaNode] = []
    var regexCache: [String: NSRegularExpression] = [:]

    init(registry: SchemaRegistry) { self.registry = registry }

    func compileDocument(_ json: JSON, uri: String) throws -> SchemaNode {
        raw[uri] = json
        return try compile(json, base: uri, pointer: "", validation: nil)
    }

    static let validationVocabulary = "https://json-schema.org/draft/2020-12/vocab/validation"

    /// Where a schema sits while it is compiled: its resource's base URI, its JSON Pointer from that resource's root,
    /// and whether the validation vocabulary is on. What `enter` hands the keyword readers.
    struct Location {
        var base: String
        var pointer: String
        var validation: Bool

        /// The location of a subschema under `path` (keyword, then names or indices).
        func child(_ path: [String]) -> String { pointer + path.map { "/" + Evaluator.escape($0) }.joined() }
    }

    func compile(_ json: JSON, base: String, pointer: String, validation inherited: Bool?) throws -> SchemaNode {
        let n = SchemaNode()
        switch json {
        case .bool(let b):
            n.boolean = b; n.base = base
            nodes["\(base)#\(pointer)"] = n
            return n
        case .object(let o):
            nodes["\(base)#\(pointer)"] = n
            let at = enter(o, json, n, base: base, pointer: pointer, validation: inherited)
            try readValidation(o, into: n)
            try readApplicators(o, into: n, at: at)
            readReferences(o, into: n, base: at.base)
            return n
        default: throw JSONSchemaValidator.SchemaError.notASchema("\(base)#\(pointer)")
        }
    }

    /// The schema's own resource (`$id`), vocabulary (`$schema`) and anchors, registered; where its subschemas sit.
    private func enter(_ o: JSONObject, _ json: JSON, _ n: SchemaNode, base inBase: String, pointer inPointer: String,
                       validation inherited: Bool?) -> Location {
        var at = Location(base: inBase, pointer: inPointer, validation: inherited ?? true)
        if let id = o["$id"]?.stringValue, !id.hasPrefix("#") {
            at.base = URIReference(id).resolved(against: URIReference(at.base)).withoutFragment.string
            at.pointer = ""
            raw[at.base] = json
            nodes["\(at.base)#"] = n
        }
        n.base = at.base
        // A meta-schema without the validation vocabulary turns validation keywords off.
        if let s = o["$schema"]?.stringValue, let meta = registry.document(URIReference(s).withoutFragment.string),
           let vocab = meta["$vocabulary"]?.objectValue {
            at.validation = vocab[Self.validationVocabulary] != nil
        }
        n.validation = at.validation
        if let a = o["$anchor"]?.stringValue { anchors["\(at.base)#\(a)"] = n }
        if let d = o["$dynamicAnchor"]?.stringValue {
            anchors["\(at.base)#\(d)"] = n
            n.dynamicAnchor = d
            if dynamicAnchors[at.base]?[d] == nil { dynamicAnchors[at.base, default: [:]][d] = n }
        }
        return at
    }

    /// The validation vocabulary's keywords (read whether or not it is on: `validation` decides if they apply).
    private func readValidation(_ o: JSONObject, into n: SchemaNode) throws {
        func int(_ key: String) -> Int? { o[key]?.numberValue.flatMap { $0.isInteger ? Int(exactly: $0.double) : nil } }
        if let t = o["type"] { n.types = t.stringValue.map { [$0] } ?? t.arrayValue?.compactMap(\.stringValue); n.typeMask = n.types.map(TypeMask.init) }
        n.enumValues = o["enum"]?.arrayValue
        if let c = o["const"] { n.constValue = c; n.hasConst = true }
        n.multipleOf = o["multipleOf"]?.numberValue
        n.maximum = o["maximum"]?.numberValue; n.exclusiveMaximum = o["exclusiveMaximum"]?.numberValue
        n.minimum = o["minimum"]?.numberValue; n.exclusiveMinimum = o["exclusiveMinimum"]?.numberValue
        n.maxLength = int("maxLength"); n.minLength = int("minLength")
        if let p = o["pattern"]?.stringValue { n.pattern = try regex(p); n.patternSource = p }
        n.maxItems = int("maxItems"); n.minItems = int("minItems"); n.uniqueItems = o["uniqueItems"]?.boolValue ?? false
        n.maxContains = int("maxContains"); n.minContains = int("minContains")
        n.maxProperties = int("maxProperties"); n.minProperties = int("minProperties")
        n.required = o["required"]?.arrayValue?.compactMap(\.stringValue) ?? []
        n.dependentRequired = (o["dependentRequired"]?.objectValue?.members ?? []).map { ($0.key, $0.value.arrayValue?.compactMap(\.stringValue) ?? []) }
        n.format = o["format"]?.stringValue
    }

    /// The applicator and unevaluated vocabularies' subschemas, compiled in place, and those under `$defs`.
    private func readApplicators(_ o: JSONObject, into n: SchemaNode, at: Location) throws {
        func sub(_ path: [String], _ v: JSON) throws -> SchemaNode {
            try compile(v, base: at.base, pointer: at.child(path), validation: at.validation)
        }
        func subs(_ key: String) throws -> [SchemaNode] {
            guard let a = o[key]?.arrayValue else { return [] }
            return try a.enumerated().map { try sub([key, String($0.offset)], $0.element) }
        }
        if let p = o["properties"]?.objectValue {
            for m in p.members { n.properties[m.key] = try sub(["properties", m.key], m.value); n.propertyOrder.append(m.key) }
            n.propertyList = n.properties.count <= 16 ? n.propertyOrder.compactMap { k in n.properties[k].map { (k, $0) } } : nil
        }
        for m in o["patternProperties"]?.objectValue?.members ?? [] {
            n.patternProperties.append((try regex(m.key), m.key, try sub(["patternProperties", m.key], m.value)))
        }
        if let v = o["additionalProperties"] { n.additionalProperties = try sub(["additionalProperties"], v) }
        if let v = o["propertyNames"] { n.propertyNames = try sub(["propertyNames"], v) }
        for m in o["dependentSchemas"]?.objectValue?.members ?? [] { n.dependentSchemas.append((m.key, try sub(["dependentSchemas", m.key], m.value))) }
        // The pre-2019 `dependencies` keyword, still common in the wild: arrays are dependentRequired, schemas dependentSchemas.
        for m in o["dependencies"]?.objectValue?.members ?? [] {
            if let names = m.value.arrayValue { n.dependentRequired.append((m.key, names.compactMap(\.stringValue))) }
            else { n.dependentSchemas.append((m.key, try sub(["dependencies", m.key], m.value))) }
        }
        n.prefixItems = try subs("prefixItems")
        if let v = o["items"] { n.items = try sub(["items"], v) }
        if let v = o["contains"] { n.contains = try sub(["contains"], v) }
        n.allOf = try subs("allOf"); n.anyOf = try subs("anyOf"); n.oneOf = try subs("oneOf")
        if let v = o["not"] { n.not = try sub(["not"], v) }
        if let v = o["if"] { n.ifSchema = try sub(["if"], v) }
        if let v = o["then"] { n.thenSchema = try sub(["then"], v) }
        if let v = o["else"] { n.elseSchema = try sub(["else"], v) }
        if let v = o["unevaluatedProperties"] { n.unevaluatedProperties = try sub(["unevaluatedProperties"], v) }
        if let v = o["unevaluatedItems"] { n.unevaluatedItems = try sub(["unevaluatedItems"], v) }
        for m in o["$defs"]?.objectValue?.members ?? [] { _ = try sub(["$defs", m.key], m.value) }
    }

    /// `$ref` and `$dynamicRef`, resolved against the base and queued for `resolveAll` (their targets may not be
    /// compiled yet).
    private func readReferences(_ o: JSONObject, into n: SchemaNode, base: String) {
        if let r = o["$ref"]?.stringValue {
            n.ref = URIReference(r).resolved(against: URIReference(base)).string
            pending.append(n)
        }
        if let r = o["$dynamicRef"]?.stringValue {
            let u = URIReference(r).resolved(against: URIReference(base))
            n.dynamicRef = u.string
            if let f = u.fragment, !f.isEmpty, !f.hasPrefix("/") { n.dynamicRefName = f }
            pending.append(n)
        }
    }

    func regex(_ pattern: String) throws -> NSRegularExpression {
        if let r = regexCache[pattern] { return r }
        guard let r = try? NSRegularExpression(pattern: ECMARegex.translate(pattern), options: []) else {
            throw JSONSchemaValidator.SchemaError.invalidRegex(pattern)
        }
        regexCache[pattern] = r
        return r
    }

    func resolveAll() throws {
        while let n = pending.popLast() {
            if let r = n.ref { n.refTarget = try lookup(r, from: n.base) }
            if let r = n.dynamicRef { n.dynamicRefTarget = try lookup(r, from: n.base) }
        }
    }

    func lookup(_ uri: String, from: String) throws -> SchemaNode {
        let u = URIReference(uri)
        let doc = u.withoutFragment.string
        let fragment = u.fragment ?? ""
        if raw[doc] == nil {
            guard let j = registry.document(doc) else { throw JSONSchemaValidator.SchemaError.unresolvedReference(uri, from: from) }
            _ = try compileDocument(j, uri: doc)
        }
        if fragment.isEmpty || fragment.hasPrefix("/") {
            let pointer = fragment.removingPercentEncoding ?? fragment
            if let n = nodes["\(doc)#\(pointer)"] { return n }
            // A location that is not a known subschema (e.g. under an unknown keyword): compile it there.
            guard let rootJSON = raw[doc], let target = Self.navigate(rootJSON, pointer) else {
                throw JSONSchemaValidator.SchemaError.unresolvedReference(uri, from: from)
            }
            return try compile(target, base: doc, pointer: pointer, validation: nil)
        }
        if let n = anchors["\(doc)#\(fragment)"] { return n }
        throw JSONSchemaValidator.SchemaError.unresolvedReference(uri, from: from)
    }

    static func navigate(_ json: JSON, _ pointer: String) -> JSON? {
        guard !pointer.isEmpty else { return json }
        var cur: JSON? = json
        for raw in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let token = raw.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            switch cur {
            case .object(let o)?: cur = o[token]
            case .array(let a)?: cur = Int(token).flatMap { $0 >= 0 && $0 < a.count ? a[$0] : nil }
            default: return nil
            }
        }
        return cur
    }
}
