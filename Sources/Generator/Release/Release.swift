import Foundation
import Schemas

/// One file of a release: what apps verify before they use it.
public struct FileEntry: Sendable, Equatable {
    public var path: String
    public var sha256: String
    public var size: Int
    /// Path of its schema in the tree, or the meta-schema URI for schema files; nil for non-JSON files.
    public var schema: String?
}

/// What the build knows of the release currently in the output folder (or given with --previous).
public struct PreviousRelease: Sendable {
    public var version: Int
    public var currentVersion: String
    public var contentDigest: String
    /// Digest of the inputs and the compiler that built it (see InputFingerprint).
    public var inputDigest: String
    public var files: [FileEntry]
    public var root: URL

    /// Reads the previous tree's files (older file indexes, old versions of changed files) without leaving it.
    let reader: TreeReader

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
        do { return try load(reader) } catch let e as Unreadable { throw unreadable(root, e.why) }
    }

    /// Why a release's manifest or index cannot be trusted (the caller words the error for its command).
    struct Unreadable: Error { let why: String }

    static func load(_ reader: TreeReader) throws -> PreviousRelease? {
        func read(_ path: String) throws -> [UInt8] {
            do { return try reader.read(path) } catch { throw Unreadable(why: "\(error)") }
        }
        func parse(_ path: String, _ bytes: [UInt8]) throws -> JSON {
            do { return try JSONReader.parse(bytes) } catch { throw Unreadable(why: "\(path): invalid JSON (\(TreeReader.shown("\(error)", limit: 120)))") }
        }
        let manifestBytes: [UInt8]
        do { manifestBytes = try reader.read("update-manifest.json") } catch let p as TreeProblem where p.kind == .missing {
            return nil
        } catch { throw Unreadable(why: "\(error)") }
        let manifest = try parse("update-manifest.json", manifestBytes)
        guard let version = manifest["version"]?.intValue, version >= 1 else { throw Unreadable(why: "update-manifest.json: no version") }
        guard let indexPath = manifest["fileIndex"]?["path"]?.stringValue ?? manifest["fileIndex"]?.stringValue else {
            throw Unreadable(why: "update-manifest.json: fileIndex names no file")
        }
        if let why = TreeReader.pathRejection(indexPath) { throw Unreadable(why: "update-manifest.json: fileIndex \(TreeReader.shown(indexPath)): \(why)") }
        let idxData = try read(indexPath)
        let index = try parse(indexPath, idxData)
        guard let list = index["files"]?.arrayValue else { throw Unreadable(why: "\(indexPath): no files list") }
        var all: [FileEntry] = []
        all.reserveCapacity(list.count + 1)
        for (i, e) in list.enumerated() {
            guard let p = e["path"]?.stringValue, let h = e["sha256"]?.stringValue, let s = e["size"]?.intValue else {
                throw Unreadable(why: "\(indexPath): entry \(i) lacks a path, sha256 or size")
            }
            // Paths of the index are opened later (older indexes, patches, hard links): each must stay in the tree.
            if let why = TreeReader.pathRejection(p) { throw Unreadable(why: "\(indexPath): entry \(i) \(TreeReader.shown(p)): \(why)") }
            all.append(FileEntry(path: p, sha256: h, size: s, schema: e["schema"]?.stringValue))
        }
        // The index itself is a file of the tree too (not listed in itself).
        all.append(FileEntry(path: indexPath, sha256: manifest["fileIndex"]?["sha256"]?.stringValue ?? "", size: idxData.count, schema: nil))
        return PreviousRelease(version: version,
                               currentVersion: manifest["currentVersion"]?.stringValue ?? "",
                               contentDigest: index["contentDigest"]?.stringValue ?? "",
                               inputDigest: index["inputDigest"]?.stringValue ?? "",
                               files: all, root: reader.root, reader: reader)
    }

    /// A file of the previous tree, read without leaving it.
    public func read(_ path: String) throws -> [UInt8] { try reader.read(path) }

    /// The same, nil when the file is missing (an older index or an old page gone is no reason to stop: that delta or
    /// patch is left out, as before); a symlink, special file or unsafe path stops the build.
    func readIfPresent(_ path: String) throws -> [UInt8]? {
        do { return try reader.read(path) } catch let p as TreeProblem where p.kind == .missing { return nil } catch {
            throw Self.unreadable(root, "\(error)")
        }
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

    public static func read(_ site: SiteConfig, file: String) throws -> ReleaseSettings {
        var o = try site.section("release", file: file)
        let s = ReleaseSettings(versionPattern: try o.string("versionPattern", default: "YYYY.MM.DD.N"),
                                keep: try o.int("keep", default: 5, min: 1, max: 100),
                                forceUpdate: try o.bool("forceUpdate", default: false))
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
