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
    /// The build's own folder beside the output, `.<out>.staging-<pid>`: its marker file proves the build made it, and
    /// it holds the staged tree (`tree/`) and, during a swap without RENAME_EXCHANGE, the previous tree (`old/`).
    public let folder: URL
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
    /// Folders of the current tree known to be real folders (see `isRealFolder`).
    private var realFolders: Set<Substring> = [""]
    private var done = false

    /// The file in a staging folder that proves a build made it; only folders holding it are ever removed.
    public static let markerName = "made-by-generator"
    /// The marker's first line (its other lines name the pid and output, for people).
    public static let markerHeader = "generator build staging folder"

    /// The name of the staging folder of `output` for process `pid`.
    public static func folderName(for output: URL, pid: Int32) -> String {
        ".\(output.standardizedFileURL.lastPathComponent).staging-\(pid)"
    }

    /// Starts a staging folder beside `output`. `previous`: the current tree's files and hashes, to link unchanged ones.
    /// `expectedFiles`: roughly how many files will be staged (sets aside room to track them).
    public init(output: URL, previous: [String: String], expectedFiles: Int = 0) throws {
        paths.reserveCapacity(expectedFiles)
        folders.reserveCapacity(expectedFiles)
        self.output = output.standardizedFileURL
        let fm = FileManager.default
        let parent = self.output.deletingLastPathComponent()
        try fm.createDirectory(at: parent, withIntermediateDirectories: true)
        folder = parent.appendingPathComponent(Self.folderName(for: self.output, pid: getpid()))
        staging = folder.appendingPathComponent("tree")
        stagingPath = staging.path; outputPath = self.output.path
        // A folder of this name is either one of ours from a process that had this pid before (marked: removed) or
        // someone else's (never touched).
        if mkdir(folder.path, 0o755) != 0 {
            let err = errno
            guard err == EEXIST, Self.isMarked(folder.path) else {
                throw BuildError(file: folder.path, err == EEXIST
                    ? "exists and was not made by a build; remove or rename it"
                    : "cannot create the staging folder (\(String(cString: strerror(err))))")
            }
            try Self.removeMarked(folder)
            guard mkdir(folder.path, 0o755) == 0 else {
                throw BuildError(file: folder.path, "cannot create the staging folder (\(String(cString: strerror(errno))))")
            }
        }
        // The marker first, so that a kill at any later moment leaves a folder the next build may remove.
        let marker = "\(Self.markerHeader)\npid \(getpid())\noutput \(outputPath)\n"
        guard fm.createFile(atPath: folder.appendingPathComponent(Self.markerName).path, contents: Data(marker.utf8)),
              mkdir(stagingPath, 0o755) == 0 else {
            let err = errno
            try? Self.removeMarked(folder)
            throw BuildError(file: folder.path, "cannot prepare the staging folder (\(String(cString: strerror(err))))")
        }
        stagingFD = open(stagingPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard stagingFD >= 0 else {
            let err = errno
            try? Self.removeMarked(folder)
            throw BuildError(file: stagingPath, "cannot open the staging folder (\(String(cString: strerror(err))))")
        }
        outputExists = fm.fileExists(atPath: outputPath)
        self.previous = outputExists ? previous : [:]
        outputFD = outputExists ? open(outputPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1
    }

    deinit {
        close(stagingFD)
        if outputFD >= 0 { close(outputFD) }
        if !done { try? Self.removeMarked(folder) }
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
        guard Self.isPlainRelativePath(path) else {
            throw BuildError(file: output.path, "\(TreeReader.shown(path)): not a plain relative path inside the tree (internal error)")
        }
        var isLinked = false
        if previous[path] == sha256, outputFD >= 0, isRealFolder(folder) {
            isLinked = linkat(outputFD, path, stagingFD, path, 0) == 0
            if !isLinked && errno == ENOENT, ensureParent(of: path) { isLinked = linkat(outputFD, path, stagingFD, path, 0) == 0 }
            // linkat links a symlink itself: only a regular file of the expected size is reused, anything else (a
            // symlink or special file someone put in the current tree) is replaced by the bytes we made.
            if isLinked {
                var st = stat()
                if fstatat(stagingFD, path, &st, AT_SYMLINK_NOFOLLOW) != 0 || (st.st_mode & S_IFMT) != S_IFREG || st.st_size != bytes.count {
                    unlinkat(stagingFD, path, 0)
                    isLinked = false
                }
            }
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

    /// Whether a folder of the current tree is a real folder all the way up (no symlinked folder on the way), so a
    /// link made through it stays inside the tree. Each folder is checked once.
    private func isRealFolder(_ folder: Substring) -> Bool {
        lock.lock()
        let known = realFolders.contains(folder)
        lock.unlock()
        if known { return true }
        if let slash = folder.utf8.lastIndex(of: UInt8(ascii: "/")), !isRealFolder(folder[..<slash]) { return false }
        var st = stat()
        guard fstatat(outputFD, String(folder), &st, AT_SYMLINK_NOFOLLOW) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { return false }
        lock.lock(); realFolders.insert(folder); lock.unlock()
        return true
    }

    /// Paths come from our own renderers, which map ids to safe segments; this is the last line of defence before a
    /// file is created: no absolute path, no `.`, `..` or empty segment, no backslash or control byte. (Bytes, not
    /// Characters: it runs for every file.)
    static func isPlainRelativePath(_ path: String) -> Bool {
        var segmentStart = true, dots = 0, empty = true
        for b in path.utf8 {
            empty = false
            if b < 0x20 || b == 0x7F || b == UInt8(ascii: "\\") { return false }
            if b == UInt8(ascii: "/") {
                if segmentStart || dots == 1 || dots == 2 { return false }   // "", "." or ".." before this slash
                segmentStart = true; dots = 0
                continue
            }
            if segmentStart { dots = b == UInt8(ascii: ".") ? 1 : -1; segmentStart = false }
            else if dots > 0 { dots = b == UInt8(ascii: ".") ? dots + 1 : -1 }
        }
        return !empty && !segmentStart && dots != 1 && dots != 2
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
    /// complete in the staging folder, `old/`, in between; a build killed there has it restored by the next one).
    public func commit() throws -> Stats {
        precondition(!done, "staged tree committed twice")
        let stats = Stats(written: written, linked: linked, removed: previous.keys.filter { !paths.contains($0) }.count)
        done = true
        if !outputExists {
            guard rename(stagingPath, outputPath) == 0 else {
                let err = errno
                try? Self.removeMarked(folder)
                throw BuildError(file: outputPath, "cannot move the new tree into place (\(String(cString: strerror(err))))")
            }
        } else if c_renameat2(AT_FDCWD, stagingPath, AT_FDCWD, outputPath, 2 /* RENAME_EXCHANGE */) != 0 {
            let old = folder.appendingPathComponent("old").path
            guard rename(outputPath, old) == 0 else {
                let err = errno
                try? Self.removeMarked(folder)
                throw BuildError(file: outputPath, "cannot move the previous tree aside (\(String(cString: strerror(err))))")
            }
            guard rename(stagingPath, outputPath) == 0 else {
                let err = errno
                guard rename(old, outputPath) == 0 else {
                    // Never remove the only copy of the previous tree: it stays in the marked folder, which the next
                    // build moves back into place.
                    throw BuildError(file: outputPath, "cannot move the new tree into place (\(String(cString: strerror(err)))); the previous tree is in \(old)")
                }
                try? Self.removeMarked(folder)
                throw BuildError(file: outputPath, "cannot move the new tree into place (\(String(cString: strerror(err))))")
            }
        }
        // Now holds the marker and the previous tree (or nothing of it).
        try? Self.removeMarked(folder)
        return stats
    }

    /// Drops the staged tree; the output folder is left as it was.
    public func discard() {
        guard !done else { return }
        done = true
        try? Self.removeMarked(folder)
    }

    /// Removes a marked staging folder, its marker last: a kill halfway leaves a folder that is still marked, so the
    /// next build finishes the job (a marker removed first would leave an unmarked half tree no build may touch).
    static func removeMarked(_ folder: URL) throws {
        let fm = FileManager.default
        for name in try fm.contentsOfDirectory(atPath: folder.path) where name != markerName {
            try fm.removeItem(at: folder.appendingPathComponent(name))
        }
        try fm.removeItem(at: folder)
    }

    /// Whether `path` is a real folder (not a link) holding a staging marker.
    static func isMarked(_ path: String) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else { return false }
        let marker = path + "/" + markerName
        guard lstat(marker, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size < 4096,
              let data = FileManager.default.contents(atPath: marker) else { return false }
        return data.starts(with: Data((markerHeader + "\n").utf8))
    }

    /// Removes the staging folders that builds of `output` left behind when they were killed, and returns their names.
    /// Only folders named `.<out>.staging-<pid>` that hold the marker are touched: anything else beside the output
    /// may be someone's. Holding the build lock proves that no other build of this output is running, so every marked
    /// folder is abandoned, whatever its pid (pids are reused). A killed swap's previous tree (`old/`, with no tree
    /// in place) is moved back first.
    @discardableResult
    public static func removeAbandoned(beside output: URL, holding lock: BuildLock) -> [String] {
        let output = output.standardizedFileURL
        precondition(lock.output.path == output.path, "the lock held is not this output's")
        let parent = output.deletingLastPathComponent()
        let prefix = ".\(output.lastPathComponent).staging-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent.path) else { return [] }
        var removed: [String] = []
        for name in names.sorted() where name.hasPrefix(prefix) {
            let pid = name.dropFirst(prefix.count)
            guard !pid.isEmpty, pid.allSatisfy({ $0.isASCII && $0.isNumber }) else { continue }
            let dir = parent.appendingPathComponent(name)
            guard isMarked(dir.path) else { continue }
            var st = stat()
            let old = dir.appendingPathComponent("old").path
            if lstat(output.path, &st) != 0, errno == ENOENT, lstat(old, &st) == 0, st.st_mode & S_IFMT == S_IFDIR {
                guard rename(old, output.path) == 0 else { continue }   // keep it rather than lose it
            }
            if (try? removeMarked(dir)) != nil { removed.append(name) }
        }
        return removed
    }
}
