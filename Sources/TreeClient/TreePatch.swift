import Foundation

/// RFC 6902 JSON Patch: add, remove, replace, move, copy and test, applied in order; any failing operation fails the
/// whole patch (the caller keeps the original). An existing member replaced by `add` keeps its place, and a new member
/// goes last: the generator's patches rely on that to reproduce the new file byte for byte.
public enum TreePatch {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    public static func apply(_ patch: TreeJSON, to document: TreeJSON) throws -> TreeJSON {
        guard let ops = patch.array else { throw Failure(description: "a patch is an array of operations") }
        var doc = document
        for (i, op) in ops.enumerated() {
            func fail(_ why: String) -> Failure { Failure(description: "operation \(i): \(why)") }
            guard case .object = op, let name = op["op"]?.string else { throw fail("no 'op'") }
            guard let path = op["path"]?.string else { throw fail("no 'path'") }
            do {
                let target = try pointer(path)
                switch name {
                case "add":
                    guard let value = op["value"] else { throw fail("'add' without a value") }
                    try add(&doc, target[...], value)
                case "remove":
                    try remove(&doc, target[...])
                case "replace":
                    guard let value = op["value"] else { throw fail("'replace' without a value") }
                    try replace(&doc, target[...], value)
                case "move", "copy":
                    guard let fromText = op["from"]?.string else { throw fail("'\(name)' without 'from'") }
                    let from = try pointer(fromText)
                    let value: TreeJSON
                    if name == "move" {
                        if from == target { _ = try get(doc, from[...]); continue }
                        // A value cannot move into one of its own children.
                        if target.count > from.count, Array(target.prefix(from.count)) == from { throw fail("cannot move a value into itself") }
                        value = try remove(&doc, from[...])
                    } else {
                        value = try get(doc, from[...])
                    }
                    try add(&doc, target[...], value)
                case "test":
                    guard let value = op["value"] else { throw fail("'test' without a value") }
                    guard try get(doc, target[...]).isEqual(to: value) else { throw fail("test failed at \(TreePath.shown(path, limit: 80))") }
                default: throw fail("unknown op \(TreePath.shown(name, limit: 40))")
                }
            } catch let f as Failure where !f.description.hasPrefix("operation ") {
                throw fail(f.description)
            }
        }
        return doc
    }

    /// The reference tokens of a JSON Pointer (RFC 6901).
    static func pointer(_ p: String) throws -> [String] {
        if p.isEmpty { return [] }
        guard p.hasPrefix("/") else { throw Failure(description: "invalid JSON pointer \(TreePath.shown(p, limit: 80))") }
        return try p.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map { token in
            var out = "", escape = false
            for c in token {
                if escape {
                    switch c {
                    case "0": out.append("~")
                    case "1": out.append("/")
                    default: throw Failure(description: "invalid escape in JSON pointer \(TreePath.shown(p, limit: 80))")
                    }
                    escape = false
                } else if c == "~" { escape = true } else { out.append(c) }
            }
            if escape { throw Failure(description: "invalid escape in JSON pointer \(TreePath.shown(p, limit: 80))") }
            return out
        }
    }

    /// An array index: digits without a leading zero (RFC 6901), within `0..<limit`.
    static func index(_ token: String, limit: Int) throws -> Int {
        guard !token.isEmpty, token.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), token == "0" || !token.hasPrefix("0"),
              let i = Int(token), i < limit else { throw Failure(description: "no array element \(TreePath.shown(token, limit: 40))") }
        return i
    }

    static func get(_ doc: TreeJSON, _ t: ArraySlice<String>) throws -> TreeJSON {
        guard let first = t.first else { return doc }
        switch doc {
        case .object(let members):
            guard let m = members.first(where: { $0.key == first }) else { throw Failure(description: "no member \(TreePath.shown(first, limit: 40))") }
            return try get(m.value, t.dropFirst())
        case .array(let items): return try get(items[try index(first, limit: items.count)], t.dropFirst())
        default: throw Failure(description: "cannot look into a \(kind(doc))")
        }
    }

    // The edits below change the document in place: the container on the way is taken out of `doc` (left `.null`
    // meanwhile, so the taken copy is the only one and is not copied again) and put back. A patch of thousands of
    // operations on a 90 MB index then costs a look-up each, not a copy of every container on the path.

    /// The members of an object, taken out of `doc` (nil, and `doc` untouched, for anything else).
    static func takeMembers(_ doc: inout TreeJSON) -> [TreeJSON.Member]? {
        guard case .object(let members) = doc else { return nil }
        doc = .null
        return members
    }

    /// The items of an array, taken out of `doc` (nil, and `doc` untouched, for anything else).
    static func takeItems(_ doc: inout TreeJSON) -> [TreeJSON]? {
        guard case .array(let items) = doc else { return nil }
        doc = .null
        return items
    }

    static func add(_ doc: inout TreeJSON, _ t: ArraySlice<String>, _ value: TreeJSON) throws {
        guard let first = t.first else { doc = value; return }
        if var members = takeMembers(&doc) {
            defer { doc = .object(members) }
            let at = members.firstIndex { $0.key == first }
            if t.count == 1 {
                if let at { members[at].value = value } else { members.append(.init(first, value)) }
            } else {
                guard let at else { throw Failure(description: "no member \(TreePath.shown(first, limit: 40))") }
                try add(&members[at].value, t.dropFirst(), value)
            }
        } else if var items = takeItems(&doc) {
            defer { doc = .array(items) }
            if t.count == 1 {
                if first == "-" { items.append(value) } else { items.insert(value, at: try index(first, limit: items.count + 1)) }
            } else {
                try add(&items[try index(first, limit: items.count)], t.dropFirst(), value)
            }
        } else {
            throw Failure(description: "cannot add into a \(kind(doc))")
        }
    }

    static func replace(_ doc: inout TreeJSON, _ t: ArraySlice<String>, _ value: TreeJSON) throws {
        guard let first = t.first else { doc = value; return }
        if var members = takeMembers(&doc) {
            defer { doc = .object(members) }
            guard let at = members.firstIndex(where: { $0.key == first }) else { throw Failure(description: "no member \(TreePath.shown(first, limit: 40))") }
            if t.count == 1 { members[at].value = value } else { try replace(&members[at].value, t.dropFirst(), value) }
        } else if var items = takeItems(&doc) {
            defer { doc = .array(items) }
            let i = try index(first, limit: items.count)
            if t.count == 1 { items[i] = value } else { try replace(&items[i], t.dropFirst(), value) }
        } else {
            throw Failure(description: "cannot look into a \(kind(doc))")
        }
    }

    /// Removes the value at `t` and returns it (a `move` takes it from there).
    @discardableResult
    static func remove(_ doc: inout TreeJSON, _ t: ArraySlice<String>) throws -> TreeJSON {
        guard let first = t.first else { throw Failure(description: "cannot remove the whole document") }
        if var members = takeMembers(&doc) {
            defer { doc = .object(members) }
            guard let at = members.firstIndex(where: { $0.key == first }) else { throw Failure(description: "no member \(TreePath.shown(first, limit: 40))") }
            if t.count == 1 { return members.remove(at: at).value }
            return try remove(&members[at].value, t.dropFirst())
        } else if var items = takeItems(&doc) {
            defer { doc = .array(items) }
            let i = try index(first, limit: items.count)
            if t.count == 1 { return items.remove(at: i) }
            return try remove(&items[i], t.dropFirst())
        } else {
            throw Failure(description: "cannot look into a \(kind(doc))")
        }
    }

    static func kind(_ v: TreeJSON) -> String {
        switch v {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}
