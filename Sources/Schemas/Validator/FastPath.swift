import Foundation
import LowLevel

/// A fast verdict for schemas made only of the common keywords (type, enum, const, numeric and length bounds,
/// pattern, properties / required / additionalProperties / propertyNames, items and item counts, allOf, anyOf, `$ref`): the shapes
/// an API's own output schemas use. It checks a value in one walk with no annotations, error paths or scope
/// tracking, which the general evaluator needs only for the other keywords and for error reports.
///
/// It is one-sided by design: `true` means valid; `false` means "ask the general evaluator", which then gives the
/// verdict and the errors. A schema that uses any other keyword (or a boolean `false` in a place the walk cannot
/// settle) gets no fast path at all. The official suite checks that a `true` is never wrong.
final class FastNode {
    // Every field is a `let`: a class's stored `var`s are checked for exclusive access at run time on each read, and
    // the walks read a dozen fields per value.
    let typeMask: TypeMask?
    let enumValues: [JSON]?
    let constValue: JSON?
    let minimum: JSONNumber?, maximum: JSONNumber?, exclusiveMinimum: JSONNumber?, exclusiveMaximum: JSONNumber?
    let minLength: Int?, maxLength: Int?
    /// The pattern, with its verdicts of short strings seen before: pages repeat the same category paths and
    /// currency codes, and ICU's matcher costs microseconds a call.
    let pattern: (regex: NSRegularExpression, memo: PatternMemo)?
    /// The pattern's own matcher when it is one of the `KnownPatterns` (then `pattern` is not consulted).
    let nativePattern: KnownPatterns.Matcher?
    let minItems: Int?, maxItems: Int?
    let items: FastNode?
    let minProperties: Int?, maxProperties: Int?
    /// Declared properties in schema order (keys, their schemas, and a bit for each required one), as parallel
    /// arrays: the walk reads them per member and must not copy tuples.
    let propertyKeys: [String]
    let propertyNodes: [FastNode]
    let propertyBits: [UInt64]
    let propertyIndex: [String: Int]?
    let requiredMask: UInt64
    let otherRequired: [(String, UInt64)]
    /// nil: any other member is allowed; otherwise each other member must match it.
    let additional: FastNode?
    /// Every member name must match it.
    let propertyNames: FastNode?
    let allOf: [FastNode]
    let anyOf: [FastNode]
    /// The `$ref` target, through a box: a target may be an ancestor still being compiled.
    let ref: Target?
    let alwaysFalse: Bool
    let hasObjectKeywords: Bool
    /// Keywords the text walk leaves to the value walk for containers (and to `checkScalar` for scalars).
    let combines: Bool
    /// Whether every non-negative integer passes it (no keyword it has can refuse one): an array of them, written as
    /// plain digits, is read with no per-number check (a ranked index's postings are millions of them).
    let passesCounts: Bool

    final class Target { var node: FastNode? }

    /// The children again, for the text walk (see `Unretained` in `TextCheck.swift`).
    let unretained: Unretained

    deinit { unretained.deallocate() }

    /// A boolean schema.
    private init(always value: Bool) {
        alwaysFalse = !value
        typeMask = nil; enumValues = nil; constValue = JSON?.none; minimum = nil; maximum = nil; exclusiveMinimum = nil
        exclusiveMaximum = nil; minLength = nil; maxLength = nil; pattern = nil; nativePattern = nil; minItems = nil; maxItems = nil; items = nil
        minProperties = nil; maxProperties = nil; propertyKeys = []; propertyNodes = []
        propertyBits = []; propertyIndex = nil; requiredMask = 0; otherRequired = []; additional = nil; propertyNames = nil
        allOf = []; anyOf = []; ref = nil; hasObjectKeywords = false; combines = !value; passesCounts = value
        unretained = Unretained(items: nil, additional: nil, propertyNames: nil, properties: [], allOf: [], anyOf: [])
    }

    private init(_ n: SchemaNode, ref: Target?, items: FastNode?, properties: [(String, FastNode)], additional: FastNode?,
                 propertyNames: FastNode?, allOf: [FastNode], anyOf: [FastNode]) {
        alwaysFalse = false
        self.ref = ref
        typeMask = n.typeMask
        enumValues = n.enumValues
        constValue = n.hasConst ? .some(n.constValue ?? .null) : JSON?.none   // (JSON takes a nil literal as null)
        minimum = n.minimum; maximum = n.maximum
        exclusiveMinimum = n.exclusiveMinimum; exclusiveMaximum = n.exclusiveMaximum
        minLength = n.minLength; maxLength = n.maxLength
        pattern = n.pattern.map { ($0, PatternMemo()) }
        nativePattern = n.pattern == nil ? nil : KnownPatterns.matcher(for: n.patternSource)
        minItems = n.minItems; maxItems = n.maxItems
        minProperties = n.minProperties; maxProperties = n.maxProperties
        self.items = items
        propertyKeys = properties.map(\.0)
        propertyNodes = properties.map(\.1)
        let bits: [UInt64] = properties.map { k, _ in n.required.firstIndex(of: k).map { 1 << UInt64($0) } ?? 0 }
        propertyBits = bits
        var mask = bits.reduce(0, |)
        // Required names without a schema of their own (their values fall to additionalProperties).
        var other: [(String, UInt64)] = []
        for (i, k) in n.required.enumerated() where n.properties[k] == nil && !other.contains(where: { $0.0 == k }) {
            other.append((k, 1 << UInt64(i)))
            mask |= 1 << UInt64(i)
        }
        otherRequired = other
        requiredMask = mask
        propertyIndex = properties.count > 12
            ? Dictionary(properties.enumerated().map { ($1.0, $0) }, uniquingKeysWith: { a, _ in a }) : nil
        self.additional = additional
        self.propertyNames = propertyNames
        self.allOf = allOf
        self.anyOf = anyOf
        hasObjectKeywords = !properties.isEmpty || additional != nil || propertyNames != nil || n.minProperties != nil || n.maxProperties != nil
        combines = ref != nil || !allOf.isEmpty || !anyOf.isEmpty || enumValues != nil || constValue != nil
        passesCounts = !combines && n.typeMask.map { $0.bits & (TypeMask.integer | TypeMask.number) != 0 } ?? true
            && n.minimum.map { $0 <= JSONNumber(0) } ?? true && n.exclusiveMinimum.map { $0 < JSONNumber(0) } ?? true
            && n.maximum == nil && n.exclusiveMaximum == nil
        unretained = Unretained(items: items, additional: additional, propertyNames: propertyNames, properties: properties,
                                allOf: allOf, anyOf: anyOf)
    }

