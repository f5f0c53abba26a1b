import Foundation
import Schemas
import TreeClient

/// `generator flags`: a built tree's flags evaluated for one context, or for many (one JSON object a line), exactly
/// as `TreeClient.FeatureFlags` evaluates them on a device.
public enum TreeFlags {
    /// The tree's `config/flags.json`, read only as a regular file inside it.
    public static func load(dist: URL) throws -> FeatureFlags {
        let tree: TreeReader
        do { tree = try TreeReader(root: dist) } catch { throw BuildError(file: dist.path, "not a folder") }
        let bytes: [UInt8]
        do { bytes = try tree.read(FlagsOutput.path) } catch {
            throw BuildError(file: dist.path, "\(error) (a tree has \(FlagsOutput.path) when its input has flags.json)")
        }
        do { return try FeatureFlags(json: bytes) } catch { throw BuildError(file: dist.path, "\(error)") }
    }

    /// `{"flags": {key: value, …}, "update": "none|recommended|required|blocked"}`.
    public static func answer(_ flags: FeatureFlags, _ context: FlagContext) throws -> JSON {
        let values = try flags.values(for: context).map { ($0.key, try JSONReader.parse($0.value.bytes)) }
        return .obj(["flags": .object(JSONObject(values)), "update": .string(flags.update(for: context).rawValue)])
    }

    /// A context from one JSON line: `{"unit": …, "platform": …, "appVersion": …, "attributes": {…}}`, every member
    /// optional, each a string.
    public static func context(jsonLine line: String, number: Int) throws -> FlagContext {
        func fail(_ m: String) -> BuildError { BuildError(file: "contexts", line: number, m) }
        let json: JSON
        do { json = try JSONReader.parse(line) } catch { throw fail("\(error)") }
        guard case .object(let o) = json else { throw fail("expected an object") }
        func text(_ key: String) throws -> String? {
            switch o[key] {
            case nil, .null?: return nil
            case .string(let s)?: return s
            case let v?: throw fail("\(key): expected a string, found \(v.typeName)")
            }
        }
        var attributes: [String: String] = [:]
        if case .object(let a)? = o["attributes"] {
            for m in a.members {
                guard case .string(let s) = m.value else { throw fail("attributes.\(m.key): expected a string") }
                attributes[m.key] = s
            }
        }
        for key in o.keys where !["unit", "platform", "appVersion", "attributes"].contains(key) {
            throw fail("unknown key \(Excerpt.quote(key)) (allowed: unit, platform, appVersion, attributes)")
        }
        return FlagContext(unit: try text("unit"), platform: try text("platform"), appVersion: try text("appVersion"), attributes: attributes)
    }
}
