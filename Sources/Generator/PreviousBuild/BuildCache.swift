import Foundation
import Crypto
#if canImport(Glibc)
import Glibc
#endif

/// What each file of the tree in the output folder was made from (its fingerprint), with its hash and size: a rebuild
/// reuses every file whose fingerprint has not changed straight from that tree, without rendering it.
///
/// The cache is a pure speed-up. It is used only when it is whole (a SHA-256 of its content closes it), written by
/// this very executable, and describes the release now in the output folder (by the sha256 of its file index);
/// otherwise the build is a full one, with the same bytes. It lives beside the output (`.<out>.cache`) or in the
/// folder given with `--cache` (`<out>.cache` there), is written only after a build's tree is in place, and is never
/// written over a file that is not a cache.
public struct BuildCache: Sendable {
    public struct Entry: Sendable, Equatable {
        public var fingerprint: Fingerprint
        public var sha256: String
        public var size: Int
        /// For a file written from fragments: where each fragment lies in it, in file order (see `FragmentReuse`).
        public var fragments: [(key: Fingerprint, range: Range<Int>)] = []
        /// Its items' order, when its writer records one (see `FragmentReuse.order`).
        public var order: [Int32] = []
        /// For a file written from fragments: its `Checksum` (16 bytes), taken from the same bytes as its sha256. A later
        /// build that copies from the file checks it with this rather than hashing 90 MB with SHA-256 again.
        public var checksum: [UInt8] = []

        public static func == (a: Entry, b: Entry) -> Bool {
            a.fingerprint == b.fingerprint && a.sha256 == b.sha256 && a.size == b.size
                && a.fragments.elementsEqual(b.fragments) { $0.key == $1.key && $0.range == $1.range } && a.order == b.order
                && a.checksum == b.checksum
        }
    }

    /// The release (sha256 of its file index) whose files the entries describe.
    public var release: String
    public var entries: [String: Entry]
    /// The paths of `entries` in the order they are written (the build's file order).
    var order: [String]
    /// Large files of the tree (those written from fragments) as they were once the tree was in place: a later build
    /// that finds a file with the same stamp (device, inode, size, times: see `FileStamp`) knows its bytes are the
    /// ones hashed into the release's index, and reads it without hashing 90 MB again.
    public var stamps: [String: FileStamp] = [:]
    /// What a domain worked out from its inputs and may take again once checked (by name, e.g. the catalog's search
    /// order: `DomainResult.keptOrders`). Never trusted as it is: the cache is checked for integrity only.
    public var keptOrders: [String: [Int32]] = [:]

    static let magic = Array("generator build cache\n".utf8)
    static let format: UInt32 = 6

    /// The length of the checksum that closes a cache or a products snapshot (`Checksum`: these are the build's own
    /// files, checked for damage; SHA-256 closed them up to format 5, at five times the cost).
    static let closing = 16
    /// Whether `bytes` end with the checksum of what comes before.
    static func closes(_ bytes: [UInt8]) -> Bool {
        bytes.count >= closing && Checksum.of(bytes[..<(bytes.count - closing)]) == Array(bytes.suffix(closing))
    }

    public init(release: String, entries: [String: Entry], order: [String]? = nil) {
        self.release = release; self.entries = entries; self.order = order ?? entries.keys.sorted()
    }

    /// The cache file of `output`: beside it, or in `folder` (`--cache`).
    public static func location(for output: URL, folder: URL?) -> URL {
        let name = output.standardizedFileURL.lastPathComponent
        if let folder { return folder.appendingPathComponent("\(name).cache") }
        return output.standardizedFileURL.deletingLastPathComponent().appendingPathComponent(".\(name).cache")
    }

    /// Why a cache file was not used (said in the build summary).
    public enum Unused: Error, Equatable, Sendable, CustomStringConvertible {
        case missing, notACache, damaged, otherTool, otherRelease
        public var description: String {
            switch self {
            case .missing: return "no build cache yet: a full build"
            case .notACache: return "the build cache's file is not a build cache: left alone, a full build"
            case .damaged: return "the build cache is damaged (its digest does not match): a full build"
            case .otherTool: return "the build cache was made by another build of generator: a full build"
            case .otherRelease: return "the build cache describes another release than the output's: a full build"
            }
        }
    }

