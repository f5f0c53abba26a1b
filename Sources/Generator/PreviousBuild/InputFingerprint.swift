import Foundation
import LowLevel
import Crypto

/// A digest of everything a build depends on: every input file (path and bytes), the options
/// that change output, and the compiler binary itself. Equal digests mean an identical tree,
/// so a no-change rebuild can stop before reading any dataset.
enum InputFingerprint {
    static func digest(input: URL, skipBadRows: Bool) throws -> String {
        var h = SHA256()
        h.update(data: Array("skipBadRows=\(skipBadRows)\n".utf8))
        // The running executable: a rebuilt compiler may render differently (its digest, computed once per process).
        h.update(data: ToolIdentity.digest.bytes)
        // And its web templates, which are resource files beside it, not part of the executable.
        for (name, ext) in WebSearch.templates { h.update(data: (try? WebSearch.template(name, ext)) ?? []) }
        let root = try InputFiles.root(input)
        // The walk never follows a link and never opens anything but a regular file: a link is hashed as its
        // target's text (a file it reaches inside the input is hashed where it lies; one outside is never read,
        // and the build refuses it if it is used), and a FIFO or device as its kind, so hashing cannot read
        // outside the input folder or hang.
        var entries: [(path: String, kind: UInt8)] = []
        var folders = [""]   // a work list, not recursion: a deep tree cannot overflow the thread's stack
        while let prefix = folders.popLast() {
            let dir = prefix.isEmpty ? root.path : root.path + "/" + prefix
            guard let d = opendir(dir) else { continue }
            defer { closedir(d) }
            forEachFolderEntry(d) { raw, _ in
                let name = String(decoding: raw, as: UTF8.self)
                let rel = prefix.isEmpty ? name : prefix + "/" + name
                var st = stat()
                guard lstat(dir + "/" + name, &st) == 0 else { return }
                switch st.st_mode & S_IFMT {
                case S_IFDIR: folders.append(rel)
                case S_IFREG: entries.append((rel, 0))
                case S_IFLNK: entries.append((rel, 1))
                default: entries.append((rel, 2))
                }
            }
        }
        for (p, kind) in entries.sorted(by: { $0.path < $1.path }) {
            let path = root.path + "/" + p
            h.update(data: Array("\u{0}\(p)\u{0}".utf8))
            switch kind {
            // In blocks: a 500 MB products file is hashed with 4 MB of memory (the same digest as hashing it whole).
            case 0: try InputFiles.forEachBlock(URL(fileURLWithPath: path), display: input.lastPathComponent + "/" + p, text: false, blockSize: 4 << 20) {
                h.update(data: $0)
            }
            case 1:
                var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                let n = readlink(path, &buf, buf.count - 1)
                h.update(data: Array("link\u{0}".utf8) + buf[..<max(0, n)].map { UInt8(bitPattern: $0) })
            default: h.update(data: Array("special".utf8))
            }
        }
        return h.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
