import Foundation
import Schemas
import TreeClient
import Indexer

/// One file of a release: what apps verify before they use it.
public struct FileEntry: Sendable, Equatable {
    public var path: String
    public var sha256: String
    public var size: Int
    /// Path of its schema in the tree, or the meta-schema URI for schema files; nil for non-JSON files.
    public var schema: String?
}

/// What the build knows of the release currently in the output folder, given with --previous, or published on the
/// live site (`--previous https://…/`).
public struct PreviousRelease: Sendable {
    public var version: Int
    public var currentVersion: String
    public var contentDigest: String
    /// Digest of the inputs and the compiler that built it (see InputFingerprint).
    public var inputDigest: String
    public var files: [FileEntry]
    /// The file index itself (its path, size and sha256; also the last entry of `files`).
    public var fileIndex: FileEntry { files.last! }
    /// The folder, or the site's base URL.
    public var root: URL
    /// `files` by path: what each file read later (older indexes, old versions of changed files) is checked against.
    let entries: EntryIndex

    /// Entries by path (the first of two with one path), as positions in the list: a table of 100,000 paths that
    /// holds no second copy of each entry, looked up by the path's bytes (`TokenTable`: a build asks it once per file,
    /// and Swift's string hashing cost more than the rest of the lookup).
    struct EntryIndex: Sendable {
        private let files: [FileEntry]
        private let at: TokenTable<Int32>
        init(_ files: [FileEntry]) {
            var at = TokenTable<Int32>()
            for i in files.indices {
                files[i].path.withUTF8Span { if at.find($0) == nil { at.insert($0, Int32(i)) } }
            }
            self.files = files; self.at = at
        }
        subscript(path: String) -> FileEntry? {
            path.withUTF8Span { at.find($0) }.map { files[Int(at.values[$0])] }
        }
        /// Only the entry's sha256 (asked once per file of the tree: the entry is not copied whole).
        func sha256(of path: String) -> String? {
            path.withUTF8Span { at.find($0) }.map { files[Int(at.values[$0])].sha256 }
        }
    }
    /// Its files hashed already in this build (see `earlier`), not hashed again while unchanged.
    let verified = VerifiedFiles()

    /// Where its files come from (a folder read without leaving it, or the site over HTTP).
    let source: ReleaseSource

