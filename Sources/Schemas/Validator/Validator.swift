import Foundation

/// One error in the spec's "basic" output shape.
public struct ValidationError: Sendable, CustomStringConvertible, Equatable {
    /// JSON Pointer into the instance.
    public let instanceLocation: String
    /// JSON Pointer through the schema's keywords as evaluated (including `$ref`).
    public let keywordLocation: String
    public let message: String
    public var description: String { "\(instanceLocation.isEmpty ? "(root)" : instanceLocation): \(message) [\(keywordLocation)]" }

    public var json: JSON {
        .obj(["instanceLocation": .string(instanceLocation), "keywordLocation": .string(keywordLocation), "error": .string(message)])
    }
}

/// A JSON Schema draft 2020-12 validator over our JSON type. The schema is compiled once (every `$ref` resolved
/// up front, regexes built), after which `validate` is read-only and safe to call from several threads.
///
/// Vocabularies: core, applicator, unevaluated, validation, meta-data (annotations), format (annotation by
/// default, assertion with `Options.formatAssertion`), content (annotations). A meta-schema whose `$vocabulary`
/// leaves out the validation vocabulary turns validation keywords off for schemas that use it.
///
/// (Sendable, unchecked by the compiler: the compiled schema is a graph of classes whose fields are set while `init` compiles it and
/// only read afterwards; the one thing written later, `PatternMemo`'s verdicts, is behind a lock. Making the compiled
/// nodes genuinely immutable would mean building each after all of its children, which `$ref` cycles forbid.)
public final class JSONSchemaValidator: @unchecked Sendable {
    public struct Options: Sendable {
        public var formatAssertion = false
        public init(formatAssertion: Bool = false) { self.formatAssertion = formatAssertion }
    }

    public enum SchemaError: Error, CustomStringConvertible {
        case unresolvedReference(String, from: String)
        case invalidRegex(String)
        case notASchema(String)
        public var description: String {
            switch self {
            case .unresolvedReference(let r, let from): return "cannot resolve $ref \"\(r)\" (from \(from)); no network access is used"
            case .invalidRegex(let r): return "invalid regular expression \"\(r)\""
            case .notASchema(let at): return "not a schema at \(at)"
            }
        }
    }

    let root: SchemaNode
    let options: Options
    let compiler: SchemaCompiler
    /// The one-walk checker, when the schema uses only the common keywords (see `FastNode`).
    let fast: FastNode?
    /// Whether valid instances are settled without the general evaluator.
    public var hasFastPath: Bool { fast != nil }

    public static let defaultBaseURI = "https://validator.invalid/schema.json"

    public init(schema: JSON, registry: SchemaRegistry = SchemaRegistry(), baseURI: String? = nil, options: Options = Options()) throws {
        self.options = options
        compiler = SchemaCompiler(registry: registry)
        let base = URIReference(baseURI ?? Self.defaultBaseURI).withoutFragment.string
        root = try compiler.compileDocument(schema, uri: base)
        try compiler.resolveAll()
        fast = FastNode.compile(root, formatAssertion: options.formatAssertion)
    }

    /// Every error (empty when the instance is valid).
    public func validate(_ instance: JSON) -> [ValidationError] {
        if let f = fast, f.check(instance) { return [] }
        let e = Evaluator(options: options, compiler: compiler, collectErrors: true)
        _ = e.eval(root, instance, collect: false)
        return e.errors
    }

    /// Faster when only the verdict matters: stops at the first failure.
    public func isValid(_ instance: JSON) -> Bool {
        if let f = fast, f.check(instance) { return true }
        let e = Evaluator(options: options, compiler: compiler, collectErrors: false)
        return e.eval(root, instance, collect: false).valid
    }

    /// The verdict on JSON text (UTF-8): checked from the bytes in one pass when the schema has the fast path, else
    /// parsed and evaluated. Text that is not one well-formed JSON value is invalid.
    public func isValid(text: Span<UInt8>) -> Bool {
        if let f = fast, f.check(text: text) { return true }
        guard let v = try? JSONReader.parse(text) else { return false }
        return isValid(v)
    }

    /// `isValid(text:)` on text in an array.
    public func isValid(text: [UInt8]) -> Bool {
        let all = text[...]   // (`ArraySlice.span` reaches back to macOS 13; `Array.span` needs macOS 26)
        return isValid(text: all.span)
    }

