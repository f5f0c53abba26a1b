import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Between a connection and the tree: each request answered from the snapshot served at its start.
struct TreeHTTPHandler: Sendable {
    let trees: PinnedTrees

    func reply(to head: RequestHead) -> Reply {
        guard let snapshot = trees.current else { return .text(503, "Service Unavailable", "503 the server is stopping\n") }
        return TreeResponder.reply(method: head.method, target: head.target, header: head.header, snapshot: snapshot)
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
