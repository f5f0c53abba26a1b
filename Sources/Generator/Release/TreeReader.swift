import Foundation
import LowLevel
import TreeClient
#if canImport(Glibc)
import Glibc
#endif

/// Why a file of a tree was not read. Says nothing of what lies outside the tree: a symlink is named, never
/// followed; a path that would climb out is refused before anything is opened.
public struct TreeProblem: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case unsafePath, symlink, special, missing, notAFile, unreadable }
    public let kind: Kind
    /// The offending path, relative to the tree (a symlinked folder names the folder, not the file below it).
    public let path: String
    public let message: String

    public init(_ kind: Kind, _ path: String, _ message: String) { self.kind = kind; self.path = path; self.message = message }

    public var description: String { "\(TreeReader.shown(path)): \(message)" }
}

/// Reads a built tree (validate, diff, search, a previous release) without ever leaving it: paths named by the tree's
/// own files (manifest, file index, search meta) must be plain relative paths, and only regular files reached through
/// real folders are opened — no symlink is followed, no FIFO, socket or device is opened.
///
/// The root folder is opened once (following a symlink there: it is the user's own argument); everything below it
/// is opened relative to that descriptor with O_NOFOLLOW, so swapping a folder for a symlink mid-read cannot redirect
/// a read either. Where the kernel has openat2(2), one call resolves the whole path with RESOLVE_BENEATH |
/// RESOLVE_NO_SYMLINKS; elsewhere each folder is opened in turn with O_NOFOLLOW | O_DIRECTORY.
public final class TreeReader: Sendable {
    public let root: URL
    private let rootFD: Int32
    private let useOpenat2: Bool

    /// Opens the tree's root; throws a `.missing` or `.notAFile` problem (path "") when it is not a folder.
    public convenience init(root: URL) throws { try self.init(root: root, useOpenat2: TreeReader.hasOpenat2) }

    /// `useOpenat2: false` forces the folder-by-folder walk (tests cover both).
    init(root: URL, useOpenat2: Bool) throws {
        self.root = root
        self.useOpenat2 = useOpenat2
        let fd = open(root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            throw TreeProblem(e == ENOENT ? .missing : e == ENOTDIR ? .notAFile : .unreadable, "",
                              e == ENOTDIR ? "\(root.path) is not a folder" : "\(root.path): \(String(cString: strerror(e)))")
        }
        rootFD = fd
    }

    deinit { close(rootFD) }

    // MARK: Paths

    /// Why `path` cannot name a file of a tree, or nil when it is a plain relative path: not empty, not absolute, no
    /// empty, `.` or `..` segment, no backslash (a separator on Windows hosts) and no control character. The one rule,
    /// shared with the app-side sync (`TreePath`).
    public static func pathRejection(_ path: String) -> String? { TreePath.rejection(path) }

    public static func isSafeRelativePath(_ path: String) -> Bool { pathRejection(path) == nil }

    /// A path or message as it may be printed: control characters (and C1 controls, which some terminals obey)
    /// escaped, long text cut.
    public static func shown(_ text: String, limit: Int = 200) -> String { TreePath.shown(text, limit: limit) }

