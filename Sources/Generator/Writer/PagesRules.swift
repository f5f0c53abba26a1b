import Foundation

/// GitHub Pages' rules, checked before anything is written: no path segment starting with
/// `_` or `.` (other than `.nojekyll`), nothing that needs percent-encoding, files over 50 MB
/// warned and over 100 MB refused, and the whole site at most 1 GB. With target object-storage the path rules stay,
/// the site has no limit and a file may be up to `maxFileMB`.
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

    /// One file of the tree for the checks: its path, size and the setting that makes files of its kind smaller or
    /// leaves them out (`OutputKind.sizeSetting`), named when the file is too large.
    public struct Entry: Sendable {
        public var path: String
        public var size: Int
        public var sizeSetting: SizeSetting?
        public init(path: String, size: Int, sizeSetting: SizeSetting? = nil) { self.path = path; self.size = size; self.sizeSetting = sizeSetting }
    }

    /// GitHub Pages' rules on paths and sizes (the default target).
    public static func check(_ files: [(path: String, size: Int)]) throws -> [String] {
        try check(files.map { Entry(path: $0.path, size: $0.size) }, target: .githubPages)
    }

    /// The path rules (whatever the target: a tree may move between hosts, and apps build URLs from its paths), then
    /// the target's size limits; an error for a file or a tree too large names the setting that fixes it.
    /// `siteLimit`: false to check only each file (files added to a tree already checked whole).
    /// Returns warnings; throws for a violation.
    public static func check(_ files: [Entry], target: HostTarget, siteLimit: Bool = true) throws -> [String] {
        var warnings: [String] = []
        var total = 0
        var errors: [BuildError] = []
        var leftOutBySetting: [String: Int] = [:]
        for f in files {
            let path = f.path, size = f.size
            total += size
            if let s = f.sizeSetting, s.leavesOut { leftOutBySetting[s.fix, default: 0] += size }
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
            switch target {
            case .githubPages:
                if size > maxFileBytes {
                    let fix = (f.sizeSetting.map { "set \($0.fix) or " } ?? "make it smaller or ") + "set target to object-storage"
                    errors.append(BuildError(file: "(output)", "\(path) is \(megabytes(size)), over GitHub Pages' 100 MB file limit: \(fix)"))
                } else if size > warnFileBytes {
                    warnings.append("\(path) is \(size / 1_048_576) MB; GitHub warns above 50 MB")
                }
            case .objectStorage(let limit):
                if size > limit {
                    let fix = (f.sizeSetting.map { "set \($0.fix) or " } ?? "make it smaller or ") + "raise maxFileMB"
                    errors.append(BuildError(file: "(output)", "\(path) is \(megabytes(size)), over the \(limit / 1_048_576) MB file limit (maxFileMB) of target object-storage: \(fix)"))
                }
            }
        }
        if siteLimit, target == .githubPages, total > maxSiteBytes {
            // Settings that leave files out, largest share first (each named once).
            let smaller = leftOutBySetting.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
                .map { ", or set \($0.key) (\(megabytes($0.value)) of it)" }.joined()
            errors.append(BuildError(file: "(output)", "the tree is \(megabytes(total)), over GitHub Pages' 1 GB site limit: set target to object-storage (no site limit)\(smaller)"))
        }
        if !errors.isEmpty { throw BuildErrors(errors) }
        return warnings
    }

    /// "905.3 MB": one decimal, so a file just over a limit never reads as the limit itself.
    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }
}

/// The site.json setting that makes an output kind's files smaller or leaves them out, named by the size checks
/// (`PagesRules.check`) when one of its files is too large.
public struct SizeSetting: Sendable, Equatable {
    /// What to set, as the message says it: "catalog.seedIndexes to false", "pageSize (products per category page)".
    public var fix: String
    /// True when the setting leaves the files out altogether (so it also shrinks the whole tree by their size).
    public var leavesOut: Bool
    public init(_ fix: String, leavesOut: Bool = false) { self.fix = fix; self.leavesOut = leavesOut }
}
