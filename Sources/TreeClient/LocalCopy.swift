import Foundation
import LowLevel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The app's copy of the tree on disk, and everything the sync keeps beside it: a lock, a staging folder where the
/// next copy is assembled, and the manifest's ETag. The copy itself changes only by one swap of whole folders, so an
/// interrupted or failed sync leaves it exactly as it was.
///
/// Beside `DIR` (never inside it, so the copy stays byte-identical to the published tree): `.DIR.sync.lock`,
/// `.DIR.sync-state.json` (ETag) and, during a sync, `.DIR.sync-PID/` (marked; removed by the next sync if a sync
/// was killed).
final class LocalCopy {
    let directory: URL
    let parent: URL
    let name: String
    private var lockFD: Int32 = -1

    static let markerName = "made-by-tree-sync"

    init(_ directory: URL) {
        self.directory = directory.standardizedFileURL.resolvingSymlinksInPath()
        parent = self.directory.deletingLastPathComponent()
        name = self.directory.lastPathComponent
    }

    deinit { unlock() }

    var lockPath: String { parent.appendingPathComponent(".\(name).sync.lock").path }
    var statePath: String { parent.appendingPathComponent(".\(name).sync-state.json").path }
    var stagingPrefix: String { ".\(name).sync-" }

    // MARK: Guard