    /// Reads the cache at `url` for the release whose file index has sha256 `release`.
    static func load(_ url: URL, release: String) -> Result<BuildCache, Unused> {
        readFile(url).flatMap { $0.release == release ? .success($0) : .failure(.otherRelease) }
    }

    /// Reads the cache at `url`, whatever release it describes (the caller matches it to the output's).
    static func readFile(_ url: URL) -> Result<BuildCache, Unused> { readWhole(url).flatMap(decode) }

    /// The bytes of the regular file at `url` (never through a link).
    static func readWhole(_ url: URL) -> Result<[UInt8], Unused> {
        let fd = open(url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return .failure(errno == ENOENT ? .missing : .notACache) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return .failure(.notACache) }
        guard let bytes = FileIO.pread(fd, count: Int(st.st_size), position: 0) else { return .failure(.damaged) }
        return .success(bytes)
    }

    static func decode(_ bytes: [UInt8]) -> Result<BuildCache, Unused> {
        guard bytes.starts(with: magic) else { return .failure(.notACache) }
        guard bytes.count >= magic.count + closing, closes(bytes) else { return .failure(.damaged) }
        var r = Reader(bytes: bytes, at: magic.count, end: bytes.count - closing)
        guard let format = r.u32(), format == Self.format, let tool = r.fingerprint() else { return .failure(.otherTool) }
        guard tool == ToolIdentity.digest else { return .failure(.otherTool) }
        guard let rel = r.text(), let count = r.u32() else { return .failure(.damaged) }
        var entries: [String: Entry] = [:], order: [String] = []
        entries.reserveCapacity(Int(count)); order.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let path = r.text(), let fp = r.fingerprint(), let sha = r.raw(32), let size = r.u64(), let n = r.u32() else { return .failure(.damaged) }
            var e = Entry(fingerprint: fp, sha256: Self.hex(sha), size: Int(size))
            if n > 0 { e.fragments.reserveCapacity(Int(n)) }
            for _ in 0..<n {
                guard let key = r.fingerprint(), let start = r.u64(), let end = r.u64(), start <= end, end <= size else { return .failure(.damaged) }
                e.fragments.append((key, Int(start)..<Int(end)))
            }
            guard let m = r.u32() else { return .failure(.damaged) }
            if m > 0 { e.order.reserveCapacity(Int(m)) }
            for _ in 0..<m {
                guard let v = r.u32() else { return .failure(.damaged) }
                e.order.append(Int32(bitPattern: v))
            }
            guard let c = r.u32(), c == 0 || c == UInt32(closing), let checksum = r.raw(Int(c)) else { return .failure(.damaged) }
            e.checksum = Array(checksum)
            if entries.updateValue(e, forKey: path) == nil { order.append(path) }
        }
        guard let stampCount = r.u32() else { return .failure(.damaged) }
        var stamps: [String: FileStamp] = [:]
        for _ in 0..<stampCount {
            guard let path = r.text(), let stamp = r.stamp() else { return .failure(.damaged) }
            stamps[path] = stamp
        }
        guard let orderCount = r.u32() else { return .failure(.damaged) }
        var orders: [String: [Int32]] = [:]
        for _ in 0..<orderCount {
            guard let name = r.text(), let n = r.u32(), n <= (r.end - r.at) / 4 else { return .failure(.damaged) }
            var values: [Int32] = []
            values.reserveCapacity(Int(n))
            for _ in 0..<n {
                guard let v = r.u32() else { return .failure(.damaged) }
                values.append(Int32(bitPattern: v))
            }
            orders[name] = values
        }
        guard r.at == r.end else { return .failure(.damaged) }
        // (In the file's order: a cache read and written again is the same file.)
        var cache = BuildCache(release: rel, entries: entries, order: order)
        cache.stamps = stamps
        cache.keptOrders = orders
        return .success(cache)
    }

    func encode() -> [UInt8] {
        Self.finish(Self.encode(release: release, order.lazy.map { ($0, self.entries[$0]!) }), stamps: stamps, keptOrders: keptOrders)
    }

    /// The cache's bytes: its entries (`encode`), then `stamps` and `keptOrders`, then the checksum that closes it.
    /// `hashed`: the checksum's state after `body` when the caller took it already (on another thread).
    static func finish(_ body: [UInt8], hashed: Checksum? = nil, stamps: [String: FileStamp], keptOrders: [String: [Int32]] = [:]) -> [UInt8] {
        var out: [UInt8] = []
        func u32(_ v: UInt32) { out.appendLittleEndian(v) }
        func u64(_ v: UInt64) { out.appendLittleEndian(v) }
        u32(UInt32(stamps.count))
        for (path, st) in stamps.sorted(by: { $0.key < $1.key }) {
            var p = path
            p.withUTF8 { u in u32(UInt32(u.count)); out += u }
            u64(st.device); u64(st.inode); u64(UInt64(bitPattern: st.size))
            for v in [st.modified.0, st.modified.1, st.changed.0, st.changed.1] { u64(UInt64(bitPattern: Int64(v))) }
        }
        u32(UInt32(keptOrders.count))
        for (name, values) in keptOrders.sorted(by: { $0.key < $1.key }) {
            var n = name
            n.withUTF8 { u in u32(UInt32(u.count)); out += u }
            u32(UInt32(values.count))
            out.reserveCapacity(out.count + 4 * values.count)
            for v in values { u32(UInt32(bitPattern: v)) }
        }
        var digest = hashed ?? { var h = Checksum(); h.update(body); return h }()
        digest.update(out)
        return body + out + digest.finalize()
    }

    /// The first part of a cache's bytes: `entries` in the order given (the build's file order: no sort, no table);
    /// `finish` adds the stamps and closes it.
    static func encode<S: Sequence>(release: String, _ entries: S) -> [UInt8] where S.Element == (String, Entry) {
        var out = magic
        out.reserveCapacity(1 << 20)
        func u32(_ v: UInt32) { out.appendLittleEndian(v) }
        func u64(_ v: UInt64) { out.appendLittleEndian(v) }
        func text(_ s: String) { var s = s; s.withUTF8 { u in u32(UInt32(u.count)); out += u } }
        // (Its 32 bytes as `Fingerprint.bytes` gives them, without an array per fingerprint: 300,000 of them at 100k.)
        func fingerprint(_ f: Fingerprint) { out.append(f) }
        func digits(_ hex: String) {
            // 64 hex digits → 32 bytes, straight into the buffer.
            var h = hex
            h.withUTF8 { u in
                func v(_ c: UInt8) -> UInt8 { c >= 97 ? c - 87 : c >= 65 ? c - 55 : c &- 48 }
                if u.count == 64 { for k in 0..<32 { out.append(v(u[2 * k]) << 4 | v(u[2 * k + 1])) } }
                else { out += [UInt8](repeating: 0, count: 32) }
            }
        }
        u32(Self.format)
        out += ToolIdentity.digest.bytes
        text(release)
        let countAt = out.count
        u32(0)
        var count: UInt32 = 0
        for (path, e) in entries {
            count += 1
            text(path); fingerprint(e.fingerprint); digits(e.sha256); u64(UInt64(e.size))
            u32(UInt32(e.fragments.count))
            for (key, r) in e.fragments { fingerprint(key); u64(UInt64(r.lowerBound)); u64(UInt64(r.upperBound)) }
            u32(UInt32(e.order.count))
            for v in e.order { u32(UInt32(bitPattern: v)) }
            u32(UInt32(e.checksum.count)); out += e.checksum
        }
        for k in 0..<4 { out[countAt + k] = UInt8(truncatingIfNeeded: count >> (8 * k)) }   // (little-endian, as u32 writes)
        return out
    }

    /// Whether `url` is a regular file that starts like a cache (one of ours, which may be replaced or removed).
    static func isCacheFile(_ url: URL) -> Bool { starts(url, with: magic) }

    /// Whether `url` is a regular file that starts with `magic`.
    static func starts(_ url: URL, with magic: [UInt8]) -> Bool {
        let fd = open(url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return false }
        return FileIO.pread(fd, count: magic.count, position: 0) == magic
    }

    /// Writes the cache to `url` through a temporary file and a rename, so a reader never sees half a cache. A file
    /// at `url` that is not a cache (someone's) is left alone: nothing is written and the reason is returned.
    static func save(_ cache: BuildCache, to url: URL) -> String? { save(bytes: cache.encode(), to: url) }

    static func save(bytes: [UInt8], to url: URL) -> String? {
        let refusal = "\(url.path) exists and is not a build cache: it was left alone and no cache was written"
        if refused(url, magic: magic) { return refusal }
        let tmp = temporary(for: url)
        guard write(bytes, toNew: tmp) else { return "the build cache cannot be written to \(url.path) (\(String(cString: strerror(errno))))" }
        return replace(url, with: tmp, magic: magic, refusal: refusal, failure: "the build cache cannot be written to \(url.path)")
    }

    /// The temporary name a file of the cache is written under before it takes its place (ours by name and pid).
    static func temporary(for url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(temporaryPrefix(for: url) + "\(getpid())")
    }

    /// A temporary file's name of `url` before its pid (`temporary`).
    static func temporaryPrefix(for url: URL) -> String { ".\(url.lastPathComponent).tmp-" }

    /// Removes what killed builds left of this cache and of its products snapshot: their temporary files
    /// (`.<name>.tmp-<pid>`, 50 MB for a snapshot of 100,000 products), which only the process that wrote one would
    /// have put in place or removed. Only a regular file of that name whose process is gone, and which is empty or
    /// starts with the file's magic, is removed: anything else may be someone's. Returns the names removed.
    @discardableResult
    static func removeAbandonedTemporaries(of cache: URL) -> [String] {
        let folder = cache.deletingLastPathComponent()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        let kinds = [(prefix: temporaryPrefix(for: cache), magic: magic),
                     (prefix: temporaryPrefix(for: ProductSnapshot.location(cache: cache)), magic: ProductSnapshot.magic)]
        var removed: [String] = []
        for name in names.sorted() {
            guard let kind = kinds.first(where: { name.hasPrefix($0.prefix) }) else { continue }
            let digits = name.dropFirst(kind.prefix.count)
            guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let pid = Int32(digits),
                  pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            let url = folder.appendingPathComponent(name)
            var st = stat()
            guard lstat(url.path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size == 0 || starts(url, with: kind.magic) else { continue }
            if unlink(url.path) == 0 { removed.append(name) }
        }
        return removed
    }

    /// Whether something is at `url` that does not start with `magic` (someone's file, or a link: never followed), which
    /// a file of the cache must then leave alone.
    static func refused(_ url: URL, magic: [UInt8]) -> Bool {
        var st = stat()
        return lstat(url.path, &st) == 0 && !starts(url, with: magic)
    }

    /// Puts the file written at `tmp` in `url`'s place unless `url` is now someone's (`refused`); the temporary file
    /// is gone either way. `refusal` or `failure` when it did not take its place.
    static func replace(_ url: URL, with tmp: URL, magic: [UInt8], refusal: String, failure: String) -> String? {
        if refused(url, magic: magic) { unlink(tmp.path); return refusal }
        guard rename(tmp.path, url.path) == 0 else { unlink(tmp.path); return failure }
        return nil
    }

    /// Writes `bytes` to a file made anew at `tmp` (a temporary name of ours: one left by a killed process with this
    /// pid is removed first; nothing is followed), creating its folder if needed; false (and no file) on failure.
    static func write(_ bytes: [UInt8], toNew tmp: URL) -> Bool {
        write(toNew: tmp) { fd in FileIO.writeAll(fd, bytes) }
    }

    /// The same, the file's bytes written by `fill` to the descriptor it is given.
    static func write(toNew tmp: URL, _ fill: (Int32) -> Bool) -> Bool {
        try? FileManager.default.createDirectory(at: tmp.deletingLastPathComponent(), withIntermediateDirectories: true)
        unlink(tmp.path)
        let fd = open(tmp.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        let ok = fill(fd)
        close(fd)
        if !ok { unlink(tmp.path) }
        return ok
    }

    /// Little-endian fields after a magic, closed by the checksum of everything before it (the layout `Reader` reads),
    /// written to a file a megabyte at a time (a file of 50 MB is never held whole).
    struct Writer {
        private var out: [UInt8]
        private var digest = Checksum()
        private let fd: Int32
        private(set) var failed = false
        init(_ magic: [UInt8], fd: Int32) { self.fd = fd; out = magic; out.reserveCapacity(1 << 20 + 65536) }
        mutating func byte(_ v: UInt8) { out.append(v) }
        mutating func u32(_ v: UInt32) { out.appendLittleEndian(v) }
        mutating func u64(_ v: UInt64) { out.appendLittleEndian(v) }
        mutating func text(_ s: String) { var s = s; s.withUTF8 { u in u32(UInt32(u.count)); out += u }; spill() }
        mutating func fingerprint(_ f: Fingerprint) { out.append(f) }
        mutating func raw(_ bytes: ArraySlice<UInt8>) { out += bytes; spill() }
        /// Hands what is written so far to the file once there is a megabyte of it (callers of the small writes call
        /// it now and then).
        mutating func spill(over limit: Int = 1 << 20) {
            guard out.count >= limit else { return }
            digest.update(out)
            if !failed && !FileIO.writeAll(fd, out) { failed = true }
            out.removeAll(keepingCapacity: true)
        }
        /// Writes the rest and the digest; true when every byte was written.
        mutating func finish() -> Bool {
            spill(over: 0)
            let d = digest.finalize()
            return !failed && FileIO.writeAll(fd, d)
        }
    }

    /// Removes the cache at `url` if it is one (a tree replaced without a cache must not keep a stale one beside it).
    static func remove(_ url: URL) {
        if isCacheFile(url) { unlink(url.path) }
    }

    static func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8](); out.reserveCapacity(bytes.count * 2)
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Reads the little-endian fields of the cache, never past `end`.
    struct Reader {
        let bytes: [UInt8]
        var at: Int
        let end: Int
        mutating func raw(_ n: Int) -> ArraySlice<UInt8>? {
            guard n >= 0, at + n <= end else { return nil }
            defer { at += n }
            return bytes[at..<(at + n)]
        }
        /// `n` bytes from `at` as an unsigned number, least significant first (`bigEndian`: most significant first).
        private mutating func number(_ n: Int, bigEndian: Bool = false) -> UInt64? {
            guard at + n <= end else { return nil }
            var v: UInt64 = 0
            for k in 0..<n { v = v << 8 | UInt64(bytes[bigEndian ? at + k : at + n - 1 - k]) }
            at += n
            return v
        }
        mutating func u32() -> UInt32? { number(4).map { UInt32($0) } }
        mutating func u64() -> UInt64? { number(8) }
        mutating func fingerprint() -> Fingerprint? {
            guard at + 32 <= end else { return nil }
            return Fingerprint(a: number(8, bigEndian: true)!, b: number(8, bigEndian: true)!, c: number(8, bigEndian: true)!, d: number(8, bigEndian: true)!)
        }
        mutating func stamp() -> FileStamp? {
            guard let device = u64(), let inode = u64(), let size = u64(), let ms = u64(), let mn = u64(), let cs = u64(), let cn = u64() else { return nil }
            return FileStamp(device: device, inode: inode, size: Int64(bitPattern: size),
                             modified: (Int(Int64(bitPattern: ms)), Int(Int64(bitPattern: mn))), changed: (Int(Int64(bitPattern: cs)), Int(Int64(bitPattern: cn))))
        }
        mutating func text() -> String? {
            guard let n = u32(), let b = raw(Int(n)) else { return nil }
            return String(decoding: b, as: UTF8.self)
        }
    }
}
