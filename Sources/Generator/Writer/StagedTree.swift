import Foundation
import LowLevel
import Indexer
#if canImport(Glibc)
import Glibc
#endif

/// Stages a new tree beside the output folder and puts it in place only when every file is on disk, so a failure at
/// any moment leaves the previous tree byte-identical.
///
/// Files are put one at a time, from any thread, as soon as their bytes exist (the build writes each file right
/// after serialising it, while its bytes are hot in cache, and never holds the whole tree in memory). A file whose
/// bytes did not change (same sha256 as the current tree's, a regular file of that size reached through real
/// folders) is not written at all: it is kept. `commit()` then puts the tree in place in one of two ways:
/// - **in place**, when the change is small against the tree (`inPlaceLimit`): each new or changed file is swapped
///   with the current one (`renameat2(RENAME_EXCHANGE)`), added files moved in, removed ones moved out, and
///   `update-manifest.json` last. The work is proportional to the change, not to the tree. A journal in the marked
///   staging folder lists every step first; a build killed in the middle has its steps undone by the next build of
///   the same output (under the build lock), which restores the previous tree byte for byte.
/// - **whole**: the kept files are hard-linked into the staged tree, which is then swapped with the current tree in
///   one atomic rename (a fresh tree, or a change to most of the files).
/// `discard()` (or a failure) removes the staged files; the output folder is left as it was.
public final class StagedTree: @unchecked Sendable {
    public struct Stats: Sendable {
        /// Files written; files kept from the current tree (unchanged); files of the current tree no longer produced.
        public var written = 0, linked = 0, removed = 0
        /// True when the change was applied in place (see the type's comment), false for a whole-tree swap.
        public var inPlace = false
    }

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
    private let previous: @Sendable (String) -> String?
    /// The current tree's paths (asked once, at `commit`: those no longer produced are removed).
    private let previousPaths: @Sendable () -> [String]
    private let lock = NSLock()
    /// Paths written into the staging tree, and paths kept from the current tree.
    private var writtenPaths: [String] = []
    private var keptPaths: [String] = []
    private var paths = Set<String>()
    /// Folders of the staging tree known to exist: a file in a new folder creates it first instead of failing an open
    /// (100,000 product pages each live in a folder of their own).
    private var folders: Set<Substring> = [""]
    /// Folders of the current tree known to be real folders (see `isRealFolder`).
    private var realSubfolders: [FolderName: FolderListing] = [:]
    private let listing = NSRecursiveLock()
    private var done = false
    /// For tests: an in-place commit stops after this many steps as if the process had been killed there (the
    /// journal and staging folder stay for the next build to undo).
    var killedAfterSteps: Int?
    struct SimulatedKill: Error {}

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
    public convenience init(output: URL, previous: [String: String], expectedFiles: Int = 0) throws {
        try self.init(output: output, previousHash: { previous[$0] }, previousPaths: { Array(previous.keys) }, expectedFiles: expectedFiles)
    }

