import Foundation

/// Turns record ids into path segments that are safe on every host and file system:
/// ids that try to leave their folder (`..`, `/`, `\`, control characters) are rejected;
/// other characters that would need percent-encoding become `-`; a leading `.` or `_`
/// (hidden, or ignored by Jekyll-style hosts) becomes `-`. Links must use the mapped name.
public enum SafePath {
    public enum Rejection: Error, CustomStringConvertible {
        case empty, traversal, separator, control
        public var description: String {
            switch self {
            case .empty: return "is empty"
            case .traversal: return "contains '..', which would escape its folder"
            case .separator: return "contains a path separator ('/' or '\\')"
            case .control: return "contains a control character"
            }
        }
    }

    /// Maps one id to one path segment, or says why it cannot be used.
    public static func segment(_ id: String) throws -> String {
        isSafeAsIs(id) ? id : try mapped(id)
    }

    /// The general rules, character by character.
    static func mapped(_ id: String) throws -> String {
        if id.isEmpty { throw Rejection.empty }
        if id.contains("/") || id.contains("\\") {
            throw id.split(separator: "/").contains("..") || id.contains("..") ? Rejection.traversal : Rejection.separator
        }
        if id == "." || id.contains("..") { throw Rejection.traversal }
        var out = ""
        out.reserveCapacity(id.utf8.count)
        for (i, u) in id.unicodeScalars.enumerated() {
            if u.value < 0x20 || u.value == 0x7F { throw Rejection.control }
            let ok = (u >= "a" && u <= "z") || (u >= "A" && u <= "Z") || (u >= "0" && u <= "9") || u == "-" || u == "." || u == "_"
            if !ok || (i == 0 && (u == "." || u == "_")) { out.append("-") } else { out.unicodeScalars.append(u) }
        }
        return out
    }

    /// The common case in one pass over the bytes: only letters, digits, `-`, `.` and `_`, no leading `.` or `_`, no
    /// `..`, so the id is its own segment.
    static func isSafeAsIs(_ id: String) -> Bool {
        var previous: UInt8 = 0
        for (i, b) in id.utf8.enumerated() {
            let alphanumeric = (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39)
            guard alphanumeric || b == 0x2D || ((b == 0x2E || b == 0x5F) && i > 0) else { return false }
            if b == 0x2E && previous == 0x2E { return false }
            previous = b
        }
        return previous != 0
    }

    /// Maps a hierarchical id (`tools/drills/other`) to nested segments, each checked as above.
    public static func nested(_ id: String) throws -> String {
        let parts = id.split(separator: "/", omittingEmptySubsequences: false)
        if parts.contains(where: { $0 == ".." || $0 == "." }) { throw Rejection.traversal }
        return try parts.map { try segment(String($0)) }.joined(separator: "/")
    }
}

/// Detects two ids that would land on the same file on a case-insensitive file system
/// (macOS, Windows checkouts) once mapped.
public struct CollisionDetector {
    private var seen: [String: String] = [:]
    public init() {}
    /// Returns the id that already claimed this path (case-insensitively), or nil if it is free.
    public mutating func claim(path: String, id: String) -> String? { claim(folded: path.lowercased(), id: id) }

    /// The same, for a path already folded (`path.lowercased()`, made beforehand, e.g. in parallel).
    public mutating func claim(folded key: String, id: String) -> String? {
        // (One lookup: the earlier claim is put back when it differs.)
        if let other = seen.updateValue(id, forKey: key), other != id { seen[key] = other; return other }
        return nil
    }

    /// Room for `count` more claims.
    public mutating func reserve(_ count: Int) { seen.reserveCapacity(seen.count + count) }
}