    /// Every error of JSON text; text that does not parse throws the reader's error (with line and column).
    public func validate(text: Span<UInt8>) throws -> [ValidationError] {
        if let f = fast, f.check(text: text) { return [] }
        return validate(try JSONReader.parse(text))
    }

    /// `validate(text:)` on text in an array.
    public func validate(text: [UInt8]) throws -> [ValidationError] {
        let all = text[...]
        return try validate(text: all.span)
    }

    /// Replaced by `isValid(text:)` taking a `Span<UInt8>` or `[UInt8]`; kept until the callers in Generator have moved.
    public func isValid(text: UnsafeRawBufferPointer) -> Bool {
        if let f = fast, f.check(text: text) { return true }
        guard let v = try? JSONReader.read(text.assumingMemoryBound(to: UInt8.self)) else { return false }
        return isValid(v)
    }

    /// Replaced by `validate(text:)` taking a `Span<UInt8>` or `[UInt8]`; kept until the callers in Generator have moved.
    public func validate(text: UnsafeRawBufferPointer) throws -> [ValidationError] {
        if let f = fast, f.check(text: text) { return [] }
        return validate(try JSONReader.read(text.assumingMemoryBound(to: UInt8.self)))
    }
}

/// A compiled schema (or boolean schema).
final class SchemaNode {
    var boolean: Bool?
    var base = ""
    var validation = true   // the validation vocabulary is on for this schema
    var dynamicAnchor: String?

    var types: [String]?
    /// `types` as bits, so the per-value type check compares no strings.
    var typeMask: TypeMask?
    var enumValues: [JSON]?
    var constValue: JSON?
    var hasConst = false
    var multipleOf: JSONNumber?
    var maximum: JSONNumber?, exclusiveMaximum: JSONNumber?, minimum: JSONNumber?, exclusiveMinimum: JSONNumber?
    var maxLength: Int?, minLength: Int?
    var pattern: NSRegularExpression?, patternSource = ""
    var maxItems: Int?, minItems: Int?, uniqueItems = false, maxContains: Int?, minContains: Int?
    var maxProperties: Int?, minProperties: Int?
    var required: [String] = []
    var dependentRequired: [(String, [String])] = []
    var format: String?

    var properties: [String: SchemaNode] = [:]
    var propertyOrder: [String] = []
    /// `properties` as a list when there are few: comparing a handful of short keys is cheaper than hashing one.
    var propertyList: [(String, SchemaNode)]? = []
    var patternProperties: [(NSRegularExpression, String, SchemaNode)] = []
    var additionalProperties: SchemaNode?
    var propertyNames: SchemaNode?
    var dependentSchemas: [(String, SchemaNode)] = []
    var prefixItems: [SchemaNode] = []
    var items: SchemaNode?
    var contains: SchemaNode?
    var allOf: [SchemaNode] = [], anyOf: [SchemaNode] = [], oneOf: [SchemaNode] = []
    var not: SchemaNode?
    var ifSchema: SchemaNode?, thenSchema: SchemaNode?, elseSchema: SchemaNode?
    var unevaluatedProperties: SchemaNode?, unevaluatedItems: SchemaNode?

    var ref: String?
    var refTarget: SchemaNode?
    var dynamicRef: String?
    var dynamicRefTarget: SchemaNode?
    /// The fragment of `$dynamicRef` when it names an anchor.
    var dynamicRefName: String?

    var needsAnnotations: Bool { unevaluatedProperties != nil || unevaluatedItems != nil }
}

/// A set of JSON types as bits ("integer" is its own bit; a number that is a whole number matches it).
struct TypeMask {
    var bits: UInt8
    static let null: UInt8 = 1, boolean: UInt8 = 2, string: UInt8 = 4, array: UInt8 = 8, object: UInt8 = 16, number: UInt8 = 32, integer: UInt8 = 64

    init(_ names: [String]) {
        bits = 0
        for n in names {
            switch n {
            case "null": bits |= Self.null
            case "boolean": bits |= Self.boolean
            case "string": bits |= Self.string
            case "array": bits |= Self.array
            case "object": bits |= Self.object
            case "number": bits |= Self.number
            case "integer": bits |= Self.integer
            default: break
            }
        }
    }

