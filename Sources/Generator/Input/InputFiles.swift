import Foundation
import LowLevel

/// Every file a build reads goes through here. In CI a pull request controls `input/`, so a path that leaves the
/// input folder (`../`, an absolute path, a symbolic link pointing out) would publish the runner's files or echo
/// them in error messages. A path is resolved with its links followed one by one and must stay inside the input
/// folder (compared by path components, not text prefixes); only regular files are read (a FIFO would hang the
/// build, a device never ends); and read errors are short ("permission denied"), never Foundation's wording.
public enum InputFiles {
    /// The input folder with every symbolic link resolved (the folder itself may be a link).
    public static func root(_ input: URL) throws -> URL {
        guard let real = realpath(input.path, nil) else {
            throw BuildError(file: input.path, "input folder: \(reason(errno))")
        }
        defer { free(real) }
        return URL(fileURLWithPath: String(cString: real), isDirectory: true)
    }

    /// A path written in the input (site.json, a collection declaration) or found by listing a folder, resolved
    /// inside `root` (already resolved, see `root(_:)`), from `start` (a resolved folder inside it; default the
    /// root). The result has no symbolic links in the part that exists; it may not exist (callers decide whether a
    /// missing file is fine).
    /// Throws naming `file` and `field` when the path is absolute, climbs out with `..`, contains a control
    /// character, or leads out through a link. With no field, `file` names the path itself.
    public static func resolve(_ relative: String, root: URL, from start: URL? = nil, file: String, field: String?) throws -> URL {
        func fail(_ message: String) -> BuildError { BuildError(file: file, field: field, message) }
        let shown = field == nil ? "" : Excerpt.text(relative) + " "
        if relative.unicodeScalars.contains(where: Excerpt.needsEscape) {
            throw fail("\(Excerpt.quote(relative)) contains a control character; paths are plain text")
        }
        if relative.hasPrefix("/") {
            throw fail("\(shown)is an absolute path; paths are relative to the input folder")
        }
        let base = components(root)
        var parts: [String] = []
        if let start {
            let s = components(start)
            guard s.starts(with: base) else { throw fail("\(shown)is outside the input folder") }
            parts = Array(s.dropFirst(base.count))
        }
        // Lexically first: a path that climbs out is refused without looking at the file system (no probing).
        for c in relative.split(separator: "/", omittingEmptySubsequences: true) where c != "." {
            if c == ".." {
                guard !parts.isEmpty else { throw fail("\(shown)is outside the input folder") }
                parts.removeLast()
            } else { parts.append(String(c)) }
        }
        // Then physically: each existing component is looked at with lstat, and links are followed by hand so a
        // missing tail never hides where a link points.
        var resolved = base
        var pending = Array(parts.reversed())
        var hops = 0, missing = false
        while let c = pending.popLast() {
            if c.isEmpty || c == "." { continue }
            if c == ".." { if !resolved.isEmpty { resolved.removeLast() }; continue }
            if missing { resolved.append(c); continue }
            let path = "/" + (resolved + [c]).joined(separator: "/")
            var st = stat()
            guard lstat(path, &st) == 0 else { missing = true; resolved.append(c); continue }
            guard st.st_mode & S_IFMT == S_IFLNK else { resolved.append(c); continue }
            hops += 1
            if hops > 40 { throw fail("\(shown)has too many levels of symbolic links") }
            guard let target = readLink(path) else { throw fail("\(shown)\(reason(errno))") }
            if target.hasPrefix("/") { resolved = [] }
            pending += target.split(separator: "/").map(String.init).reversed()
        }
        guard resolved.starts(with: base) else {
            throw fail("\(shown)resolves outside the input folder (through a symbolic link)")
        }
        return URL(fileURLWithPath: "/" + resolved.joined(separator: "/"))
    }

    private static func components(_ url: URL) -> [String] {
        url.standardizedFileURL.path.split(separator: "/").map(String.init)
    }

    /// What is at a resolved path (without following a final link, which `resolve` has already followed).
    public enum Kind { case missing, file, folder, other }

