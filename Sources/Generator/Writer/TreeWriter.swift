import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Linux renameat2(2): with RENAME_EXCHANGE two paths swap atomically.
@_silgen_name("renameat2")
private func c_renameat2(_ olddirfd: Int32, _ oldpath: UnsafePointer<CChar>, _ newdirfd: Int32,
                         _ newpath: UnsafePointer<CChar>, _ flags: UInt32) -> Int32

/// Writes a complete tree beside the output folder and swaps it in only when every file is
/// on disk, so a failure or a kill at any moment leaves the previous tree usable.
/// Files whose bytes did not change are hard-linked from the previous tree (not rewritten);
/// files no longer produced simply are not carried over.
public struct TreeWriter {
    public struct Stats: Sendable { public var written = 0, linked = 0, removed = 0, unchanged = true }

    public let output: URL
    public let threads: Int

    public init(output: URL, threads: Int) { self.output = output.standardizedFileURL; self.threads = max(1, threads) }

    /// `files`: relative path → bytes. `previous`: relative path → sha256 of the current tree's
    /// files (from its file index), used to detect unchanged files. `hashes`: sha256 of `files`.
    public func write(_ files: [(path: String, bytes: [UInt8])], hashes: [String], previous: [String: String]) throws -> Stats {
        let fm = FileManager.default
        var stats = Stats()
        let exists = fm.fileExists(atPath: output.path)
        // Nothing changed: leave the tree (and every timestamp in it) alone.
        if exists, previous.count == files.count,
           zip(files, hashes).allSatisfy({ previous[$0.0.path] == $0.1 && access(output.path + "/" + $0.0.path, F_OK) == 0 }) {
            return stats
        }
        stats.unchanged = false
        let parent = output.deletingLastPathComponent()
        try fm.createDirectory(at: parent, withIntermediateDirectories: true)
        let staging = parent.appendingPathComponent(".\(output.lastPathComponent).staging-\(getpid())")
        try? fm.removeItem(at: staging)
        try fm.createDirectory(at: staging, withIntermediateDirectories: true)
        do {
            // Plain string paths: Foundation's URL manipulation is slow on Linux, and this runs per file.
            let stagingPath = staging.path, outputPath = output.path
            var dirs = Set<String>()
            for f in files {
                var d = Substring(f.path)
                while let slash = d.lastIndex(of: "/") {
                    d = d[..<slash]
                    if !dirs.insert(String(d)).inserted { break }
                }
            }
            // Parents sort before children, so plain mkdir(2) suffices (much cheaper than FileManager).
            for d in dirs.sorted() {
                if mkdir(stagingPath + "/" + d, 0o755) != 0 && errno != EEXIST {
                    throw BuildError(file: output.path, "cannot create folder \(d) (\(String(cString: strerror(errno))))")
                }
            }

            var failures = [String?](repeating: nil, count: files.count)
            var linkedFlags = [Bool](repeating: false, count: files.count)
            let chunks = min(files.count, threads * 8)
            failures.withUnsafeMutableBufferPointer { fail in
                linkedFlags.withUnsafeMutableBufferPointer { linked in
                    DispatchQueue.concurrentPerform(iterations: max(chunks, 1)) { c in
                        let lo = c * files.count / max(chunks, 1), hi = (c + 1) * files.count / max(chunks, 1)
                        for i in lo..<hi {
                            let f = files[i]
                            let dest = stagingPath + "/" + f.path
                            if exists, previous[f.path] == hashes[i] {
                                let src = outputPath + "/" + f.path
                                if link(src, dest) == 0 { linked[i] = true; continue }
                            }
                            let fd = open(dest, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                            if fd < 0 { fail[i] = "\(f.path): cannot create (\(String(cString: strerror(errno))))"; continue }
                            let ok = f.bytes.withUnsafeBytes { raw -> Bool in
                                var off = 0
                                while off < raw.count {
                                    let n = Glibc.write(fd, raw.baseAddress! + off, raw.count - off)
                                    if n <= 0 { return false }
                                    off += n
                                }
                                return true
                            }
                            close(fd)
                            if !ok { fail[i] = "\(f.path): write failed (\(String(cString: strerror(errno))))" }
                        }
                    }
                }
            }
            if let msg = failures.compactMap({ $0 }).first { throw BuildError(file: output.path, msg) }
            stats.linked = linkedFlags.filter { $0 }.count
            stats.written = files.count - stats.linked
            let newPaths = Set(files.map(\.path))
            stats.removed = previous.keys.filter { !newPaths.contains($0) }.count
            try swap(staging: staging, exists: exists)
        } catch {
            try? fm.removeItem(at: staging)
            throw error
        }
        return stats
    }

    /// Swaps staging and output atomically where the kernel supports it; otherwise two renames
    /// (the previous tree stays complete under a side name in between).
    private func swap(staging: URL, exists: Bool) throws {
        let fm = FileManager.default
        if !exists {
            guard rename(staging.path, output.path) == 0 else {
                throw BuildError(file: output.path, "cannot move the new tree into place (\(String(cString: strerror(errno))))")
            }
            return
        }
        if c_renameat2(AT_FDCWD, staging.path, AT_FDCWD, output.path, 2 /* RENAME_EXCHANGE */) == 0 {
            try? fm.removeItem(at: staging)  // now holds the previous tree
            return
        }
        let old = output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).old-\(getpid())")
        guard rename(output.path, old.path) == 0 else {
            throw BuildError(file: output.path, "cannot move the previous tree aside (\(String(cString: strerror(errno))))")
        }
        guard rename(staging.path, output.path) == 0 else {
            _ = rename(old.path, output.path)
            throw BuildError(file: output.path, "cannot move the new tree into place (\(String(cString: strerror(errno))))")
        }
        try? fm.removeItem(at: old)
    }
}
