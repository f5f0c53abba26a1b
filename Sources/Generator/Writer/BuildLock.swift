import Foundation
import LowLevel
#if canImport(Glibc)
import Glibc
#endif

/// One writer per output folder: an exclusive `flock` on `.<out>.lock` beside the output, held from reading the
/// previous release to the swap. Two builds that both read release N and both write N+1 would otherwise swap in
/// trees whose deltas and versions contradict each other.
///
/// `flock` rather than a pid file: the kernel drops the lock when its holder dies (even by kill -9), so a dead build
/// never blocks the next one. The holder's pid is written into the file for messages only. The file is removed on
/// release, so it does not linger beside the output; a waiter that locked a file just removed notices (the path no
/// longer names the file it holds) and tries again.
public final class BuildLock: Sendable {
    /// Another build held the lock for longer than the wait allowed.
    public struct Busy: Error, CustomStringConvertible, Sendable {
        /// The holder's pid as it wrote it (nil while it has not yet written it).
        public let pid: Int32?
        public let output: String
        public let waited: Double
        public var description: String {
            let who = pid.map { "another build (pid \($0))" } ?? "another build"
            let advice = waited > 0
                ? "gave up after \(Self.seconds(waited)); wait for it to finish or give a longer --wait"
                : "wait for it to finish, or give --wait SECONDS to wait for it"
            return "\(who) is writing \(OutputGuard.printable(output)); \(advice)"
        }
        public static func seconds(_ s: Double) -> String { s == s.rounded() ? "\(Int(s)) s" : String(format: "%.1f s", s) }
    }

    /// The lock file.
    public let path: String
    public let output: URL
    /// The locked file's descriptor; -1 once released.
    private let fd = Locked<Int32>(-1)

    /// Where the lock of `output` lives: beside it, so that it guards the swap of that one folder.
    public static func lockPath(for output: URL) -> String {
        let out = output.standardizedFileURL
        return out.deletingLastPathComponent().appendingPathComponent(".\(out.lastPathComponent).lock").path
    }

    /// Takes the lock of `output`, waiting up to `wait` seconds for another holder (0: fail at once).
    /// `waiting` is called once, with the holder's pid, when the lock is busy and the build starts to wait.
    public init(output: URL, wait: Double, waiting: (Int32?) -> Void = { _ in }) throws {
        self.output = output.standardizedFileURL
        path = Self.lockPath(for: self.output)
        try FileManager.default.createDirectory(at: self.output.deletingLastPathComponent(), withIntermediateDirectories: true)
        let deadline = Date().addingTimeInterval(max(0, wait))
        var told = false
        while true {
            // O_NOFOLLOW: a link planted at the lock's name must not make the build write its pid somewhere else.
            // Read-only is enough to lock (another user's lock file left by a killed build): the pid is then not written.
            var fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
            let openError = errno
            if fd < 0 && openError == EACCES { fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
            guard fd >= 0 else {
                throw BuildError(file: path, openError == ELOOP ? "is a symlink, not a build lock; remove it"
                                                                : "cannot open the build lock (\(String(cString: strerror(openError))))")
            }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                var held = stat(), named = stat()
                if fstat(fd, &held) == 0, stat(path, &named) == 0, held.st_dev == named.st_dev, held.st_ino == named.st_ino {
                    // The file is truncated and later removed: only if it is a lock file (empty, or a pid), never
                    // someone's file that happens to have the name, nor a hard link to one.
                    guard held.st_mode & S_IFMT == S_IFREG, held.st_nlink == 1, held.st_size <= 24,
                          held.st_size == 0 || Self.pid(in: fd) != nil else {
                        close(fd)
                        throw BuildError(file: path, "exists and is not a build lock (an empty file or a pid); remove or rename it")
                    }
                    let text = Array("\(getpid())\n".utf8)
                    _ = ftruncate(fd, 0)
                    _ = FileIO.pwriteAll(fd, text, position: 0)
                    self.fd.withLock { $0 = fd }
                    return
                }
                close(fd)   // the previous holder removed this file as we locked it: lock the new one
                continue
            }
            let err = errno
            guard err == EWOULDBLOCK || err == EAGAIN || err == EINTR else {
                close(fd)
                throw BuildError(file: path, "cannot lock (\(String(cString: strerror(err))))")
            }
            let holder = Self.pid(in: fd)
            close(fd)
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { throw Busy(pid: holder, output: self.output.path, waited: max(0, wait)) }
            if !told { told = true; waiting(holder) }
            usleep(useconds_t(min(left, 0.1) * 1_000_000))
        }
    }

    deinit { release() }

    /// Releases the lock (idempotent). The file is removed first, while still held, so that no one locks a file that
    /// is about to disappear without noticing.
    public func release() {
        fd.withLock { fd in
            guard fd >= 0 else { return }
            var held = stat(), named = stat()
            if fstat(fd, &held) == 0, stat(path, &named) == 0, held.st_dev == named.st_dev, held.st_ino == named.st_ino {
                unlink(path)
            }
            close(fd)
            fd = -1
        }
    }

    /// The pid a holder wrote into the lock file.
    static func pid(in fd: Int32) -> Int32? {
        var buf = [UInt8](repeating: 0, count: 24)
        let n = FileIO.pread(fd, into: &buf, count: buf.count, position: 0)
        guard n > 0 else { return nil }
        return Int32(String(decoding: buf[..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
