import Foundation
import Schemas

/// The release files: `releases/{version}/files.json` (immutable file index),
/// `releases/{version}/delta-from-{old}.json` and the small `update-manifest.json`, written last.
enum ManifestKinds {
    static let fileEntry = S.object(["path": S.relativePath, "sha256": S.sha256, "size": S.nonNegativeInteger,
                                     "schema": S.nullable(S.string)])
    static let fileIndex = OutputKind(
        name: "file-index", pathTemplate: "releases/{version}/files.json",
        summary: "Immutable index of a release: every file of the tree with its SHA-256, size and schema.",
        schema: S.object(["version": S.integer(min: 1), "currentVersion": S.nonEmptyString, "generatedAt": S.dateTime,
                          "contentDigest": S.sha256, "inputDigest": S.sha256, "files": S.array(fileEntry)]))

    static let deltaEntry = S.object(["path": S.relativePath, "sha256": S.sha256, "size": S.nonNegativeInteger])
    static let delta = OutputKind(
        name: "delta", pathTemplate: "releases/{version}/delta-from-{oldVersion}.json",
        summary: "What changed between an older release and this one: added, changed and removed files.",
        schema: S.object(["fromVersion": S.integer(min: 1), "toVersion": S.integer(min: 1),
                          "added": S.array(deltaEntry),
                          "changed": S.array(S.object(["path": S.relativePath, "sha256": S.sha256, "size": S.nonNegativeInteger,
                                                       "oldSha256": S.sha256, "oldSize": S.nonNegativeInteger,
                                                       // (`move`, from a temporary member and back, puts a kept member last:
                                                       // see `JSONPatch.Reorder`.)
                                                       "patch": S.optional(S.array(S.object(["op": S.enumeration(["add", "remove", "replace", "move"]),
                                                                                             "path": S.string, "from": S.optional(S.string),
                                                                                             "value": S.optional(true)])))])),
                          "removed": S.array(S.object(["path": S.relativePath, "oldSha256": S.sha256, "oldSize": S.nonNegativeInteger])),
                          "downloadBytes": S.nonNegativeInteger]))

    static let manifest = OutputKind(
        name: "update-manifest", pathTemplate: "update-manifest.json",
        summary: "The small file apps poll: current version, file index reference and available deltas.",
        schema: S.object([
            "currentVersion": S.nonEmptyString, "version": S.integer(min: 1), "previousVersion": S.nullable(S.integer(min: 1)),
            "forceUpdate": S.boolean, "minimumAppVersion": S.string(pattern: #"^\d+(\.\d+){0,2}$"#), "lastUpdated": S.dateTime,
            "fileIndex": S.object(["path": S.relativePath, "sha256": S.sha256, "size": S.nonNegativeInteger]),
            "delta": S.nullable(S.object(["fromVersion": S.integer(min: 1), "path": S.relativePath, "added": S.nonNegativeInteger,
                                          "changed": S.nonNegativeInteger, "removed": S.nonNegativeInteger,
                                          "downloadBytes": S.nonNegativeInteger])),
            "deltasAvailable": S.array(S.object(["fromVersion": S.integer(min: 1), "path": S.relativePath])),
        ]))
}