    func matches(_ v: JSON) -> Bool {
        switch v {
        case .null: return bits & Self.null != 0
        case .bool: return bits & Self.boolean != 0
        case .string: return bits & Self.string != 0
        case .array: return bits & Self.array != 0
        case .object: return bits & Self.object != 0
        case .number(let n): return bits & Self.number != 0 || (bits & Self.integer != 0 && n.isInteger)
        }
    }
}

/// What a valid subschema evaluated, for `unevaluatedProperties` / `unevaluatedItems`.
struct Annotations {
    var props: Set<String> = []
    var allProps = false
    var itemsPrefix = 0
    var allItems = false
    var itemIndices: Set<Int> = []

    mutating func merge(_ o: Annotations) {
        if o.allProps { allProps = true } else if !allProps { props.formUnion(o.props) }
        itemsPrefix = max(itemsPrefix, o.itemsPrefix)
        if o.allItems { allItems = true }
        itemIndices.formUnion(o.itemIndices)
    }
    func hasItem(_ i: Int) -> Bool { allItems || i < itemsPrefix || itemIndices.contains(i) }
    func hasProp(_ k: String) -> Bool { allProps || props.contains(k) }
}

final class Evaluator {
    let options: Options
    let compiler: SchemaCompiler
    var errors: [ValidationError] = []
    var recording: Bool
    let collectErrors: Bool
    var keywordPath: [String] = []
    var instancePath: [String] = []
    var scope: [String] = []
    typealias Options = JSONSchemaValidator.Options

