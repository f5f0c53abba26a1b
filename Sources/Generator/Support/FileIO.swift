import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Linux syscall(2), called with the five arguments of openat2(2) (glibc has no wrapper for it).
@_silgen_name("syscall")
private func c_syscall_openat2(_ number: Int, _ dirfd: Int32, _ path: UnsafePointer<CChar>, _ how: UnsafeRawPointer, _ size: Int) -> Int

/// The system calls the generator makes on open descriptors, behind safe APIs: the one file that hands Swift arrays
/// to `read`, `pread` and `write` (the rest of the generator holds descriptors and arrays, never pointers).
/// Every call retries on EINTR.
enum FileIO {
    /// Reads into `buffer[at...]` from the descriptor's position: the count read, 0 at the end, -1 on an error.
    static func read(_ fd: Int32, into buffer: inout [UInt8], at offset: Int = 0) -> Int {
        precondition(offset >= 0 && offset <= buffer.count)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            return n
        }
    }

    /// Reads up to `count` bytes at `position` into `buffer[at...]`: the count read, 0 at the end, -1 on an error.
    static func pread(_ fd: Int32, into buffer: inout [UInt8], at offset: Int = 0, count: Int, position: Int) -> Int {
        precondition(offset >= 0 && count >= 0 && offset + count <= buffer.count)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.pread(fd, $0.baseAddress! + offset, count, off_t(position)) }
            if n < 0 && errno == EINTR { continue }
            return n
        }
    }

    /// Exactly `count` bytes at `position`; nil when the file ends sooner or cannot be read.
    static func pread(_ fd: Int32, count: Int, position: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        return pread(fd, filling: &bytes, count: count, position: position) ? bytes : nil
    }

    /// Exactly `count` bytes at `position` into `buffer[..<count]` (a buffer the caller reuses); false when the file
    /// ends sooner or cannot be read.
    static func pread(_ fd: Int32, filling buffer: inout [UInt8], count: Int, position: Int) -> Bool {
        var done = 0
        while done < count {
            let n = pread(fd, into: &buffer, at: done, count: count - done, position: position + done)
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    /// Reads the descriptor to its end; `sizeHint` (the size `fstat` gave) sizes the first buffer. Nil on an error.
    static func readToEnd(_ fd: Int32, sizeHint: Int) -> [UInt8]? {
        var buf = [UInt8](repeating: 0, count: max(sizeHint, 0) + 1)
        var done = 0
        while true {
            if done == buf.count { buf += [UInt8](repeating: 0, count: max(buf.count, 4096)) }   // grew since fstat
            let n = read(fd, into: &buf, at: done)
            if n == 0 { break }
            if n < 0 { return nil }
            done += n
        }
        buf.removeLast(buf.count - done)
        return buf
    }

    /// Writes all of `bytes` at the descriptor's position; false when a write fails (errno says why).
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var off = 0
        while off < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + off, bytes.count - off)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            off += n
        }
        return true
    }

    /// The same for bytes in an array.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { writeAll(fd, $0) } }

    /// Writes all of `bytes` at `position`; false when a write fails.
    static func pwriteAll(_ fd: Int32, _ bytes: [UInt8], position: Int) -> Bool {
        bytes.withUnsafeBytes { raw in
            var off = 0
            while off < raw.count {
                let n = Glibc.pwrite(fd, raw.baseAddress! + off, raw.count - off, off_t(position + off))
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                off += n
            }
            return true
        }
    }

    /// openat2(2) below `dirfd` with RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH (`resolve`): the
    /// descriptor, or -1 with errno set.
    static func openBeneath(_ dirfd: Int32, _ path: String, flags: Int32, resolve: UInt64 = 0x02 | 0x04 | 0x08) -> Int32 {
        // struct open_how { u64 flags; u64 mode; u64 resolve; }
        var how: (UInt64, UInt64, UInt64) = (UInt64(UInt32(bitPattern: flags)), 0, resolve)
        let fd = withUnsafeBytes(of: &how) { h in c_syscall_openat2(437, dirfd, path, h.baseAddress!, 24) }
        return Int32(truncatingIfNeeded: fd)
    }
}