    /// Compiles `root`, or nil when a keyword outside the subset appears anywhere below it.
    static func compile(_ root: SchemaNode, formatAssertion: Bool) -> FastNode? {
        var done: [ObjectIdentifier: FastNode] = [:]
        var targets: [ObjectIdentifier: Target] = [:]
        var building: Set<ObjectIdentifier> = []
        func build(_ n: SchemaNode) -> FastNode? {
            let id = ObjectIdentifier(n)
            if let f = done[id] { return f }
            if let b = n.boolean { let f = FastNode(always: b); done[id] = f; return f }
            guard n.validation, n.dynamicRef == nil, !(formatAssertion && n.format != nil),
                  n.multipleOf == nil, !n.uniqueItems, n.contains == nil, n.prefixItems.isEmpty,
                  n.patternProperties.isEmpty, n.dependentSchemas.isEmpty, n.dependentRequired.isEmpty,
                  n.oneOf.isEmpty, n.not == nil, n.ifSchema == nil, n.thenSchema == nil, n.elseSchema == nil,
                  n.unevaluatedItems == nil, n.unevaluatedProperties == nil, n.required.count <= 64 else { return nil }
            // Children other than `$ref` targets form a tree below a node; cycles pass through `$ref` only.
            guard !building.contains(id) else { return nil }
            building.insert(id)
            defer { building.remove(id) }
            var ref: Target?
            if let t = n.refTarget {
                let tid = ObjectIdentifier(t)
                if let box = targets[tid] { ref = box }
                else {
                    let box = Target()
                    targets[tid] = box
                    ref = box
                    if !building.contains(tid) { guard let r = build(t) else { return nil }; box.node = r }
                }
            }
            var items: FastNode?
            if let s = n.items { guard let i = build(s) else { return nil }; items = i }
            let keys = n.propertyOrder.isEmpty ? n.properties.keys.sorted() : n.propertyOrder
            guard Set(keys) == Set(n.properties.keys) else { return nil }
            var properties: [(String, FastNode)] = []
            for k in keys { guard let c = build(n.properties[k]!) else { return nil }; properties.append((k, c)) }
            var additional: FastNode?, names: FastNode?
            if let a = n.additionalProperties { guard let c = build(a) else { return nil }; additional = c }
            if let a = n.propertyNames { guard let c = build(a) else { return nil }; names = c }
            var allOf: [FastNode] = [], anyOf: [FastNode] = []
            for s in n.allOf { guard let c = build(s) else { return nil }; allOf.append(c) }
            for s in n.anyOf { guard let c = build(s) else { return nil }; anyOf.append(c) }
            let f = FastNode(n, ref: ref, items: items, properties: properties, additional: additional, propertyNames: names,
                             allOf: allOf, anyOf: anyOf)
            done[id] = f
            targets[id]?.node = f   // a `$ref` to this node from below it
            return f
        }
        guard let root = build(root) else { return nil }
        // Every `$ref` target was compiled (a target that failed would have failed its referrer).
        guard targets.values.allSatisfy({ $0.node != nil }) else { return nil }
        return root
    }

    /// True only when the value is valid.
    func check(_ v: JSON) -> Bool {
        if alwaysFalse { return false }
        if let r = ref, !r.node!.check(v) { return false }
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
            if let native = nativePattern {
                var s = s
                if !s.withUTF8(native) { return false }
            } else if let p = pattern, !p.memo.matches(s, p.regex) { return false }
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
final class PatternMemo: Sendable {
    private let verdicts = Locked([String: Bool]())
    static let maxEntries = 4096, maxLength = 96

    func matches(_ s: String, _ r: NSRegularExpression) -> Bool {
        // ASCII only: Swift's String equality is canonical equivalence ("K" == "\u{212A}"), which a regex need not
        // honour; an ASCII string is only ever equal to itself among ASCII keys, and others never look here.
        let memoable = s.utf8.count <= Self.maxLength && s.utf8.allSatisfy { $0 < 0x80 }
        if memoable {
            if let known = verdicts.withLock({ $0[s] }) { return known }
        }
        let ok = r.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil
        if memoable {
            verdicts.withLock { if $0.count < Self.maxEntries { $0[s] = ok } }
        }
        return ok
    }
}
