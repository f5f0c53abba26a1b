import FlyingSocks
import Foundation

/// One client's connection: its requests read one head at a time within `ConnectionLimits`, each answered in order
/// (kept alive and pipelined as HTTP/1.1 allows), until the client closes, asks to close, goes silent past the read
/// timeout, sends a head that is refused, or sends a body that cannot be skipped.
struct ClientConnection: Sendable {
    let socket: AsyncSocket
    let limits: ConnectionLimits
    let answer: @Sendable (RequestHead) -> Reply

    /// Serves the connection, then closes it. Ends early when its task is cancelled (the server stopping).
    func run() async {
        defer { try? socket.close() }
        var buffer = RequestHeadBuffer(limits: limits)
        while !Task.isCancelled {
            let deadline = Deadline(seconds: limits.readTimeout)
            let outcome: RequestHeadBuffer.Outcome
            do { outcome = try await nextHead(&buffer, deadline) } catch { return }   // closed, silent, or stopping
            switch outcome {
            case .head(let head):
                guard let reply = try? await answerSkippingBody(head, &buffer, deadline) else { return }
                guard (try? await write(reply.reply, connection: reply.connection)) != nil, reply.connection != "close" else { return }
            case .refused(let refusal):
                let text = Reply.text(refusal.status, refusal.reason, "\(refusal.status) \(refusal.reason): \(refusal.why)\n")
                _ = try? await write(text, connection: "close")
                return
            case .needMore:
                return   // (never returned by nextHead)
            }
        }
    }

    /// Reads until the buffer holds a head or a refusal.
    private func nextHead(_ buffer: inout RequestHeadBuffer, _ deadline: Deadline) async throws -> RequestHeadBuffer.Outcome {
        while true {
            let outcome = buffer.next()
            if outcome != .needMore { return outcome }
            buffer.append(try await read(atMost: 16 * 1024, deadline))
        }
    }

    /// The answer to `head` and the `Connection` header it goes with. A body (which no answer here uses) is read
    /// and dropped when it is short, so the next request on the connection is found; any other body is left unread
    /// and the connection closed after the answer, as is one whose client sent `Expect` (it may hold the body back).
    private func answerSkippingBody(_ head: RequestHead, _ buffer: inout RequestHeadBuffer,
                                    _ deadline: Deadline) async throws -> (reply: Reply, connection: String?) {
        let body: RequestHead.Body
        do { body = try head.body() } catch let refusal as RequestHead.Refusal {
            return (Reply.text(refusal.status, refusal.reason, "\(refusal.status) \(refusal.reason): \(refusal.why)\n"), "close")
        }
        var keepAlive = head.keepAlive
        switch body {
        case .none: break
        case .length(let n) where n <= limits.skippedBody && head.header("Expect") == nil:
            var left = n - buffer.drop(upTo: n)
            while left > 0 { left -= try await read(atMost: min(left, 16 * 1024), deadline).count }
        case .length, .unframed:
            keepAlive = false
        }
        let connection = !keepAlive ? "close" : head.version == "HTTP/1.0" ? "keep-alive" : nil
        return (answer(head), connection)
    }

    private func read(atMost count: Int, _ deadline: Deadline) async throws -> [UInt8] {
        let socket = self.socket
        return try await deadline.run { try await socket.read(atMost: count) }
    }

    private func write(_ reply: Reply, connection: String?) async throws {
        let socket = self.socket, data = reply.encoded(date: TreeHTTPHandler.httpDate(), connection: connection)
        try await Deadline(seconds: limits.writeTimeout).run { try await socket.write(data) }
    }
}