    init(options: Options, compiler: SchemaCompiler, collectErrors: Bool) {
        self.options = options; self.compiler = compiler; self.collectErrors = collectErrors; self.recording = collectErrors
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    func fail(_ keyword: String, _ message: @autoclosure () -> String) {
        guard recording else { return }
        let comps = keyword.isEmpty ? keywordPath : keywordPath + [keyword]
        errors.append(ValidationError(instanceLocation: instancePath.isEmpty ? "" : "/" + instancePath.map(Self.escape).joined(separator: "/"),
                                      keywordLocation: comps.isEmpty ? "" : "/" + comps.map(Self.escape).joined(separator: "/"), message: message()))
    }

    /// Evaluates without recording errors (a branch whose failure may be fine); returns the errors it would have made.
    func quietly<T>(_ body: () -> T) -> (T, [ValidationError]) {
        let saved = errors, wasRecording = recording
        errors = []
        let r = body()
        let produced = errors
        errors = saved
        recording = wasRecording
        return (r, produced)
    }

    func child(_ keyword: [String], _ node: SchemaNode, _ inst: JSON, instanceKey: String? = nil, collect: Bool) -> (valid: Bool, ann: Annotations) {
        // Locations are only needed for error messages.
        guard recording else { return eval(node, inst, collect: collect) }
        keywordPath += keyword
        if let k = instanceKey { instancePath.append(k) }
        let r = eval(node, inst, collect: collect)
        if instanceKey != nil { instancePath.removeLast() }
        keywordPath.removeLast(keyword.count)
        return r
    }

    /// What an evaluation has found so far: its verdict and, when annotations are collected, what its valid
    /// subschemas evaluated. Each step of `eval` adds to it.
    struct Outcome {
        let collect: Bool
        var valid = true
        var ann = Annotations()

        /// A subschema's result, applied in place: its failure fails this schema, its annotations are this one's.
        mutating func apply(_ r: (valid: Bool, ann: Annotations)) {
            if !r.valid { valid = false } else if collect { ann.merge(r.ann) }
        }
    }

    /// Whether evaluation goes on after a step: a failure ends it unless every error is wanted.
    @inline(__always) private func goesOn(_ o: Outcome) -> Bool { o.valid || collectErrors }

    func eval(_ n: SchemaNode, _ inst: JSON, collect: Bool) -> (valid: Bool, ann: Annotations) {
        if let b = n.boolean {
            if !b { fail("", "no value is allowed here (false schema)") }
            // A boolean schema evaluates no keyword, so it produces no annotations.
            return (b, Annotations())
        }
        let pushed = scope.last != n.base
        if pushed { scope.append(n.base) }
        defer { if pushed { scope.removeLast() } }

        var o = Outcome(collect: collect || n.needsAnnotations)
        guard references(n, inst, &o), assertions(n, inst, &o), combinations(n, inst, &o), conditional(n, inst, &o) else {
            return (false, o.ann)
        }
        switch inst {
        case .object(let obj):
            if !evalObject(n, obj, collect: o.collect, ann: &o.ann) { o.valid = false }
        case .array(let a):
            if !evalArray(n, a, collect: o.collect, ann: &o.ann) { o.valid = false }
        default: break
        }
        return (o.valid, o.valid ? o.ann : Annotations())
    }

    /// `$ref` and `$dynamicRef`, applied in place. False when evaluation stops here.
    private func references(_ n: SchemaNode, _ inst: JSON, _ o: inout Outcome) -> Bool {
        if let t = n.refTarget {
            o.apply(child(["$ref"], t, inst, collect: o.collect))
            if !goesOn(o) { return false }
        }
        if n.dynamicRef != nil, let t = resolveDynamic(n) {
            o.apply(child(["$dynamicRef"], t, inst, collect: o.collect))
            if !goesOn(o) { return false }
        }
        return true
    }

    /// The validation keywords (when the vocabulary is on) and an asserted `format`. False when evaluation stops here.
    private func assertions(_ n: SchemaNode, _ inst: JSON, _ o: inout Outcome) -> Bool {
        if n.validation {
            if !checkValidation(n, inst) { o.valid = false }
            if !goesOn(o) { return false }
        }
        if let f = n.format, options.formatAssertion, case .string(let s) = inst, !Formats.check(f, s) {
            fail("format", "\"\(s.prefix(60))\" is not a valid \(f)"); o.valid = false
        }
        return true
    }

    /// The in-place applicators `allOf`, `anyOf`, `oneOf` and `not`. False when evaluation stops here.
    private func combinations(_ n: SchemaNode, _ inst: JSON, _ o: inout Outcome) -> Bool {
        for (i, s) in n.allOf.enumerated() {
            o.apply(child(["allOf", String(i)], s, inst, collect: o.collect))
            if !goesOn(o) { return false }
        }
        if !n.anyOf.isEmpty {
            anyOf(n, inst, &o)
            if !goesOn(o) { return false }
        }
        if !n.oneOf.isEmpty {
            oneOf(n, inst, &o)
            if !goesOn(o) { return false }
        }
        if let s = n.not {
            let (r, _) = quietly { child(["not"], s, inst, collect: false) }
            if r.valid { fail("not", "must not match the \"not\" schema"); o.valid = false }
            if !goesOn(o) { return false }
        }
        return true
    }

    /// `anyOf`: one branch must match; the branches' errors are reported only when none does.
    private func anyOf(_ n: SchemaNode, _ inst: JSON, _ o: inout Outcome) {
        let collect = o.collect
        var any = false
        var sub: [ValidationError] = []
        for (i, s) in n.anyOf.enumerated() {
            let (r, e) = quietly { child(["anyOf", String(i)], s, inst, collect: collect) }
            if r.valid { any = true; if collect { o.ann.merge(r.ann) } else { break } } else { sub += e }
        }
        if !any { fail("anyOf", "matches none of the anyOf schemas"); if recording { errors += sub }; o.valid = false }
    }

    /// `oneOf`: exactly one branch must match.
    private func oneOf(_ n: SchemaNode, _ inst: JSON, _ o: inout Outcome) {
        let collect = o.collect
        var matched: [Int] = []
        var sub: [ValidationError] = []
        var oneAnn = Annotations()
        for (i, s) in n.oneOf.enumerated() {
            let (r, e) = quietly { child(["oneOf", String(i)], s, inst, collect: collect) }
            if r.valid { matched.append(i); oneAnn.merge(r.ann) } else { sub += e }
            if matched.count > 1 && !collectErrors { break }
        }
        if matched.count != 1 {
            fail("oneOf", matched.isEmpty ? "matches none of the oneOf schemas" : "matches more than one oneOf schema (\(matched.map(String.init).joined(separator: ", ")))")
            if recording && matched.isEmpty { errors += sub }
            o.valid = false
        } else if collect { o.ann.merge(oneAnn) }
    }

    /// `if`, `then` and `else`. False when evaluation stops here.
    private func conditional(_ n: SchemaNode, _ inst: JSON, _ o: inout Outcome) -> Bool {
        guard let s = n.ifSchema else { return true }
        let collect = o.collect
        let (r, _) = quietly { child(["if"], s, inst, collect: collect) }
        if r.valid {
            if collect { o.ann.merge(r.ann) }
            if let t = n.thenSchema { o.apply(child(["then"], t, inst, collect: collect)) }
        } else if let e = n.elseSchema {
            o.apply(child(["else"], e, inst, collect: collect))
        }
        return goesOn(o)
    }

    func resolveDynamic(_ n: SchemaNode) -> SchemaNode? {
        guard let initial = n.dynamicRefTarget else { return nil }
        // Only a $dynamicRef whose static target is a $dynamicAnchor of that name is dynamic.
        guard let name = n.dynamicRefName, initial.dynamicAnchor == name else { return initial }
        for base in scope { if let t = compiler.dynamicAnchors[base]?[name] { return t } }
        return initial
    }

    func checkValidation(_ n: SchemaNode, _ inst: JSON) -> Bool {
        var ok = true
        if let mask = n.typeMask, !mask.matches(inst) {
            fail("type", "expected \((n.types ?? []).joined(separator: " or ")), found \(inst.typeName)"); ok = false
            if !collectErrors { return false }
        }
        if let e = n.enumValues, !e.contains(inst) { fail("enum", "must be one of the enumerated values"); ok = false }
        if n.hasConst, let c = n.constValue, c != inst { fail("const", "must equal the constant value"); ok = false }
        switch inst {
        case .number(let x):
            if let m = n.multipleOf, !Self.isMultiple(x, of: m) { fail("multipleOf", "\(x) is not a multiple of \(m)"); ok = false }
            if let m = n.maximum, m < x { fail("maximum", "\(x) is greater than \(m)"); ok = false }
            if let m = n.exclusiveMaximum, !(x < m) { fail("exclusiveMaximum", "\(x) is not less than \(m)"); ok = false }
            if let m = n.minimum, x < m { fail("minimum", "\(x) is less than \(m)"); ok = false }
            if let m = n.exclusiveMinimum, !(m < x) { fail("exclusiveMinimum", "\(x) is not greater than \(m)"); ok = false }
        case .string(let s):
            // Lengths count code points; UTF-8 bytes bound them (1 to 4 bytes each), which settles most checks
            // without counting.
            let bytes = s.utf8.count
            if (n.maxLength.map { bytes > $0 } ?? false) || (n.minLength.map { (bytes + 3) / 4 < $0 } ?? false) {
                let len = s.unicodeScalars.count
                if let m = n.maxLength, len > m { fail("maxLength", "is \(len) characters long, more than \(m)"); ok = false }
                if let m = n.minLength, len < m { fail("minLength", "is \(len) characters long, less than \(m)"); ok = false }
            }
            if let r = n.pattern, r.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) == nil {
                fail("pattern", "\"\(s.prefix(60))\" does not match the pattern \(n.patternSource)"); ok = false
            }
        case .array(let a):
            if let m = n.maxItems, a.count > m { fail("maxItems", "has \(a.count) items, more than \(m)"); ok = false }
            if let m = n.minItems, a.count < m { fail("minItems", "has \(a.count) items, fewer than \(m)"); ok = false }
            if n.uniqueItems && a.count > 1 {
                outer: for i in 0..<a.count { for j in (i + 1)..<a.count where a[i] == a[j] { fail("uniqueItems", "items \(i) and \(j) are equal"); ok = false; break outer } }
            }
        case .object(let o):
            if let m = n.maxProperties, o.count > m { fail("maxProperties", "has \(o.count) properties, more than \(m)"); ok = false }
            if let m = n.minProperties, o.count < m { fail("minProperties", "has \(o.count) properties, fewer than \(m)"); ok = false }
            for r in n.required where o[r] == nil { fail("required", "the required property \"\(r)\" is missing"); ok = false }
            if !n.dependentRequired.isEmpty {
                let keys = Set(o.keys)
                for (k, deps) in n.dependentRequired where keys.contains(k) {
                    for d in deps where !keys.contains(d) { fail("dependentRequired", "\"\(d)\" is required when \"\(k)\" is present"); ok = false }
                }
            }
        default: break
        }
        return ok
    }

