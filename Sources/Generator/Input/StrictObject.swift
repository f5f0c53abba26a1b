import Foundation
import Schemas

/// Reads a configuration object strictly: typed getters with clear errors, and `finish()`
/// rejects any key that was not read, so a typo never passes silently.
public struct StrictObject {
    public let file: String
    public let path: String
    private let object: JSONObject
    private var used: Set<String> = []

    public init(_ json: JSON, file: String, path: String = "") throws {
        guard case .object(let o) = json else {
            throw BuildError(file: file, field: path.isEmpty ? nil : path, "expected an object, found \(json.typeName)")
        }
        self.object = o; self.file = file; self.path = path
    }

    private func field(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
    private func fail(_ key: String, _ message: String) -> BuildError { BuildError(file: file, field: field(key), message) }

    public func has(_ key: String) -> Bool { object[key] != nil }

    /// Every key, in the file's order (for objects used as maps).
    public var keys: [String] { Array(object.keys) }

    public mutating func raw(_ key: String) -> JSON? { used.insert(key); return object[key] }

    public mutating func string(_ key: String, default def: String? = nil) throws -> String {
        used.insert(key)
        switch object[key] {
        case .string(let s)?: return s
        case nil, .null?: if let def { return def }; throw fail(key, "is required (a string)")
        case let v?: throw fail(key, "expected a string, found \(v.typeName)")
        }
    }

    public mutating func optionalString(_ key: String) throws -> String? {
        used.insert(key)
        switch object[key] {
        case .string(let s)?: return s
        case nil, .null?: return nil
        case let v?: throw fail(key, "expected a string, found \(v.typeName)")
        }
    }

    public mutating func bool(_ key: String, default def: Bool? = nil) throws -> Bool {
        used.insert(key)
        switch object[key] {
        case .bool(let b)?: return b
        case nil: if let def { return def }; throw fail(key, "is required (true or false)")
        case let v?: throw fail(key, "expected true or false, found \(v.typeName)")
        }
    }

    public mutating func int(_ key: String, default def: Int? = nil, min: Int? = nil, max: Int? = nil) throws -> Int {
        used.insert(key)
        switch object[key] {
        case .number(let n)?:
            guard let i = n.int else { throw fail(key, "expected a whole number, found \(Excerpt.text(n.description))") }
            if let min, i < min { throw fail(key, "must be at least \(min), found \(i)") }
            if let max, i > max { throw fail(key, "must be at most \(max), found \(i)") }
            return i
        case nil: if let def { return def }; throw fail(key, "is required (a whole number)")
        case let v?: throw fail(key, "expected a number, found \(v.typeName)")
        }
    }

    public mutating func double(_ key: String, default def: Double? = nil) throws -> Double {
        used.insert(key)
        switch object[key] {
        case .number(let n)?:
            // 1e400 is valid JSON but no double: it would reach the outputs as infinity.
            guard n.double.isFinite else { throw fail(key, "\(n) is beyond the range of a number") }
            return n.double
        case nil: if let def { return def }; throw fail(key, "is required (a number)")
        case let v?: throw fail(key, "expected a number, found \(v.typeName)")
        }
    }

    public mutating func stringArray(_ key: String, default def: [String]? = nil) throws -> [String] {
        used.insert(key)
        switch object[key] {
        case .array(let a)?:
            return try a.enumerated().map { i, v in
                guard case .string(let s) = v else { throw fail("\(key)[\(i)]", "expected a string, found \(v.typeName)") }
                return s
            }
        case nil: if let def { return def }; throw fail(key, "is required (an array of strings)")
        case let v?: throw fail(key, "expected an array, found \(v.typeName)")
        }
    }

    /// A nested object, read strictly too; nil when absent.
    public mutating func object(_ key: String) throws -> StrictObject? {
        used.insert(key)
        guard let v = object[key], !v.isNull else { return nil }
        return try StrictObject(v, file: file, path: field(key))
    }

    /// Throws for the first key that no getter asked for.
    public func finish() throws {
        for k in object.keys where !used.contains(k) {
            throw fail(Excerpt.text(k), "unknown key (check the spelling; allowed here: \(used.sorted().joined(separator: ", ")))")
        }
    }
}
