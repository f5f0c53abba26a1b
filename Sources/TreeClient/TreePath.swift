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
        // Over the UTF-8 bytes (a file index lists 100,000 paths): C1 controls are 0xC2 0x80…0x9F there.
        var path = path
        return path.withUTF8 { u in
            var previous: UInt8 = 0
            for b in u {
                if b < 0x20 || b == 0x7F || (previous == 0xC2 && b >= 0x80 && b < 0xA0) { return "control character in path" }
                if b == UInt8(ascii: "\\") { return "backslash in path" }
                previous = b
            }
            var start = 0
            for end in 0...u.count where end == u.count || u[end] == UInt8(ascii: "/") {
                let n = end - start
                if n == 2 && u[start] == UInt8(ascii: ".") && u[start + 1] == UInt8(ascii: ".") { return "path climbs out of the tree ('..')" }
                if n == 1 && u[start] == UInt8(ascii: ".") { return "'.' segment in path" }
                if n == 0 { return "empty segment in path" }
                start = end + 1
            }
            return nil
        }
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

    /// The folder of a store where `generator publish` keeps content-addressed copies of files while it replaces them
    /// (see `contentAddressed`). No path of a tree is ever below it: the publisher refuses a tree that names one.
    public static let objectsFolder = "releases/objects/"

    /// Where a store may also hold a file's bytes, named by their sha256: `releases/objects/SHA256.EXT`, EXT the path's
    /// extension in lower case (letters and digits, at most 16; none otherwise), so the object is served with the same
    /// Content-Type. An S3 publish writes these before it switches the manifest and rewrites the fixed paths after,
    /// so a file fetched at its path with another sha256 than the index lists is read from here instead (on a host
    /// without them, such as GitHub Pages, the object is simply missing). Nil when `sha256` is not 64 lowercase hex
    /// digits.
    public static func contentAddressed(sha256: String, path: String) -> String? {
        guard sha256.utf8.count == 64, sha256.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else { return nil }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var ext = ""
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            let e = name[name.index(after: dot)...].lowercased()
            if (1...16).contains(e.utf8.count), e.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) }) { ext = "." + e }
        }
        return objectsFolder + sha256 + ext
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
