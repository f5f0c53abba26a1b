import Foundation
import Schemas
import Indexer

/// `JSONPatch.diff` computed from the two files' bytes instead of their parsed values: a scanner finds the members and
/// elements of each container without building values, equal byte ranges are skipped whole, and only the values an
/// operation carries are parsed. For a one-price change in a 90 MB search index that is one scan of each side and one
/// small parse, not two whole parses (issue 23).
///
/// Byte equality stands for value equality because both sides come from our deterministic writer: the same value is
/// always written with the same bytes. `diff` returns nil for text the scanner cannot vouch for (anything that is not
/// one well-formed JSON value); the caller then falls back to the value diff.
enum JSONByteDiff {
    /// The patch as a value (tests and tools; the release stage keeps its text, see `patch`).
    static func diff(_ a: [UInt8], _ b: [UInt8], arrays: (old: [Range<Int>], new: [Range<Int>]) = ([], []),
                     same: [(old: Range<Int>, new: Range<Int>)] = [], objects: (old: [ObjectLayout], new: [ObjectLayout]) = ([], [])) -> JSON? {
        let x = a[...], y = b[...]   // (`Array.span` needs macOS 26)
        return patch(x.span, y.span, arrays: arrays, same: same, objects: objects).flatMap { p in p.withSpan { try? JSONReader.parse($0) } }
    }

    /// `arrays`: where values that are elements of arrays are known to lie in each side (the entries of a file
    /// written from fragments, recorded by its writer): such an array's elements are taken from them, not scanned.
    /// Ranges that do not line up as the elements of one array are ignored.
    /// `same`: ranges known to hold the same bytes in both (fragments the new side copied from the old one): compared
    /// without reading them, and a pair that ends both texts alike stands for their common end.
    /// The patch's text: the operations `JSONPatch.diff` gives, as our writer writes them, each value copied from the
    /// new side's text (a replaced 30 MB map is never parsed into values, nor written again).
    /// `objects`: where the members of objects are known to lie in each side (maps a splice edited, recorded by its
    /// writer): such an object's members are taken from them, not scanned. An object whose layout does not fit the
    /// text (braces, quotes, colons and commas where it says) is scanned.
    static func patch(_ x: Span<UInt8>, _ y: Span<UInt8>,
                      arrays: (old: [Range<Int>], new: [Range<Int>]) = ([], []), same: [(old: Range<Int>, new: Range<Int>)] = [],
                      objects: (old: [ObjectLayout], new: [ObjectLayout]) = ([], [])) -> JSONStream? {
        let sa = Scanner(x, elements: arrays.old, objects: objects.old), sb = Scanner(y, elements: arrays.new, objects: objects.new)
        guard let ra = sa.root(x), let rb = sb.root(y) else { return nil }
        var ops = Operations()
        // (Pairs inside both texts only: a pair from a layout that does not describe them is of no use.)
        let pairs = same.filter { $0.old.count == $0.new.count && $0.old.upperBound <= x.count && $0.new.upperBound <= y.count && !$0.old.isEmpty }
        let differ = Differ(a: sa, b: sb, same: Dictionary(pairs.map { ($0.old.lowerBound, $0.new) }, uniquingKeysWith: { a, _ in a }),
                            last: pairs.max { $0.old.upperBound < $1.old.upperBound })
        guard differ.diff(x, y, ra, rb, "", &ops) else { return nil }
        ops.text.endArray()
        return ops.text   // (not copied out: a replaced map is tens of MB)
    }

    /// A patch's operations, written as they are found.
    struct Operations {
        let text = JSONStream(capacity: 4096)
        init() { text.beginArray() }

        func remove(_ path: String) {
            text.beginObject(); text.key("op"); text.string("remove"); text.key("path"); text.string(path); text.endObject()
        }
        func move(_ from: String, _ path: String) {
            text.beginObject(); text.key("op"); text.string("move"); text.key("from"); text.string(from); text.key("path"); text.string(path)
            text.endObject()
        }
        /// An `add` or `replace` of `value`, the new side's text of a value the scanner found (its own parse is the
        /// delta's, checked against the delta schema like every release file).
        func put(_ op: StaticString, _ path: String, _ value: Span<UInt8>) {
            text.beginObject(); text.key("op"); text.string(op.description); text.key("path"); text.string(path)
            text.key("value"); text.raw(value)
            text.endObject()
        }
    }

