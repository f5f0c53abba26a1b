import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file's bytes without a copy: mapped read-only from an open descriptor, or bytes already in memory (a file
/// downloaded from the live site). Lent as a span (`withSpan`): the mapping's pointer never leaves this file.
///
/// The mapping is kept: the release stage diffs a 90 MB search index against its previous version, and reading both
/// into arrays doubled that stage's memory and time (`Benchmarks/catalog/small-changes.sh`, one price changed:
/// release stage 0.26 s, peak 446 MB).
final class MappedBytes {
    private enum Storage {
        case mapped(UnsafeMutablePointer<UInt8>, count: Int)
        case held([UInt8])
    }
    private let storage: Storage
    /// The mapped file's identity and times when it was mapped (nil: bytes held in memory).
    let stamp: FileStamp?

    /// Maps the whole of the regular file open at `fd` (the caller keeps and closes the descriptor).
    init?(fd: Int32) {
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        stamp = FileStamp(st)
        let size = Int(st.st_size)
        if size == 0 {
            storage = .held([])
            return
        }
        guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else { return nil }
        storage = .mapped(p.assumingMemoryBound(to: UInt8.self), count: size)
    }

    /// Bytes held in memory.
    init(_ bytes: [UInt8]) {
        stamp = nil
        storage = .held(bytes)
    }

    deinit { if case .mapped(let p, let count) = storage { munmap(p, count) } }

    var count: Int {
        switch storage {
        case .mapped(_, let count): return count
        case .held(let bytes): return bytes.count
        }
    }

    /// Lends the bytes (valid only inside `body`: the mapping goes with this object).
    func withSpan<R>(_ body: (Span<UInt8>) throws -> R) rethrows -> R {
        switch storage {
        case .mapped(let p, let count): return try body(UnsafeBufferPointer(start: p, count: count).span)
        case .held(let bytes):
            let all = bytes[...]   // (`Array.span` needs macOS 26)
            return try body(all.span)
        }
    }
}
