import Foundation
import TreeClient

/// Where the files of a previous release come from: the folder it was built into (`TreeReader`), or the live site it
/// was published to (`SiteRelease`). `PreviousRelease` reads and checks them the same way whatever the source.
protocol ReleaseSource: AnyObject, Sendable {
    /// The folder's path or the site's URL, for messages.
    var location: String { get }
    /// A file of the release; a `TreeProblem` of kind `.missing` when the source does not have it. `expected`: the
    /// size and hash the release lists for it, when known (a site retries a body that does not match).
    func read(_ path: String, expected: FileEntry?) throws -> [UInt8]
    /// A file of the release without a copy where the source allows it (a folder maps it).
    func mapped(_ path: String, expected: FileEntry?) throws -> MappedBytes
    /// Gets these files ready for `read` (a site downloads them in parallel, each checked); a folder needs nothing.
    func prefetch(_ files: [FileEntry]) throws
    /// The error that stops the build when the release cannot be read from here.
    func failure(_ why: String) -> BuildError
}

extension TreeReader: ReleaseSource {
    var location: String { root.path }

    func read(_ path: String, expected: FileEntry?) throws -> [UInt8] { try read(path) }

    func mapped(_ path: String, expected: FileEntry?) throws -> MappedBytes { try mapped(path) }

    func prefetch(_ files: [FileEntry]) throws {}

    func failure(_ why: String) -> BuildError { PreviousRelease.unreadable(root, why) }
}

extension ReleaseSource {
    func mapped(_ path: String, expected: FileEntry?) throws -> MappedBytes { MappedBytes(try read(path, expected: expected)) }
}
