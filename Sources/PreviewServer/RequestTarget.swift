import Generator

/// What a request target (as sent: percent-encoded, maybe with a query) names in the tree. Decoded one segment at a
/// time, so an encoded slash (`%2F`) can never become a separator and an encoded `..` (`%2e%2e`) is seen as `..`.
/// Anything that could name something other than a file below the root is refused before the tree is touched.
public enum RequestTarget {
    public enum Resolution: Equatable, Sendable {
        /// A file path relative to the root (no trailing slash): `a/b.json`.
        case file(String)
        /// A folder path ending in `/` (`""` for the root): answered with its `index.html`, never a listing.
        case folder(String)
        /// Not a path of any tree: a `..` or `.` segment, an empty segment (`//`), an encoded `/`, a backslash, a
        /// control character (NUL included), bad percent-encoding or bytes that are not UTF-8.
        case refused(String)
    }

    public static func resolve(_ raw: String) -> Resolution {
        var target = Substring(raw)
        if let cut = target.firstIndex(where: { $0 == "?" || $0 == "#" }) { target = target[..<cut] }
        // Absolute form (`GET http://host/path`), which HTTP/1.1 servers must accept: only the path counts.
        for scheme in ["http://", "https://"] where target.lowercased().hasPrefix(scheme) {
            let rest = target.dropFirst(scheme.count)
            target = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        guard target.first == "/" else { return .refused("the target is not a path") }
        var rawSegments = target.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        let isFolder = rawSegments.last?.isEmpty ?? true
        if isFolder { rawSegments.removeLast() }
        var segments: [String] = []
        for rawSegment in rawSegments {
            guard let bytes = percentDecoded(rawSegment) else { return .refused("malformed percent-encoding") }
            guard let segment = String(validating: bytes, as: UTF8.self) else { return .refused("a path that is not UTF-8") }
            if segment.isEmpty { return .refused("an empty path segment") }
            if segment == "." || segment == ".." { return .refused("a '\(segment)' segment") }
            if segment.contains("/") { return .refused("an encoded '/' in a segment") }
            if segment.contains("\\") { return .refused("a backslash") }
            if segment.unicodeScalars.contains(where: { $0.value < 0x20 || ($0.value >= 0x7F && $0.value < 0xA0) }) {
                return .refused("a control character")
            }
            segments.append(segment)
        }
        let path = segments.joined(separator: "/")
        // The tree readers' own rule, once more (it must agree: the reader refuses anything else anyway).
        if !path.isEmpty, let why = TreeReader.pathRejection(path) { return .refused(why) }
        return isFolder ? .folder(path) : .file(path)
    }

    /// `%XX` decoded to bytes; nil for a `%` not followed by two hex digits.
    static func percentDecoded(_ s: Substring) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        var it = s.utf8.makeIterator()
        func hex(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x41...0x46: return c - 0x41 + 10
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
        while let c = it.next() {
            if c == 0x25 {
                guard let h = it.next().flatMap(hex), let l = it.next().flatMap(hex) else { return nil }
                out.append(h << 4 | l)
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// A tree path as a URL path (`/` first), each segment percent-encoded where RFC 3986 requires it.
    public static func urlPath(_ path: String, folder: Bool = false) -> String {
        var out = "/"
        for (i, segment) in path.split(separator: "/").enumerated() {
            if i > 0 { out += "/" }
            for c in segment.utf8 {
                let unreserved = (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39)
                    || c == 0x2D || c == 0x2E || c == 0x5F || c == 0x7E
                if unreserved { out.unicodeScalars.append(Unicode.Scalar(c)) } else { out += "%" + String(c, radix: 16, uppercase: true).leftPadded }
            }
        }
        if folder && !path.isEmpty { out += "/" }
        return out
    }
}

private extension String {
    var leftPadded: String { count == 1 ? "0" + self : self }
}
