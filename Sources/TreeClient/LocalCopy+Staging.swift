import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LocalCopy {
    /// A folder beside the copy where the next copy is assembled (`tree/`), marked as the sync's own.
    final class Staging: Sendable {
        let folder: URL
        let tree: URL

        init(beside copy: LocalCopy) throws {
            folder = copy.parent.appendingPathComponent("\(copy.stagingPrefix)\(getpid())")
            tree = folder.appendingPathComponent("tree")
            try? FileManager.default.removeItem(at: folder)   // ours: the lock is held and this pid is us
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
                try Data("tree sync staging folder\npid \(getpid())\n".utf8).write(to: folder.appendingPathComponent(LocalCopy.markerName))
                try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: false)
            } catch {
                try? FileManager.default.removeItem(at: folder)
                throw SyncError(.localFailure, "cannot prepare the staging folder \(folder.path): \(error.localizedDescription)")
            }
        }

        func discard() { try? FileManager.default.removeItem(at: folder) }

        /// Writes a new file (never over an existing one, never through a symlink). Thread-safe.
        func write(_ path: String, _ bytes: [UInt8]) throws {
            let fd = LocalCopy.openBeneath(tree.path, path, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
            guard fd >= 0 else { throw SyncError(.localFailure, "cannot write \(TreePath.shown(path)) in \(tree.path): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            var written = 0
            while written < bytes.count {
                // The whole file in one call; after a partial write (rare), the rest goes from a copy of it.
                let rest = written == 0 ? bytes : Array(bytes[written...])
                guard let n = LocalCopy.retryingInterrupted({ Foundation.write(fd, rest, rest.count) }) else {
                    throw SyncError(.localFailure, "cannot write \(TreePath.shown(path)) in \(tree.path): \(String(cString: strerror(errno)))")
                }
                written += n
            }
        }

        /// Carries a verified file of the copy over by hard link; false (nothing left behind) when the link is not
        /// the very file that was verified, or cannot be made (the caller writes the bytes instead).
        func link(_ path: String, from copy: LocalCopy, identity: [UInt64]) -> Bool {
            let from = LocalCopy.openParent(copy.directory.path, path, create: false)
            guard from >= 0 else { return false }
            defer { close(from) }
            let to = LocalCopy.openParent(tree.path, path, create: true)
            guard to >= 0 else { return false }
            defer { close(to) }
            let name = LocalCopy.leaf(path)
            guard linkat(from, name, to, name, 0) == 0 else { return false }
            var st = stat()
            if fstatat(to, name, &st, AT_SYMLINK_NOFOLLOW) == 0, [UInt64(st.st_dev), UInt64(st.st_ino)] == identity { return true }
            unlinkat(to, name, 0)
            return false
        }
    }
}