    /// Reads `update-manifest.json` and the file index it names; nil when there is no folder or the folder has no
    /// `update-manifest.json` (no release yet). A release that cannot be read safely and completely — a symlinked or
    /// special manifest or index, a path that leaves the tree, invalid JSON, a malformed entry — is an error rather
    /// than nil: starting a new release history over a corrupted or tampered tree would silently drop its versions.
    public static func load(from root: URL) throws -> PreviousRelease? {
        // Not a folder (or none): nothing to read here; whether it may be written is the output guard's question.
        var st = stat()
        guard stat(root.path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { return nil }
        let reader: TreeReader
        do { reader = try TreeReader(root: root) } catch { throw unreadable(root, "\(error)") }
        return try load(source: reader)
    }

    /// The release published at `site`; nil only when the site answers 404 for `update-manifest.json` (nothing
    /// published yet). Anything else that stops the reading — no connection, a timeout, a 5xx, a file index whose
    /// size or hash differs from the manifest's — is an error: the build never starts over at version 1 by itself.
    /// `signing`: a signed build's roots, under which the site's release must be signed (see `checkSignature`).
    static func load(site: URL, fetcher: HTTPFetcher, signing: ReleaseSigning? = nil, acceptUnsigned: Bool = false,
                     progress: @escaping (String) -> Void = { _ in }) throws -> PreviousRelease? {
        try load(source: try SiteRelease(site: site, fetcher: fetcher, progress: progress), signing: signing, acceptUnsigned: acceptUnsigned)
    }

    static func load(source: ReleaseSource, signing: ReleaseSigning? = nil, acceptUnsigned: Bool = false) throws -> PreviousRelease? {
        do { return try load(source, signing: signing, acceptUnsigned: acceptUnsigned) } catch let e as Unreadable { throw source.failure(e.why) }
    }

    /// The manifest a signed build continues from, checked as an app would under the input's roots (root 1 pinned,
    /// the chain read from the input), its expiry aside: its signed payload, or the manifest itself when it is
    /// unsigned and `acceptUnsigned` (the first signed release of a site). A forged or unsigned previous release
    /// would otherwise set the version and the deltas every app then receives.
    static func checkSignature(_ manifest: [UInt8], _ signing: ReleaseSigning, acceptUnsigned: Bool) throws -> [UInt8] {
        let roots = signing.roots
        let trust: ReleaseTrust
        do { trust = try ReleaseTrust(pinned: roots[0]) } catch { throw Unreadable(why: "\(error)") }
        let unsigned = (try? SignedRelease.of(manifest: manifest)) == nil
        if acceptUnsigned && unsigned { return manifest }
        do {
            return try trust.check(manifest: manifest, copy: nil, ignoringExpiry: true) { n in n <= roots.count ? roots[n - 1].bytes : nil }.release.payload
        } catch {
            throw Unreadable(why: "\(error)" + (unsigned ? " (for a site's first signed release: --accept-unsigned-previous)" : ""))
        }
    }

    /// Why a release's manifest or index cannot be trusted (the caller words the error for its command).
    struct Unreadable: Error { let why: String }

    static func load(_ source: ReleaseSource, signing: ReleaseSigning? = nil, acceptUnsigned: Bool = false) throws -> PreviousRelease? {
        func parse(_ path: String, _ bytes: [UInt8]) throws -> JSON {
            do { return try JSONReader.parse(bytes) } catch { throw Unreadable(why: "\(path): invalid JSON (\(TreeReader.shown("\(error)", limit: 120)))") }
        }
        let manifestBytes: [UInt8]
        do { manifestBytes = try source.read("update-manifest.json", expected: nil) } catch let p as TreeProblem where p.kind == .missing {
            return nil
        } catch { throw Unreadable(why: "\(error)") }
        let signedBytes = try signing.map { try checkSignature(manifestBytes, $0, acceptUnsigned: acceptUnsigned) } ?? manifestBytes
        let manifest = try parse("update-manifest.json", signedBytes)
        guard let version = manifest["version"]?.intValue, version >= 1 else { throw Unreadable(why: "update-manifest.json: no version") }
        guard let indexPath = manifest["fileIndex"]?["path"]?.stringValue ?? manifest["fileIndex"]?.stringValue else {
            throw Unreadable(why: "update-manifest.json: fileIndex names no file")
        }
        if let why = TreeReader.pathRejection(indexPath) { throw Unreadable(why: "update-manifest.json: fileIndex \(TreeReader.shown(indexPath)): \(why)") }
        // The index is checked against the manifest's hash and size when it gives them (every release this tool wrote).
        let indexSha = manifest["fileIndex"]?["sha256"]?.stringValue, indexSize = manifest["fileIndex"]?["size"]?.intValue
        let indexEntry = indexSha.flatMap { h in indexSize.map { FileEntry(path: indexPath, sha256: h, size: $0, schema: nil) } }
        let idxData: [UInt8]
        do { idxData = try source.read(indexPath, expected: indexEntry) } catch { throw Unreadable(why: "\(error)") }
        if let indexEntry, let why = mismatch(idxData, indexEntry) { throw Unreadable(why: "\(indexPath): \(why) (update-manifest.json's fileIndex)") }
        let (index, listed) = try entries(indexPath, idxData)
        var all = listed
        // The index itself is a file of the tree too (not listed in itself).
        all.append(FileEntry(path: indexPath, sha256: indexSha ?? Build.sha256Hex(idxData), size: idxData.count, schema: nil))
        let root = (source as? TreeReader)?.root ?? (source as? SiteRelease)?.site ?? URL(fileURLWithPath: source.location)
        return PreviousRelease(version: version,
                               currentVersion: manifest["currentVersion"]?.stringValue ?? "",
                               contentDigest: index["contentDigest"]?.stringValue ?? "",
                               inputDigest: index["inputDigest"]?.stringValue ?? "",
                               files: all, root: root,
                               entries: EntryIndex(all), source: source)
    }

    /// A file index's top-level members and its entries, each path checked (read fast from our writer's text, see
    /// `FileIndexText`; any other text is parsed whole).
    static func entries(_ indexPath: String, _ idxData: [UInt8]) throws -> (members: [String: JSON], files: [FileEntry]) {
        var members: [String: JSON] = [:]
        var all: [FileEntry]
        if let fast = FileIndexText.parse(idxData) {
            members = fast.members
            all = fast.files
        } else {
            let index: JSON
            do { index = try JSONReader.parse(idxData) } catch { throw Unreadable(why: "\(indexPath): invalid JSON (\(TreeReader.shown("\(error)", limit: 120)))") }
            guard let list = index["files"]?.arrayValue else { throw Unreadable(why: "\(indexPath): no files list") }
            for m in index.objectValue?.members ?? [] where m.key != "files" { members[m.key] = m.value }
            all = []
            all.reserveCapacity(list.count + 1)
            for (i, e) in list.enumerated() {
                guard let p = e["path"]?.stringValue, let h = e["sha256"]?.stringValue, let s = e["size"]?.intValue else {
                    throw Unreadable(why: "\(indexPath): entry \(i) lacks a path, sha256 or size")
                }
                all.append(FileEntry(path: p, sha256: h, size: s, schema: e["schema"]?.stringValue))
            }
        }
        // Paths of the index are opened later (older indexes, patches, hard links): each must stay in the tree.
        for (i, e) in all.enumerated() {
            if let why = TreeReader.pathRejection(e.path) { throw Unreadable(why: "\(indexPath): entry \(i) \(TreeReader.shown(e.path)): \(why)") }
        }
        return (members, all)
    }

    /// Why `bytes` are not the file `entry` describes, or nil.
    static func mismatch(_ bytes: [UInt8], _ entry: FileEntry) -> String? {
        if bytes.count != entry.size { return "\(bytes.count) bytes where the release lists \(entry.size)" }
        if Build.sha256Hex(bytes) != entry.sha256 { return "sha256 differs from the one the release lists" }
        return nil
    }

    /// A file of the previous tree, read without leaving it, and checked against the index when listed there.
    public func read(_ path: String) throws -> [UInt8] {
        let bytes = try source.read(path, expected: entries[path])
        if let e = entries[path], let why = Self.mismatch(bytes, e) { throw source.failure("\(TreeReader.shown(path)): \(why)") }
        return bytes
    }

    /// The same, nil when the file is missing (an older index or an old page gone is no reason to stop: that delta or
    /// patch is left out, as before); a symlink, special file, unsafe path, unreachable site or bytes that differ from
    /// the index stop the build.
    func readIfPresent(_ path: String) throws -> [UInt8]? {
        let bytes: [UInt8]
        do { bytes = try source.read(path, expected: entries[path]) } catch let p as TreeProblem where p.kind == .missing { return nil } catch {
            throw source.failure("\(error)")
        }
        if let e = entries[path], let why = Self.mismatch(bytes, e) { throw source.failure("\(TreeReader.shown(path)): \(why)") }
        return bytes
    }

    /// A file of a release in a folder, checked against its index entry, to be read in parts (nil when the release
    /// is not in a folder, or the folder no longer has that file as listed).
    /// `checksum`: the file's `Checksum` as a build cache recorded it with this sha256, checked instead of the sha256.
    func earlier(_ path: String, checksum: [UInt8] = []) -> EarlierFile? {
        guard let tree = source as? TreeReader, let e = entries[path], let fd = try? tree.openFile(checked: path) else { return nil }
        guard let file = EarlierFile(fd: fd, expected: e, checksum: checksum, known: { self.verified.has(path, $0) }) else { return nil }
        verified.add(path, file.stamp)
        return file
    }

    /// The same as `readIfPresent`, without copying the file (mapped from a folder).
    func mappedIfPresent(_ path: String) throws -> MappedBytes? {
        let bytes: MappedBytes
        do { bytes = try source.mapped(path, expected: entries[path]) } catch let p as TreeProblem where p.kind == .missing { return nil } catch {
            throw source.failure("\(error)")
        }
        if let e = entries[path] {
            if bytes.count != e.size { throw source.failure("\(TreeReader.shown(path)): \(bytes.count) bytes where the release lists \(e.size)") }
            // (Hashed once per build: a file the build read from already and that has not changed since is not again.)
            if !verified.has(path, bytes.stamp), bytes.withSpan({ Build.sha256Hex($0) }) != e.sha256 { throw source.failure("\(TreeReader.shown(path)): sha256 differs from the one the release lists") }
        }
        return bytes
    }

    /// Gets the files the release files will read ready (a site downloads them in parallel).
    func prefetch(_ paths: [String]) throws {
        try source.prefetch(paths.compactMap { entries[$0] })
    }

    static func unreadable(_ root: URL, _ why: String) -> BuildError {
        // Said plainly: the build stops instead of starting version 1 over a tree it cannot trust.
        BuildError(file: root.path, "the previous release cannot be read safely: \(why); repair or remove that folder, or "
                   + "build into another one (a new release history is not started over it)")
    }
}

/// Settings of the `release` section of site.json.
public struct ReleaseSettings: Sendable {
    /// Pattern of `currentVersion`: YYYY, MM, DD (the build date) and N (the release number of that day) or V (version).
    public var versionPattern: String
    /// How many earlier releases keep their file index and a delta to the new one.
    public var keep: Int
    public var forceUpdate: Bool
    /// Days a signed release stays current after its build (`signed-release.json`'s `expires`): an app that hears
    /// of no newer release for longer says its data is stale. A scheduled build renews it (see `ReleaseSigning`).
    public var expiresDays: Int = 7