    /// The folder may be replaced by a copy of a tree: it does not exist, is empty, or holds an `update-manifest.json`
    /// (a copy made earlier). Anything else would be deleted by the swap.
    func refusal() -> String? {
        if directory.path == "/" { return "it is the root folder" }
        var st = stat()
        guard lstat(directory.path, &st) == 0 else { return errno == ENOENT ? nil : "it cannot be read (\(String(cString: strerror(errno))))" }
        guard st.st_mode & S_IFMT == S_IFDIR else { return "it exists and is not a folder" }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return "it cannot be read" }
        if names.isEmpty { return nil }
        guard lstat(directory.appendingPathComponent("update-manifest.json").path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            return "it is a folder with files that are not a copy of a published tree (no update-manifest.json)"
        }
        return nil
    }

    // MARK: Lock

    /// One sync at a time per folder: false when another one holds it.
    func lock() throws -> Bool {
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        while true {
            let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
            guard fd >= 0 else { throw SyncError(.localFailure, "cannot create \(lockPath): \(String(cString: strerror(errno)))") }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 { close(fd); return false }
            // The holder before us may have removed the file after we opened it: lock the file that is there now.
            var a = stat(), b = stat()
            if fstat(fd, &a) == 0, stat(lockPath, &b) == 0, a.st_ino == b.st_ino, a.st_dev == b.st_dev { lockFD = fd; return true }
            close(fd)
        }
    }

    func unlock() {
        guard lockFD >= 0 else { return }
        unlink(lockPath)
        close(lockFD)
        lockFD = -1
    }

    /// Staging folders of killed syncs (marked as ours); called with the lock held, so none is in use. A folder with
    /// the same name but no marker is someone else's and stays.
    func removeAbandoned() {
        for n in (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? [] where n.hasPrefix(stagingPrefix) {
            let folder = parent.appendingPathComponent(n)
            if Self.isMarkedStaging(folder) { try? FileManager.default.removeItem(at: folder) }
        }
    }

    /// A real folder (not a symlink) holding the marker a sync writes first into its staging folder, as a regular
    /// file that starts with the marker's text.
    static func isMarkedStaging(_ folder: URL) -> Bool {
        var st = stat()
        guard lstat(folder.path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else { return false }
        let fd = openBeneath(folder.path, markerName, flags: O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size < 4096,
              let bytes = readAll(fd, sizeHint: Int(st.st_size)) else { return false }
        return bytes.starts(with: Array(markerText.utf8))
    }

    /// The first line of the marker file.
    static let markerText = "tree sync staging folder\n"

    // MARK: ETag

    struct State: Codable { var etag: String; var manifestSha256: String }

    func readState() -> State? {
        guard let d = FileManager.default.contents(atPath: statePath), d.count < 4096 else { return nil }
        return try? JSONDecoder().decode(State.self, from: d)
    }

    func writeState(_ s: State?) {
        guard let s, let d = try? JSONEncoder().encode(s) else { unlink(statePath); return }
        // Only a hint for the next request: losing it costs one full manifest download, nothing more.
        try? d.write(to: URL(fileURLWithPath: statePath), options: .atomic)
    }

    // MARK: Reading the copy

    /// A regular file of the copy, reached through real folders (no symlink followed); nil when it is missing or
    /// anything else. `identity` is its device and inode, to check a hard link later.
    func read(_ path: String) -> (bytes: [UInt8], identity: [UInt64])? {
        guard TreePath.rejection(path) == nil else { return nil }
        let fd = Self.openBeneath(directory.path, path, flags: O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        guard let bytes = Self.readAll(fd, sizeHint: Int(st.st_size)) else { return nil }
        return (bytes, [UInt64(st.st_dev), UInt64(st.st_ino)])
    }

    /// Size of a regular file of the copy, nil when it is missing or anything else.
    func size(_ path: String) -> Int? {
        guard TreePath.rejection(path) == nil else { return nil }
        let fd = Self.openBeneath(directory.path, path, flags: O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(st.st_size)
    }

    /// Opens `rel` below `root` folder by folder with O_NOFOLLOW; -1 when any part is missing or a symlink.
    /// With O_CREAT in `flags`, missing folders are created.
    static func openBeneath(_ root: String, _ rel: String, flags: Int32, mode: mode_t = 0) -> Int32 {
        let dir = openParent(root, rel, create: flags & O_CREAT != 0)
        guard dir >= 0 else { return -1 }
        defer { close(dir) }
        return openat(dir, leaf(rel), flags | O_NOFOLLOW | O_CLOEXEC, mode)
    }

    /// The folder holding `rel` below `root`, opened without following any symlink (created when `create`).
    static func openParent(_ root: String, _ rel: String, create: Bool) -> Int32 {
        var dir = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dir >= 0 else { return -1 }
        for name in rel.split(separator: "/").dropLast().map(String.init) {
            var next = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0, create, errno == ENOENT {
                // Another download may create the same folder at the same moment: EEXIST is fine.
                if mkdirat(dir, name, 0o755) != 0 && errno != EEXIST { close(dir); return -1 }
                next = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            close(dir)
            if next < 0 { return -1 }
            dir = next
        }
        return dir
    }

    static func leaf(_ rel: String) -> String { rel.split(separator: "/").last.map(String.init) ?? rel }

    /// Everything left to read from `fd`; nil on a read error. A regular file comes whole from one read of the size
    /// fstat gave (plus a byte, to notice one that grew), then a one-byte read finds its end.
    static func readAll(_ fd: Int32, sizeHint: Int) -> [UInt8]? {
        let capacity = max(sizeHint, 0) + 1
        var bytes = [UInt8](repeating: 0, count: capacity)
        guard let n = retryingInterrupted({ Foundation.read(fd, &bytes, capacity) }) else { return nil }
        bytes.removeLast(capacity - n)
        if n == 0 { return bytes }
        var byte: UInt8 = 0
        guard let more = retryingInterrupted({ Foundation.read(fd, &byte, 1) }) else { return nil }
        if more == 0 { return bytes }
        // A file that grew, or a short read: the rest in chunks.
        bytes.append(byte)
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            guard let n = retryingInterrupted({ Foundation.read(fd, &chunk, 65536) }) else { return nil }
            if n == 0 { return bytes }
            bytes += chunk[..<n]
        }
    }

    /// The result of a read or write call, called again when a signal interrupted it; nil on any other error (errno
    /// tells which).
    static func retryingInterrupted(_ call: () -> Int) -> Int? {
        while true {
            let n = call()
            if n >= 0 { return n }
            if errno != EINTR { return nil }
        }
    }

    // MARK: Swap

    /// Puts the staged tree in the copy's place in one step, then removes the old copy.
    func swap(in staging: Staging) throws {
        var st = stat()
        let exists = lstat(directory.path, &st) == 0
        if exists {
            guard exchange(staging.tree.path, directory.path) else {
                // No atomic exchange here: move the old copy aside, the new one in, and back on failure.
                let aside = staging.folder.appendingPathComponent("old").path
                guard rename(directory.path, aside) == 0 else {
                    throw SyncError(.localFailure, "cannot replace \(directory.path): \(String(cString: strerror(errno)))")
                }
                guard rename(staging.tree.path, directory.path) == 0 else {
                    let e = errno
                    rename(aside, directory.path)
                    throw SyncError(.localFailure, "cannot replace \(directory.path): \(String(cString: strerror(e)))")
                }
                return
            }
        } else {
            guard rename(staging.tree.path, directory.path) == 0 else {
                throw SyncError(.localFailure, "cannot create \(directory.path): \(String(cString: strerror(errno)))")
            }
        }
    }

    private func exchange(_ a: String, _ b: String) -> Bool { renameExchange(AT_FDCWD, a, AT_FDCWD, b) == 0 }
}
