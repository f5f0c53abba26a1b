import Foundation
import LowLevel
import Generator
import TreeClient
#if canImport(Glibc)
import Glibc
#endif

/// One release as the server answers it: a private, immutable copy of a built tree, pinned when it was complete.
///
/// Every file is a hard link to the built file (a copy where links cannot be made: another file system, or a kernel
/// that protects links to other users' files). A build never writes into a file it has swapped in (it writes a new
/// file in staging and links unchanged ones), so a link keeps the bytes of its release even after the next build
/// swaps `dist/` and removes the old tree. A request takes the current snapshot once and answers wholly from it, so
/// it never sees files of two releases; the folder is removed once no request uses it (`PinnedTrees.reap`).
public final class PinnedRelease: Sendable {
    public let number: Int
    /// The snapshot's own folder (made by the server, inside its private folder).
    public let folder: URL
    /// `update-manifest.json`'s `version` and `currentVersion`.
    public let version: Int
    public let currentVersion: String
    /// Files of the built tree that were not pinned (symlinks, FIFOs, sockets, devices, names no tree has): never
    /// served, never followed.
    public let skipped: [String]
    /// What every read goes through: `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` below the snapshot's root.
    let reader: TreeReader
    /// sha256 by path, from the release's file index (and the manifest's own).
    private let hashes: [String: String]
    /// The tree's `404.html`, read once.
    let notFoundPage: [UInt8]?

    /// Gzip bodies made so far, and their size in all.
    private let gzipped = Locked((bodies: [String: [UInt8]](), bytes: 0))
    /// Gzip bodies kept per snapshot (compressing the same large index for every request costs more than serving it).
    static let gzipCacheLimit = 64 << 20

    private init(number: Int, folder: URL, reader: TreeReader, release: PreviousRelease, manifestSha: String, skipped: [String]) {
        self.number = number
        self.folder = folder
        self.reader = reader
        self.version = release.version
        self.currentVersion = release.currentVersion
        self.skipped = skipped
        var hashes = Dictionary(release.files.map { ($0.path, $0.sha256) }, uniquingKeysWith: { a, _ in a })
        hashes["update-manifest.json"] = manifestSha
        self.hashes = hashes
        notFoundPage = try? reader.read("404.html")
    }

    /// The sha256 of a file of this snapshot: the file index's (what apps verify), else the bytes' own.
    func sha256(of path: String, bytes: [UInt8]) -> String {
        hashes[path] ?? HTTPFetcher.sha256Hex(bytes)
    }

