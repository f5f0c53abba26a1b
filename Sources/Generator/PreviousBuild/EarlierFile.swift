import Foundation
import LowLevel
import Crypto
#if canImport(Glibc)
import Glibc
#endif

/// What tells a file apart from its later versions without reading it: device, inode, size, and the times of its
/// last change of content (mtime) and of anything (ctime, which no caller can set back). Equal stamps mean the
/// bytes hashed under the first are still the file's.
public struct FileStamp: Equatable, Sendable {
    let device: UInt64, inode: UInt64, size: Int64
    let modified: (Int, Int), changed: (Int, Int)
    init(_ st: stat) {
        device = UInt64(st.st_dev); inode = UInt64(st.st_ino); size = Int64(st.st_size)
        modified = (st.st_mtim.tv_sec, st.st_mtim.tv_nsec); changed = (st.st_ctim.tv_sec, st.st_ctim.tv_nsec)
    }
    init(device: UInt64, inode: UInt64, size: Int64, modified: (Int, Int), changed: (Int, Int)) {
        self.device = device; self.inode = inode; self.size = size; self.modified = modified; self.changed = changed
    }
    /// The stamp of the file at `path` itself (a link is not followed), nil when there is none.
    init?(path: String) {
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        self.init(st)
    }
    public static func == (a: FileStamp, b: FileStamp) -> Bool {
        a.device == b.device && a.inode == b.inode && a.size == b.size && a.modified == b.modified && a.changed == b.changed
    }
}

/// Files of a previous release already hashed and found as its index lists them, by path, with their stamp then.
final class VerifiedFiles: Sendable {
    private let stamps = Locked<[String: FileStamp]>([:])
    func add(_ path: String, _ stamp: FileStamp) { stamps.withLock { $0[path] = stamp } }
    /// Stamps the files had when they were known to be as the index lists them (a build cache's, see `BuildCache.stamps`).
    func add(_ known: [String: FileStamp]) { stamps.withLock { $0.merge(known) { a, _ in a } } }
    /// Whether the file at `path` was verified and still has the stamp it had then.
    func has(_ path: String, _ stamp: FileStamp?) -> Bool {
        guard let stamp else { return false }
        return stamps.withLock { $0[path] == stamp }
    }
}

/// A file of the previous tree read in parts (`pread`), after its size and sha256 were checked against its index entry
/// by reading it once in blocks: a rebuild copies most of a 90 MB index from it without holding it in memory.
final class EarlierFile: Sendable {
    private let fd: Int32
    let size: Int

    /// The file's stamp, taken before it was hashed and found unchanged after.
    let stamp: FileStamp

    /// Opens and checks the file; nil (and closed) when it is not the file the entry describes. `known`: whether a
    /// stamp is one the file had when its bytes were known to be the entry's (it is then not hashed again).
    /// `checksum`: the `Checksum` of the entry's bytes (a build cache's record), checked instead of the sha256.
    init?(fd: Int32, expected: FileEntry, checksum: [UInt8] = [], known: (FileStamp) -> Bool = { _ in false }) {
        self.fd = fd
        var st = stat()
        guard fstat(fd, &st) == 0, Int(st.st_size) == expected.size else { close(fd); return nil }
        stamp = FileStamp(st)
        size = expected.size
        if known(stamp) { return }
        var h = SHA256(), fast = Checksum()
        // (A block no larger than the file: a rebuild that keeps the ranked index's terms checks a thousand term files
        // of a few kilobytes, and a zeroed megabyte for each was most of that.)
        var block = [UInt8](repeating: 0, count: max(1, min(1 << 20, size)))
        var at = 0
        while at < size {
            let n = FileIO.pread(fd, into: &block, count: min(block.count, size - at), position: at)
            guard n > 0 else { close(fd); return nil }
            if checksum.isEmpty { h.update(data: block[..<n]) } else { fast.update(block[..<n]) }
            at += n
        }
        let same = checksum.isEmpty ? BuildCache.hex(Array(h.finalize())) == expected.sha256 : fast.finalize() == checksum
        guard same, fstat(fd, &st) == 0, FileStamp(st) == stamp else { close(fd); return nil }
    }

    deinit { close(fd) }

    /// The whole file; nil when it is shorter than it was now.
    func readAll() -> [UInt8]? { FileIO.pread(fd, count: size, position: 0) }

    /// Exactly `count` bytes from `offset` into `buffer[..<count]`; false when the file is shorter than that now.
    func read(_ offset: Int, _ count: Int, into buffer: inout [UInt8]) -> Bool {
        FileIO.pread(fd, filling: &buffer, count: count, position: offset)
    }
}
