import Foundation
import Crypto
#if canImport(Glibc)
import Glibc
#endif

/// The compiler that is running: a digest of its executable. A cache or fingerprint from another build of the tool
/// is never trusted (a new version may render the same input differently).
enum ToolIdentity {
    static let digest: Fingerprint = {
        let fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return Fingerprint.of(Array(CommandLine.arguments[0].utf8)) }
        defer { close(fd) }
        // The linker's build ID when the executable has one (a hash of the linked output, read in microseconds):
        // named with the executable's size, and told apart from a digest of the bytes by its prefix.
        var st = stat()
        if fstat(fd, &st) == 0, let id = buildID(fd) {
            return Fingerprint.of(Array("elf-build-id:\(st.st_size):".utf8) + id)
        }
        // Otherwise the whole executable, hashed in blocks (30 MB: never held).
        var h = SHA256()
        var block = [UInt8](repeating: 0, count: 1 << 20)
        var at = 0
        while case let n = FileIO.pread(fd, into: &block, count: block.count, position: at), n > 0 {
            h.update(data: block[..<n])
            at += n
        }
        return Fingerprint(digest: h.finalize())
    }()

    /// The GNU build ID note of the 64-bit little-endian ELF file open at `fd` (`NT_GNU_BUILD_ID` in a `PT_NOTE`
    /// segment), nil when it has none or is not such a file.
    static func buildID(_ fd: Int32) -> [UInt8]? {
        func read(_ offset: Int, _ count: Int) -> [UInt8]? {
            guard count >= 0, count <= 1 << 20 else { return nil }
            return FileIO.pread(fd, count: count, position: offset)
        }
        func u(_ b: [UInt8], _ at: Int, _ size: Int) -> Int {
            (0..<size).reversed().reduce(0) { $0 << 8 | Int(b[at + $1]) }
        }
        // ELF64, little-endian: magic, class 2, data 1.
        guard let h = read(0, 64), h[0] == 0x7F, h[1] == 0x45, h[2] == 0x4C, h[3] == 0x46, h[4] == 2, h[5] == 1 else { return nil }
        let phoff = u(h, 0x20, 8), phentsize = u(h, 0x36, 2), phnum = u(h, 0x38, 2)
        guard phentsize >= 56, phnum <= 256, let table = read(phoff, phentsize * phnum) else { return nil }
        for k in 0..<phnum {
            let p = k * phentsize
            guard u(table, p, 4) == 4 else { continue }   // PT_NOTE
            guard let notes = read(u(table, p + 0x08, 8), u(table, p + 0x20, 8)) else { continue }
            var at = 0
            while at + 12 <= notes.count {
                let namesz = u(notes, at, 4), descsz = u(notes, at + 4, 4), type = u(notes, at + 8, 4)
                let name = at + 12, desc = name + (namesz + 3) & ~3, next = desc + (descsz + 3) & ~3
                guard next <= notes.count, desc + descsz <= notes.count else { break }
                if type == 3, namesz == 4, notes[name..<(name + 4)].elementsEqual("GNU\0".utf8), descsz >= 8 {
                    return Array(notes[desc..<(desc + descsz)])
                }
                at = next
            }
        }
        return nil
    }
}
