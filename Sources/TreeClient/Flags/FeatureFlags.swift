import Foundation

/// The feature flags and update policy of a tree (`config/flags.json`), evaluated on the device: no server is asked.
///
/// A flag's rules are tried in order. A rule whose `when` holds for the context decides with its `value`; a rule with a
/// `rollout` decides with the rollout's value for the units in its share (see ``FlagBucket``) and lets the others go on
/// to the next rule. When no rule decides, the flag has its `default`.
public struct FeatureFlags: Sendable {
    public struct Flag: Sendable {
        public let key: String
        public let description: String?
        public let defaultValue: TreeJSON
        public let rules: [Rule]
    }

    public struct Rule: Sendable {
        /// Every condition must hold (none: the rule holds for everyone).
        public let conditions: [Condition]
        public let decision: Decision
    }

    public enum Condition: Sendable {
        /// The context's attribute is one of these values (exact, case-sensitive); a missing attribute never matches.
        case oneOf(attribute: String, values: [String])
        /// The context's app version is in the range; a missing or malformed version never matches.
        case appVersion(VersionRange)
    }

    public enum Decision: Sendable {
        case value(TreeJSON)
        case rollout(percent: Double, value: TreeJSON)
    }

    /// Per platform: versions below `minimum` must update, below `recommended` should, and `blocked` ones must.
    public struct UpdatePolicy: Sendable {
        public let minimum: AppVersion?
        public let recommended: AppVersion?
        public let blocked: [AppVersion]
    }

    public enum UpdateStatus: String, Sendable {
        case none, recommended, required, blocked
    }

    /// In the document's order.
    public let flags: [Flag]
    /// By platform name (`ios`, `android`, …).
    public let updates: [String: UpdatePolicy]

    /// The value of every flag for `context`, in the document's order.
    public func values(for context: FlagContext) -> [(key: String, value: TreeJSON)] {
        flags.map { ($0.key, Self.evaluate($0, context)) }
    }

    /// One flag's value, or nil when the document has no flag of that key.
    public func value(_ key: String, for context: FlagContext) -> TreeJSON? {
        flags.first { $0.key == key }.map { Self.evaluate($0, context) }
    }

    /// A boolean flag: true only when its value is `true` (a missing flag, or another type, is false).
    public func isOn(_ key: String, for context: FlagContext) -> Bool { value(key, for: context)?.bool == true }

    static func evaluate(_ flag: Flag, _ context: FlagContext) -> TreeJSON {
        for rule in flag.rules where rule.conditions.allSatisfy({ $0.holds(for: context) }) {
            switch rule.decision {
            case .value(let v): return v
            case .rollout(let percent, let v):
                if let unit = context.unit, FlagBucket.isIn(flag: flag.key, unit: unit, percent: percent) { return v }
            }
        }
        return flag.defaultValue
    }

    /// What the app should do about its version on its platform: a blocked version first, then the minimum, then the
    /// recommended one. Without a platform, a policy for it or a well-formed version, `none`.
    public func update(for context: FlagContext) -> UpdateStatus {
        guard let platform = context.platform, let policy = updates[platform],
              let version = context.appVersion.flatMap(AppVersion.init) else { return .none }
        if policy.blocked.contains(version) { return .blocked }
        if let m = policy.minimum, version < m { return .required }
        if let r = policy.recommended, version < r { return .recommended }
        return .none
    }
}

extension FeatureFlags.Condition {
    func holds(for context: FlagContext) -> Bool {
        switch self {
        case .oneOf(let attribute, let values):
            // Code point by code point, as JavaScript compares (Swift's == would also equate canonically equivalent text).
            guard let a = context.attribute(attribute) else { return false }
            return values.contains { $0.unicodeScalars.elementsEqual(a.unicodeScalars) }
        case .appVersion(let range): return context.appVersion.flatMap(AppVersion.init).map(range.contains) ?? false
        }
    }
}

/// Who is asking: the unit a rollout buckets (an install id or a user id), and the attributes rules test.
public struct FlagContext: Sendable {
    /// Without a unit, no rollout takes the context (rules with a plain `value` still apply).
    public var unit: String?
    public var platform: String?
    /// Dotted numbers (`3.2.0`); anything else matches no version rule.
    public var appVersion: String?
    /// Any other attribute a `when` may name (`country`, `plan`, …).
    public var attributes: [String: String]

    public init(unit: String?, platform: String? = nil, appVersion: String? = nil, attributes: [String: String] = [:]) {
        self.unit = unit; self.platform = platform; self.appVersion = appVersion; self.attributes = attributes
    }

    /// `platform` and `unit` are attributes too (a rule may list test devices by unit).
    func attribute(_ name: String) -> String? {
        switch name {
        case "platform": return platform
        case "unit": return unit
        case "appVersion": return appVersion
        default: return attributes[name]
        }
    }
}
