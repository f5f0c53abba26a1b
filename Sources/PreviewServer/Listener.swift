import FlyingSocks
import Foundation
import LowLevel
#if canImport(Glibc)
import Glibc
#endif

/// The listening socket, its accept loop, and a task per connection (`ClientConnection`), on FlyingSocks' sockets
/// and its event pool (epoll, kqueue).
final class Listener: Sendable {
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

    /// Starts the pool and the accept loop; each connection is served by `answer`.
    func start(limits: ConnectionLimits, answer: @escaping @Sendable (RequestHead) -> Reply) async throws {
        try await pool.prepare()
        try socket.setFlags(.nonBlocking)
        let pool = self.pool
        let poolTask = Task { _ = try? await pool.run() }
        let acceptTask = Task { await acceptLoop(limits: limits, answer: answer) }
        state.withLock { $0.tasks = [acceptTask, poolTask] }
    }

    /// Accepts until stopped, or until accepting fails.
    private func acceptLoop(limits: ConnectionLimits, answer: @escaping @Sendable (RequestHead) -> Reply) async {
        while !Task.isCancelled {
            let file: Socket.FileDescriptor
            do { file = try socket.accept().file } catch SocketError.blocked {
                do { try await pool.suspendSocket(socket, untilReadyFor: .connection) } catch { if Task.isCancelled { return } }
                continue
            } catch {
                return
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