    public static func read(_ site: SiteConfig, file: String) throws -> ReleaseSettings {
        var o = try site.section("release", file: file)
        var s = ReleaseSettings(versionPattern: try o.string("versionPattern", default: "YYYY.MM.DD.N"),
                                keep: try o.int("keep", default: 5, min: 1, max: 100),
                                forceUpdate: try o.bool("forceUpdate", default: false))
        s.expiresDays = try o.int("expiresDays", default: 7, min: 1, max: 366)
        try o.finish()
        return s
    }

    /// `currentVersion` for a new release on `day` (YYYY-MM-DD), given the previous one.
    public func versionString(day: String, version: Int, previous: PreviousRelease?) -> String {
        let parts = day.split(separator: "-").map(String.init)
        func render(_ n: Int) -> String {
            versionPattern.replacingOccurrences(of: "YYYY", with: parts[0]).replacingOccurrences(of: "MM", with: parts[1])
                .replacingOccurrences(of: "DD", with: parts[2]).replacingOccurrences(of: "N", with: String(n))
                .replacingOccurrences(of: "V", with: String(version))
        }
        // N counts the releases of the day: the next free number after the previous release's.
        var n = 1
        if let prev = previous?.currentVersion, let k = (1...9999).first(where: { render($0) == prev }) { n = k + 1 }
        return render(n)
    }
}
