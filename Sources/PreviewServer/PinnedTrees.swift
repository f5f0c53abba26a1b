import Foundation
import LowLevel
import Generator
#if canImport(Glibc)
import Glibc
#endif

/// The server's private folder and the snapshot it serves now.
///
/// The folder is `.<dist>.serve-<pid>` beside the served tree (same file system, so snapshots are hard links), or a
/// temporary folder when that one cannot be written. It holds a marker file; only folders holding it are ever
/// removed: this server's own at stop, and those of servers that are gone (killed before they could clean up).
final class PinnedTrees: Sendable {
    static let markerName = "made-by-generator-serve"
    static let markerHeader = "generator serve snapshot folder"

    /// The served tree, symlinks resolved (the build lock and the swap are on this path).
    let dist: URL
    let folder: URL
    /// The snapshot served now, how many were pinned, the stamp of the tree it was pinned from, and the replaced
    /// snapshots (held weakly: requests still answering from one keep it alive).
    private struct State {
        var snapshot: PinnedRelease?
        var count = 0
        var pinnedStamp: String?
        var retired: [(snapshot: Weak, folder: URL)] = []
    }
    private let state = Locked(State())

    init(dist: URL) throws {
        self.dist = dist
        let parent = dist.deletingLastPathComponent()
        let prefix = ".\(dist.lastPathComponent).serve-"
        Self.removeAbandoned(in: parent, prefix: prefix)
        Self.removeAbandoned(in: FileManager.default.temporaryDirectory, prefix: "generator-serve-")
        // `<pid>`, or `<pid>.<n>` for a second server of the same process (tests run several).
        let temp = FileManager.default.temporaryDirectory
        for base in [parent.appendingPathComponent(prefix), temp.appendingPathComponent("generator-serve-")] {
            for n in 0..<100 {
                let name = base.lastPathComponent + "\(getpid())" + (n == 0 ? "" : ".\(n)")
                if let made = Self.make(base.deletingLastPathComponent().appendingPathComponent(name)) { folder = made; return }
                if errno != EEXIST { break }
            }
        }
        throw PinnedRelease.Failure(description: "cannot create a snapshot folder beside \(dist.path) nor in \(FileManager.default.temporaryDirectory.path)")
    }

    /// The snapshot answering requests now (a request takes it once, at its start).
    var current: PinnedRelease? { state.withLock { $0.snapshot } }

    /// Pins the tree now at `dist` and serves it from now on. Holds the build lock of `dist` meanwhile (waiting for a
    /// build that is writing it), so the tree cannot be swapped halfway; a tree whose folder cannot hold the lock
    /// (read-only) cannot be built over either.
    @discardableResult
    func pinCurrent(waiting: (Int32?) -> Void = { _ in }) throws -> PinnedRelease {
        let held = try? BuildLock(output: dist, wait: 3600, waiting: waiting)
        defer { held?.release() }
        // Taken under the lock, before linking: a build swapping the tree after this is noticed by the next poll.
        let stamp = InputWatch.treeStamp(dist)
        let number = state.withLock { $0.count += 1; return $0.count }
        let pinned = try PinnedRelease.pin(dist, into: folder.appendingPathComponent("\(number)"), number: number)
        state.withLock {
            if let old = $0.snapshot { $0.retired.append((Weak(old), old.folder)) }
            $0.snapshot = pinned
            $0.pinnedStamp = stamp
        }
        return pinned
    }

    /// `InputWatch.treeStamp` of the tree the current snapshot was pinned from.
    var stamp: String? { state.withLock { $0.pinnedStamp } }

    private final class Weak { weak var value: PinnedRelease?; init(_ v: PinnedRelease) { value = v } }

    /// Removes the folders of replaced snapshots that no request uses any more (the built files stay wherever a tree
    /// still has them: these are links).
    func reap() {
        let gone: [URL] = state.withLock {
            let done = $0.retired.filter { $0.snapshot.value == nil }.map(\.folder)
            $0.retired.removeAll { $0.snapshot.value == nil }
            return done
        }
        for folder in gone { try? FileManager.default.removeItem(at: folder) }
    }

    /// Removes the private folder (at stop: every snapshot in it is this server's).
    func removeAll() {
        state.withLock { $0.snapshot = nil; $0.retired.removeAll() }
        try? FileManager.default.removeItem(at: folder)
    }

    private static func make(_ url: URL) -> URL? {
        guard mkdir(url.path, 0o700) == 0 else { return nil }
        let marker = "\(markerHeader)\npid \(getpid())\n"
        guard FileManager.default.createFile(atPath: url.appendingPathComponent(markerName).path, contents: Data(marker.utf8)) else {
            rmdir(url.path); return nil
        }
        return url
    }

    /// Folders named `<prefix><pid>` holding the marker, whose server is gone.
    static func removeAbandoned(in parent: URL, prefix: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "." }), pid > 0, pid != getpid() else { continue }
            if kill(pid, 0) == 0 || errno != ESRCH { continue }   // still running (or not ours to judge)
            let dir = parent.appendingPathComponent(name)
            var st = stat()
            guard lstat(dir.path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR,
                  let marker = FileManager.default.contents(atPath: dir.appendingPathComponent(markerName).path),
                  String(decoding: marker, as: UTF8.self).hasPrefix(markerHeader + "\n") else { continue }
            try? FileManager.default.removeItem(at: dir)
        }
    }
}