    /// Finds where values start and end in a text lent to each call; never builds them. It keeps only what the
    /// writer's layouts say of that text (a span cannot be stored without the experimental Lifetimes feature).
    struct Scanner {
        /// Arrays whose elements are known, by the offset of their opening bracket.
        private(set) var known: [Int: [Range<Int>]] = [:]
        /// Objects whose members are known: the end of each, by its opening brace; each member by where its key starts,
        /// with where the next one starts (nil for the last) and its object's end.
        private(set) var knownObjectEnd: [Int: Int] = [:]
        private(set) var knownMember: [Int: (key: Range<Int>, value: Range<Int>, next: Int?, objectEnd: Int)] = [:]

        /// A scanner that knows nothing of the text's layout.
        init() {}

        /// A scanner that takes the layouts that fit `bytes` (the text every call is then given).
        init(_ bytes: Span<UInt8>, elements: [Range<Int>] = [], objects: [ObjectLayout] = []) {
            for o in objects where Self.fits(o, bytes) {
                let end = o.end
                knownObjectEnd[o.open] = end
                for (k, m) in o.members.enumerated() {
                    knownMember[m.key.lowerBound] = (m.key, m.value, k + 1 < o.members.count ? o.members[k + 1].key.lowerBound : nil, end)
                }
            }
            // Known ranges in runs of array elements: one comma apart, after an opening bracket, before a closing one.
            let sorted = elements.sorted { $0.lowerBound < $1.lowerBound }
            var k = 0
            while k < sorted.count {
                var e = k
                while e + 1 < sorted.count, sorted[e + 1].lowerBound == sorted[e].upperBound + 1, sorted[e].upperBound < bytes.count,
                      bytes[sorted[e].upperBound] == 0x2C, !sorted[e].isEmpty { e += 1 }
                let first = sorted[k], last = sorted[e]
                if first.lowerBound >= 1, last.upperBound < bytes.count, !last.isEmpty, !first.isEmpty,
                   bytes[first.lowerBound - 1] == 0x5B, bytes[last.upperBound] == 0x5D {
                    known[first.lowerBound - 1] = Array(sorted[k...e])
                }
                k = e + 1
            }
        }

        /// Whether the text has the object's punctuation where its layout says: its braces, each key a string literal
        /// followed by a colon and its value, a comma between members (compact text, as the writer makes it).
        static func fits(_ o: ObjectLayout, _ bytes: Span<UInt8>) -> Bool {
            let n = bytes.count
            guard o.open >= 0, o.open + 1 < n, bytes[o.open] == 0x7B else { return false }
            guard !o.members.isEmpty else { return bytes[o.open + 1] == 0x7D }
            var at = o.open + 1
            for (k, m) in o.members.enumerated() {
                guard m.key.lowerBound == at, m.key.count >= 2, m.key.upperBound < n, bytes[m.key.lowerBound] == 0x22,
                      bytes[m.key.upperBound - 1] == 0x22, bytes[m.key.upperBound] == 0x3A, m.value.lowerBound == m.key.upperBound + 1,
                      !m.value.isEmpty, m.value.upperBound < n else { return false }
                if k + 1 < o.members.count {
                    guard bytes[m.value.upperBound] == 0x2C else { return false }
                    at = m.value.upperBound + 1
                } else {
                    guard bytes[m.value.upperBound] == 0x7D else { return false }
                }
            }
            return true
        }

        static func skipSpace(_ bytes: Span<UInt8>, _ i: Int) -> Int {
            var i = i
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
            return i
        }

        /// The whole text's one value, or nil. A container is not scanned here: `members` and `elements` walk it to its
        /// last byte (each of them requires its closing bracket to end the range), so text past its end is refused.
        func root(_ bytes: Span<UInt8>) -> Range<Int>? {
            let start = Self.skipSpace(bytes, 0)
            var end = bytes.count
            while end > start, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[end - 1]) { end -= 1 }
            guard start < end else { return nil }
            switch (bytes[start], bytes[end - 1]) {
            case (0x7B, 0x7D), (0x5B, 0x5D): return end - start >= 2 ? start..<end : nil
            default:
                guard let e = valueEnd(bytes, start), e == end else { return nil }
                return start..<end
            }
        }

