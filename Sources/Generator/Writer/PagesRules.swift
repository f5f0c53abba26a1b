import Foundation

/// GitHub Pages' rules, checked before anything is written: no path segment starting with
/// `_` or `.` (other than `.nojekyll`), nothing that needs percent-encoding, files over 50 MB
/// warned and over 100 MB refused, and the whole site at most 1 GB.
public enum PagesRules {
    public static let warnFileBytes = 50 * 1024 * 1024
    public static let maxFileBytes = 100 * 1024 * 1024
    public static let maxSiteBytes = 1024 * 1024 * 1024

    /// RFC 3986 unreserved characters: a path of only these needs no percent-encoding.
    @inline(__always) static func isUnreserved(_ c: UInt8) -> Bool {
        (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x2E || c == 0x5F || c == 0x7E
    }

    /// Segments non-empty, none starting with `_` or `.`, every byte unreserved.
    static func isPlainPath(_ path: String) -> Bool {
        var segmentStart = true
        for c in path.utf8 {
            if c == 0x2F { if segmentStart { return false }; segmentStart = true; continue }
            if segmentStart && (c == 0x5F || c == 0x2E) { return false }
            if !isUnreserved(c) { return false }
            segmentStart = false
        }
        return !segmentStart
    }

    /// Returns warnings; throws for a violation.
    public static func check(_ files: [(path: String, size: Int)]) throws -> [String] {
        var warnings: [String] = []
        var total = 0
        var errors: [BuildError] = []
        for (path, size) in files {
            total += size
            // Most paths are fine: one scan of the bytes settles them; only a suspect path is split for the message.
            if path != ".nojekyll", !isPlainPath(path) {
                for seg in path.split(separator: "/", omittingEmptySubsequences: false) {
                    if seg.isEmpty || seg.hasPrefix("_") || seg.hasPrefix(".") {
                        errors.append(BuildError(file: path, "path segment \"\(seg)\" is empty or starts with '_' or '.', which GitHub Pages does not serve reliably"))
                        break
                    }
                    if seg.utf8.contains(where: { !isUnreserved($0) }) {
                        errors.append(BuildError(file: path, "path segment \"\(seg)\" has characters that need percent-encoding in a URL"))
                        break
                    }
                }
            }
            if size > maxFileBytes {
                errors.append(BuildError(file: path, "is \(size / 1_048_576) MB; GitHub Pages refuses files over 100 MB"))
            } else if size > warnFileBytes {
                warnings.append("\(path) is \(size / 1_048_576) MB; GitHub warns above 50 MB")
            }
        }
        if total > maxSiteBytes { errors.append(BuildError(file: "(output)", "the tree is \(total / 1_048_576) MB; GitHub Pages sites are limited to 1 GB")) }
        if !errors.isEmpty { throw BuildErrors(errors) }
        return warnings
    }
}
