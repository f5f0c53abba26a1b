#if canImport(Glibc)
import Glibc

/// Every entry of an open folder (`opendir`/`fdopendir`) but `.` and `..`, in the order the file system gives: its
/// name's bytes (exactly as stored, not necessarily UTF-8) and its `d_type` (`DT_UNKNOWN` on file systems that do
/// not say).
public func forEachFolderEntry(_ dir: OpaquePointer, _ body: (_ name: [UInt8], _ type: UInt8) throws -> Void) rethrows {
    while let e = readdir(dir) {
        let name = withUnsafeBytes(of: e.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
        if name == [0x2E] || name == [0x2E, 0x2E] { continue }
        try body(name, e.pointee.d_type)
    }
}
#endif
