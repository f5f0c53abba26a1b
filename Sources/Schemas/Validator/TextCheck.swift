import Foundation

/// The fast path over JSON text: checks the bytes a writer produced, in one pass, without building a value.
/// Files written straight from typed models (100,000 product pages, a 90 MB search index) are checked this way,
/// so what is validated is exactly what is published.
///
/// Same contract as `FastNode.check(_:)`: `true` means the text is one well-formed JSON value (UTF-8, whitespace
/// around it allowed) and valid; `false` means "ask the general evaluator" (parse, then evaluate), which gives the
/// verdict and the errors. Values under `enum`, `const`, `$ref`, `allOf` or `anyOf` are parsed into `JSON` and
/// checked by the value walk; scalars under `anyOf` (the nullable fields) are checked from their bytes.
/// A repeated declared member is left to the evaluator (whose reader refuses it); repeated names among undeclared
/// members (a map's keys) are not looked for: the writers of this project fill maps from dictionaries.
extension FastNode {
    /// The verdict on the text (see above); the span is lent to the walk as a pointer once, here.
    func check(text: Span<UInt8>) -> Bool {
        text.withUnsafeBytes { check(text: $0) }
    }

    func check(text: UnsafeRawBufferPointer) -> Bool {
        guard let base = text.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
        var c = TextCursor(base: base, end: text.count)
        c.skipSpace()
        guard c.value(Unmanaged.passUnretained(self), depth: 0) else { return false }
        c.skipSpace()
        return c.i == c.end
    }

    /// The children again, unretained and in plain memory, for the text walk: reading a class reference out of an
    /// array or a field retains and releases it, and on a 100,000-product build that cost the walk about as much as its
    /// checks. The node's strong references keep every child alive as long as the node, which deallocates these
    /// buffers. (Arrays here instead of buffers, with the names compared a byte at a time: +2.0 % instructions on a
    /// 20,000-product build, most of it retains and releases of the arrays at each member name looked up.)
    struct Unretained {
        let items: Unmanaged<FastNode>?
        let additional: Unmanaged<FastNode>?
        let propertyNames: Unmanaged<FastNode>?
        let properties: UnsafeMutableBufferPointer<Unmanaged<FastNode>>
        let allOf: UnsafeMutableBufferPointer<Unmanaged<FastNode>>
        let anyOf: UnsafeMutableBufferPointer<Unmanaged<FastNode>>
        /// Declared property names as UTF-8, back to back: name k is `keyBytes[keyStarts[k]..<keyStarts[k + 1]]`.
        let keyBytes: UnsafeMutableBufferPointer<UInt8>
        let keyStarts: UnsafeMutableBufferPointer<Int>

        init(items: FastNode?, additional: FastNode?, propertyNames: FastNode?, properties: [(String, FastNode)],
             allOf: [FastNode], anyOf: [FastNode]) {
            func buffer<T>(_ a: [T]) -> UnsafeMutableBufferPointer<T> {
                let b = UnsafeMutableBufferPointer<T>.allocate(capacity: a.count)
                _ = b.initialize(from: a)
                return b
            }
            self.items = items.map(Unmanaged.passUnretained)
            self.additional = additional.map(Unmanaged.passUnretained)
            self.propertyNames = propertyNames.map(Unmanaged.passUnretained)
            self.properties = buffer(properties.map { Unmanaged.passUnretained($0.1) })
            self.allOf = buffer(allOf.map(Unmanaged.passUnretained))
            self.anyOf = buffer(anyOf.map(Unmanaged.passUnretained))
            keyBytes = buffer(properties.flatMap { Array($0.0.utf8) })
            keyStarts = buffer(properties.reduce(into: [0]) { $0.append($0.last! + $1.0.utf8.count) })
        }

        func deallocate() {
            properties.deallocate(); allOf.deallocate(); anyOf.deallocate(); keyBytes.deallocate(); keyStarts.deallocate()
        }
    }
}

/// A scalar as it sits in the text: its kind and byte range (strings without their quotes).
struct TextScalar {
    enum Kind { case null, bool, number, string }
    let kind: Kind
    let start: Int, end: Int
    /// Strings: whether it holds a backslash escape (else its bytes are its UTF-8).
    let escaped: Bool
}

/// The walk over the text. It reads the bytes through a pointer, not a `Span`: a span cannot be a stored property
/// without the experimental `Lifetimes` feature, and the pointer is only ever the one `check(text:)` was lent.
struct TextCursor {
    let base: UnsafePointer<UInt8>
    let end: Int
    var i = 0

