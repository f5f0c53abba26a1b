import Foundation

extension FeatureFlags {
    /// The version of `config/flags.json` this client understands; a document of another format is refused, so an
    /// app never evaluates rules it cannot read (it keeps its built-in defaults instead).
    public static let format = 1

    public struct DocumentError: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ d: String) { description = "config/flags.json: " + d }
    }

    /// Reads `config/flags.json` from a synced copy of the tree (the folder given to ``TreeSync``).
    public init(copy directory: URL) throws {
        let url = directory.appendingPathComponent("config/flags.json")
        try self.init(json: Array(try Data(contentsOf: url)))
    }

    /// Reads the bytes of `config/flags.json`.
    public init(json bytes: [UInt8]) throws {
        let doc: TreeJSON
        do { doc = try TreeJSON.parse(bytes) } catch { throw DocumentError("\(error)") }
        guard doc["format"]?.int == Self.format else {
            throw DocumentError("format \(doc["format"].map { String(decoding: $0.bytes, as: UTF8.self) } ?? "missing"), this client reads format \(Self.format)")
        }
        guard case .object(let flagMembers)? = doc["flags"] else { throw DocumentError("flags is not an object") }
        flags = try flagMembers.map { try Self.flag($0.key, $0.value) }
        guard case .object(let platformMembers)? = doc["updates"] else { throw DocumentError("updates is not an object") }
        var updates: [String: UpdatePolicy] = [:]
        for m in platformMembers { updates[m.key] = try Self.policy(m.key, m.value) }
        self.updates = updates
    }

    static func flag(_ key: String, _ json: TreeJSON) throws -> Flag {
        guard let def = json["default"], let rules = json["rules"]?.array else {
            throw DocumentError("flag \(key) lacks default or rules")
        }
        return Flag(key: key, description: json["description"]?.string, defaultValue: def,
                    rules: try rules.enumerated().map { try rule($1, where: "flag \(key) rule \($0 + 1)") })
    }

    static func rule(_ json: TreeJSON, where place: String) throws -> Rule {
        var conditions: [Condition] = []
        if case .object(let members)? = json["when"] {
            for m in members {
                if m.key == "appVersion" {
                    guard let text = m.value.string, let range = try? VersionRange(parsing: text) else {
                        throw DocumentError("\(place): appVersion is not a version range")
                    }
                    conditions.append(.appVersion(range))
                } else {
                    guard let values = m.value.array?.compactMap(\.string), values.count == m.value.array?.count else {
                        throw DocumentError("\(place): \(m.key) is not a list of strings")
                    }
                    conditions.append(.oneOf(attribute: m.key, values: values))
                }
            }
        }
        if let v = json["value"] { return Rule(conditions: conditions, decision: .value(v)) }
        guard case .number(let p)? = json["rollout"]?["percent"], let percent = Double(p), let v = json["rollout"]?["value"] else {
            throw DocumentError("\(place) has neither a value nor a rollout of a percent and a value")
        }
        return Rule(conditions: conditions, decision: .rollout(percent: percent, value: v))
    }

    static func policy(_ platform: String, _ json: TreeJSON) throws -> UpdatePolicy {
        func version(_ t: TreeJSON?) throws -> AppVersion? {
            guard let t else { return nil }
            guard let s = t.string, let v = AppVersion(s) else { throw DocumentError("updates.\(platform): a version is not dotted numbers") }
            return v
        }
        return UpdatePolicy(minimum: try version(json["minimum"]), recommended: try version(json["recommended"]),
                            blocked: try (json["blocked"]?.array ?? []).map { try version($0)! })
    }
}
