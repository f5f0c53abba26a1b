import Foundation
import Schemas
import TreeClient

/// Where a rule is, for its errors: the field path and the words "flag new_checkout, rule 2".
struct FlagRulePlace {
    let flag: String
    let index: Int
    let file: String
    var path: String { "flags.\(Excerpt.text(flag)).rules[\(index)]" }
    func error(_ field: String?, _ message: String) -> BuildError {
        BuildError(file: file, field: field.map { path + "." + $0 } ?? path, "flag \(Excerpt.text(flag)), rule \(index + 1): \(message)")
    }
}

extension FlagsInput {
    /// One rule: an optional `when`, then either a `value` or a `rollout` of a percent and a value, each value of the
    /// default's type.
    static func rule(_ json: JSON, _ place: FlagRulePlace, default def: JSON) throws -> JSON {
        guard case .object(let o) = json else { throw place.error(nil, "expected an object, found \(json.typeName)") }
        for key in o.keys where !["when", "value", "rollout"].contains(key) {
            throw place.error(Excerpt.text(key), "unknown key (allowed: when, value, rollout)")
        }
        var members: [(String, JSON)] = []
        if let when = o["when"] { members.append(("when", try self.when(when, place))) }
        switch (o["value"], o["rollout"]) {
        case (let v?, nil):
            try sameType(v, def, place, field: "value")
            members.append(("value", v))
        case (nil, let r?):
            members.append(("rollout", try rollout(r, place, default: def)))
        case (.some, .some): throw place.error(nil, "has both value and rollout: a rule decides with one of them")
        case (nil, nil): throw place.error(nil, "needs a value or a rollout {\"percent\": …, \"value\": …}")
        }
        return .object(JSONObject(members))
    }

    /// `when`: attribute → list of strings (any of them), and `appVersion` → a version range.
    static func when(_ json: JSON, _ place: FlagRulePlace) throws -> JSON {
        guard case .object(let o) = json else { throw place.error("when", "expected an object of attributes, found \(json.typeName)") }
        var members: [(String, JSON)] = []
        for m in o.members {
            let field = "when.\(Excerpt.text(m.key))"
            guard m.key.range(of: attributePattern, options: .regularExpression) != nil else {
                throw place.error(field, "attribute name \(Excerpt.quote(m.key)) must be letters, digits or '_', starting with a letter")
            }
            if m.key == "appVersion" {
                guard case .string(let text) = m.value else { throw place.error(field, "expected a version range such as \">=3.2.0 <4.0.0\", found \(m.value.typeName)") }
                do { _ = try VersionRange(parsing: text) } catch { throw place.error(field, "range \(Excerpt.quote(text)): \(error)") }
                members.append((m.key, m.value))
                continue
            }
            guard case .array(let items) = m.value, !items.isEmpty,
                  items.allSatisfy({ if case .string(let s) = $0 { return !s.isEmpty }; return false }) else {
                throw place.error(field, "expected a non-empty list of non-empty strings (a rule matches any of them), found \(m.value.typeName)")
            }
            members.append((m.key, m.value))
        }
        return .object(JSONObject(members))
    }

    static func rollout(_ json: JSON, _ place: FlagRulePlace, default def: JSON) throws -> JSON {
        guard case .object(let o) = json else { throw place.error("rollout", "expected {\"percent\": …, \"value\": …}, found \(json.typeName)") }
        for key in o.keys where !["percent", "value"].contains(key) {
            throw place.error("rollout.\(Excerpt.text(key))", "unknown key (allowed: percent, value)")
        }
        guard case .number(let n)? = o["percent"] else {
            throw place.error("rollout.percent", "is required: a number from 0 to 100 (at most two decimals)")
        }
        let p = n.double
        guard p.isFinite, p >= 0, p <= 100 else { throw place.error("rollout.percent", "must be from 0 to 100, found \(n)") }
        // Units are bucketed in ten-thousandths: a percent with more decimals would round differently per client.
        guard abs(p * 100 - (p * 100).rounded()) < 1e-6 else { throw place.error("rollout.percent", "has more than two decimals: \(n)") }
        guard let v = o["value"], !v.isNull else { throw place.error("rollout.value", "is required: the value units in the rollout get") }
        try sameType(v, def, place, field: "rollout.value")
        return .obj(["percent": .number(n), "value": v])
    }

    /// A flag's values are all of one type, so an app reads it one way ("integer" and "number" are one type).
    static func sameType(_ v: JSON, _ def: JSON, _ place: FlagRulePlace, field: String) throws {
        if let bad = unreadableNumber(v) { throw place.error(field, "\(bad) is beyond the range of a number (clients would read infinity)") }
        func type(_ j: JSON) -> String { j.typeName == "integer" ? "number" : j.typeName }
        func named(_ t: String) -> String { t == "null" ? "null" : (t.first.map { "aeiou".contains($0) } == true ? "an " : "a ") + t }
        guard type(v) == type(def) else {
            throw place.error(field, "is \(named(type(v))), but the flag's default is \(named(type(def)))")
        }
    }
}