        /// The end of the value starting at `i`, or nil.
        func valueEnd(_ bytes: Span<UInt8>, _ i: Int) -> Int? {
            guard i < bytes.count else { return nil }
            switch bytes[i] {
            case 0x22: return JSONText.stringEnd(bytes, from: i)
            case 0x5B where known[i] != nil: return known[i]!.last!.upperBound + 1
            case 0x7B where knownObjectEnd[i] != nil: return knownObjectEnd[i]!
            case 0x7B, 0x5B:
                var depth = 0, j = i
                while j < bytes.count {
                    switch bytes[j] {
                    case 0x22: guard let e = JSONText.stringEnd(bytes, from: j) else { return nil }; j = e; continue
                    case 0x7B, 0x5B: depth += 1
                    case 0x7D, 0x5D:
                        depth -= 1
                        if depth == 0 { return j + 1 }
                    default: break
                    }
                    j += 1
                }
                return nil
            default:
                // A number or a literal: up to the next delimiter.
                var j = i
                while j < bytes.count, ![0x2C, 0x5D, 0x7D, 0x20, 0x0A, 0x0D, 0x09].contains(bytes[j]) { j += 1 }
                return j > i ? j : nil
            }
        }

        /// The elements of the array at `r`, or nil.
        func elements(_ bytes: Span<UInt8>, _ r: Range<Int>) -> [Range<Int>]? {
            if let k = known[r.lowerBound], k.last!.upperBound + 1 == r.upperBound { return k }
            var out: [Range<Int>] = []
            var i = Self.skipSpace(bytes, r.lowerBound + 1)
            if bytes[i] == 0x5D { return i == r.upperBound - 1 ? out : nil }
            while true {
                guard let e = valueEnd(bytes, i), e < r.upperBound else { return nil }
                out.append(i..<e)
                i = Self.skipSpace(bytes, e)
                guard i < r.upperBound else { return nil }
                if bytes[i] == 0x5D { return i == r.upperBound - 1 ? out : nil }
                guard bytes[i] == 0x2C else { return nil }
                i = Self.skipSpace(bytes, i + 1)
            }
        }

        /// The member starting at `i` (after space) of the object at `r`, and where the next one starts (nil: `i` was
        /// the last); `.none` when the text is not a member there. `i` at the closing brace of an empty object: `(nil, nil)`.
        func member(_ bytes: Span<UInt8>, at i: Int, in r: Range<Int>) -> (member: (key: Range<Int>, value: Range<Int>)?, next: Int?)? {
            if i == r.upperBound - 1 && bytes[i] == 0x7D { return (nil, nil) }
            if let m = knownMember[i], m.objectEnd == r.upperBound { return ((m.key, m.value), m.next) }
            guard let ke = JSONText.stringEnd(bytes, from: i), ke < r.upperBound else { return nil }
            var j = Self.skipSpace(bytes, ke)
            guard j < r.upperBound, bytes[j] == 0x3A else { return nil }
            j = Self.skipSpace(bytes, j + 1)
            guard let ve = valueEnd(bytes, j), ve < r.upperBound else { return nil }
            let k = Self.skipSpace(bytes, ve)
            guard k < r.upperBound else { return nil }
            if bytes[k] == 0x7D { return k == r.upperBound - 1 ? ((i..<ke, j..<ve), nil) : nil }
            guard bytes[k] == 0x2C else { return nil }
            return ((i..<ke, j..<ve), Self.skipSpace(bytes, k + 1))
        }

        /// The size of the value at `r` as compact text (what the value diff weighs), counted only up to a little past
        /// `limit`: a replace is weighed against a few small moves without reading a 30 MB map to its end.
        static func compactSize(_ bytes: Span<UInt8>, _ r: Range<Int>, upTo limit: Int) -> Int {
            var n = 0, i = r.lowerBound
            while i < r.upperBound, n <= limit {
                switch bytes[i] {
                case 0x22:
                    let e = JSONText.stringEnd(bytes, from: i) ?? r.upperBound
                    n += e - i; i = e
                case 0x20, 0x0A, 0x0D, 0x09: i += 1
                default: n += 1; i += 1
                }
            }
            return n
        }

