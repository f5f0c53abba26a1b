import Foundation
import Schemas

/// RFC 6902 JSON Patch: a diff that, applied to the old document, gives a document whose
/// serialisation is byte-identical to the new one (key order and number text included),
/// and the applier apps (and tests) use.
public enum JSONPatch {
    public struct ApplyError: Error, CustomStringConvertible { public let description: String }

    public static func diff(_ a: JSON, _ b: JSON) -> JSON {
        var ops: [JSON] = []
        diff(a, b, "", &ops)
        return .array(ops)
    }

    static func same(_ a: JSON, _ b: JSON) -> Bool { a.compactText == b.compactText }

    static func escape(_ key: String) -> String {
        // (Most keys have neither character: returned as they are, without Foundation's search.)
        guard key.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return key }
        return key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    private static func diff(_ a: JSON, _ b: JSON, _ path: String, _ ops: inout [JSON]) {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            let xKeys = Set(x.keys), yKeys = Set(y.keys)
            let kept = x.keys.filter { yKeys.contains($0) }
            // Recurse only when the surviving keys keep their order, so the patched object serialises in the new order:
            // a new member is added last, and the kept ones after the first new one are moved behind it (`Reorder`),
            // unless replacing the whole object costs fewer bytes.
            guard y.keys.filter({ xKeys.contains($0) }) == kept else { return ops.append(replace(path, b)) }
            let lead = y.keys.prefix { xKeys.contains($0) }.count
            let moved = y.keys.dropFirst(lead).filter { xKeys.contains($0) }
            let reorder = moved.isEmpty ? nil : Reorder(path: path, avoiding: xKeys.union(yKeys))
            if let reorder, reorder.cost(moved) >= b.compactText.utf8.count { return ops.append(replace(path, b)) }
            for k in x.keys where !yKeys.contains(k) { ops.append(.obj(["op": "remove", "path": .string(path + "/" + escape(k))])) }
            for k in kept where !same(x[k]!, y[k]!) { diff(x[k]!, y[k]!, path + "/" + escape(k), &ops) }
            for m in y.members.dropFirst(lead) {
                if xKeys.contains(m.key) {
                    for (from, to) in reorder!.moves(m.key) { ops.append(.obj(["op": "move", "from": .string(from), "path": .string(to)])) }
                } else {
                    ops.append(.obj(["op": "add", "path": .string(path + "/" + escape(m.key)), "value": m.value]))
                }
            }
        case (.array(let x), .array(let y)):
            var pre = 0
            while pre < x.count, pre < y.count, same(x[pre], y[pre]) { pre += 1 }
            var suf = 0
            while suf < x.count - pre, suf < y.count - pre, same(x[x.count - 1 - suf], y[y.count - 1 - suf]) { suf += 1 }
            let oldMid = x.count - pre - suf, newMid = y.count - pre - suf
            let common = min(oldMid, newMid)
            for i in 0..<common { diff(x[pre + i], y[pre + i], "\(path)/\(pre + i)", &ops) }
            if oldMid > newMid {
                for i in stride(from: pre + oldMid - 1, through: pre + common, by: -1) { ops.append(.obj(["op": "remove", "path": .string("\(path)/\(i)")])) }
            } else {
                for i in (pre + common)..<(pre + newMid) { ops.append(.obj(["op": "add", "path": .string("\(path)/\(i)"), "value": y[i]])) }
            }
        default:
            if !same(a, b) { ops.append(replace(path, b)) }
        }
    }

    private static func replace(_ path: String, _ v: JSON) -> JSON { .obj(["op": "replace", "path": .string(path), "value": v]) }

    /// A kept member sent to the end of its object: moved to a temporary member and back (RFC 6902 `move` is a
    /// `remove` and an `add`, and an added member goes last). A new member in the middle of a 30 MB keyword map
    /// then costs two small operations per member after it, not the whole map again. (Not a move onto itself: that
    /// is a no-op for some appliers, python's jsonpatch among them.)
    struct Reorder {
        let path: String
        /// The temporary member: a key neither object has.
        let temporary: String
        init(path: String, avoiding keys: Set<String>) {
            self.path = path
            var t = "~"
            while keys.contains(t) { t += "~" }
            temporary = path + "/" + JSONPatch.escape(t)
        }
        /// The two moves (from, path) that send `key` to the end.
        func moves(_ key: String) -> [(String, String)] {
            let at = path + "/" + JSONPatch.escape(key)
            return [(at, temporary), (temporary, at)]
        }
        /// About the bytes the moves of `keys` take in a patch (what the choice against a replace compares: both
        /// diffs estimate it the same way).
        func cost<S: Sequence>(_ keys: S) -> Int where S.Element == String {
            keys.reduce(0) { $0 + 2 * (path.utf8.count + 1 + JSONPatch.escape($1).utf8.count + temporary.utf8.count + 32) }
        }
    }

    /// Applies add / remove / replace operations (the ones `diff` emits; also test / move / copy).
    public static func apply(_ patch: JSON, to doc: JSON) throws -> JSON {
        guard let ops = patch.arrayValue else { throw ApplyError(description: "a patch is an array of operations") }
        var doc = doc
        for op in ops {
            guard let name = op["op"]?.stringValue, let path = op["path"]?.stringValue else { throw ApplyError(description: "operation without op/path") }
            let tokens = try pointer(path)
            // add, replace and test need a value (a JSON null is a value; a missing member is not).
            func value() throws -> JSON {
                guard let v = op["value"] else { throw ApplyError(description: "\(name) at \(path) without a value") }
                return v
            }
            switch name {
            case "add": try set(&doc, tokens[...], try value(), insert: true)
            case "replace": try set(&doc, tokens[...], try value(), insert: false)
            case "remove": try remove(&doc, tokens[...])
            case "test":
                guard try get(doc, tokens[...]) == (try value()) else { throw ApplyError(description: "test failed at \(path)") }
            case "move", "copy":
                guard let from = op["from"]?.stringValue else { throw ApplyError(description: "\(name) without from") }
                let ft = try pointer(from)
                let v = name == "move" ? try remove(&doc, ft[...]) : try get(doc, ft[...])
                try set(&doc, tokens[...], v, insert: true)
            default: throw ApplyError(description: "unknown op \(name)")
            }
        }
        return doc
    }

    static func pointer(_ p: String) throws -> [String] {
        if p.isEmpty { return [] }
        guard p.hasPrefix("/") else { throw ApplyError(description: "invalid JSON pointer \(p)") }
        return p.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~") }
    }

    /// An array index as RFC 6901 spells it: `0`, or digits without a leading zero (no sign, no `01`).
    static func index(_ token: String) -> Int? {
        guard let f = token.utf8.first, token.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              f != UInt8(ascii: "0") || token.utf8.count == 1 else { return nil }
        return Int(token)
    }

    static func get(_ doc: JSON, _ t: ArraySlice<String>) throws -> JSON {
        guard let first = t.first else { return doc }
        switch doc {
        case .object(let o): guard let v = o[first] else { throw ApplyError(description: "no member \(first)") }; return try get(v, t.dropFirst())
        case .array(let a): guard let i = index(first), a.indices.contains(i) else { throw ApplyError(description: "bad index \(first)") }; return try get(a[i], t.dropFirst())
        default: throw ApplyError(description: "cannot index into a scalar")
        }
    }

    // `set` and `remove` change the document in place: the container on the way is taken out of `doc` (left `.null`
    // meanwhile, so the taken copy is the only one) and put back; thousands of operations on a large index then do
    // not copy every container on their path.

    static func takeObject(_ doc: inout JSON) -> JSONObject? {
        guard case .object(let o) = doc else { return nil }
        doc = .null
        return o
    }

    static func takeArray(_ doc: inout JSON) -> [JSON]? {
        guard case .array(let a) = doc else { return nil }
        doc = .null
        return a
    }

    static func set(_ doc: inout JSON, _ t: ArraySlice<String>, _ value: JSON, insert: Bool) throws {
        guard let first = t.first else { doc = value; return }
        let last = t.count == 1
        if var o = takeObject(&doc) {
            defer { doc = .object(o) }
            if last {
                if !insert, o[first] == nil { throw ApplyError(description: "replace of missing member \(first)") }
                o[first] = value
            } else {
                guard var child = o[first] else { throw ApplyError(description: "no member \(first)") }
                o[first] = .null   // (the child taken out too)
                defer { o[first] = child }
                try set(&child, t.dropFirst(), value, insert: insert)
            }
        } else if var a = takeArray(&doc) {
            defer { doc = .array(a) }
            if last, insert {
                if first == "-" { a.append(value); return }
                guard let i = index(first), i >= 0, i <= a.count else { throw ApplyError(description: "bad index \(first)") }
                a.insert(value, at: i); return
            }
            guard let i = index(first), a.indices.contains(i) else { throw ApplyError(description: "bad index \(first)") }
            if last { a[i] = value } else { try set(&a[i], t.dropFirst(), value, insert: insert) }
        } else {
            throw ApplyError(description: "cannot index into a scalar")
        }
    }

    /// Removes the value at `t` and returns it.
    @discardableResult
    static func remove(_ doc: inout JSON, _ t: ArraySlice<String>) throws -> JSON {
        guard let first = t.first else { throw ApplyError(description: "cannot remove the root") }
        if var o = takeObject(&doc) {
            defer { doc = .object(o) }
            guard var child = o[first] else { throw ApplyError(description: "no member \(first)") }
            // Not `o[first] = nil`: JSON is nil-literal expressible, so that would store a JSON null.
            if t.count == 1 { o[first] = Optional<JSON>.none; return child }
            o[first] = .null
            defer { o[first] = child }
            return try remove(&child, t.dropFirst())
        } else if var a = takeArray(&doc) {
            defer { doc = .array(a) }
            guard let i = index(first), a.indices.contains(i) else { throw ApplyError(description: "bad index \(first)") }
            if t.count == 1 { return a.remove(at: i) }
            return try remove(&a[i], t.dropFirst())
        } else {
            throw ApplyError(description: "cannot index into a scalar")
        }
    }
}
