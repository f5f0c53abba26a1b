import Foundation

/// The paths a published tree may name (in its manifest, file index and deltas): plain relative paths that stay
/// inside the tree on any host. The generator checks the trees it reads by the same rule, and the sync refuses a
/// release naming any other path before it writes anything, so a hostile site can never write outside the folder.
public enum TreePath {
    /// Why `path` cannot name a file of a tree, or nil when it is a plain relative path: not empty, not absolute, no
    /// empty, `.` or `..` segment, no backslash (a separator on Windows hosts) and no control character.
    public static func rejection(_ path: String) -> String? {
        if path.isEmpty { return "empty path" }
        if path.hasPrefix("/") { return "absolute path: not inside the tree" }
        for s in path.unicodeScalars {
            if s.value < 0x20 || (s.value >= 0x7F && s.value < 0xA0) { return "control character in path" }
            if s == "\\" { return "backslash in path" }
        }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            if segment == ".." { return "path climbs out of the tree ('..')" }
            if segment == "." { return "'.' segment in path" }
            if segment.isEmpty { return "empty segment in path" }
        }
        return nil
    }

    /// A path or message as it may be printed: control characters escaped, long text cut.
    public static func shown(_ text: String, limit: Int = 200) -> String {
        var out = ""
        for s in text.unicodeScalars {
            if out.unicodeScalars.count >= limit { out += "…"; break }
            if s.value < 0x20 || (s.value >= 0x7F && s.value < 0xA0) { out += String(format: "\\u{%02X}", s.value) }
            else { out.unicodeScalars.append(s) }
        }
        return out
    }

    /// The URL of a tree path below a site's base URL (which names a folder: a missing final `/` is added), each
    /// segment percent-encoded.
    public static func url(_ path: String, under base: URL) -> URL {
        var text = base.absoluteString
        if let q = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = String(text[..<q]) }
        if !text.hasSuffix("/") { text += "/" }
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove("/")
        let encoded = path.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? String($0) }.joined(separator: "/")
        return URL(string: text + encoded)!
    }
}
