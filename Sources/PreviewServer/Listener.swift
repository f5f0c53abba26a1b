import FlyingSocks
import Foundation
import LowLevel
#if canImport(Glibc)
import Glibc
#endif

/// The listening socket, its accept loop, and a task per connection (`ClientConnection`), on FlyingSocks' sockets
/// and its event pool (epoll, kqueue).
///
/// The loop ends only at stop. An accept that fails is tried again after a pause: out of descriptors (EMFILE,
/// ENFILE) above all, when a burst of connections passes the process's limit. New connections then wait in the
/// listening socket's queue until some close (the idle ones within the read timeout), and the server tells once
/// that it ran out and once that it accepts again. (FlyingFox's own HTTPServer ends its accept loop and closes the
/// listening socket for good on the first such error, which is one reason it is not used.)
final class Listener: Sendable {
    /// Seconds between tries while accepting fails.
    static let acceptRetry = 0.1
    private let socket: Socket
    private let pool: any AsyncSocketPool
    let port: UInt16

    private struct State {
        var tasks: [Task<Void, Never>] = []
        var connections: [Int: Task<Void, Never>] = [:]
        var count = 0
        var stopped = false
    }
    private let state = Locked(State())

    /// Binds and listens (errors are the caller's to tell: a port in use, an address not on this host).
    init(address: any SocketAddress) throws {
        let socket = try Socket(domain: Int32(address.family))
        do {
            try socket.setValue(true, for: .localAddressReuse)
            try socket.bind(to: address)
            try socket.listen()
            switch try socket.sockname() {
            case .ip4(_, let p), .ip6(_, let p): port = p
            case .unix: port = 0
            }
        } catch {
            try? socket.close()
            throw error
        }
        self.socket = socket
        pool = SocketPool<Poll>.make()   // (the platform's pool whatever the name: epoll on Linux, kqueue on Darwin)
    }

    /// Starts the pool and the accept loop; each connection is served by `answer`. `report` hears when accepting
    /// fails and when the connections that waited meanwhile have all been taken.
    func start(limits: ConnectionLimits, report: @escaping @Sendable (PreviewServer.Event) -> Void,
               answer: @escaping @Sendable (RequestHead) -> Reply) async throws {
        try await pool.prepare()
        try socket.setFlags(.nonBlocking)
        let pool = self.pool
        let poolTask = Task { _ = try? await pool.run() }
        let acceptTask = Task { await acceptLoop(limits: limits, report: report, answer: answer) }
        state.withLock { $0.tasks = [acceptTask, poolTask] }
    }

    /// Accepts until stopped. A failure is told once, and the all-clear once the queue of waiting connections has
    /// been emptied (so a burst that frees and takes one descriptor at a time is one episode, not many).
    private func acceptLoop(limits: ConnectionLimits, report: @Sendable (PreviewServer.Event) -> Void,
                            answer: @escaping @Sendable (RequestHead) -> Reply) async {
        var failing = false
        while !Task.isCancelled {
            let file: Socket.FileDescriptor
            do { file = try socket.accept().file } catch SocketError.blocked {
                if failing { report(.info("accepting connections again")) }
                failing = false
                do { try await pool.suspendSocket(socket, untilReadyFor: .connection) } catch { if Task.isCancelled { return } }
                continue
            } catch {
                if Self.isClientsOwn(error) { continue }
                if !failing { report(.error(Self.acceptFailure(error))) }
                failing = true
                do { try await Task.sleep(nanoseconds: UInt64(Self.acceptRetry * 1e9)) } catch { return }
                continue
            }
            serve(Socket(file: file), limits: limits, answer: answer)
        }
    }

    /// Starts a task serving one accepted connection (or closes it when stopping).
    private func serve(_ client: Socket, limits: ConnectionLimits, answer: @escaping @Sendable (RequestHead) -> Reply) {
        guard let async = try? AsyncSocket(socket: client, pool: pool) else { try? client.close(); return }
        // Answers go out in one write each, but pipelined ones would still wait for the previous one's ACK.
        try? client.setValue(true, for: BoolSocketOption(level: Int32(IPPROTO_TCP), name: Int32(TCP_NODELAY)))
        let connection = ClientConnection(socket: async, limits: limits, answer: answer)
        state.withLock { s in
            guard !s.stopped else { try? client.close(); return }
            s.count += 1
            let id = s.count
            // (The task removes itself under the same lock, so never before it was added.)
            s.connections[id] = Task {
                await connection.run()
                _ = self.state.withLock { $0.connections.removeValue(forKey: id) }
            }
        }
    }

    /// An error of the one connection being accepted (reset before it was taken, or a network error Linux passes on
    /// through accept): the next one is taken at once.
    static func isClientsOwn(_ error: Error) -> Bool {
        guard case SocketError.failed(_, let code, _) = error else { return false }
        return [ECONNABORTED, EINTR, EPROTO, ENETDOWN, ENOPROTOOPT, EHOSTDOWN, ENONET, EHOSTUNREACH, EOPNOTSUPP, ENETUNREACH].contains(code)
    }

    /// What to tell when accepting fails: running out of descriptors says what to do about it.
    static func acceptFailure(_ error: Error) -> String {
        if case SocketError.failed(_, let code, _) = error, code == EMFILE || code == ENFILE {
            let limit = code == EMFILE ? "this process's limit (ulimit -n)" : "the system's limit"
            return "warning: out of file descriptors (\(limit)): new connections wait until open ones close; " +
                "accepting is tried again every \(acceptRetry) s"
        }
        return "warning: cannot accept connections (\(error.localizedDescription)); trying again every \(acceptRetry) s"
    }

    /// Stops accepting, ends every connection (a request being answered finishes; a connection waiting for one is
    /// closed), then closes the listening socket. Later calls do nothing.
    func stop() async {
        let (first, tasks) = state.withLock { s -> (Bool, [Task<Void, Never>]) in
            defer { s.stopped = true }
            return (!s.stopped, s.tasks)
        }
        guard first else { return }
        guard tasks.count == 2 else { try? socket.close(); return }
        let (acceptTask, poolTask) = (tasks[0], tasks[1])
        acceptTask.cancel()
        await acceptTask.value
        for task in state.withLock({ Array($0.connections.values) }) {
            task.cancel()
            await task.value
        }
        poolTask.cancel()
        await poolTask.value
        try? socket.close()
    }
}