        /// A member's key (the text of its string literal, `r`).
        static func key(_ bytes: Span<UInt8>, _ r: Range<Int>) -> String? { JSONText.string(bytes.extracting(r)) }
    }

    /// The same walk as `JSONPatch.diff`, over byte ranges of the old text (`old`, scanned by `a`) and the new one
    /// (`new`, scanned by `b`).
    struct Differ {
        let a: Scanner, b: Scanner
        /// Old ranges known equal to new ones, by where the old one starts.
        var same: [Int: Range<Int>] = [:]
        /// The known pair that ends last in the old text (a file's tail, copied whole).
        var last: (old: Range<Int>, new: Range<Int>)? = nil

        /// Whether `x` (old) and `y` (new) hold the same bytes: known, or compared.
        func equal(_ old: Span<UInt8>, _ new: Span<UInt8>, _ x: Range<Int>, _ y: Range<Int>) -> Bool {
            if let s = same[x.lowerBound], s == y, x.count == y.count { return true }
            return old.extracting(x).sameBytes(as: new.extracting(y))
        }

        func diff(_ old: Span<UInt8>, _ new: Span<UInt8>, _ x: Range<Int>, _ y: Range<Int>, _ path: String, _ ops: inout Operations) -> Bool {
            let cx = old[x.lowerBound], cy = new[y.lowerBound]
            if cx == 0x7B && cy == 0x7B { return objects(old, new, x, y, path, &ops) }
            if cx == 0x5B && cy == 0x5B { return arrays(old, new, x, y, path, &ops) }
            if equal(old, new, x, y) { return true }
            return replace(path, new, y, &ops)
        }

        /// Two objects' members: removed, changed (recursed into), added, and kept ones moved behind a new one.
        private func objects(_ old: Span<UInt8>, _ new: Span<UInt8>, _ x: Range<Int>, _ y: Range<Int>, _ path: String, _ ops: inout Operations) -> Bool {
            guard let (mx, my, rest) = pairedMembers(old, new, x, y) else { return false }
            // The members both end with, byte for byte, stand as one kept and equal member (`rest`): they give no
            // operation, and as the last of both lists they change no test below.
            enum Key: Hashable { case name(String), rest }
            var xKeys: [Key] = [], yKeys: [Key] = []
            for m in mx { guard let k = Scanner.key(old, m.key) else { return false }; xKeys.append(.name(k)) }
            for m in my { guard let k = Scanner.key(new, m.key) else { return false }; yKeys.append(.name(k)) }
            if rest != nil { xKeys.append(.rest); yKeys.append(.rest) }
            let yIndex = Dictionary(yKeys.enumerated().map { ($1, $0) }, uniquingKeysWith: { f, _ in f })
            let xSet = Set(xKeys)
            let kept = xKeys.indices.filter { yIndex[xKeys[$0]] != nil }
            func name(_ k: Key) -> String { if case .name(let n) = k { return n }; return "" }
            // Recurse only when the surviving keys keep their order; kept members after the first new one are
            // moved behind it, unless a replace costs fewer bytes (see JSONPatch.diff).
            guard yKeys.filter({ xSet.contains($0) }) == kept.map({ xKeys[$0] }) else { return replace(path, new, y, &ops) }
            let lead = yKeys.prefix { xSet.contains($0) }.count
            // What follows the first new member, in the new order: new members added, kept ones moved.
            var tail: [(key: String, added: Range<Int>?)] = []
            for j in lead..<yKeys.count {
                switch yKeys[j] {
                case .name(let n): tail.append((n, xSet.contains(yKeys[j]) ? nil : my[j].value))
                case .rest:
                    // The common end moves too: its keys are read now (from the new side; they are the same bytes).
                    var i: Int? = rest!.new
                    while let i0 = i {
                        guard let (m, next) = b.member(new, at: i0, in: y) else { return false }
                        if let m { guard let k = Scanner.key(new, m.key) else { return false }; tail.append((k, nil)) }
                        i = next
                    }
                }
            }
            let moved = tail.filter { $0.added == nil }.map(\.key)
            var reorder: JSONPatch.Reorder?
            if !moved.isEmpty {
                let r = JSONPatch.Reorder(path: path, avoiding: Set(xKeys.map(name) + yKeys.map(name) + moved))
                let cost = r.cost(moved)
                if cost >= Scanner.compactSize(new, y, upTo: cost) { return replace(path, new, y, &ops) }
                reorder = r
            }
            for k in xKeys where yIndex[k] == nil { ops.remove(path + "/" + JSONPatch.escape(name(k))) }
            for i in kept where xKeys[i] != .rest {
                let j = yIndex[xKeys[i]]!
                if !equal(old, new, mx[i].value, my[j].value) {
                    guard diff(old, new, mx[i].value, my[j].value, path + "/" + JSONPatch.escape(name(xKeys[i])), &ops) else { return false }
                }
            }
            for t in tail {
                if let value = t.added { ops.put("add", path + "/" + JSONPatch.escape(t.key), new.extracting(value)) }
                else { for (from, to) in reorder!.moves(t.key) { ops.move(from, to) } }
            }
            return true
        }

        /// Two arrays' elements: the common middle recursed into, the rest removed or added at its end.
        private func arrays(_ old: Span<UInt8>, _ new: Span<UInt8>, _ x: Range<Int>, _ y: Range<Int>, _ path: String, _ ops: inout Operations) -> Bool {
            guard let ex = a.elements(old, x), let ey = b.elements(new, y) else { return false }
            var pre = 0
            while pre < ex.count, pre < ey.count, equal(old, new, ex[pre], ey[pre]) { pre += 1 }
            var suf = 0
            while suf < ex.count - pre, suf < ey.count - pre, equal(old, new, ex[ex.count - 1 - suf], ey[ey.count - 1 - suf]) { suf += 1 }
            let oldMid = ex.count - pre - suf, newMid = ey.count - pre - suf
            let common = min(oldMid, newMid)
            // (JSONPatch.diff recurses into every element of the common middle; equal ones add nothing.)
            for i in 0..<common where !equal(old, new, ex[pre + i], ey[pre + i]) {
                guard diff(old, new, ex[pre + i], ey[pre + i], "\(path)/\(pre + i)", &ops) else { return false }
            }
            if oldMid > newMid {
                for i in stride(from: pre + oldMid - 1, through: pre + common, by: -1) { ops.remove("\(path)/\(i)") }
            } else {
                for i in (pre + common)..<(pre + newMid) { ops.put("add", "\(path)/\(i)", new.extracting(ey[i])) }
            }
            return true
        }

        /// The members of the objects at `x` and `y`, read side by side until what is left of both is the same
        /// bytes (`rest`: where those members start; they are not read; a 90 MB index whose products changed does not scan its
        /// keyword maps). Nil when either is not an object's text.
        func pairedMembers(_ old: Span<UInt8>, _ new: Span<UInt8>, _ x: Range<Int>, _ y: Range<Int>)
            -> (mx: [(key: Range<Int>, value: Range<Int>)], my: [(key: Range<Int>, value: Range<Int>)], rest: (old: Int, new: Int)?)? {
            let same = commonSuffix(old, new, x, y)
            var mx: [(key: Range<Int>, value: Range<Int>)] = [], my: [(key: Range<Int>, value: Range<Int>)] = []
            var i: Int? = Scanner.skipSpace(old, x.lowerBound + 1), j: Int? = Scanner.skipSpace(new, y.lowerBound + 1)
            while i != nil || j != nil {
                // The side with more text left reads its next member (both when alike), so that where the common end
                // begins on both sides, both get there together.
                let left = (x: i.map { x.upperBound - $0 } ?? -1, y: j.map { y.upperBound - $0 } ?? -1)
                if left.x == left.y, left.x <= same, let i0 = i, let j0 = j, old[i0] != 0x7D { return (mx, my, (i0, j0)) }
                if let i0 = i, left.x >= left.y {
                    guard let (m, next) = a.member(old, at: i0, in: x) else { return nil }
                    if let m { mx.append(m) }
                    i = next
                }
                if let j0 = j, left.y >= left.x {
                    guard let (m, next) = b.member(new, at: j0, in: y) else { return nil }
                    if let m { my.append(m) }
                    j = next
                }
            }
            return (mx, my, nil)
        }

        /// How many bytes the texts at `x` and `y` end with alike (compared a block at a time from their ends).
        /// (At least: when a known pair ends both texts alike, what it covers is counted without being read, and
        /// nothing before it is compared.)
        func commonSuffix(_ old: Span<UInt8>, _ new: Span<UInt8>, _ x: Range<Int>, _ y: Range<Int>) -> Int {
            let limit = min(x.count, y.count)
            if let t = last, x.lowerBound <= t.old.lowerBound, t.old.upperBound <= x.upperBound, y.lowerBound <= t.new.lowerBound,
               t.new.upperBound <= y.upperBound, x.upperBound - t.old.upperBound == y.upperBound - t.new.upperBound {
                let d = x.upperBound - t.old.upperBound
                if old.extracting(t.old.upperBound..<x.upperBound).sameBytes(as: new.extracting(t.new.upperBound..<y.upperBound)) { return d + t.old.count }
            }
            var n = 0
            while n < limit {
                let step = min(4096, limit - n)
                let ox = (x.upperBound - n - step)..<(x.upperBound - n), ny = (y.upperBound - n - step)..<(y.upperBound - n)
                if old.extracting(ox).sameBytes(as: new.extracting(ny)) { n += step; continue }
                while n < limit, old[x.upperBound - n - 1] == new[y.upperBound - n - 1] { n += 1 }
                return n
            }
            return n
        }

        func replace(_ path: String, _ new: Span<UInt8>, _ y: Range<Int>, _ ops: inout Operations) -> Bool {
            ops.put("replace", path, new.extracting(y))
            return true
        }
    }
}
