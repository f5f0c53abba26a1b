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
            folder = Self.freeName(beside: copy)
            tree = folder.appendingPathComponent("tree")
            do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false) } catch {
                // Not ours (it appeared meanwhile, or cannot be made): left as it is.
                throw SyncError(.localFailure, "cannot create the staging folder \(folder.path): \(error.localizedDescription)")
            }
            do {
                try Data((LocalCopy.markerText + "pid \(getpid())\n").utf8).write(to: folder.appendingPathComponent(LocalCopy.markerName))
                try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: false)
            } catch {
                try? FileManager.default.removeItem(at: folder)
                throw SyncError(.localFailure, "cannot prepare the staging folder \(folder.path): \(error.localizedDescription)")
            }
        }

        /// `.DIR.sync-PID`, or `.DIR.sync-PID-N` when a folder not marked as a sync's holds that name (another
        /// machine's pid, or anything else: it is never touched). A marked one is an earlier sync's, removed (the
        /// lock is held, so no sync uses it).
        private static func freeName(beside copy: LocalCopy) -> URL {
            var n = 1
            while true {
                let name = "\(copy.stagingPrefix)\(getpid())" + (n == 1 ? "" : "-\(n)")
                let folder = copy.parent.appendingPathComponent(name)
                var st = stat()
                guard lstat(folder.path, &st) == 0 else { return folder }
                if LocalCopy.isMarkedStaging(folder) {
                    try? FileManager.default.removeItem(at: folder)
                    if lstat(folder.path, &st) != 0 { return folder }
                }
                n += 1
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
