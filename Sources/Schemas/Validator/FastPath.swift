import Foundation

/// A fast verdict for schemas made only of the common keywords (type, enum, const, numeric and length bounds,
/// pattern, properties / required / additionalProperties / propertyNames, items and item counts, allOf, anyOf, `$ref`): the shapes
/// an API's own output schemas use. It checks a value in one walk with no annotations, error paths or scope
/// tracking, which the general evaluator needs only for the other keywords and for error reports.
///
/// It is one-sided by design: `true` means valid; `false` means "ask the general evaluator", which then gives the
/// verdict and the errors. A schema that uses any other keyword (or a boolean `false` in a place the walk cannot
/// settle) gets no fast path at all. The official suite checks that a `true` is never wrong.
final class FastNode {
    var typeMask: TypeMask?
    var enumValues: [JSON]?
    var constValue: JSON?
    var minimum: JSONNumber?, maximum: JSONNumber?, exclusiveMinimum: JSONNumber?, exclusiveMaximum: JSONNumber?
    var minLength: Int?, maxLength: Int?
    /// The pattern, with its verdicts of short strings seen before: pages repeat the same category paths and
    /// currency codes, and ICU's matcher costs microseconds a call.
    var pattern: (regex: NSRegularExpression, memo: PatternMemo)?
    var minItems: Int?, maxItems: Int?
    var items: FastNode?
    var minProperties: Int?, maxProperties: Int?
    /// Declared properties in schema order (keys, their schemas, and a bit for each required one), as three arrays:
    /// the walk reads them per member and must not copy tuples.
    var propertyKeys: [String] = []
    /// The same names as UTF-8, for the text walk (`TextCheck.swift`) to compare member names without making strings.
    var propertyKeyBytes: [[UInt8]] = []
    var propertyNodes: [FastNode] = []
    var propertyBits: [UInt64] = []
    var propertyIndex: [String: Int]?
    var requiredMask: UInt64 = 0
    var otherRequired: [(String, UInt64)] = []
    /// nil: any other member is allowed; otherwise each other member must match it.
    var additional: FastNode?
    /// Every member name must match it.
    var propertyNames: FastNode?
    var allOf: [FastNode] = []
    var anyOf: [FastNode] = []
    var ref: FastNode?
    var alwaysFalse = false
    var hasObjectKeywords = false