    static func isMultiple(_ x: JSONNumber, of m: JSONNumber) -> Bool {
        let dx = x.decimal, dm = m.decimal
        if !dx.isNaN, !dm.isNaN, dm != 0, dx.exponent > -60, dx.exponent < 60 {
            var q = dx / dm, r = Decimal()
            if !q.isNaN && q.isFinite {
                NSDecimalRound(&r, &q, 0, .plain)
                return r == q
            }
        }
        // Beyond Decimal's range: an integer is a multiple of any m whose inverse is an integer (0.5, 0.25, …).
        if x.isInteger, m.double > 0, m.double <= 1, (1 / m.double).rounded() == 1 / m.double { return true }
        let q = x.double / m.double
        return q.isFinite && q == q.rounded()
    }

    func evalObject(_ n: SchemaNode, _ o: JSONObject, collect: Bool, ann: inout Annotations) -> Bool {
        var ok = true
        var evaluated = Set<String>()
        let needSet = collect || n.unevaluatedProperties != nil
        for m in o.members {
            var matched = false
            if let s = n.propertyList.map({ $0.first(where: { $0.0 == m.key })?.1 }) ?? n.properties[m.key] {
                matched = true
                if !child(["properties", m.key], s, m.value, instanceKey: m.key, collect: false).valid { ok = false; if !collectErrors { return false } }
            }
            for (r, src, s) in n.patternProperties where r.firstMatch(in: m.key, range: NSRange(m.key.startIndex..., in: m.key)) != nil {
                matched = true
                if !child(["patternProperties", src], s, m.value, instanceKey: m.key, collect: false).valid { ok = false; if !collectErrors { return false } }
            }
            if matched { if needSet { evaluated.insert(m.key) } }
            else if let s = n.additionalProperties {
                if !child(["additionalProperties"], s, m.value, instanceKey: m.key, collect: false).valid { ok = false; if !collectErrors { return false } }
                if needSet { evaluated.insert(m.key) }
            }
            if let s = n.propertyNames {
                if !child(["propertyNames"], s, .string(m.key), instanceKey: m.key, collect: false).valid { ok = false; if !collectErrors { return false } }
            }
        }
        for (k, s) in n.dependentSchemas where o[k] != nil {
            let r = child(["dependentSchemas", k], s, .object(o), collect: collect)
            if !r.valid { ok = false; if !collectErrors { return false } } else if collect { ann.merge(r.ann) }
        }
        if collect || n.unevaluatedProperties != nil { ann.props.formUnion(evaluated) }
        if let u = n.unevaluatedProperties {
            for m in o.members where !ann.hasProp(m.key) {
                if !child(["unevaluatedProperties"], u, m.value, instanceKey: m.key, collect: false).valid { ok = false; if !collectErrors { return false } }
                ann.props.insert(m.key)
            }
        }
        return ok
    }

