import Foundation
import TreeClient

/// What changed in `config/flags.json` between two trees, in words for a release review
/// ("new_checkout: iOS ≥3.2.0 rollout 25 % → 50 %", "kill switch: payments_v2 off"), with how far each change
/// widens a rollout so `generator diff --fail-on widening=N` can stop a release that widens too fast.
public struct FlagChange: Sendable, Equatable {
    public var flag: String
    public var text: String
    /// Percentage points more units a rollout takes (0 when none): a rollout raised from 25 to 50 % is 25, a new
    /// rollout of 10 % is 10, a rollout of 30 % made a plain value for everyone its rule matches is 70.
    public var widening: Double = 0
}

public enum FlagChanges {
    /// Nil documents are a tree without flags. A document that cannot be read is a change in itself.
    public static func compare(old: [UInt8]?, new: [UInt8]?) -> [FlagChange] {
        func read(_ b: [UInt8]?) -> Result<FeatureFlags?, Error> { Result { try b.map { try FeatureFlags(json: $0) } } }
        switch (read(old), read(new)) {
        case (.success(let a), .success(let b)):
            return flags(a?.flags ?? [], b?.flags ?? []) + updates(a?.updates ?? [:], b?.updates ?? [:])
        case (_, .failure(let e)), (.failure(let e), _):
            return [FlagChange(flag: "", text: "config/flags.json cannot be read: \(e)")]
        }
    }

    static func flags(_ old: [FeatureFlags.Flag], _ new: [FeatureFlags.Flag]) -> [FlagChange] {
        var out: [FlagChange] = []
        let before = Dictionary(old.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        let keys = Set(new.map(\.key))
        for f in new {
            guard let o = before[f.key] else {
                out.append(FlagChange(flag: f.key, text: "\(f.key): new flag, default \(text(f.defaultValue))",
                                      widening: f.rules.map { widening(from: nil, to: $0) }.max() ?? 0))
                out += f.rules.enumerated().map { FlagChange(flag: f.key, text: "\(f.key): rule \($0 + 1): \(describe($1))") }
                continue
            }
            out += flag(o, f)
        }
        for f in old where !keys.contains(f.key) { out.append(FlagChange(flag: f.key, text: "\(f.key): flag removed")) }
        return out
    }

    /// One flag in both trees: a kill switch (or its opposite) in one line, otherwise the default and rule by rule.
    static func flag(_ o: FeatureFlags.Flag, _ f: FeatureFlags.Flag) -> [FlagChange] {
        if let now = constant(f), constant(o).map({ !$0.isEqual(to: now) }) ?? true, now.bool != nil {
            guard now.bool == true else { return [FlagChange(flag: f.key, text: "kill switch: \(f.key) off")] }
            // Widened from the largest share that had the value already.
            let had = o.rules.filter { $0.decisionValue.isEqual(to: now) }.map(share).max() ?? 0
            return [FlagChange(flag: f.key, text: "\(f.key) on for everyone", widening: 100 - had)]
        }
        var out: [FlagChange] = []
        if !o.defaultValue.isEqual(to: f.defaultValue) {
            out.append(FlagChange(flag: f.key, text: "\(f.key): default \(text(o.defaultValue)) → \(text(f.defaultValue))"))
        }
        for i in 0..<max(o.rules.count, f.rules.count) {
            switch (i < o.rules.count ? o.rules[i] : nil, i < f.rules.count ? f.rules[i] : nil) {
            case (let a?, let b?): out += rule(f.key, i, a, b)
            case (nil, let b?): out.append(FlagChange(flag: f.key, text: "\(f.key): rule \(i + 1) added: \(describe(b))", widening: widening(from: nil, to: b)))
            case (let a?, nil): out.append(FlagChange(flag: f.key, text: "\(f.key): rule \(i + 1) removed (was \(describe(a)))"))
            case (nil, nil): break
            }
        }
        return out
    }

    /// The same position in both: the rollout's percent in words when only it changed.
    static func rule(_ key: String, _ i: Int, _ a: FeatureFlags.Rule, _ b: FeatureFlags.Rule) -> [FlagChange] {
        let whenA = when(a.conditions), whenB = when(b.conditions)
        switch (a.decision, b.decision) {
        case (.rollout(let p, let v), .rollout(let q, let w)) where whenA == whenB && v.isEqual(to: w):
            guard p != q else { return [] }
            return [FlagChange(flag: key, text: "\(key): \(whenB) rollout \(percent(p)) % → \(percent(q)) %", widening: max(0, q - p))]
        case (.value(let v), .value(let w)) where whenA == whenB && v.isEqual(to: w):
            return []
        default:
            return [FlagChange(flag: key, text: "\(key): rule \(i + 1): \(describe(a)) → \(describe(b))", widening: widening(from: a, to: b))]
        }
    }

    /// How many points more of the units a rule matches get a rollout's value: a new rollout its percent, a rollout
    /// made a plain value the rest (100 − percent). A plain value rule added is not a rollout (testers, a country).
    static func widening(from a: FeatureFlags.Rule?, to b: FeatureFlags.Rule) -> Double {
        let before = a.flatMap { $0.decisionValue.isEqual(to: b.decisionValue) ? share($0) : nil } ?? 0
        switch b.decision {
        case .value: return a.map { if case .rollout = $0.decision { return max(0, 100 - before) }; return 0 } ?? 0
        case .rollout(let q, _): return max(0, q - before)
        }
    }

    static func updates(_ old: [String: FeatureFlags.UpdatePolicy], _ new: [String: FeatureFlags.UpdatePolicy]) -> [FlagChange] {
        var out: [FlagChange] = []
        for platform in Set(old.keys).union(new.keys).sorted() {
            let a = old[platform], b = new[platform]
            func line(_ what: String, _ x: AppVersion?, _ y: AppVersion?) {
                guard x != y else { return }
                out.append(FlagChange(flag: "", text: "updates \(platform): \(what) \(x?.description ?? "none") → \(y?.description ?? "none")"))
            }
            line("minimum", a?.minimum, b?.minimum)
            line("recommended", a?.recommended, b?.recommended)
            let was = a?.blocked ?? [], now = b?.blocked ?? []
            for v in now where !was.contains(v) { out.append(FlagChange(flag: "", text: "updates \(platform): \(v) blocked")) }
            for v in was where !now.contains(v) { out.append(FlagChange(flag: "", text: "updates \(platform): \(v) no longer blocked")) }
        }
        return out
    }
}
