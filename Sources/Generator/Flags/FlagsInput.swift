import Foundation
import Schemas
import TreeClient

/// `input/flags.json`, read strictly: flags with their rules, and the update policy per platform. Every error names
/// the file, the field and, for a rule, the flag and the rule's number (from 1), e.g.
/// `input/flags.json: field 'flags.new_checkout.rules[0].rollout.percent': flag new_checkout, rule 1: …`.
/// What it returns is the document published as `config/flags.json` (see `FlagsOutput`), members in input order.
enum FlagsInput {
    static let flagKeyPattern = #"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"#
    static let attributePattern = #"^[A-Za-z][A-Za-z0-9_]{0,63}$"#
    static let platformPattern = #"^[a-z][a-z0-9_-]{0,31}$"#

    static func parse(_ json: JSON, file: String) throws -> JSON {
        var o = try StrictObject(json, file: file)
        _ = o.raw("$schema")   // editors may point at a schema
        guard case .object(let flagObjects)? = o.raw("flags") else {
            throw BuildError(file: file, field: "flags", "is required: an object of flags by key (it may be empty)")
        }
        var flags = JSONObject()
        for m in flagObjects.members { flags.append(m.key, try flag(m.key, m.value, file: file)) }
        var updates = JSONObject()
        if var u = try o.object("updates") {
            for platform in u.keys { updates.append(platform, try policy(platform, u.raw(platform), file: file)) }
        }
        try o.finish()
        return .obj(["format": .int(FeatureFlags.format), "flags": .object(flags), "updates": .object(updates)])
    }

    static func flag(_ key: String, _ json: JSON, file: String) throws -> JSON {
        let path = "flags.\(Excerpt.text(key))"
        guard key.range(of: flagKeyPattern, options: .regularExpression) != nil else {
            throw BuildError(file: file, field: path, "flag key \(Excerpt.quote(key)) must be 1–64 letters, digits, '_', '.' or '-', starting with a letter or digit")
        }
        var o = try StrictObject(json, file: file, path: path)
        let description = try o.optionalString("description")
        guard let def = o.raw("default"), !def.isNull else {
            throw BuildError(file: file, field: path + ".default", "flag \(key): is required (any JSON value but null; every rule's value must be of its type)")
        }
        if let bad = Self.unreadableNumber(def) {
            throw BuildError(file: file, field: path + ".default", "flag \(key): \(bad) is beyond the range of a number (clients would read infinity)")
        }
        var rules: [JSON] = []
        if let r = o.raw("rules") {
            guard case .array(let items) = r else { throw BuildError(file: file, field: path + ".rules", "flag \(key): expected an array of rules, found \(r.typeName)") }
            for (i, item) in items.enumerated() {
                rules.append(try rule(item, FlagRulePlace(flag: key, index: i, file: file), default: def))
            }
        }
        try o.finish()
        var members: [(String, JSON)] = []
        if let description { members.append(("description", .string(description))) }
        members += [("default", def), ("rules", .array(rules))]
        return .object(JSONObject(members))
    }

    /// A number no client can hold (1e400 is valid JSON), anywhere in a value, or nil.
    static func unreadableNumber(_ v: JSON) -> String? {
        switch v {
        case .number(let n): return n.double.isFinite ? nil : "\(n)"
        case .array(let a): return a.lazy.compactMap(unreadableNumber).first
        case .object(let o): return o.members.lazy.compactMap { unreadableNumber($0.value) }.first
        default: return nil
        }
    }

    static func policy(_ platform: String, _ json: JSON?, file: String) throws -> JSON {
        let path = "updates.\(Excerpt.text(platform))"
        guard platform.range(of: platformPattern, options: .regularExpression) != nil else {
            throw BuildError(file: file, field: path, "platform \(Excerpt.quote(platform)) must be lower-case letters, digits, '_' or '-' (e.g. ios, android)")
        }
        var o = try StrictObject(json ?? .null, file: file, path: path)
        func version(_ text: String?, _ field: String) throws -> AppVersion? {
            guard let text else { return nil }
            guard let v = AppVersion(text) else {
                throw BuildError(file: file, field: "\(path).\(field)", "\(Excerpt.quote(text)) is not a version (dotted numbers, e.g. 3.2.0)")
            }
            return v
        }
        let minimum = try version(o.optionalString("minimum"), "minimum")
        let recommended = try version(o.optionalString("recommended"), "recommended")
        let blocked = try o.stringArray("blocked", default: [])
        for (i, b) in blocked.enumerated() { _ = try version(b, "blocked[\(i)]") }
        try o.finish()
        if let minimum, let recommended, recommended < minimum {
            throw BuildError(file: file, field: path + ".recommended", "\(recommended) is below the minimum \(minimum)")
        }
        var members: [(String, JSON)] = []
        if let minimum { members.append(("minimum", .string(minimum.description))) }
        if let recommended { members.append(("recommended", .string(recommended.description))) }
        if !blocked.isEmpty { members.append(("blocked", .strings(blocked))) }
        return .object(JSONObject(members))
    }
}
