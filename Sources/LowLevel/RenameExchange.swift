#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if os(Linux)
/// Linux renameat2(2), which Glibc's module map leaves out (it is declared under _GNU_SOURCE).
@_silgen_name("renameat2")
private func c_renameat2(_ olddirfd: Int32, _ oldpath: UnsafePointer<CChar>, _ newdirfd: Int32,
                         _ newpath: UnsafePointer<CChar>, _ flags: UInt32) -> Int32
#endif

/// Swaps two paths in one atomic step (Linux `renameat2(RENAME_EXCHANGE)`, Darwin `renameatx_np(RENAME_SWAP)`):
/// each path names the other's file or folder afterwards, and no moment exists where either is missing. Paths are
/// relative to the folders `fromFolder` and `toFolder` (open descriptors, or `AT_FDCWD`). Returns 0, or -1 with
/// `errno` set (e.g. ENOSYS or EINVAL on a file system that cannot swap).
public func renameExchange(_ fromFolder: Int32, _ from: String, _ toFolder: Int32, _ to: String) -> Int32 {
    #if os(Linux)
    return c_renameat2(fromFolder, from, toFolder, to, 2 /* RENAME_EXCHANGE */)
    #elseif canImport(Darwin)
    return renameatx_np(fromFolder, from, toFolder, to, UInt32(RENAME_SWAP))
    #else
    errno = ENOSYS
    return -1
    #endif
}