    /// The gzip body of a file of this snapshot (computed once, kept up to `gzipCacheLimit` bytes in all).
    func gzip(_ path: String, _ bytes: [UInt8]) -> [UInt8]? {
        if let hit = gzipped.withLock({ $0.bodies[path] }) { return hit }
        guard let body = Gzip.compress(bytes, level: 6) else { return nil }
        gzipped.withLock { cache in
            if cache.bytes + body.count <= Self.gzipCacheLimit, cache.bodies[path] == nil { cache.bodies[path] = body; cache.bytes += body.count }
        }
        return body
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Pins the tree at `source` (a folder generator built) into the new folder `folder`: links every regular file
    /// reached through real folders, then reads its release (manifest and file index) from the pinned copy. The
    /// caller holds the build lock of `source`, so no build swaps it meanwhile.
    static func pin(_ source: URL, into folder: URL, number: Int) throws -> PinnedRelease {
        let sourceReader: TreeReader
        do { sourceReader = try TreeReader(root: source) } catch { throw Failure(description: "\(source.path): \(error)") }
        guard mkdir(folder.path, 0o755) == 0 else {
            throw Failure(description: "\(folder.path): cannot create the snapshot folder (\(String(cString: strerror(errno))))")
        }
        var skipped: [String] = []
        do {
            let src = openat(AT_FDCWD, source.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard src >= 0 else { throw Failure(description: "\(source.path): cannot be read (\(String(cString: strerror(errno))))") }
            let dst = open(folder.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard dst >= 0 else { close(src); throw Failure(description: "\(folder.path): cannot be opened") }
            defer { close(dst) }
            try link(src, dst, "", depth: 0, sourceReader: sourceReader, skipped: &skipped)
            let reader = try TreeReader(root: folder)
            guard let release = try PreviousRelease.load(from: folder) else {
                throw Failure(description: "\(source.path) is not a tree built by generator (it has no update-manifest.json); build one with `generator build --out \(source.path)`")
            }
            let manifest = try reader.read("update-manifest.json")
            return PinnedRelease(number: number, folder: folder, reader: reader, release: release,
                            manifestSha: HTTPFetcher.sha256Hex(manifest), skipped: skipped.sorted())
        } catch {
            try? FileManager.default.removeItem(at: folder)
            if let failure = error as? Failure { throw failure }
            throw Failure(description: "\(error)")
        }
    }

    /// Links (or copies) the folder `src` (owned: closed here) into `dst`, recursively, without following anything.
    private static func link(_ src: Int32, _ dst: Int32, _ rel: String, depth: Int, sourceReader: TreeReader, skipped: inout [String]) throws {
        guard let dir = fdopendir(src) else { close(src); throw Failure(description: "\(rel.isEmpty ? "." : rel): folder cannot be read") }
        defer { closedir(dir) }
        try forEachFolderEntry(dir) { raw, _ in
            let name = String(decoding: raw, as: UTF8.self)
            let relPath = rel.isEmpty ? name : rel + "/" + name
            guard String(validating: raw, as: UTF8.self) != nil, TreeReader.pathRejection(name) == nil else {
                skipped.append(TreeReader.shown(relPath)); return
            }
            var st = stat()
            guard fstatat(dirfd(dir), name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { skipped.append(relPath); return }
            switch st.st_mode & S_IFMT {
            case S_IFREG:
                if linkat(dirfd(dir), name, dst, name, 0) == 0 {
                    // linkat links whatever the name holds at that moment (it never follows a symlink): keep it only
                    // if it is still the regular file looked at.
                    var linked = stat()
                    if fstatat(dst, name, &linked, AT_SYMLINK_NOFOLLOW) != 0 || linked.st_mode & S_IFMT != S_IFREG || linked.st_ino != st.st_ino {
                        unlinkat(dst, name, 0); skipped.append(relPath)
                    }
                } else if errno == EXDEV || errno == EPERM || errno == EMLINK {
                    // No link possible here: a copy, read through the confined reader.
                    let bytes = try sourceReader.read(relPath)
                    let fd = openat(dst, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
                    guard fd >= 0 else { throw Failure(description: "\(relPath): cannot be copied (\(String(cString: strerror(errno))))") }
                    defer { close(fd) }
                    var done = 0
                    while done < bytes.count {
                        // The whole file in one call; after a partial write (rare), the rest goes from a copy of it.
                        let rest = done == 0 ? bytes : Array(bytes[done...])
                        let n = write(fd, rest, rest.count)
                        if n < 0 { if errno == EINTR { continue }; throw Failure(description: "\(relPath): cannot be copied (\(String(cString: strerror(errno))))") }
                        done += n
                    }
                } else {
                    throw Failure(description: "\(relPath): cannot be linked (\(String(cString: strerror(errno))))")
                }
            case S_IFDIR:
                guard depth < 128 else { skipped.append(relPath); return }
                let sub = openat(dirfd(dir), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard sub >= 0 else { skipped.append(relPath); return }   // replaced by a symlink meanwhile
                guard mkdirat(dst, name, 0o755) == 0 else { close(sub); throw Failure(description: "\(relPath): cannot create the folder (\(String(cString: strerror(errno))))") }
                let subDst = openat(dst, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard subDst >= 0 else { close(sub); throw Failure(description: "\(relPath): cannot open the folder") }
                defer { close(subDst) }
                try link(sub, subDst, relPath, depth: depth + 1, sourceReader: sourceReader, skipped: &skipped)
            default:
                skipped.append(relPath)   // symlink, FIFO, socket, device: never followed nor opened
            }
        }
    }
}
