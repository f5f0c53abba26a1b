import Foundation
import Crypto
#if canImport(Glibc)
import Glibc
#endif

/// A file's bytes without a copy: mapped read-only from an open descriptor (the release stage compares a 90 MB search
/// index with its previous version; reading both into arrays doubled the memory and the time), or bytes already in
/// memory (a file downloaded from the live site).
final class MappedBytes: @unchecked Sendable {
    let buffer: UnsafeBufferPointer<UInt8>
    private let release: () -> Void
    /// The mapped file's identity and times when it was mapped (nil: bytes held in memory).
    let stamp: FileStamp?

    /// Maps the whole of the regular file open at `fd` (the caller keeps and closes the descriptor).
    init?(fd: Int32) {
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        stamp = FileStamp(st)
        let size = Int(st.st_size)
        if size == 0 {
            buffer = UnsafeBufferPointer(start: nil, count: 0)
            release = {}
            return
        }
        guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else { return nil }
        buffer = UnsafeBufferPointer(start: p.assumingMemoryBound(to: UInt8.self), count: size)
        release = { munmap(p, size) }
    }

    /// Bytes held in memory.
    init(_ bytes: [UInt8]) {
        stamp = nil
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        _ = copy.initialize(from: bytes)
        buffer = UnsafeBufferPointer(start: copy.baseAddress, count: bytes.count)
        release = { copy.deallocate() }
    }

    deinit { release() }

    var count: Int { buffer.count }
}