    /// Compiles `root`, or nil when a keyword outside the subset appears anywhere below it.
    static func compile(_ root: SchemaNode, formatAssertion: Bool) -> FastNode? {
        var memo: [ObjectIdentifier: FastNode] = [:]
        func build(_ n: SchemaNode) -> FastNode? {
            if let done = memo[ObjectIdentifier(n)] { return done }
            let f = FastNode()
            memo[ObjectIdentifier(n)] = f   // before the children: `$ref` cycles end here
            if let b = n.boolean { f.alwaysFalse = !b; return f }
            guard n.validation, n.dynamicRef == nil, !(formatAssertion && n.format != nil),
                  n.multipleOf == nil, !n.uniqueItems, n.contains == nil, n.prefixItems.isEmpty,
                  n.patternProperties.isEmpty, n.dependentSchemas.isEmpty, n.dependentRequired.isEmpty,
                  n.oneOf.isEmpty, n.not == nil, n.ifSchema == nil, n.thenSchema == nil, n.elseSchema == nil,
                  n.unevaluatedItems == nil, n.unevaluatedProperties == nil, n.required.count <= 64 else { return nil }
            if let t = n.refTarget { guard let r = build(t) else { return nil }; f.ref = r }
            f.typeMask = n.typeMask
            f.enumValues = n.enumValues
            if n.hasConst { f.constValue = n.constValue ?? .null }
            f.minimum = n.minimum; f.maximum = n.maximum
            f.exclusiveMinimum = n.exclusiveMinimum; f.exclusiveMaximum = n.exclusiveMaximum
            f.minLength = n.minLength; f.maxLength = n.maxLength
            f.pattern = n.pattern.map { ($0, PatternMemo()) }
            f.minItems = n.minItems; f.maxItems = n.maxItems
            f.minProperties = n.minProperties; f.maxProperties = n.maxProperties
            if let s = n.items { guard let i = build(s) else { return nil }; f.items = i }
            let keys = n.propertyOrder.isEmpty ? n.properties.keys.sorted() : n.propertyOrder
            guard Set(keys) == Set(n.properties.keys) else { return nil }
            for k in keys {
                guard let c = build(n.properties[k]!) else { return nil }
                let bit: UInt64 = n.required.firstIndex(of: k).map { 1 << UInt64($0) } ?? 0
                f.propertyKeys.append(k); f.propertyKeyBytes.append(Array(k.utf8)); f.propertyNodes.append(c); f.propertyBits.append(bit)
                f.requiredMask |= bit
            }
            // Required names without a schema of their own (their values fall to additionalProperties).
            for (i, k) in n.required.enumerated() where n.properties[k] == nil && !f.otherRequired.contains(where: { $0.0 == k }) {
                f.otherRequired.append((k, 1 << UInt64(i)))
                f.requiredMask |= 1 << UInt64(i)
            }
            if f.propertyKeys.count > 12 {
                f.propertyIndex = Dictionary(f.propertyKeys.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
            }
            if let a = n.additionalProperties { guard let c = build(a) else { return nil }; f.additional = c }
            if let a = n.propertyNames { guard let c = build(a) else { return nil }; f.propertyNames = c }
            for s in n.allOf { guard let c = build(s) else { return nil }; f.allOf.append(c) }
            for s in n.anyOf { guard let c = build(s) else { return nil }; f.anyOf.append(c) }
            f.hasObjectKeywords = !f.propertyKeys.isEmpty || f.additional != nil || f.propertyNames != nil || f.minProperties != nil || f.maxProperties != nil
            return f
        }
        return build(root)
    }

    /// True only when the value is valid.
    func check(_ v: JSON) -> Bool {
        if alwaysFalse { return false }
        if let r = ref, !r.check(v) { return false }
        if let t = typeMask, !t.matches(v) { return false }
        if let e = enumValues, !e.contains(v) { return false }
        if let c = constValue, c != v { return false }
        switch v {
        case .number(let x):
            if let m = minimum, x < m { return false }
            if let m = maximum, m < x { return false }
            if let m = exclusiveMinimum, !(m < x) { return false }
            if let m = exclusiveMaximum, !(x < m) { return false }
        case .string(let s):
            if minLength != nil || maxLength != nil {
                let bytes = s.utf8.count
                // UTF-8 bytes bound the code-point count (1 to 4 bytes each); count only when the bound is not enough.
                if (maxLength.map { bytes > $0 } ?? false) || (minLength.map { (bytes + 3) / 4 < $0 } ?? false) {
                    let len = s.unicodeScalars.count
                    if let m = maxLength, len > m { return false }
                    if let m = minLength, len < m { return false }
                }
            }
            if let p = pattern, !p.memo.matches(s, p.regex) { return false }
        case .array(let a):
            if let m = minItems, a.count < m { return false }
            if let m = maxItems, a.count > m { return false }
            if let i = items { for x in a where !i.check(x) { return false } }
        case .object(let o):
            if hasObjectKeywords || requiredMask != 0, !checkObject(o) { return false }
        default: break
        }
        for s in allOf where !s.check(v) { return false }
        if !anyOf.isEmpty, !anyOf.contains(where: { $0.check(v) }) { return false }
        return true
    }

    private func checkObject(_ o: JSONObject) -> Bool {
        if let m = minProperties, o.count < m { return false }
        if let m = maxProperties, o.count > m { return false }
        var seen: UInt64 = 0
        var next = 0   // members usually come in declared order: try the next declared property first
        let count = propertyKeys.count
        for m in o.members {
            if let p = propertyNames, !p.check(.string(m.key)) { return false }
            var found = -1
            if next < count, propertyKeys[next] == m.key { found = next }
            else if let idx = propertyIndex { found = idx[m.key] ?? -1 }
            else { for i in 0..<count where propertyKeys[i] == m.key { found = i; break } }
            if found >= 0 {
                let bit = propertyBits[found]
                // A repeated member would make the required count unreliable: let the evaluator decide.
                if bit != 0 && seen & bit != 0 { return false }
                seen |= bit
                if !propertyNodes[found].check(m.value) { return false }
                next = found + 1
            } else {
                if let a = additional, !a.check(m.value) { return false }
                for (k, bit) in otherRequired where k == m.key {
                    if seen & bit != 0 { return false }
                    seen |= bit
                }
            }
        }
        return seen == requiredMask
    }
}


/// A bounded, thread-safe memo of regex verdicts for short ASCII strings.
final class PatternMemo: @unchecked Sendable {
    private var verdicts: [String: Bool] = [:]
    private let lock = NSLock()
    static let maxEntries = 4096, maxLength = 96

    func matches(_ s: String, _ r: NSRegularExpression) -> Bool {
        // ASCII only: Swift's String equality is canonical equivalence ("K" == "\u{212A}"), which a regex need not
        // honour; an ASCII string is only ever equal to itself among ASCII keys, and others never look here.
        let memoable = s.utf8.count <= Self.maxLength && s.utf8.allSatisfy { $0 < 0x80 }
        if memoable {
            lock.lock()
            let known = verdicts[s]
            lock.unlock()
            if let known { return known }
        }
        let ok = r.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil
        if memoable {
            lock.lock()
            if verdicts.count < Self.maxEntries { verdicts[s] = ok }
            lock.unlock()
        }
        return ok
    }
}
