import Foundation
import TreeClient

extension FlagChanges {
    /// "iOS ≥3.2.0 <4.0.0 country US/CA": who a rule is for, in the order of its `when`.
    static func when(_ conditions: [FeatureFlags.Condition]) -> String {
        guard !conditions.isEmpty else { return "everyone" }
        return conditions.map { c in
            switch c {
            case .appVersion(let r):
                return r.description.replacingOccurrences(of: ">=", with: "≥").replacingOccurrences(of: "<=", with: "≤")
            case .oneOf("platform", let values): return values.map(platformName).joined(separator: "/")
            case .oneOf("unit", let values): return "unit\(values.count == 1 ? "" : "s") \(values.joined(separator: "/"))"
            case .oneOf(let name, let values): return "\(name) \(values.joined(separator: "/"))"
            }
        }.joined(separator: " ")
    }

    static func platformName(_ p: String) -> String {
        ["ios": "iOS", "ipados": "iPadOS", "macos": "macOS", "android": "Android", "watchos": "watchOS", "tvos": "tvOS"][p] ?? p
    }

    /// "iOS ≥3.2.0: rollout 25 % → true", "country US/CA: true".
    static func describe(_ r: FeatureFlags.Rule) -> String {
        switch r.decision {
        case .value(let v): return "\(when(r.conditions)): \(text(v))"
        case .rollout(let p, let v): return "\(when(r.conditions)): rollout \(percent(p)) % → \(text(v))"
        }
    }

    /// The share of matching units a rule decides for: its rollout's percent, or all of them.
    static func share(_ r: FeatureFlags.Rule) -> Double {
        if case .rollout(let p, _) = r.decision { return p }
        return 100
    }

    /// The one value a flag has for every context (each rule decides the default's value or is a rollout of 0 %,
    /// which takes nobody), or nil.
    static func constant(_ f: FeatureFlags.Flag) -> TreeJSON? {
        f.rules.allSatisfy { r in
            if case .rollout(let p, _) = r.decision, p == 0 { return true }
            return r.decisionValue.isEqual(to: f.defaultValue)
        } ? f.defaultValue : nil
    }

    static func text(_ v: TreeJSON) -> String {
        let s = String(decoding: v.bytes, as: UTF8.self)
        return s.count > 60 ? String(s.prefix(59)) + "…" : s
    }

    public static func percent(_ p: Double) -> String {
        p == p.rounded() ? String(Int(p)) : String(format: "%.2f", p).replacingOccurrences(of: #"0$"#, with: "", options: .regularExpression)
    }
}

extension FeatureFlags.Rule {
    var decisionValue: TreeJSON {
        switch decision {
        case .value(let v), .rollout(_, let v): return v
        }
    }
}