    /// Text for a terminal whose parts came from a tree (names, ids, schema properties, parse errors): line breaks
    /// and tabs kept, every other control character escaped so a tree cannot drive the terminal.
    public static func terminalSafe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || ($0.value >= 0x7F && $0.value < 0xA0) }) else { return text }
        var out = ""
        for s in text.unicodeScalars {
            if (s.value < 0x20 && s != "\n" && s != "\t") || (s.value >= 0x7F && s.value < 0xA0) { out += String(format: "\\u{%02X}", s.value) }
            else { out.unicodeScalars.append(s) }
        }
        return out
    }

    // MARK: Reading

    /// The whole file at `path` (relative to the root), read through the descriptor that was checked to be a
    /// regular file of the tree.
    public func read(_ path: String) throws -> [UInt8] {
        let fd = try openFile(checked: path)
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw diagnose(path) }
        guard let bytes = FileIO.readToEnd(fd, sizeHint: Int(st.st_size)) else {
            throw TreeProblem(.unreadable, path, "cannot be read (\(String(cString: strerror(errno))))")
        }
        return bytes
    }

    /// A regular file of the tree, open for reading, never through a symlink; the caller closes it.
    func openFile(checked path: String) throws -> Int32 {
        if let why = Self.pathRejection(path) { throw TreeProblem(.unsafePath, path, why) }
        // Looked at first so a FIFO or device is never opened (opening can block or have effects); the open below
        // and the fstat after it are what make the read safe.
        var st = stat()
        guard fstatat(rootFD, path, &st, AT_SYMLINK_NOFOLLOW) == 0, (st.st_mode & S_IFMT) == S_IFREG else { throw diagnose(path) }
        let fd = openFile(path)
        guard fd >= 0 else { throw diagnose(path, errno: errno) }
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { close(fd); throw diagnose(path) }
        return fd
    }

    /// The same file as `read`, mapped instead of copied (opened the same way: never through a symlink).
    func mapped(_ path: String) throws -> MappedBytes {
        let fd = try openFile(checked: path)
        defer { close(fd) }
        guard let bytes = MappedBytes(fd: fd) else { throw diagnose(path) }
        return bytes
    }

    /// Opens a regular file below the root for reading, never through a symlink; -1 with errno set on failure.
    private func openFile(_ path: String) -> Int32 {
        let flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        if useOpenat2 {
            // struct open_how { u64 flags; u64 mode; u64 resolve; }: RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS |
            // RESOLVE_BENEATH.
            let fd = FileIO.openBeneath(rootFD, path, flags: flags)
            if fd >= 0 || errno != EAGAIN { return fd }   // EAGAIN: a racing rename; walk instead
        }
        let parts = path.split(separator: "/").map(String.init)
        var dir = rootFD
        defer { if dir != rootFD { close(dir) } }
        for name in parts.dropLast() {
            let next = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0 { return -1 }
            if dir != rootFD { close(dir) }
            dir = next
        }
        return openat(dir, parts.last!, flags)
    }

    /// Says what stopped a read, looking at each component from the root without following any of them (so a
    /// symlinked folder is named as such, and nothing beyond it is ever looked at).
    private func diagnose(_ path: String, errno err: Int32? = nil) -> TreeProblem {
        let parts = path.split(separator: "/")
        var prefix = ""
        for (i, part) in parts.enumerated() {
            prefix += (i == 0 ? "" : "/") + part
            var st = stat()
            if fstatat(rootFD, prefix, &st, AT_SYMLINK_NOFOLLOW) != 0 {
                let e = errno
                if e == ENOENT || e == ENOTDIR { return TreeProblem(.missing, path, "missing") }
                return TreeProblem(.unreadable, prefix, "cannot be read (\(String(cString: strerror(e))))")
            }
            let type = st.st_mode & S_IFMT
            if type == S_IFLNK { return TreeProblem(.symlink, prefix, "symlink: not followed") }
            if i < parts.count - 1 {
                if type != S_IFDIR { return TreeProblem(.missing, path, "missing (\(prefix) is not a folder)") }
                continue
            }
            switch type {
            case S_IFREG: break
            case S_IFDIR: return TreeProblem(.notAFile, path, "a folder, not a file")
            default: return TreeProblem(.special, path, "\(Self.typeName(type)): not opened")
            }
        }
        if let err { return TreeProblem(.unreadable, path, "cannot be read (\(String(cString: strerror(err))))") }
        return TreeProblem(.unreadable, path, "changed while being read")
    }

    static func typeName(_ type: mode_t) -> String {
        switch type {
        case S_IFLNK: return "symlink"
        case S_IFIFO: return "FIFO"
        case S_IFSOCK: return "socket"
        case S_IFCHR: return "character device"
        case S_IFBLK: return "block device"
        case S_IFDIR: return "folder"
        default: return "special file"
        }
    }

    // MARK: Walking

    /// Every regular file of the tree (relative paths, unsorted), and everything else met on the way: symlinks
    /// (never followed, to files or folders), FIFOs, sockets and devices (never opened), names no built tree has
    /// (control characters, backslashes, not UTF-8), folders that cannot be read or nest absurdly deep.
    /// A plain readdir walk: Foundation's enumerator with resource values costs more than validating a 100k tree.
    public func walk() -> (files: [String], problems: [TreeProblem]) {
        var files: [String] = [], problems: [TreeProblem] = []
        func walk(_ dirFD: Int32, _ rel: String, depth: Int) {
            // dirFD is owned here: fdopendir takes it, closedir closes it.
            guard let d = fdopendir(dirFD) else { close(dirFD); problems.append(TreeProblem(.unreadable, rel, "folder cannot be read")); return }
            defer { closedir(d) }
            forEachFolderEntry(d) { raw, entryType in
                guard let name = String(validating: raw, as: UTF8.self) else {
                    let lossy = String(decoding: raw, as: UTF8.self)
                    problems.append(TreeProblem(.unsafePath, rel.isEmpty ? lossy : rel + "/" + lossy, "a name that is not UTF-8: not read")); return
                }
                let relPath = rel.isEmpty ? name : rel + "/" + name
                if let why = Self.pathRejection(name) { problems.append(TreeProblem(.unsafePath, relPath, why + ": not read")); return }
                var type = mode_t(0)
                switch Int32(entryType) {
                case Int32(DT_REG): type = S_IFREG
                case Int32(DT_DIR): type = S_IFDIR
                case Int32(DT_LNK): type = S_IFLNK
                default:
                    var st = stat()
                    guard fstatat(Glibc.dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
                        problems.append(TreeProblem(.unreadable, relPath, "cannot be read (\(String(cString: strerror(errno))))")); return
                    }
                    type = st.st_mode & S_IFMT
                }
                switch type {
                case S_IFREG: files.append(relPath)
                case S_IFDIR:
                    if depth >= 128 { problems.append(TreeProblem(.unreadable, relPath, "folders nested more than 128 deep: not read")); return }
                    let sub = openat(Glibc.dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    if sub < 0 {
                        let err = errno
                        problems.append(err == ELOOP || err == ENOTDIR ? TreeProblem(.symlink, relPath, "changed while being read: not followed")
                                                                      : TreeProblem(.unreadable, relPath, "folder cannot be read (\(String(cString: strerror(err))))"))
                        return
                    }
                    walk(sub, relPath, depth: depth + 1)
                case S_IFLNK: problems.append(TreeProblem(.symlink, relPath, "symlink: not followed"))
                default: problems.append(TreeProblem(.special, relPath, "\(Self.typeName(type)): not opened"))
                }
            }
        }
        // A descriptor of its own for the walk: closedir closes it, the reader keeps rootFD.
        let start = openat(rootFD, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if start < 0 { return ([], [TreeProblem(.unreadable, "", "\(root.path) cannot be read")]) }
        walk(start, "", depth: 0)
        return (files, problems)
    }

    /// Whether this kernel has openat2(2) (Linux 5.6+; a seccomp filter may also refuse it).
    static let hasOpenat2: Bool = {
        let fd = FileIO.openBeneath(AT_FDCWD, "/", flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, resolve: 0)
        if fd >= 0 { close(fd); return true }
        return false
    }()
}