    /// The same, with the current tree's hashes told by a lookup and its paths by a list (from the file index the
    /// build read already: a second table of 100,000 paths is not made).
    public init(output: URL, previousHash previous: @escaping @Sendable (String) -> String?, previousPaths: @escaping @Sendable () -> [String],
                expectedFiles: Int = 0) throws {
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
        if outputExists {
            self.previous = previous; self.previousPaths = previousPaths
        } else {
            self.previous = { _ in nil }; self.previousPaths = { [] }
        }
        outputFD = outputExists ? open(outputPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1
    }

    deinit {
        close(stagingFD)
        if outputFD >= 0 { close(outputFD) }
        if !done { try? Self.removeMarked(folder) }
    }

    /// Stages one file (thread-safe; each path once). Unchanged bytes (same sha256 as the current tree's file) are
    /// not written: the current file is kept.
    public func put(_ path: String, bytes: [UInt8], sha256: String) throws {
        let all = bytes[...]   // (`Array.span` needs macOS 26)
        try put(path, bytes: all.span, sha256: sha256)
    }

    /// The same for bytes lent as a span (a writer's buffer).
    public func put(_ path: String, bytes: Span<UInt8>, sha256: String) throws {
        try bytes.withUnsafeBytes { try put(path, bytes: $0, sha256: sha256) }
    }

    public func put(_ path: String, bytes: UnsafeRawBufferPointer, sha256: String) throws {
        guard Self.isPlainRelativePath(path) else {
            throw BuildError(file: output.path, "\(TreeReader.shown(path)): not a plain relative path inside the tree (internal error)")
        }
        // (Searched as bytes: a Character search costs microseconds per path.)
        let folder = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path[..<$0] } ?? ""
        let keeper = Keeper()
        if previous(path) == sha256, isReusable(path, folder: folder, size: bytes.count, keeper: keeper) {
            lock.lock(); keptPaths.append(path); paths.insert(path); lock.unlock()
            return
        }
        lock.lock()
        let known = folders.contains(folder)
        lock.unlock()
        if !known, ensureParent(of: path) {   // a failure shows as the open's error below
            lock.lock(); folders.insert(folder); lock.unlock()
        }
        var fd = openat(stagingFD, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if fd < 0 && errno == ENOENT && ensureParent(of: path) { fd = openat(stagingFD, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
        if fd < 0 { throw BuildError(file: output.path, "\(path): cannot create (\(String(cString: strerror(errno))))") }
        let ok = FileIO.writeAll(fd, bytes)
        let err = errno
        close(fd)
        if !ok { throw BuildError(file: output.path, "\(path): write failed (\(String(cString: strerror(err))))") }
        lock.lock()
        writtenPaths.append(path)
        paths.insert(path)
        lock.unlock()
    }

    /// Whether a file was staged or kept at `path` already.
    public func has(_ path: String) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return paths.contains(path)
    }

    /// One worker's share of the kept files: gathered without the tree's lock (two cores taking it for each of
    /// 100,000 pages wait on each other), with the folder listing it used last, and handed to the tree by `adopt`.
    public final class Keeper {
        fileprivate var kept: [String] = []
        fileprivate var parent: Substring = ""
        fileprivate var listing: FolderListing?
        public init() {}
        /// How many files it kept.
        public var count: Int { kept.count }
    }

    /// Keeps a file of the current tree without its bytes (the build knows from its fingerprint that they would be
    /// the same): true when the current tree has it as a regular file of `size` bytes, with this sha256 in its index,
    /// reached through real folders. False means the caller must render and `put` it. The kept path is noted in
    /// `keeper` (one per worker), which the caller hands to `adopt` before the tree is asked what it holds (`has`,
    /// `commit`).
    public func keep(_ path: String, sha256: String, size: Int, in keeper: Keeper) -> Bool {
        let folder = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path[..<$0] } ?? ""
        guard Self.isPlainRelativePath(path), previous(path) == sha256, isReusable(path, folder: folder, size: size, keeper: keeper) else { return false }
        keeper.kept.append(path)
        return true
    }

    /// Takes the files the keepers kept into the tree.
    public func adopt(_ keepers: [Keeper]) {
        lock.lock(); defer { lock.unlock() }
        for k in keepers {
            keptPaths += k.kept
            for p in k.kept { paths.insert(p) }
        }
    }

    /// A file of the current tree that may stay as it is: a regular file of the expected size (a symlink or special
    /// file someone put in the tree is replaced by the bytes we made), reached through real folders.
    private func isReusable(_ path: String, folder: Substring, size: Int, keeper: Keeper) -> Bool {
        guard outputFD >= 0, isRealFolder(folder, keeper: keeper) else { return false }
        var st = stat()
        return fstatat(outputFD, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & S_IFMT) == S_IFREG && st.st_size == size
    }

    /// Whether a folder of the current tree is a real folder all the way up (no symlinked folder on the way), so a
    /// link made through it stays inside the tree. Told by listing each parent folder once (`d_type`), not by a
    /// `stat` per folder: 100,000 product pages are 100,000 folders of one parent. (The keeper remembers the last
    /// parent's listing: consecutive pages share it, and the tree's table of listings is behind its lock.)
    private func isRealFolder(_ folder: Substring, keeper: Keeper) -> Bool {
        if folder.isEmpty { return true }
        let slash = folder.utf8.lastIndex(of: UInt8(ascii: "/"))
        let parent = slash.map { folder[..<$0] } ?? ""
        let name = slash.map { folder[folder.utf8.index(after: $0)...] } ?? folder
        let listing: FolderListing
        if let known = keeper.listing, keeper.parent.utf8.elementsEqual(parent.utf8) { listing = known } else {
            guard let found = subfolders(of: parent) else { return false }
            (keeper.parent, keeper.listing) = (parent, found)
            listing = found
        }
        var n = name
        return n.withUTF8 { listing.names.find($0) != nil }
    }

    /// The same without a keeper (while a folder is listed).
    private func isRealFolder(_ folder: Substring) -> Bool {
        let keeper = Keeper()
        return isRealFolder(folder, keeper: keeper)
    }

    /// The names of the real folders directly in a folder, looked up by their bytes (`TokenTable`): a `Set` hashed each
    /// name with Swift's own hasher, 100,000 times a build (once per product page). A class: handed out by reference.
    final class FolderListing: Sendable {
        let names: TokenTable<Void>
        init(_ names: TokenTable<Void>) { self.names = names }
    }

    /// A folder's name as a table key, hashed by a fast hash of its bytes (`ByteHash`): Swift's own string hashing
    /// cost more than the rest of keeping a file, once per product page.
    struct FolderName: Hashable {
        let name: Substring
        init(_ name: Substring) { self.name = name }
        static func == (a: FolderName, b: FolderName) -> Bool { a.name.utf8.elementsEqual(b.name.utf8) }
        func hash(into h: inout Hasher) {
            var n = name
            h.combine(n.withUTF8 { ByteHash.of($0) })
        }
    }

    /// The real folders (not links) directly in a real folder of the current tree, listed once; nil when the folder is
    /// not a real folder all the way up.
    private func subfolders(of folder: Substring) -> FolderListing? {
        let key = FolderName(folder)
        lock.lock()
        if let known = realSubfolders[key] { lock.unlock(); return known }
        lock.unlock()
        // One thread lists a folder while the others wait for it (recursive: a folder's parent is listed first).
        listing.lock(); defer { listing.unlock() }
        lock.lock()
        if let known = realSubfolders[key] { lock.unlock(); return known }
        lock.unlock()
        guard isRealFolder(folder) else { return nil }
        var names = TokenTable<Void>()
        let fd = folder.isEmpty ? dup(outputFD) : openat(outputFD, String(folder), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0, let dir = fdopendir(fd) else { if fd >= 0 { close(fd) }; return nil }
        defer { closedir(dir) }
        forEachFolderEntry(dir) { raw, type in
            guard type == UInt8(DT_DIR) || type == UInt8(DT_UNKNOWN) else { return }
            let name = String(decoding: raw, as: UTF8.self)
            if type == UInt8(DT_UNKNOWN) {   // (a file system that does not say: asked)
                var st = stat()
                guard fstatat(dirfd(dir), name, &st, AT_SYMLINK_NOFOLLOW) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { return }
            }
            var n = name
            n.withUTF8 { if names.find($0) == nil { names.insert($0, ()) } }
        }
        let found = FolderListing(names)
        lock.lock(); realSubfolders[key] = found; lock.unlock()
        return found
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

    /// The bytes of a staged file, mapped (the release stage compares changed files with the previous release).
    func mapped(_ path: String) -> MappedBytes? {
        guard Self.isPlainRelativePath(path) else { return nil }
        let fd = openat(stagingFD, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return MappedBytes(fd: fd)
    }

    /// The share of the tree a change may touch (files written plus files removed) and still be applied in place;
    /// above it, the whole tree is swapped. A swap links every kept file and then deletes the whole previous tree, so
    /// it costs about a third of an in-place step per file of the tree: at 100,000 products, 1 % of prices changed
    /// touches 41 % of the files (each renames its result-store group) and commits in 1.2 s in place against 1.9 s
    /// swapped (Benchmarks/README, small changes); the two meet near 60 %.
    public static let inPlaceLimit = 0.5

    /// Creates the folders above a staged path (mkdir -p; another thread may create them at the same time).
    private func ensureParent(of path: String) -> Bool {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return true }
        let dir = String(path[..<slash])
        if mkdirat(stagingFD, dir, 0o755) == 0 || errno == EEXIST { return true }
        guard errno == ENOENT, ensureParent(of: dir) else { return false }
        return mkdirat(stagingFD, dir, 0o755) == 0 || errno == EEXIST
    }

    /// Puts the staged tree in place (see the type's comment): in place when the change is small and every path it
    /// touches lies in real folders of the current tree, else by linking the kept files and swapping the whole tree.
    public func commit() throws -> Stats {
        precondition(!done, "staged tree committed twice")
        let previousPaths = previousPaths()
        // (Each path once, should a list name one twice.)
        let removedPaths = Set(previousPaths.lazy.filter { !self.paths.contains($0) }).sorted()
        var stats = Stats(written: writtenPaths.count, linked: keptPaths.count, removed: removedPaths.count)
        if outputExists, Double(writtenPaths.count + removedPaths.count) <= Self.inPlaceLimit * Double(max(paths.count, previousPaths.count)),
           let plan = planInPlace(removed: removedPaths) {
            done = true
            try apply(plan)
            stats.inPlace = true
            return stats
        }
        try linkKept()
        done = true
        try swapWhole()
        return stats
    }

    /// Hard-links every kept file of the current tree into the staged tree (on both cores: 100,000 links).
    private func linkKept() throws {
        let failed = Parallel.map(keptPaths.count, threads: 2) { _, i -> String? in
            let p = keptPaths[i]
            let folder = p.utf8.lastIndex(of: UInt8(ascii: "/")).map { p[..<$0] } ?? ""
            lock.lock()
            let known = folders.contains(folder)
            lock.unlock()
            if !known, ensureParent(of: p) { lock.lock(); folders.insert(folder); lock.unlock() }
            if linkat(outputFD, p, stagingFD, p, 0) == 0 { return nil }
            if errno == ENOENT, ensureParent(of: p), linkat(outputFD, p, stagingFD, p, 0) == 0 { return nil }
            return "\(p): cannot be linked from the current tree (\(String(cString: strerror(errno))))"
        }
        if let why = failed.lazy.compactMap({ $0 }).first { throw BuildError(file: output.path, why) }
    }

    /// Swaps the staged tree in: atomically where the kernel supports it, else by two renames (the previous tree stays
    /// complete in the staging folder, `old/`, in between; a build killed there has it restored by the next one).
    private func swapWhole() throws {
        if !outputExists {
            guard rename(stagingPath, outputPath) == 0 else {
                let err = errno
                try? Self.removeMarked(folder)
                throw BuildError(file: outputPath, "cannot move the new tree into place (\(String(cString: strerror(err))))")
            }
        } else if renameExchange(AT_FDCWD, stagingPath, AT_FDCWD, outputPath) != 0 {
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
    }

    // MARK: In place

    /// One step of an in-place commit, as the journal records it. `old` and `new` are the inode numbers of the current
    /// and the staged file: undoing a step looks at which one the output's path holds, so a step never runs twice.
    struct Step: Equatable {
        enum Kind: String { case replace = "R", add = "A", remove = "D", folder = "F" }
        var kind: Kind
        var path: String
        var old: UInt64 = 0
        var new: UInt64 = 0
    }

    /// The steps of an in-place commit, or nil when one of them would go through something that is not a real
    /// folder of the current tree (then the whole tree is swapped, which replaces it).
    private func planInPlace(removed: [String]) -> [Step]? {
        var steps: [Step] = [], made = Set<Substring>()
        func inode(_ fd: Int32, _ path: String) -> UInt64? {
            var st = stat()
            return fstatat(fd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 ? UInt64(st.st_ino) : nil
        }
        // Folders first (top down), files in path order, update-manifest.json last: apps and previews read the
        // manifest to learn what exists, so it names the new files only once they are all in place.
        var files: [Step] = []
        for p in writtenPaths.sorted() {
            guard let new = inode(stagingFD, p) else { return nil }
            let folder = p.utf8.lastIndex(of: UInt8(ascii: "/")).map { p[..<$0] } ?? ""
            var st = stat()
            if fstatat(outputFD, p, &st, AT_SYMLINK_NOFOLLOW) == 0 {
                // Replaced: it must be a file in real folders (a planted symlink or folder is left to a whole swap).
                guard isRealFolder(folder), (st.st_mode & S_IFMT) == S_IFREG else { return nil }
                files.append(Step(kind: .replace, path: p, old: UInt64(st.st_ino), new: new))
            } else {
                guard errno == ENOENT else { return nil }
                // Added: its missing folders are made first; the existing ones must be real.
                var missing: [Substring] = []
                var f = folder
                while !f.isEmpty, !made.contains(f), fstatat(outputFD, String(f), &st, AT_SYMLINK_NOFOLLOW) != 0 {
                    guard errno == ENOENT else { return nil }
                    missing.append(f)
                    f = f.utf8.lastIndex(of: UInt8(ascii: "/")).map { f[..<$0] } ?? ""
                }
                guard made.contains(f) || isRealFolder(f) else { return nil }
                for m in missing.reversed() { made.insert(m); steps.append(Step(kind: .folder, path: String(m))) }
                files.append(Step(kind: .add, path: p, new: new))
            }
        }
        for p in removed {
            let folder = p.utf8.lastIndex(of: UInt8(ascii: "/")).map { p[..<$0] } ?? ""
            var st = stat()
            guard fstatat(outputFD, p, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
                if errno == ENOENT { continue }   // listed by the index, already gone: nothing to move
                return nil
            }
            guard isRealFolder(folder), (st.st_mode & S_IFMT) != S_IFDIR else { return nil }
            files.append(Step(kind: .remove, path: p, old: UInt64(st.st_ino)))
        }
        let manifest = files.firstIndex { $0.path == "update-manifest.json" }
        if let m = manifest { files.append(files.remove(at: m)) }
        return steps + files
    }

    static let journalName = "journal", committedName = "committed"

    /// Writes the journal, then runs the steps; a failure undoes the steps done so far and leaves the previous tree.
    private func apply(_ steps: [Step]) throws {
        let journal = steps.map { "\($0.kind.rawValue) \($0.old) \($0.new) \($0.path)" }.joined(separator: "\n") + "\n"
        guard FileManager.default.createFile(atPath: folder.appendingPathComponent(Self.journalName).path, contents: Data(journal.utf8)) else {
            try? Self.removeMarked(folder)
            throw BuildError(file: folder.path, "cannot write the commit journal (\(String(cString: strerror(errno))))")
        }
        let removedRoot = folder.appendingPathComponent("removed").path
        var failure: String?
        for (k, step) in steps.enumerated() {
            if k == killedAfterSteps { throw SimulatedKill() }
            let p = step.path
            switch step.kind {
            case .folder:
                if mkdirat(outputFD, p, 0o755) != 0 && errno != EEXIST { failure = "\(p): cannot create the folder (\(String(cString: strerror(errno))))" }
            case .replace:
                if renameExchange(stagingFD, p, outputFD, p) != 0 { failure = "\(p): cannot be replaced (\(String(cString: strerror(errno))))" }
            case .add:
                if renameat(stagingFD, p, outputFD, p) != 0 { failure = "\(p): cannot be moved into place (\(String(cString: strerror(errno))))" }
            case .remove:
                // Moved out (kept until the commit is done, so it can be put back), then its emptied folders go.
                let target = removedRoot + "/" + p
                _ = Self.makeFolders(above: target)
                if renameat(outputFD, p, AT_FDCWD, target) != 0 { failure = "\(p): cannot be removed (\(String(cString: strerror(errno))))"; break }
                var f = Substring(p)
                while let slash = f.utf8.lastIndex(of: UInt8(ascii: "/")) {
                    f = f[..<slash]
                    if unlinkat(outputFD, String(f), AT_REMOVEDIR) != 0 { break }   // not empty (or not ours to judge): stop
                }
            }
            if failure != nil { break }
        }
        if failure == nil, killedAfterSteps == steps.count { throw SimulatedKill() }
        if let failure {
            Self.undo(steps, output: outputFD, staging: stagingFD, removedRoot: removedRoot)
            try? Self.removeMarked(folder)
            throw BuildError(file: outputPath, "\(failure); the previous tree was restored")
        }
        // Done: from here on, the next build only removes the folder (holding the replaced and removed files).
        _ = FileManager.default.createFile(atPath: folder.appendingPathComponent(Self.committedName).path, contents: Data())
        try? Self.removeMarked(folder)
    }

    /// Creates the folders above an absolute path (mkdir -p of its parent).
    static func makeFolders(above path: String) -> Bool {
        let parent = (path as NSString).deletingLastPathComponent
        return (try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)) != nil
    }

    /// Undoes the steps of an in-place commit, last first, looking at what each path holds now: a path that holds the
    /// staged file (its inode) gets the previous one back; a step not yet done is left alone.
    static func undo(_ steps: [Step], output: Int32, staging: Int32, removedRoot: String) {
        func inode(_ fd: Int32, _ path: String) -> UInt64? {
            var st = stat()
            return fstatat(fd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 ? UInt64(st.st_ino) : nil
        }
        for step in steps.reversed() {
            let p = step.path
            switch step.kind {
            case .replace:
                if inode(output, p) == step.new { _ = renameExchange(staging, p, output, p) }
            case .add:
                if inode(output, p) == step.new { _ = renameat(output, p, staging, p) }
            case .remove:
                let backup = removedRoot + "/" + p
                if inode(output, p) == nil, inode(AT_FDCWD, backup) == step.old {
                    // Its folders may have gone with it.
                    var parts = p.split(separator: "/").dropLast().map(String.init), made = ""
                    while !parts.isEmpty { made += (made.isEmpty ? "" : "/") + parts.removeFirst(); _ = mkdirat(output, made, 0o755) }
                    _ = renameat(AT_FDCWD, backup, output, p)
                }
            case .folder:
                _ = unlinkat(output, p, AT_REMOVEDIR)   // only if empty again
            }
        }
    }

    /// Reads a journal written by `apply`.
    static func readJournal(_ text: String) -> [Step]? {
        var steps: [Step] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count == 4, let kind = Step.Kind(rawValue: String(parts[0])), let old = UInt64(parts[1]), let new = UInt64(parts[2]),
                  isPlainRelativePath(String(parts[3])) else { return nil }
            steps.append(Step(kind: kind, path: String(parts[3]), old: old, new: new))
        }
        return steps
    }

    /// A killed in-place commit's staging folder: its steps undone, so the output holds the previous tree again.
    /// False when the folder cannot be trusted to undo them (then it is kept, for a person to look at).
    static func rollBack(_ dir: URL, output: URL) -> Bool {
        let fm = FileManager.default
        let journal = dir.appendingPathComponent(journalName).path
        guard fm.fileExists(atPath: journal), !fm.fileExists(atPath: dir.appendingPathComponent(committedName).path) else { return true }
        guard let text = try? String(contentsOfFile: journal, encoding: .utf8), let steps = readJournal(text) else { return false }
        let out = open(output.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
        let staged = open(dir.appendingPathComponent("tree").path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
        defer { if out >= 0 { close(out) }; if staged >= 0 { close(staged) } }
        guard out >= 0, staged >= 0 else { return false }
        undo(steps, output: out, staging: staged, removedRoot: dir.appendingPathComponent("removed").path)
        return true
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
    /// in place) is moved back first, and a killed in-place commit is undone from its journal.
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
            // A killed in-place commit: its steps are undone first (the folder holds the previous files).
            guard rollBack(dir, output: output) else { continue }
            if (try? removeMarked(dir)) != nil { removed.append(name) }
        }
        return removed
    }
}
