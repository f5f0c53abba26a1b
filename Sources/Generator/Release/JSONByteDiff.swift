import Foundation
import Schemas

/// `JSONPatch.diff` computed from the two files' bytes instead of their parsed values: a scanner finds the members and
/// elements of each container without building values, equal byte ranges are skipped whole, and only the values an
/// operation carries are parsed. For a one-price change in a 90 MB search index that is one scan of each side and one
/// small parse, not two whole parses (issue 23).
///
/// Byte equality stands for value equality because both sides come from our deterministic writer: the same value is
/// always written with the same bytes. `diff` returns nil for text the scanner cannot vouch for (anything that is not
/// one well-formed JSON value); the caller then falls back to the value diff.
enum JSONByteDiff {
    static func diff(_ a: [UInt8], _ b: [UInt8]) -> JSON? {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in diff(x, y) } }
    }

    static func diff(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> JSON? {
        let sa = Scanner(x), sb = Scanner(y)
        guard let ra = sa.root(), let rb = sb.root() else { return nil }
        var ops: [JSON] = []
        guard Differ(a: sa, b: sb).diff(ra, rb, "", &ops) else { return nil }
        return .array(ops)
    }

    /// Finds where values start and end; never builds them.
    struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        func skipSpace(_ i: Int) -> Int {
            var i = i
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
            return i
        }

        /// The whole text's one value, or nil. A container is not scanned here: `members` and `elements` walk it to its
        /// last byte (each of them requires its closing bracket to end the range), so text past its end is refused.
        func root() -> Range<Int>? {
            let start = skipSpace(0)
            var end = bytes.count
            while end > start, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[end - 1]) { end -= 1 }
            guard start < end else { return nil }
            switch (bytes[start], bytes[end - 1]) {
            case (0x7B, 0x7D), (0x5B, 0x5D): return end - start >= 2 ? start..<end : nil
            default:
                guard let e = valueEnd(start), e == end else { return nil }
                return start..<end
            }
        }

        /// The end of the string starting at `i` (its opening quote), or nil. Jumps from quote to quote with memchr
        /// (strings are most of the bytes): a quote ends the string unless an odd number of backslashes precede it.
        func stringEnd(_ i: Int) -> Int? {
            guard i < bytes.count, bytes[i] == 0x22, let base = bytes.baseAddress else { return nil }
            var j = i + 1
            while j < bytes.count {
                guard let p = memchr(base + j, 0x22, bytes.count - j) else { return nil }
                let q = base.distance(to: UnsafePointer(p.assumingMemoryBound(to: UInt8.self)))
                var k = q
                while k > i + 1, bytes[k - 1] == 0x5C { k -= 1 }
                if (q - k) % 2 == 0 { return q + 1 }
                j = q + 1
            }
            return nil
        }

        /// The end of the value starting at `i`, or nil.
        func valueEnd(_ i: Int) -> Int? {
            guard i < bytes.count else { return nil }
            switch bytes[i] {
            case 0x22: return stringEnd(i)
            case 0x7B, 0x5B:
                var depth = 0, j = i
                while j < bytes.count {
                    switch bytes[j] {
                    case 0x22: guard let e = stringEnd(j) else { return nil }; j = e; continue
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
        func elements(_ r: Range<Int>) -> [Range<Int>]? {
            var out: [Range<Int>] = []
            var i = skipSpace(r.lowerBound + 1)
            if bytes[i] == 0x5D { return i == r.upperBound - 1 ? out : nil }
            while true {
                guard let e = valueEnd(i), e < r.upperBound else { return nil }
                out.append(i..<e)
                i = skipSpace(e)
                guard i < r.upperBound else { return nil }
                if bytes[i] == 0x5D { return i == r.upperBound - 1 ? out : nil }
                guard bytes[i] == 0x2C else { return nil }
                i = skipSpace(i + 1)
            }
        }

        /// The members of the object at `r` (key text range, value range), or nil.
        func members(_ r: Range<Int>) -> [(key: Range<Int>, value: Range<Int>)]? {
            var out: [(key: Range<Int>, value: Range<Int>)] = []
            var i = skipSpace(r.lowerBound + 1)
            if bytes[i] == 0x7D { return i == r.upperBound - 1 ? out : nil }
            while true {
                guard let ke = stringEnd(i), ke < r.upperBound else { return nil }
                var j = skipSpace(ke)
                guard j < r.upperBound, bytes[j] == 0x3A else { return nil }
                j = skipSpace(j + 1)
                guard let ve = valueEnd(j), ve < r.upperBound else { return nil }
                out.append((i..<ke, j..<ve))
                i = skipSpace(ve)
                guard i < r.upperBound else { return nil }
                if bytes[i] == 0x7D { return i == r.upperBound - 1 ? out : nil }
                guard bytes[i] == 0x2C else { return nil }
                i = skipSpace(i + 1)
            }
        }

        func equal(_ r: Range<Int>, _ other: Scanner, _ s: Range<Int>) -> Bool {
            r.count == s.count && memcmp(bytes.baseAddress! + r.lowerBound, other.bytes.baseAddress! + s.lowerBound, r.count) == 0
        }

        func value(_ r: Range<Int>) -> JSON? { try? JSONReader.parse(UnsafeBufferPointer(rebasing: bytes[r])) }
        func key(_ r: Range<Int>) -> String? { value(r)?.stringValue }
    }

    /// The same walk as `JSONPatch.diff`, over byte ranges.
    struct Differ {
        let a: Scanner, b: Scanner

        func diff(_ x: Range<Int>, _ y: Range<Int>, _ path: String, _ ops: inout [JSON]) -> Bool {
            let cx = a.bytes[x.lowerBound], cy = b.bytes[y.lowerBound]
            if cx == 0x7B && cy == 0x7B {
                guard let mx = a.members(x), let my = b.members(y) else { return false }
                var xKeys: [String] = [], yKeys: [String] = []
                for m in mx { guard let k = a.key(m.key) else { return false }; xKeys.append(k) }
                for m in my { guard let k = b.key(m.key) else { return false }; yKeys.append(k) }
                let yIndex = Dictionary(yKeys.enumerated().map { ($1, $0) }, uniquingKeysWith: { f, _ in f })
                let kept = xKeys.indices.filter { yIndex[xKeys[$0]] != nil }
                // Recurse only when the surviving keys keep their order and new keys come last (see JSONPatch.diff).
                guard Array(yKeys.prefix(kept.count)) == kept.map({ xKeys[$0] }) else { return replace(path, y, &ops) }
                for k in xKeys where yIndex[k] == nil {
                    ops.append(.obj(["op": "remove", "path": .string(path + "/" + JSONPatch.escape(k))]))
                }
                for i in kept {
                    let j = yIndex[xKeys[i]]!
                    if !a.equal(mx[i].value, b, my[j].value) {
                        guard diff(mx[i].value, my[j].value, path + "/" + JSONPatch.escape(xKeys[i]), &ops) else { return false }
                    }
                }
                for j in kept.count..<my.count {
                    guard let v = b.value(my[j].value) else { return false }
                    ops.append(.obj(["op": "add", "path": .string(path + "/" + JSONPatch.escape(yKeys[j])), "value": v]))
                }
                return true
            }
            if cx == 0x5B && cy == 0x5B {
                guard let ex = a.elements(x), let ey = b.elements(y) else { return false }
                var pre = 0
                while pre < ex.count, pre < ey.count, a.equal(ex[pre], b, ey[pre]) { pre += 1 }
                var suf = 0
                while suf < ex.count - pre, suf < ey.count - pre, a.equal(ex[ex.count - 1 - suf], b, ey[ey.count - 1 - suf]) { suf += 1 }
                let oldMid = ex.count - pre - suf, newMid = ey.count - pre - suf
                let common = min(oldMid, newMid)
                // (JSONPatch.diff recurses into every element of the common middle; equal ones add nothing.)
                for i in 0..<common where !a.equal(ex[pre + i], b, ey[pre + i]) {
                    guard diff(ex[pre + i], ey[pre + i], "\(path)/\(pre + i)", &ops) else { return false }
                }
                if oldMid > newMid {
                    for i in stride(from: pre + oldMid - 1, through: pre + common, by: -1) { ops.append(.obj(["op": "remove", "path": .string("\(path)/\(i)")])) }
                } else {
                    for i in (pre + common)..<(pre + newMid) {
                        guard let v = b.value(ey[i]) else { return false }
                        ops.append(.obj(["op": "add", "path": .string("\(path)/\(i)"), "value": v]))
                    }
                }
                return true
            }
            if a.equal(x, b, y) { return true }
            return replace(path, y, &ops)
        }

        func replace(_ path: String, _ y: Range<Int>, _ ops: inout [JSON]) -> Bool {
            guard let v = b.value(y) else { return false }
            ops.append(.obj(["op": "replace", "path": .string(path), "value": v]))
            return true
        }
    }
}