    func evalArray(_ n: SchemaNode, _ a: [JSON], collect: Bool, ann: inout Annotations) -> Bool {
        var ok = true
        for (i, s) in n.prefixItems.enumerated() where i < a.count {
            if !child(["prefixItems", String(i)], s, a[i], instanceKey: String(i), collect: false).valid { ok = false; if !collectErrors { return false } }
        }
        ann.itemsPrefix = max(ann.itemsPrefix, min(n.prefixItems.count, a.count))
        if let s = n.items {
            for i in n.prefixItems.count..<max(n.prefixItems.count, a.count) {
                if !child(["items"], s, a[i], instanceKey: String(i), collect: false).valid { ok = false; if !collectErrors { return false } }
            }
            ann.allItems = true
        }
        if let c = n.contains {
            var matches = 0
            for (i, v) in a.enumerated() {
                let (r, _) = quietly { child(["contains"], c, v, instanceKey: String(i), collect: false) }
                if r.valid { matches += 1; ann.itemIndices.insert(i) }
            }
            let minC = n.validation ? (n.minContains ?? 1) : 1
            if matches < minC {
                fail(n.minContains != nil ? "minContains" : "contains", "contains \(matches) matching item(s), fewer than \(minC)"); ok = false
            }
            if n.validation, let maxC = n.maxContains, matches > maxC { fail("maxContains", "contains \(matches) matching items, more than \(maxC)"); ok = false }
            if !ok && !collectErrors { return false }
        }
        if let u = n.unevaluatedItems {
            for (i, v) in a.enumerated() where !ann.hasItem(i) {
                if !child(["unevaluatedItems"], u, v, instanceKey: String(i), collect: false).valid { ok = false; if !collectErrors { return false } }
            }
            ann.allItems = true
        }
        return ok
    }
}
