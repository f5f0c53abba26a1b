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

    /// Reads `update-manifest.json` and the file index it names; nil when the folder has no release.
    public static func load(from root: URL) -> PreviousRelease? {
        guard let data = try? Data(contentsOf: root.appendingPathComponent("update-manifest.json")),
              let manifest = try? JSONReader.parse(data) else { return nil }
        let indexPath = manifest["fileIndex"]?["path"]?.stringValue ?? manifest["fileIndex"]?.stringValue
        guard let indexPath, let idxData = try? Data(contentsOf: root.appendingPathComponent(indexPath)),
              let index = try? JSONReader.parse(idxData), let list = index["files"]?.arrayValue else { return nil }
        let files = list.compactMap { e -> FileEntry? in
            guard let p = e["path"]?.stringValue, let h = e["sha256"]?.stringValue, let s = e["size"]?.intValue else { return nil }
            return FileEntry(path: p, sha256: h, size: s, schema: e["schema"]?.stringValue)
        }
        var all = files
        // The index itself is a file of the tree too (not listed in itself).
        all.append(FileEntry(path: indexPath, sha256: manifest["fileIndex"]?["sha256"]?.stringValue ?? "", size: idxData.count, schema: nil))
        return PreviousRelease(version: manifest["version"]?.intValue ?? 0,
                               currentVersion: manifest["currentVersion"]?.stringValue ?? "",
                               contentDigest: index["contentDigest"]?.stringValue ?? "",
                               inputDigest: index["inputDigest"]?.stringValue ?? "",
                               files: all, root: root)
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
