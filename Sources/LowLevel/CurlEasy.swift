import Foundation
#if canImport(CCurlShim)
import CCurlShim

/// libcurl's easy interface (CCurlShim, loaded at run time) behind a safe API: one blocking GET on the calling thread
/// whose callbacks see each header line and body chunk and can stop the transfer at once. TreeClient's HTTP transport
/// on Linux (see `HTTPFetcher+Curl.swift` there for why not URLSession). The pointers stay in this file: a handle is
/// owned by its `CurlEasy`, and the callbacks reach Swift through an unretained box that outlives the transfer.
public final class CurlEasy: @unchecked Sendable {   // (used by one transfer at a time: a pool hands it out)
    private let handle: UnsafeMutableRawPointer

    /// Whether libcurl could be loaded.
    public static var isAvailable: Bool { tc_available() != 0 }

    /// A handle (it keeps its connections open between requests); nil when libcurl is not available.
    public init?() {
        guard let h = tc_new() else { return nil }
        handle = h
    }

    deinit { tc_free(handle) }

    public struct Request: Sendable {
        public var url: String
        /// A whole header line ("If-None-Match: …"), or nil.
        public var extraHeader: String?
        public var connectTimeout: Int
        /// Seconds without a byte before the transfer times out.
        public var idleTimeout: Int
        public var maxMilliseconds: Int
        public init(url: String, extraHeader: String?, connectTimeout: Int, idleTimeout: Int, maxMilliseconds: Int) {
            self.url = url; self.extraHeader = extraHeader; self.connectTimeout = connectTimeout
            self.idleTimeout = idleTimeout; self.maxMilliseconds = maxMilliseconds
        }
    }

    /// What each callback is told; each returns false to stop the transfer.
    public struct Callbacks {
        public var header: (String) -> Bool
        public var body: (Data) -> Bool
        /// About every second and after each chunk.
        public var progress: () -> Bool
        public init(header: @escaping (String) -> Bool, body: @escaping (Data) -> Bool, progress: @escaping () -> Bool) {
            self.header = header; self.body = body; self.progress = progress
        }
    }

    /// How a transfer ended, as far as the transport tells it apart.
    public enum Outcome: Equatable, Sendable {
        case done, partialFile, stoppedByCallback, timedOut, hostNotFound, connectionRefused, connectionLost, gotNothing
        case other(String)
    }

    /// Runs the GET; the HTTP status is the last one received (0: none).
    public func get(_ request: Request, _ callbacks: Callbacks) -> (outcome: Outcome, status: Int) {
        let box = Box(callbacks)
        var status = 0
        var error = [CChar](repeating: 0, count: 512)
        let rc: Int32 = withExtendedLifetime(box) {
            let user = Unmanaged.passUnretained(box).toOpaque()
            return request.url.withCString { url in
                (request.extraHeader ?? "").withCString { header in
                    var r = tc_request(url: url, extra_header: request.extraHeader == nil ? nil : header,
                                       connect_timeout: request.connectTimeout, idle_timeout: request.idleTimeout,
                                       max_milliseconds: request.maxMilliseconds,
                                       header: Box.onHeader, body: Box.onBody, progress: Box.onProgress, user: user)
                    return tc_perform(handle, &r, &status, &error)
                }
            }
        }
        let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (Self.outcome(rc, message), status)
    }

    static func outcome(_ rc: Int32, _ message: String) -> Outcome {
        switch Int(rc) {
        case TC_OK: return .done
        case TC_PARTIAL_FILE: return .partialFile
        case TC_WRITE_ERROR, TC_ABORTED_BY_CALLBACK: return .stoppedByCallback
        case TC_OPERATION_TIMEDOUT: return .timedOut
        case TC_COULDNT_RESOLVE_HOST: return .hostNotFound
        case TC_COULDNT_CONNECT: return .connectionRefused
        case TC_RECV_ERROR, TC_SEND_ERROR: return .connectionLost
        case TC_GOT_NOTHING: return .gotNothing
        default: return .other(message.isEmpty ? String(cString: tc_strerror(rc)) : message)
        }
    }

    /// The callbacks as curl's user pointer sees them.
    private final class Box {
        let callbacks: Callbacks
        init(_ c: Callbacks) { callbacks = c }

        static func of(_ user: UnsafeMutableRawPointer) -> Box { Unmanaged<Box>.fromOpaque(user).takeUnretainedValue() }

        static let onHeader: tc_data_fn = { pointer, size, count, user in
            guard let pointer, let user else { return 0 }
            let text = String(decoding: UnsafeRawBufferPointer(start: pointer, count: size * count), as: UTF8.self)
            return of(user).callbacks.header(text) ? size * count : 0
        }

        static let onBody: tc_data_fn = { pointer, size, count, user in
            guard let pointer, let user else { return 0 }
            return of(user).callbacks.body(Data(bytes: pointer, count: size * count)) ? size * count : 0
        }

        static let onProgress: tc_progress_fn = { user, _, _, _, _ in
            guard let user else { return 1 }
            return of(user).callbacks.progress() ? 0 : 1
        }
    }
}
#endif
