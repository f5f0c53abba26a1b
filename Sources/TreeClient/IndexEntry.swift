import Foundation

/// A file of a release as its index lists it.
struct IndexEntry: Equatable {
    var path: String
    var sha256: String
    var size: Int

    /// Checked: a path that stays in the tree, a sha256 in hex, a size of 0 or more.
    init(path: String, sha256: String, size: Int, in place: String) throws {
        if let why = TreePath.rejection(path) { throw InvalidDocument("\(place) \(TreePath.shown(path)): \(why)") }
        guard sha256.utf8.count == 64, sha256.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else {
            throw InvalidDocument("\(place) \(TreePath.shown(path)): sha256 is not 64 lowercase hex digits")
        }
        guard size >= 0 else { throw InvalidDocument("\(place) \(TreePath.shown(path)): negative size") }
        self.path = path; self.sha256 = sha256; self.size = size
    }

    var expected: HTTPFetcher.Expected { .init(size: size, sha256: sha256) }
}
