import Foundation

/// RFC 3986 URI references: parsing into components and resolving a reference against a base (section 5.2),
/// enough for `$id`, `$ref` and `$dynamicRef`. No network access, ever: URIs are only names.
struct URIReference: Equatable {
    var scheme: String?
    var authority: String?
    var path: String
    var query: String?
    var fragment: String?

    init(_ s: String) {
        var rest = Substring(s)
        if let hash = rest.firstIndex(of: "#") { fragment = String(rest[rest.index(after: hash)...]); rest = rest[..<hash] }
        if let q = rest.firstIndex(of: "?") { query = String(rest[rest.index(after: q)...]); rest = rest[..<q] }
        // A scheme is letters, digits, + - . before the first ":", starting with a letter, before any "/".
        if let colon = rest.firstIndex(of: ":"), let first = rest.first, first.isLetter,
           rest[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) {
            scheme = String(rest[..<colon]).lowercased()
            rest = rest[rest.index(after: colon)...]
        }
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            authority = String(rest[..<end])
            rest = rest[end...]
        }
        path = String(rest)
    }

    init(scheme: String?, authority: String?, path: String, query: String?, fragment: String?) {
        self.scheme = scheme; self.authority = authority; self.path = path; self.query = query; self.fragment = fragment
    }

    var string: String {
        var s = ""
        if let scheme { s += scheme + ":" }
        if let authority { s += "//" + authority }
        s += path
        if let query { s += "?" + query }
        if let fragment { s += "#" + fragment }
        return s
    }

    var withoutFragment: URIReference { var u = self; u.fragment = nil; return u }
    var isAbsolute: Bool { scheme != nil }

    /// RFC 3986 §5.2.2.
    func resolved(against base: URIReference) -> URIReference {
        if scheme != nil {
            return URIReference(scheme: scheme, authority: authority, path: Self.removeDots(path), query: query, fragment: fragment)
        }
        if authority != nil {
            return URIReference(scheme: base.scheme, authority: authority, path: Self.removeDots(path), query: query, fragment: fragment)
        }
        if path.isEmpty {
            return URIReference(scheme: base.scheme, authority: base.authority, path: base.path, query: query ?? base.query, fragment: fragment)
        }
        let merged: String
        if path.hasPrefix("/") { merged = path } else if base.authority != nil && base.path.isEmpty { merged = "/" + path } else {
            let dir = base.path.lastIndex(of: "/").map { String(base.path[...$0]) } ?? ""
            merged = dir + path
        }
        return URIReference(scheme: base.scheme, authority: base.authority, path: Self.removeDots(merged), query: query, fragment: fragment)
    }

    /// RFC 3986 §5.2.4.
    static func removeDots(_ path: String) -> String {
        var input = Substring(path), output: [Substring] = []
        var result = ""
        // Segment-based equivalent of the algorithm.
        let absolute = input.hasPrefix("/")
        if absolute { input = input.dropFirst() }
        let segments = input.split(separator: "/", omittingEmptySubsequences: false)
        for (i, seg) in segments.enumerated() {
            let last = i == segments.count - 1
            if seg == "." { if last { output.append("") }; continue }
            if seg == ".." { if !output.isEmpty { output.removeLast() }; if last { output.append("") }; continue }
            output.append(seg)
        }
        result = (absolute ? "/" : "") + output.joined(separator: "/")
        return result
    }

    static func resolve(_ ref: String, against base: String) -> String {
        URIReference(ref).resolved(against: URIReference(base)).string
    }
}
