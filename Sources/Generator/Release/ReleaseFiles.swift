import Foundation
import Schemas
import Indexer

/// Builds the release files of a new version, in named steps: what changed since the previous release, the JSON
/// patches of the changed files, the file indexes of the older releases kept, a delta from each of them, the new file
/// index and the update manifest (`ReleaseFiles+…` files, one step each).
enum ReleaseFiles {
    /// A file of the new tree as the release files describe it (its bytes are already staged).
    struct TreeFile: HasPath { var path: String; var size: Int; var sha256: String; var schema: String? }
    typealias NewFile = (path: String, bytes: [UInt8], sha256: String, kind: OutputKind)

    /// The size from which files are diffed one at a time (see `patches`).
    static let largeDiff = 16 << 20
    /// From how many entries the file index is written in two halves side by side (a test lowers it).
    nonisolated(unsafe) static var indexInHalvesFrom = 4096

    /// Where the fragments of a file written from fragments lie, in the previous version (the one whose hash is
    /// `oldSha256`) and the new one: the byte diff takes the entries of its arrays from them instead of scanning.
    /// `same`: fragments of the new version copied from the previous one (same key, same length), byte for byte
    /// equal without a look at either side, so the diff reads neither (nor maps their pages in).
    struct Fragments {
        var oldSha256: String; var old: [Range<Int>]; var new: [Range<Int>]
        var same: [(old: Range<Int>, new: Range<Int>)] = []
        /// Objects whose members the new version's writer placed (a seed index's keyword maps, edited): where their
        /// members lie in both versions, so the diff need not scan them.
        var objects: [(old: ObjectLayout, new: ObjectLayout)] = []

        /// Whether the new version is the previous one with a few entries changed: all but at most 256 fragments copied,
        /// the last one (a seed index's keyword maps) among them. Its patch is then small whatever the file's size.
        var isSmallChange: Bool {
            guard let last = new.last, new.count - same.count <= 256 else { return false }
            return same.last?.new == last
        }
    }

    /// The release files, and what of the file index must be checked against its schema.
    struct Made {
        var files: [NewFile]
        /// The file index's header with only the entries the previous release's index did not have as they are (new or
        /// changed files, and the release files): the whole index is valid when this is, since its other entries are
        /// the previous index's, checked when it was made, and the schema checks each entry on its own. Nil: check
        /// the whole index.
        var indexToCheck: [UInt8]?
    }

    /// What the new release is: its numbers, digests and settings, and its tree's files in path order.
    struct NewRelease {
        var version: Int
        var currentVersion: String
        var generatedAt: String
        var contentDigest: String
        var inputDigest: String
        var settings: ReleaseSettings
        var site: SiteConfig
        var threads: Int
        /// The tree's files in path order (the release stage walks them beside the previous index).
        var tree: [TreeFile]
    }

    /// `bytes` maps a file of the new tree (only changed files are read, to diff them against the previous release).
    /// `previousChecked`: the previous release's file index was checked against this very schema when it was made (the
    /// build cache says this executable made it); its entries need not be checked again (see `Made.indexToCheck`).
    static func make(version: Int, currentVersion: String, generatedAt: String, contentDigest: String, inputDigest: String,
                     current: [TreeFile], previous: PreviousRelease?, settings: ReleaseSettings, site: SiteConfig,
                     threads: Int = 1, fragments: [String: Fragments] = [:], previousChecked: Bool = false,
                     bytes newBytes: @escaping (String) -> MappedBytes?) throws -> Made {
        let release = NewRelease(version: version, currentVersion: currentVersion, generatedAt: generatedAt, contentDigest: contentDigest,
                                 inputDigest: inputDigest, settings: settings, site: site, threads: threads, tree: inPathOrder(current))
        var clock = TraceClock()
        var out: [NewFile] = []
        // Which of the tree's files the previous index lists as they are; the older releases kept, newest first; each
        // changed file's patch as text (a replaced map of a search index is tens of MB: never held as values).
        var listedBefore = [Bool](repeating: false, count: release.tree.count)
        var olderIndexes: [OlderIndex] = []
        var patches: [String: JSONStream] = [:]
        if let previous {
            let comparison = release.compare(with: previous)
            listedBefore = comparison.listedBefore
            let kept = release.keptIndexes(of: previous)
            // What is read below, fetched up front (from a site: in parallel).
            try previous.prefetch(kept.map(\.path) + comparison.changed.map(\.path))
            // The older indexes are read and parsed on a thread of their own while the patches are computed.
            let older = Background { try release.readOlderIndexes(kept, from: previous) }
            patches = try release.patches(of: comparison.changed, from: previous, fragments: fragments, newBytes: newBytes)
            clock.lap("release: patches")
            let read = try older.wait()
            out += read.map(\.file)
            olderIndexes = read.sorted { $0.version > $1.version }
        }
        clock.lap("release: older indexes read")
        let deltas = olderIndexes.map { release.delta(from: $0, patches: &patches) }
        out += deltas.map(\.file)
        clock.lap("release: deltas")
        let index = release.fileIndex(releaseFiles: out, listedBefore: previousChecked ? listedBefore : nil)
        out.append(index.file)
        out.append(try release.manifest(index: index.file, deltas: deltas.map(\.reference), previous: previous))
        clock.lap("release: file index and manifest")
        return Made(files: out, indexToCheck: index.partToCheck)
    }

    /// Entries in path order, stably (a list in order already, as our own indexes are, is not sorted again).
    static func inPathOrder<T: HasPath>(_ list: [T]) -> [T] {
        // (By index: zipping the list with itself copied each entry twice, its strings retained and released.)
        if list.indices.dropFirst().allSatisfy({ list[$0 - 1].path <= list[$0].path }) { return list }
        return list.indices.sorted { (list[$0].path, $0) < (list[$1].path, $1) }.map { list[$0] }
    }

    /// The diff of the parsed values, for text the byte diff cannot vouch for (nil when either side is not JSON), as text.
    static func valueDiff(_ old: Span<UInt8>, _ new: Span<UInt8>) -> JSONStream? {
        guard let a = try? JSONReader.parse(old), let b = try? JSONReader.parse(new), let bytes = try? JSONWriter().bytes(JSONPatch.diff(a, b)) else { return nil }
        let text = JSONStream(capacity: bytes.count)
        text.raw(bytes)
        return text
    }
}

/// A file entry of a tree or an index, named by its path.
protocol HasPath { var path: String { get } }
extension FileEntry: HasPath {}
