import Foundation
import LowLevel
#if canImport(Glibc)
import Glibc
#endif

/// What `--watch` compares between polls: every entry of the input folder with its type, size, modification time and
/// inode (a file saved by rename gets a new inode even within the same nanosecond tick). Symlinks are followed for
/// files (the build reads what they point at); a linked folder is listed, not entered.
enum InputWatch {
    struct Stamp: Equatable, Sendable {
        var entries: [String]
    }

    static func stamp(_ root: URL) -> Stamp {
        var out: [String] = []
        func walk(_ dir: String, _ rel: String, depth: Int) {
            guard depth < 32, let d = opendir(dir) else { return }
            defer { closedir(d) }
            var names: [String] = []
            forEachFolderEntry(d) { name, _ in names.append(String(decoding: name, as: UTF8.self)) }
            for name in names.sorted() {
                let path = dir + "/" + name, relPath = rel.isEmpty ? name : rel + "/" + name
                var l = stat(), st = stat()
                guard lstat(path, &l) == 0 else { continue }
                if stat(path, &st) != 0 { st = l }
                out.append("\(relPath)\u{0}\(st.st_mode)\u{0}\(st.st_size)\u{0}\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)\u{0}\(st.st_ino)\u{0}\(l.st_ino)")
                if l.st_mode & S_IFMT == S_IFDIR { walk(path, relPath, depth: depth + 1) }
            }
        }
        walk(root.path, "", depth: 0)
        return Stamp(entries: out)
    }

    /// What says that a tree was swapped or rebuilt by someone else: the folder's inode (a build swaps in a new
    /// folder) and its manifest's inode, size and time.
    static func treeStamp(_ dist: URL) -> String {
        var d = stat(), m = stat()
        guard stat(dist.path, &d) == 0 else { return "none" }
        let manifest = stat(dist.appendingPathComponent("update-manifest.json").path, &m) == 0
            ? "\(m.st_ino) \(m.st_size) \(m.st_mtim.tv_sec).\(m.st_mtim.tv_nsec)" : "-"
        return "\(d.st_dev) \(d.st_ino) \(manifest)"
    }
}
