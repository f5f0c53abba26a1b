import ArgumentParser
import Foundation
import TreeClient

/// `--root FILE` of `sync` and `verify`: the root an app pins, read (a file under 1 MB) and checked to sign itself; a
/// usage error (exit 2) otherwise.
enum PinnedRoot {
    static func trust(_ path: String) throws -> ReleaseTrust {
        do {
            guard let bytes = FileManager.default.contents(atPath: path), bytes.count < 1 << 20 else {
                throw TrustFailure("\(path): cannot read it (a file under 1 MB)")
            }
            return try ReleaseTrust(pinned: SignedRoot(json: Array(bytes), source: path))
        } catch {
            FileHandle.standardError.write(Data("error: --root: \(TreePath.shown("\(error)", limit: 2000))\n".utf8))
            throw ExitCode(2)
        }
    }
}
