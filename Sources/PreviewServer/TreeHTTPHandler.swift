import FlyingFox
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// FlyingFox's side: one snapshot per request, taken at its start.
struct TreeHTTPHandler: HTTPHandler {
    let trees: PinnedTrees

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        var headers = HTTPHeaders()
        headers[.date] = Self.httpDate()
        if request.headers[.connection]?.lowercased().contains("close") == true { headers[.connection] = "close" }
        guard let snapshot = trees.current else {
            headers[.contentType] = "text/plain; charset=utf-8"
            return HTTPResponse(statusCode: .serviceUnavailable, headers: headers, body: Data("503 the server is stopping\n".utf8))
        }
        let reply = TreeResponder.reply(method: request.method.rawValue, target: request.target.rawValue,
                                        header: { request.headers[HTTPHeader($0)] }, snapshot: snapshot)
        for (name, value) in reply.headers { headers[HTTPHeader(name)] = value }
        return HTTPResponse(statusCode: HTTPStatusCode(reply.status, phrase: reply.reason), headers: headers, body: Data(reply.body))
    }

    /// IMF-fixdate (RFC 9110 §5.6.7).
    static func httpDate(_ time: time_t = time(nil)) -> String {
        var t = time, tm = tm()
        gmtime_r(&t, &tm)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"], months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return days[Int(tm.tm_wday)] + ", " + String(format: "%02d ", tm.tm_mday) + months[Int(tm.tm_mon)]
            + String(format: " %04d %02d:%02d:%02d GMT", tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec)
    }
}