    public static func kind(_ url: URL) -> Kind {
        var st = stat()
        guard lstat(url.path, &st) == 0 else { return .missing }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .folder
        default: return .other
        }
    }

    /// A resolved input file, open for reading: never through a final symlink, and only a regular file (opened
    /// non-blocking, so a FIFO is refused, not waited on). The caller closes it.
    static func openRegular(_ url: URL, display: String) throws -> (fd: Int32, size: Int) {
        let fd = open(url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw BuildError(file: display, reason(errno)) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { let e = errno; close(fd); throw BuildError(file: display, reason(e)) }
        if let what = notRegular(st.st_mode) { close(fd); throw BuildError(file: display, "\(what), not a regular file") }
        return (fd, Int(st.st_size))
    }

    /// The bytes of a resolved input file (see `openRegular`). Refuses a UTF-16 or UTF-32 text (named, rather than
    /// misread as stray quotes).
    public static func read(_ url: URL, display: String, text: Bool = true) throws -> Data {
        let (fd, size) = try openRegular(url, display: display)
        defer { close(fd) }
        // One more byte than the size, so a file read whole ends with a zero-length read and no regrowth.
        var data = Data(count: size + 1)
        var total = 0
        while true {
            if total == data.count { data.count += max(data.count, 1 << 16) }   // the file grew while being read
            let n = data.withUnsafeMutableBytes { buf in Glibc.read(fd, buf.baseAddress! + total, buf.count - total) }
            if n < 0 {
                if errno == EINTR { continue }
                throw BuildError(file: display, reason(errno))
            }
            if n == 0 { break }
            total += n
        }
        data.count = total
        if text, let encoding = wideEncoding(data) {
            throw BuildError(file: display, "the file is \(encoding); save it as UTF-8")
        }
        return data
    }

    /// A resolved input file read in blocks of `blockSize` bytes (the last one shorter), each handed to `body` and
    /// then overwritten: a file of any size costs one block of memory (a smaller file, its size). The same refusals
    /// as `read`.
    public static func forEachBlock(_ url: URL, display: String, text: Bool = true, blockSize: Int = 32 << 20,
                                    _ body: (ArraySlice<UInt8>) throws -> Void) throws {
        let (fd, size) = try openRegular(url, display: display)
        defer { close(fd) }
        // (One more byte than the size: a file read whole ends with a zero-length read.)
        var buffer = [UInt8](repeating: 0, count: max(min(blockSize, size + 1), 64))
        var first = true
        while true {
            var filled = 0
            while filled < buffer.count {
                let n = FileIO.read(fd, into: &buffer, at: filled)
                if n < 0 { throw BuildError(file: display, reason(errno)) }
                if n == 0 { break }
                filled += n
            }
            if first, text, let encoding = wideEncoding(Data(buffer.prefix(min(filled, 64)))) {
                throw BuildError(file: display, "the file is \(encoding); save it as UTF-8")
            }
            first = false
            if filled > 0 { try body(buffer[..<filled]) }
            if filled < buffer.count { return }
        }
    }

    /// Names in a resolved folder, sorted; empty when the folder does not exist.
    public static func list(_ folder: URL, display: String) throws -> [String] {
        switch kind(folder) {
        case .missing: return []
        case .folder: break
        case .file, .other: throw BuildError(file: display, "is not a folder")
        }
        guard let dir = opendir(folder.path) else { throw BuildError(file: display, reason(errno)) }
        defer { closedir(dir) }
        var names: [String] = []
        forEachFolderEntry(dir) { name, _ in names.append(String(decoding: name, as: UTF8.self)) }
        return names.sorted()
    }

    /// UTF-16 or UTF-32, from a byte-order mark or, without one, the NUL bytes every ASCII character then carries.
    static func wideEncoding(_ data: Data) -> String? {
        let b = [UInt8](data.prefix(64))
        if b.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return "UTF-32 (little-endian)" }
        if b.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return "UTF-32 (big-endian)" }
        if b.starts(with: [0xFF, 0xFE]) { return "UTF-16 (little-endian)" }
        if b.starts(with: [0xFE, 0xFF]) { return "UTF-16 (big-endian)" }
        guard b.count >= 4, b.contains(0) else { return nil }
        let n = b.count / 4 * 4
        func all(_ zero: [Bool], _ step: Int) -> Bool {
            stride(from: 0, to: n, by: step).allSatisfy { i in (0..<step).allSatisfy { (b[i + $0] == 0) == zero[$0] } }
        }
        if all([false, true, true, true], 4) { return "UTF-32 (little-endian)" }
        if all([true, true, true, false], 4) { return "UTF-32 (big-endian)" }
        if all([false, true], 2) { return "UTF-16 (little-endian)" }
        if all([true, false], 2) { return "UTF-16 (big-endian)" }
        return nil
    }

    static func notRegular(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "is a folder"
        case S_IFIFO: return "is a named pipe (FIFO)"
        case S_IFCHR, S_IFBLK: return "is a device"
        case S_IFSOCK: return "is a socket"
        case S_IFLNK: return "is a symbolic link"
        default: return "is a special file"
        }
    }

    /// A short message for an errno, instead of Foundation's "Error Domain=NSCocoaErrorDomain Code=…".
    public static func reason(_ code: Int32) -> String {
        switch code {
        case ENOENT: return "not found"
        case EACCES, EPERM: return "permission denied"
        case EISDIR: return "is a folder, not a file"
        case ENOTDIR: return "a part of the path is a file, not a folder"
        case ELOOP: return "is a symbolic link (links are resolved before reading; this one changed meanwhile)"
        case ENAMETOOLONG: return "the path is too long"
        case EMFILE, ENFILE: return "too many open files"
        case EIO: return "input/output error while reading"
        case ENXIO, ENODEV: return "is a device or a socket, not a regular file"
        default: return "cannot be read (\(String(cString: strerror(code))))"
        }
    }

    private static func readLink(_ path: String) -> String? {
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buf, buf.count - 1)
        guard n >= 0 else { return nil }
        return String(decoding: buf[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension BuildContext {
    /// The input folder with its links resolved (see `InputFiles.root`).
    func inputRoot() throws -> URL { try InputFiles.root(inputDirectory) }

    /// A path named by the input, resolved inside the input folder, with the name messages show for it
    /// (relative to the input folder's parent, as the user wrote it: links are not spelled out).
    func inputFile(_ relative: String, file: String, field: String?) throws -> (url: URL, display: String) {
        let url = try InputFiles.resolve(relative, root: try inputRoot(), file: file, field: field)
        let logical = relative.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
        return (url, displayPath(inputDirectory.appendingPathComponent(logical)))
    }

    /// `input/site.json` as messages name it.
    var siteFile: String { displayPath(inputDirectory.appendingPathComponent("site.json")) }
}

/// Input text quoted in a message: at most 60 characters (then "…"), control characters and invisible
/// direction marks escaped, so a hostile value can neither rewrite the terminal nor flood the log.
public enum Excerpt {
    public static let limit = 60

    /// `"text"`, capped and escaped (quotes and backslashes too, so the quoted span is unambiguous).
    public static func quote(_ s: String, limit: Int = Excerpt.limit) -> String {
        "\"" + escape(s, limit: limit, quotes: true) + "\""
    }

    /// The text capped and escaped, without quotes (for paths and names in running text).
    public static func text(_ s: String, limit: Int = Excerpt.limit) -> String { escape(s, limit: limit, quotes: false) }

    /// Control characters escaped, nothing cut (for a whole message on its way to the terminal).
    public static func escapingControls(_ s: String) -> String {
        s.unicodeScalars.contains(where: needsEscape) ? escape(s, limit: nil, quotes: false) : s
    }

    /// C0 and C1 controls, DEL, line and paragraph separators, and bidirectional overrides (which can make
    /// text read differently from what it is).
    static func needsEscape(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0xFEFF: return true
        default: return false
        }
    }

    private static func escape(_ s: String, limit: Int?, quotes: Bool) -> String {
        var out = ""
        var n = 0
        // Counted in Unicode scalars: a grapheme cluster can be arbitrarily long.
        for u in s.unicodeScalars {
            if let limit, n == limit { return out + "…" }
            n += 1
            switch u {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\"" where quotes: out += "\\\""
            case "\\" where quotes: out += "\\\\"
            case _ where needsEscape(u): out += "\\u{" + String(u.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }
}
