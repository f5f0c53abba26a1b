import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Linux renameat2(2): with RENAME_EXCHANGE two paths swap atomically.
@_silgen_name("renameat2")
private func c_renameat2(_ olddirfd: Int32, _ oldpath: UnsafePointer<CChar>, _ newdirfd: Int32,
                         _ newpath: UnsafePointer<CChar>, _ flags: UInt32) -> Int32

/// Builds a complete tree beside the output folder and swaps it in only when every file is on disk, so a failure or
/// a kill at any moment leaves the previous tree usable.
///
/// Files are put one at a time, from any thread, as soon as their bytes exist (the build writes each file right
/// after serialising it, while its bytes are hot in cache, and never holds the whole tree in memory). A file whose
/// bytes did not change is hard-linked from the current tree instead of rewritten; files no longer produced are
/// simply not carried over. `commit()` swaps the staged tree in; `discard()` (or a failure) removes it.
public final class StagedTree: @unchecked Sendable {
    public struct Stats: Sendable { public var written = 0, linked = 0, removed = 0 }

    public let output: URL
    /// Where files are staged until `commit()`.
    public let staging: URL
    private let stagingPath: String, outputPath: String
    /// The staging folder, open: files and folders are created relative to it (a short path walk for each of 100,000).
    private let stagingFD: Int32
    /// The current tree, open (unchanged files are linked from it); -1 when there is none.
    private let outputFD: Int32
    private let outputExists: Bool
    /// Relative path → sha256 of the current tree's files (from its file index).
    private let previous: [String: String]
    private let lock = NSLock()
    private var written = 0, linked = 0
    private var paths = Set<String>()
    /// Folders of the staging tree known to exist: a file in a new folder creates it first instead of failing an open
    /// (100,000 product pages each live in a folder of their own).
    private var folders: Set<Substring> = [""]
    private var done = false

    /// Starts a staging folder beside `output`. `previous`: the current tree's files and hashes, to link unchanged ones.
    /// `expectedFiles`: roughly how many files will be staged (sets aside room to track them).
    public init(output: URL, previous: [String: String], expectedFiles: Int = 0) throws {
        paths.reserveCapacity(expectedFiles)
        folders.reserveCapacity(expectedFiles)
        self.output = output.standardizedFileURL
        let fm = FileManager.default
        let parent = self.output.deletingLastPathComponent()
        try fm.createDirectory(at: parent, withIntermediateDirectories: true)
        let prefix = ".\(self.output.lastPathComponent).staging-"
        Self.removeAbandoned(in: parent, prefix: prefix)
        staging = parent.appendingPathComponent(prefix + "\(getpid())")
        try? fm.removeItem(at: staging)
        try fm.createDirectory(at: staging, withIntermediateDirectories: false)
        stagingPath = staging.path; outputPath = self.output.path
        stagingFD = open(stagingPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard stagingFD >= 0 else { throw BuildError(file: stagingPath, "cannot open the staging folder (\(String(cString: strerror(errno))))") }
        outputExists = fm.fileExists(atPath: outputPath)
        self.previous = outputExists ? previous : [:]
        outputFD = outputExists ? open(outputPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1
    }

    deinit {
        close(stagingFD)
        if outputFD >= 0 { close(outputFD) }
        if !done { try? FileManager.default.removeItem(at: staging) }
    }

    /// Stages one file (thread-safe; each path once). Unchanged bytes (same sha256 as the current tree's file) are
    /// hard-linked from the current tree.
    public func put(_ path: String, bytes: [UInt8], sha256: String) throws {
        try bytes.withUnsafeBytes { try put(path, bytes: $0, sha256: sha256) }
    }

    public func put(_ path: String, bytes: UnsafeRawBufferPointer, sha256: String) throws {
        // (Searched as bytes: a Character search costs microseconds per path.)
        let folder = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path[..<$0] } ?? ""
        lock.lock()
        let known = folders.contains(folder)
        lock.unlock()
        if !known, ensureParent(of: path) {   // a failure shows as the open's error below
            lock.lock(); folders.insert(folder); lock.unlock()
        }
        var isLinked = false
        if previous[path] == sha256, outputFD >= 0 {
            isLinked = linkat(outputFD, path, stagingFD, path, 0) == 0
            if !isLinked && errno == ENOENT, ensureParent(of: path) { isLinked = linkat(outputFD, path, stagingFD, path, 0) == 0 }
        }
        if !isLinked {
            var fd = openat(stagingFD, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd < 0 && errno == ENOENT && ensureParent(of: path) { fd = openat(stagingFD, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
            if fd < 0 { throw BuildError(file: output.path, "\(path): cannot create (\(String(cString: strerror(errno))))") }
            var ok = true, off = 0
            while off < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + off, bytes.count - off)
                if n <= 0 { ok = false; break }
                off += n
            }
            let err = errno
            close(fd)
            if !ok { throw BuildError(file: output.path, "\(path): write failed (\(String(cString: strerror(err))))") }
        }
        lock.lock()
        if isLinked { linked += 1 } else { written += 1 }
        paths.insert(path)
        lock.unlock()
    }

    /// The bytes of a staged file (the release stage compares changed files with the previous release).
    public func bytes(of path: String) -> [UInt8]? {
        (try? Data(contentsOf: URL(fileURLWithPath: stagingPath + "/" + path))).map { [UInt8]($0) }
    }

    /// Creates the folders above a staged path (mkdir -p; another thread may create them at the same time).
    private func ensureParent(of path: String) -> Bool {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return true }
        let dir = String(path[..<slash])
        if mkdirat(stagingFD, dir, 0o755) == 0 || errno == EEXIST { return true }
        guard errno == ENOENT, ensureParent(of: dir) else { return false }
        return mkdirat(stagingFD, dir, 0o755) == 0 || errno == EEXIST
    }

    /// Swaps the staged tree in: atomically where the kernel supports it, else by two renames (the previous tree stays
    /// complete under a side name in between).
    public func commit() throws -> Stats {
        precondition(!done, "staged tree committed twice")
        let stats = Stats(written: written, linked: linked, removed: previous.keys.filter { !paths.contains($0) }.count)
        let fm = FileManager.default
        done = true
        do {
            if !outputExists {
                guard rename(stagingPath, outputPath) == 0 else {
                    throw BuildError(file: outputPath, "cannot move the new tree into place (\(String(cString: strerror(errno))))")
                }
            } else if c_renameat2(AT_FDCWD, stagingPath, AT_FDCWD, outputPath, 2 /* RENAME_EXCHANGE */) == 0 {
                try? fm.removeItem(at: staging)  // now holds the previous tree
            } else {
                let old = output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).old-\(getpid())")
                guard rename(outputPath, old.path) == 0 else {
                    throw BuildError(file: outputPath, "cannot move the previous tree aside (\(String(cString: strerror(errno))))")
                }
                guard rename(stagingPath, outputPath) == 0 else {
                    _ = rename(old.path, outputPath)
                    throw BuildError(file: outputPath, "cannot move the new tree into place (\(String(cString: strerror(errno))))")
                }
                try? fm.removeItem(at: old)
            }
        } catch {
            try? fm.removeItem(at: staging)
            throw error
        }
        return stats
    }

    /// Drops the staged tree; the output folder is left as it was.
    public func discard() {
        guard !done else { return }
        done = true
        try? FileManager.default.removeItem(at: staging)
    }

    /// Staging folders of builds that were killed (their process is gone) are removed, so they do not pile up.
    private static func removeAbandoned(in parent: URL, prefix: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { try? FileManager.default.removeItem(at: parent.appendingPathComponent(name)) }
        }
    }
}