    init(base: UnsafePointer<UInt8>, end: Int) { self.base = base; self.end = end }

    /// The text's bytes in `r`.
    @inline(__always) private func bytes(_ r: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + r.lowerBound, count: r.count)
    }

    static let maxDepth = 512

    @inline(__always) mutating func skipSpace() {
        while i < end {
            let b = base[i]
            guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
            i += 1
        }
    }

    /// Checks the value at the cursor against `node` (nil: any well-formed value) and moves past it.
    /// Nodes travel unretained (see `FastNode.Unretained`); each is borrowed for the time of its own check.
    mutating func value(_ node: Unmanaged<FastNode>?, depth: Int) -> Bool {
        guard i < end, depth < Self.maxDepth else { return false }
        guard let node else {
            let b = base[i]
            if b == 0x7B { return anyObject(depth: depth) }
            if b == 0x5B { return array(nil, depth: depth) }
            return scalar() != nil
        }
        return node._withUnsafeGuaranteedRef { n in
            let b = base[i]
            if b == 0x7B || b == 0x5B {
                if n.combines { return materialised(n, depth: depth) }
                return b == 0x7B ? object(n, depth: depth) : array(n, depth: depth)
            }
            guard let s = scalar() else { return false }
            return checkScalar(n, s)
        }
    }

    /// Containers under combining keywords: parsed into `JSON`, then the value walk.
    private mutating func materialised(_ n: FastNode, depth: Int) -> Bool {
        let start = i
        guard value(nil, depth: depth) else { return false }
        guard let v = json(start, i) else { return false }
        return n.check(v)
    }

    private func json(_ start: Int, _ stop: Int) -> JSON? {
        try? JSONReader.read(bytes(start..<stop))
    }

    /// A member's name and its colon; the cursor is left at the value.
    @inline(__always) private mutating func memberName() -> TextScalar? {
        skipSpace()
        guard i < end, base[i] == 0x22, let key = scalar(), key.kind == .string else { return nil }
        skipSpace()
        guard i < end, base[i] == 0x3A else { return nil }
        i += 1
        skipSpace()
        return key
    }

    /// An object whose members no keyword constrains (their values are only checked to be well-formed JSON).
    private mutating func anyObject(depth: Int) -> Bool {
        i += 1
        skipSpace()
        if i < end && base[i] == 0x7D { i += 1; return true }
        while true {
            guard memberName() != nil, value(nil, depth: depth + 1) else { return false }
            skipSpace()
            guard i < end else { return false }
            if base[i] == 0x2C { i += 1; continue }
            guard base[i] == 0x7D else { return false }
            i += 1
            return true
        }
    }

    // (The node is not optional here: binding an optional's class payload retains it.)
    private mutating func object(_ n: FastNode, depth: Int) -> Bool {
        if let t = n.typeMask, t.bits & TypeMask.object == 0 { return false }
        guard n.hasObjectKeywords || n.requiredMask != 0 else { return anyObject(depth: depth) }
        i += 1
        var count = 0, seen: UInt64 = 0, declared: UInt64 = 0, next = 0
        skipSpace()
        if i < end && base[i] == 0x7D { i += 1 }
        else {
            while true {
                guard let key = memberName() else { return false }
                count += 1
                if let p = n.unretained.propertyNames, !p._withUnsafeGuaranteedRef({ checkScalar($0, key) }) { return false }
                let found = lookup(key, in: n, from: next)
                if found >= 0 {
                    // A repeated declared member (which the strict reader refuses) goes to the evaluator.
                    if found < 64 {
                        if declared & (1 << UInt64(found)) != 0 { return false }
                        declared |= 1 << UInt64(found)
                    }
                    let bit = n.propertyBits[found]
                    if bit != 0 && seen & bit != 0 { return false }
                    seen |= bit
                    guard value(n.unretained.properties[found], depth: depth + 1) else { return false }
                    next = found + 1
                } else {
                    if !n.otherRequired.isEmpty, let name = string(key) {
                        for (k, bit) in n.otherRequired where k.utf8.elementsEqual(name.utf8) {
                            if seen & bit != 0 { return false }
                            seen |= bit
                        }
                    }
                    guard value(n.unretained.additional, depth: depth + 1) else { return false }
                }
                skipSpace()
                guard i < end else { return false }
                if base[i] == 0x2C { i += 1; continue }
                guard base[i] == 0x7D else { return false }
                i += 1
                break
            }
        }
        if let m = n.minProperties, count < m { return false }
        if let m = n.maxProperties, count > m { return false }
        return seen == n.requiredMask
    }

    /// Index of the declared property named by `key`, or -1. Members usually come in declared order.
    private func lookup(_ key: TextScalar, in n: FastNode, from next: Int) -> Int {
        let u = n.unretained
        let count = u.properties.count
        if count == 0 { return -1 }
        if key.escaped {
            guard let name = string(key) else { return -1 }
            return n.propertyKeys.firstIndex { $0.utf8.elementsEqual(name.utf8) } ?? -1
        }
        let len = key.end - key.start
        @inline(__always) func equal(_ k: Int) -> Bool {
            let start = u.keyStarts[k]
            return u.keyStarts[k + 1] - start == len && memcmp(u.keyBytes.baseAddress! + start, base + key.start, len) == 0
        }
        if next < count, equal(next) { return next }
        for j in 0..<count where equal(j) { return j }
        return -1
    }

    /// An array; `n` nil: any items (well-formed only).
    private mutating func array(_ n: FastNode?, depth: Int) -> Bool {
        // Read once, as plain values (binding the optional node again would retain it).
        var items: Unmanaged<FastNode>?, minItems: Int?, maxItems: Int?
        if let n {
            if let t = n.typeMask, t.bits & TypeMask.array == 0 { return false }
            items = n.unretained.items; minItems = n.minItems; maxItems = n.maxItems
        }
        i += 1
        var count = 0
        let counts = items.map { $0._withUnsafeGuaranteedRef { $0.passesCounts } } ?? false
        skipSpace()
        if i < end && base[i] == 0x5D { i += 1 }
        else {
            while true {
                skipSpace()
                // An element of plain digits where every non-negative integer passes: read over, not checked;
                // anything else is read the general way.
                if counts, let e = plainDigitsEnd() { i = e } else { guard value(items, depth: depth + 1) else { return false } }
                count += 1
                skipSpace()
                guard i < end else { return false }
                if base[i] == 0x2C { i += 1; continue }
                guard base[i] == 0x5D else { return false }
                i += 1
                break
            }
        }
        if let m = minItems, count < m { return false }
        if let m = maxItems, count > m { return false }
        return true
    }

    /// Where the non-negative integer written as plain digits at the cursor ends: "0", or digits not starting with 0,
    /// followed by neither a digit, a fraction nor an exponent. Nil for anything else (the general reading decides).
    @inline(__always) private func plainDigitsEnd() -> Int? {
        var k = i
        guard k < end, base[k] &- 0x30 < 10 else { return nil }
        if base[k] == 0x30 { k += 1 } else { while k < end && base[k] &- 0x30 < 10 { k += 1 } }
        guard k < end else { return nil }
        let next = base[k]
        if next &- 0x30 < 10 || next == 0x2E || next == 0x65 || next == 0x45 { return nil }
        return k
    }

    // MARK: Scalars

    /// Reads a scalar (null, true, false, a number or a string) and moves past it; nil when malformed.
    mutating func scalar() -> TextScalar? {
        guard i < end else { return nil }
        let start = i
        switch base[i] {
        case 0x6E: return word("null") ? TextScalar(kind: .null, start: start, end: i, escaped: false) : nil
        case 0x74: return word("true") ? TextScalar(kind: .bool, start: start, end: i, escaped: false) : nil
        case 0x66: return word("false") ? TextScalar(kind: .bool, start: start, end: i, escaped: false) : nil
        case 0x22: return stringToken()
        case 0x2D, 0x30...0x39: return number() ? TextScalar(kind: .number, start: start, end: i, escaped: false) : nil
        default: return nil
        }
    }

    private mutating func word(_ w: StaticString) -> Bool {
        let n = w.utf8CodeUnitCount
        guard end - i >= n, memcmp(base + i, w.utf8Start, n) == 0 else { return false }
        i += n
        return true
    }

    /// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    private mutating func number() -> Bool {
        @inline(__always) func digits() -> Int {
            let s = i
            while i < end, base[i] &- 0x30 < 10 { i += 1 }
            return i - s
        }
        if base[i] == 0x2D { i += 1 }
        guard i < end else { return false }
        if base[i] == 0x30 { i += 1 } else if digits() == 0 { return false }
        if i < end, base[i] == 0x2E { i += 1; guard digits() > 0 else { return false } }
        if i < end, base[i] | 0x20 == 0x65 {
            i += 1
            if i < end, base[i] == 0x2B || base[i] == 0x2D { i += 1 }
            guard digits() > 0 else { return false }
        }
        return true
    }

    /// A string token: no raw control characters, valid escapes, valid UTF-8.
    private mutating func stringToken() -> TextScalar? {
        i += 1
        let start = i
        var escaped = false, ascii = true
        while true {
            // Eight bytes at a time while none is a quote, a backslash, a control character or non-ASCII (most text).
            while end - i >= 8 {
                let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                let high: UInt64 = 0x8080_8080_8080_8080, ones: UInt64 = 0x0101_0101_0101_0101
                let quote = w ^ 0x2222_2222_2222_2222, backslash = w ^ 0x5C5C_5C5C_5C5C_5C5C
                let special = (w & high) | ((w &- 0x2020_2020_2020_2020) & ~w & high)
                    | ((quote &- ones) & ~quote & high) | ((backslash &- ones) & ~backslash & high)
                if special != 0 { break }
                i += 8
            }
            guard i < end else { return nil }
            let b = base[i]
            if b == 0x22 {
                let s = TextScalar(kind: .string, start: start, end: i, escaped: escaped)
                i += 1
                if !ascii && !Self.isUTF8(base + start, i - 1 - start) { return nil }
                return s
            }
            if b < 0x20 { return nil }
            if b >= 0x80 { ascii = false; i += 1; continue }
            if b == 0x5C {
                escaped = true
                guard i + 1 < end else { return nil }
                switch base[i + 1] {
                case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: i += 2
                case 0x75:
                    guard end - i >= 6 else { return nil }
                    for k in 2..<6 where !Self.isHex(base[i + k]) { return nil }
                    i += 6
                default: return nil
                }
                continue
            }
            i += 1
        }
    }

    @inline(__always) static func isHex(_ b: UInt8) -> Bool { b &- 0x30 < 10 || (b | 0x20) &- 0x61 < 6 }

    /// Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
    static func isUTF8(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        var k = 0
        while k < n {
            let b = p[k]
            if b < 0x80 { k += 1; continue }
            let len: Int, lo: UInt8, hi: UInt8   // bounds of the second byte
            switch b {
            case 0xC2...0xDF: len = 2; lo = 0x80; hi = 0xBF
            case 0xE0: len = 3; lo = 0xA0; hi = 0xBF
            case 0xE1...0xEC, 0xEE, 0xEF: len = 3; lo = 0x80; hi = 0xBF
            case 0xED: len = 3; lo = 0x80; hi = 0x9F
            case 0xF0: len = 4; lo = 0x90; hi = 0xBF
            case 0xF1...0xF3: len = 4; lo = 0x80; hi = 0xBF
            case 0xF4: len = 4; lo = 0x80; hi = 0x8F
            default: return false
            }
            guard k + len <= n, p[k + 1] >= lo, p[k + 1] <= hi else { return false }
            for j in 2..<len where p[k + j] & 0xC0 != 0x80 { return false }
            k += len
        }
        return true
    }

    /// The string's text (decoded when it holds escapes).
    private func string(_ s: TextScalar) -> String? {
        if !s.escaped { return String(decoding: bytes(s.start..<s.end), as: UTF8.self) }
        return json(s.start - 1, s.end + 1)?.stringValue
    }

    /// An integer literal of at most 18 digits, read from the bytes (no string); nil for any other number.
    private func smallInteger(_ s: TextScalar) -> Int? {
        var k = s.start, negative = false
        if base[k] == 0x2D { negative = true; k += 1 }
        guard s.end - k <= 18 else { return nil }
        var v = 0
        while k < s.end {
            let d = base[k] &- 0x30
            guard d < 10 else { return nil }
            v = v * 10 + Int(d); k += 1
        }
        return negative ? -v : v
    }

    /// The number's order against a bound (−1, 0, 1), as `JSONNumber`'s `<` decides it: small integers exactly; other
    /// literals by their nearest doubles when those differ (rounding never reverses an order), else from the digits.
    private func order(_ s: TextScalar, _ known: JSONNumber?, _ bound: JSONNumber) -> Int {
        if let x = known ?? smallInteger(s).map(JSONNumber.init) { return x < bound ? -1 : bound < x ? 1 : 0 }
        if case .int(let b) = bound.storage, let o = decimalOrder(s, b) { return o }
        // (A literal of up to 15 bytes is a small string: no allocation.)
        let text = String(decoding: bytes(s.start..<s.end), as: UTF8.self)
        if let x = Double(text), let y = Optional(bound.double), x.isFinite, y.isFinite, x != y { return x < y ? -1 : 1 }
        let x = JSONNumber(literal: text)
        return x < bound ? -1 : bound < x ? 1 : 0
    }

    /// The order of a plain decimal literal (no exponent, at most 18 integer digits: a price, a rating) against an
    /// integer bound, from its digits: the integer part decides, and a nonzero fraction only breaks the tie.
    /// nil for other literals.
    private func decimalOrder(_ s: TextScalar, _ bound: Int) -> Int? {
        var k = s.start
        let negative = base[k] == 0x2D
        if negative { k += 1 }
        let digitsStart = k
        var whole = 0
        while k < s.end, base[k] &- 0x30 < 10 {
            guard k - digitsStart < 18 else { return nil }
            whole = whole * 10 + Int(base[k] &- 0x30); k += 1
        }
        var fraction = false
        if k < s.end, base[k] == 0x2E {
            k += 1
            while k < s.end, base[k] &- 0x30 < 10 { if base[k] != 0x30 { fraction = true }; k += 1 }
        }
        guard k == s.end else { return nil }   // an exponent
        let v = negative ? -whole : whole
        if !fraction { return v < bound ? -1 : v > bound ? 1 : 0 }
        // The value lies strictly between v and the next integer away from zero.
        return negative ? (v <= bound ? -1 : 1) : (v < bound ? -1 : 1)
    }

    private func numberValue(_ s: TextScalar) -> JSONNumber {
        JSONNumber(literal: String(decoding: bytes(s.start..<s.end), as: UTF8.self))
    }

    /// The scalar against `n` and everything it combines, from the bytes (only enum and const make a `JSON`).
    private func checkScalar(_ n: FastNode, _ s: TextScalar) -> Bool {
        if n.alwaysFalse { return false }
        if let r = n.ref, !checkScalar(r.node!, s) { return false }
        var number: JSONNumber?
        if let t = n.typeMask {
            let ok: Bool
            switch s.kind {
            case .null: ok = t.bits & TypeMask.null != 0
            case .bool: ok = t.bits & TypeMask.boolean != 0
            case .string: ok = t.bits & TypeMask.string != 0
            case .number:
                if t.bits & TypeMask.number != 0 { ok = true }
                else if t.bits & TypeMask.integer != 0 {
                    if let v = smallInteger(s) { number = JSONNumber(v); ok = true } else { number = numberValue(s); ok = number!.isInteger }
                }
                else { ok = false }
            }
            if !ok { return false }
        }
        if n.enumValues != nil || n.constValue != nil {
            guard let v = json(s.kind == .string ? s.start - 1 : s.start, s.kind == .string ? s.end + 1 : s.end) else { return false }
            if let e = n.enumValues, !e.contains(v) { return false }
            if let c = n.constValue, c != v { return false }
        }
        switch s.kind {
        case .number where n.minimum != nil || n.maximum != nil || n.exclusiveMinimum != nil || n.exclusiveMaximum != nil:
            if let m = n.minimum, order(s, number, m) < 0 { return false }
            if let m = n.maximum, order(s, number, m) > 0 { return false }
            if let m = n.exclusiveMinimum, order(s, number, m) <= 0 { return false }
            if let m = n.exclusiveMaximum, order(s, number, m) >= 0 { return false }
        case .string where n.minLength != nil || n.maxLength != nil || n.pattern != nil:
            let bytes = s.end - s.start
            // UTF-8 bytes bound the code-point count (1 to 4 bytes each); count only when the bound is not enough.
            if !s.escaped && ((n.maxLength.map { bytes > $0 } ?? false) || (n.minLength.map { (bytes + 3) / 4 < $0 } ?? false)) {
                // Code points = bytes that do not continue a sequence (the token is valid UTF-8).
                var len = 0
                for k in s.start..<s.end where base[k] & 0xC0 != 0x80 { len += 1 }
                if let m = n.maxLength, len > m { return false }
                if let m = n.minLength, len < m { return false }
            }
            if let native = n.nativePattern, !s.escaped {
                if !native(self.bytes(s.start..<s.end)) { return false }
                break
            }
            guard n.pattern != nil || s.escaped else { break }
            guard let text = string(s) else { return false }
            if s.escaped {
                let len = text.unicodeScalars.count
                if let m = n.maxLength, len > m { return false }
                if let m = n.minLength, len < m { return false }
            }
            if let native = n.nativePattern {
                var text = text
                if !text.withUTF8(native) { return false }
            } else if let p = n.pattern, !p.memo.matches(text, p.regex) { return false }
        default: break
        }
        let u = n.unretained
        for a in u.allOf where !a._withUnsafeGuaranteedRef({ checkScalar($0, s) }) { return false }
        if !u.anyOf.isEmpty, !u.anyOf.contains(where: { $0._withUnsafeGuaranteedRef { checkScalar($0, s) } }) { return false }
        return true
    }
}
