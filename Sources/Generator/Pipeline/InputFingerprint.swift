import Foundation
import Crypto

/// A digest of everything a build depends on: every input file (path and bytes), the options
/// that change output, and the compiler binary itself. Equal digests mean an identical tree,
/// so a no-change rebuild can stop before reading any dataset.
enum InputFingerprint {
    static func digest(input: URL, skipBadRows: Bool) throws -> String {
        var h = SHA256()
        h.update(data: Array("skipBadRows=\(skipBadRows)\n".utf8))
        // The running executable: a rebuilt compiler may render differently.
        if let exe = try? Data(contentsOf: URL(fileURLWithPath: "/proc/self/exe")) { h.update(data: exe) }
        else { h.update(data: Array(CommandLine.arguments[0].utf8)) }
        let root = input.standardizedFileURL.resolvingSymlinksInPath()
        var paths: [String] = []
        if let e = FileManager.default.enumerator(atPath: root.path) {
            while let p = e.nextObject() as? String { paths.append(p) }
        }
        for p in paths.sorted() {
            let url = root.appendingPathComponent(p)
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir), !isDir.boolValue else { continue }
            h.update(data: Array("\u{0}\(p)\u{0}".utf8))
            h.update(data: try Data(contentsOf: url, options: .mappedIfSafe))
        }
        return h.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
