import Foundation
import LowLevel
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPFetcher {
    /// The minimum rate, checked once a window from a request's start: fewer bytes than `minimumRate × window` in a
    /// window stop the request (none at all is a timeout).
    struct RateCheck {
        let window: TimeInterval
        let minimumRate: Int
        private var next: DispatchTime
        private var atLastCheck = 0

        init(_ c: Configuration) { window = c.rateWindow; minimumRate = c.minimumRate; next = .now() + c.rateWindow }

        /// When the next check is due.
        var due: DispatchTime { next }

        /// Why the request must stop, given the bytes received so far; nil while it keeps the rate (or the window
        /// has not ended).
        mutating func check(received: Int) -> Failure.Kind? {
            let now = DispatchTime.now()
            guard now >= next else { return nil }
            let got = received - atLastCheck
            if minimumRate > 0, Double(got) < Double(minimumRate) * window {
                return got == 0 ? .timeout : .tooSlow(received: got, seconds: Int(window), minimumRate: minimumRate)
            }
            atLastCheck = received
            next = now + window
            return nil
        }
    }
}

#if os(Linux)
extension HTTPFetcher {
    /// The transport on Linux: libcurl's easy interface (LowLevel's `CurlEasy`), one blocking transfer on the calling
    /// thread. Its callbacks stop a transfer the moment it passes its limit, its rate or its deadline, and curl waits
    /// in poll(). FoundationNetworking's URLSession (on the same libcurl) can do neither: a cancel waits behind a
    /// flooding transfer on its work queue while every chunk queued for the delegate stays in memory (a gzip bomb took
    /// 11 GB), and its multi-handle glue leaves a socket's write source armed once curl only wants to read, which
    /// spins a core for as long as a slow server makes it wait.
    final class CurlTransport: Sendable {
        /// Idle handles: each keeps its connections open for the next request.
        private let idle = Locked<[CurlEasy]>([])

        static func make() -> CurlTransport? { CurlEasy.isAvailable ? CurlTransport() : nil }

        /// GETs `url` into `transfer`, which ends complete (with its failure, if any).
        func get(_ url: URL, ifNoneMatch: String?, into transfer: Transfer, configuration c: Configuration, deadline: Deadline?) {
            guard let handle = idle.withLock({ $0.popLast() }) ?? CurlEasy() else {
                transfer.complete(.transport("libcurl could not start a transfer"))
                return
            }
            let call = Call(url: url, transfer: transfer, rate: RateCheck(c), deadline: deadline)
            let request = CurlEasy.Request(url: url.absoluteString, extraHeader: ifNoneMatch.map { "If-None-Match: \($0)" },
                                           connectTimeout: Int(c.timeout), idleTimeout: Int(c.timeout),
                                           maxMilliseconds: Int(c.resourceTimeout * 1000))
            let (outcome, _) = handle.get(request, .init(header: call.header, body: call.transfer.receive, progress: call.progress))
            // A handle whose transfer was cut may hold a half-read connection: curl closes it, the handle stays good.
            idle.withLock { $0.append(handle) }
            transfer.complete(Self.kind(outcome))
        }

        /// What the transfer's end says of it; nil when the transfer's own record says it all.
        static func kind(_ outcome: CurlEasy.Outcome) -> Failure.Kind? {
            switch outcome {
            case .done, .partialFile: return nil   // (a short body: told by its Content-Length)
            case .stoppedByCallback: return .cancelled
            case .timedOut: return .timeout
            case .hostNotFound: return .transport("host not found")
            case .connectionRefused: return .transport("connection refused")
            case .connectionLost: return .transport("the connection was lost mid-download")
            case .gotNothing: return .transport("the server closed the connection without answering")
            case .other(let message): return .transport(message)
            }
        }
    }

    /// One transfer's state as the callbacks see it.
    final class Call {
        let url: URL
        let transfer: Transfer
        var rate: RateCheck
        let deadline: Deadline?
        /// The header lines of the response being read (a 100 Continue's are dropped when the next status comes).
        private var status = 0
        private var version = "HTTP/1.1"
        private var fields: [String: String] = [:]

        init(url: URL, transfer: Transfer, rate: RateCheck, deadline: Deadline?) {
            self.url = url; self.transfer = transfer; self.rate = rate; self.deadline = deadline
        }

        /// A header line; false to stop the transfer.
        func header(_ line: String) -> Bool {
            let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if text.hasPrefix("HTTP/") {
                let parts = text.split(separator: " ", maxSplits: 2)
                status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
                version = parts.first.map(String.init) ?? version
                fields = [:]
                return true
            }
            if text.isEmpty {
                // The end of a response's headers (an interim 1xx's too: the final one follows).
                guard status >= 200, let r = HTTPURLResponse(url: url, statusCode: status, httpVersion: version, headerFields: fields) else { return true }
                return transfer.receive(r)
            }
            guard let colon = text.firstIndex(of: ":") else { return true }
            let name = String(text[..<colon]), value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            let key = fields.keys.first { $0.caseInsensitiveCompare(name) == .orderedSame } ?? name
            fields[key] = fields[key].map { "\($0), \(value)" } ?? value
            return true
        }

        /// Every second or so and after each chunk: false to stop the transfer (deadline passed, rate too low).
        func progress() -> Bool {
            if let deadline, DispatchTime.now() >= deadline.at {
                transfer.fail(.deadline(what: deadline.what, seconds: deadline.seconds))
                return false
            }
            if let why = rate.check(received: transfer.received) { transfer.fail(why); return false }
            return true
        }
    }
}
#else
extension HTTPFetcher {
    /// No libcurl transport on this platform: URLSession serves every request.
    final class CurlTransport: Sendable {
        static func make() -> CurlTransport? { nil }
        func get(_ url: URL, ifNoneMatch: String?, into transfer: Transfer, configuration: Configuration, deadline: Deadline?) {}
    }
}
#endif
