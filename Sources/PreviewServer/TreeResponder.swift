import Foundation
import Generator

/// Answers a request from one snapshot as GitHub Pages would: the file's bytes with its content type, a strong
/// `ETag` (the file index's sha256; weak for the gzip variant), 304 when `If-None-Match` matches, gzip when the
/// client accepts it and it makes the body smaller, `404.html` with 404 for a missing file, a folder's
/// `index.html` (never a listing), GET and HEAD only.
public enum TreeResponder {
    /// Header that says which release answered (`update-manifest.json`'s `version`).
    public static let versionHeader = "X-Tree-Version"
    static let allowed = "GET, HEAD"

    /// `header(name)`: the request's header value (names case-insensitive), nil when absent.
    public static func reply(method: String, target: String, header: (String) -> String?, snapshot: PinnedRelease) -> Reply {
        let isHead = method == "HEAD"
        guard method == "GET" || isHead else {
            var r = text(405, "Method Not Allowed", "405 Method Not Allowed: only GET and HEAD are served\n", snapshot)
            r.headers.append(("Allow", allowed))
            return r
        }
        var reply: Reply
        switch RequestTarget.resolve(target) {
        case .refused(let why):
            reply = text(400, "Bad Request", "400 Bad Request: \(why)\n", snapshot)
        case .folder(let path):
            let index = path.isEmpty ? "index.html" : path + "/index.html"
            reply = file(index, header: header, snapshot: snapshot) ?? notFound(header: header, snapshot: snapshot)
        case .file(let path):
            reply = file(path, header: header, snapshot: snapshot) ?? missing(path, target: target, header: header, snapshot: snapshot)
        }
        if isHead { reply.body = [] }
        return reply
    }

    /// The 200 (or 304) for a file of the snapshot; nil when it has no such regular file.
    static func file(_ path: String, header: (String) -> String?, snapshot: PinnedRelease) -> Reply? {
        guard let bytes = try? snapshot.reader.read(path) else { return nil }
        let sha = snapshot.sha256(of: path, bytes: bytes)
        var reply = representation(bytes, path: path, status: 200, reason: "OK", header: header, snapshot: snapshot, etag: sha)
        if let condition = header("If-None-Match"), matches(condition, sha) {
            reply.status = 304
            reply.reason = "Not Modified"
            // What a cache needs to update what it holds; no body, and no metadata of a body not sent.
            reply.headers.removeAll { $0.name == "Content-Type" || $0.name == "Content-Encoding" }
            reply.body = []
        }
        return reply
    }

    /// A path that names no file: a folder with an `index.html` is redirected to its `/` form (as Pages does); a
    /// name without extension is tried as `name.html`; anything else is the 404 page.
    static func missing(_ path: String, target: String, header: (String) -> String?, snapshot: PinnedRelease) -> Reply {
        if case .notAFile? = problem(path, snapshot), (try? snapshot.reader.read(path + "/index.html")) != nil {
            var location = RequestTarget.urlPath(path, folder: true)
            if let q = target.firstIndex(of: "?") { location += target[q...].prefix { $0 != "#" } }
            var r = text(301, "Moved Permanently", "301 Moved Permanently: \(location)\n", snapshot)
            r.headers.append(("Location", location))
            return r
        }
        let last = path.split(separator: "/").last ?? ""
        if !last.contains("."), let html = file(path + ".html", header: header, snapshot: snapshot) { return html }
        return notFound(header: header, snapshot: snapshot)
    }

    static func problem(_ path: String, _ snapshot: PinnedRelease) -> TreeProblem.Kind? {
        do { _ = try snapshot.reader.read(path); return nil } catch let p as TreeProblem { return p.kind } catch { return .unreadable }
    }

    static func notFound(header: (String) -> String?, snapshot: PinnedRelease) -> Reply {
        guard let page = snapshot.notFoundPage else { return text(404, "Not Found", "404 Not Found\n", snapshot) }
        return representation(page, path: "404.html", status: 404, reason: "Not Found", header: header, snapshot: snapshot, etag: nil)
    }

    /// Headers and body for `bytes`, gzip when the client takes it and it is smaller.
    static func representation(_ bytes: [UInt8], path: String, status: Int, reason: String, header: (String) -> String?,
                               snapshot: PinnedRelease, etag: String?) -> Reply {
        let type = ContentTypes.entry(for: path)
        var body = bytes
        var headers: [(String, String)] = [("Content-Type", type.type)]
        var gzipped = false
        if type.compressible, !bytes.isEmpty, acceptsGzip(header("Accept-Encoding")), let gz = snapshot.gzip(path, bytes), gz.count < bytes.count {
            body = gz
            gzipped = true
            headers.append(("Content-Encoding", "gzip"))
        }
        if let etag { headers.append(("ETag", gzipped ? "W/\"\(etag)\"" : "\"\(etag)\"")) }
        // A preview: clients revalidate every time (a 304 costs nothing), so an edit shows at once.
        headers.append(("Cache-Control", "no-cache"))
        if type.compressible { headers.append(("Vary", "Accept-Encoding")) }
        headers.append(("Content-Length", String(body.count)))
        headers.append((versionHeader, String(snapshot.version)))
        return Reply(status: status, reason: reason, headers: headers, body: body)
    }

    static func text(_ status: Int, _ reason: String, _ message: String, _ snapshot: PinnedRelease) -> Reply {
        let body = Array(message.utf8)
        return Reply(status: status, reason: reason,
                     headers: [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-cache"),
                               ("Content-Length", String(body.count)), (versionHeader, String(snapshot.version))],
                     body: body)
    }

    /// `If-None-Match` (RFC 9110 §13.1.2): `*`, or a list of entity tags compared weakly (`W/` ignored).
    static func matches(_ condition: String, _ sha: String) -> Bool {
        for raw in condition.split(separator: ",") {
            var tag = raw.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            if tag == "\"\(sha)\"" { return true }
        }
        return false
    }

    /// Whether `Accept-Encoding` allows gzip: `gzip` or `x-gzip` with q > 0, or else `*` with q > 0.
    static func acceptsGzip(_ value: String?) -> Bool {
        guard let value else { return false }
        var star: Bool?
        for part in value.split(separator: ",") {
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = fields.first, !coding.isEmpty else { continue }
            var q = 1.0
            for f in fields.dropFirst() where f.hasPrefix("q=") { q = Double(f.dropFirst(2)) ?? 0 }
            if coding == "gzip" || coding == "x-gzip" { return q > 0 }
            if coding == "*" { star = q > 0 }
        }
        return star ?? false
    }
}
