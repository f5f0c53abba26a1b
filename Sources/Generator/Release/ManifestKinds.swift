import Foundation
import Schemas

/// The release files: `releases/{version}/files.json` (immutable file index),
/// `releases/{version}/delta-from-{old}.json` and the small `update-manifest.json`, written last.
enum ManifestKinds {
    static let fileEntry = Schema.object(["path": Schema.relativePath, "sha256": Schema.sha256, "size": Schema.nonNegativeInteger,
                                     "schema": Schema.nullable(Schema.string)])
    static let fileIndex = OutputKind(
        name: "file-index", pathTemplate: "releases/{version}/files.json",
        summary: "Immutable index of a release: every file of the tree with its SHA-256, size and schema.",
        schema: Schema.object(["version": Schema.integer(min: 1), "currentVersion": Schema.nonEmptyString, "generatedAt": Schema.dateTime,
                          "contentDigest": Schema.sha256, "inputDigest": Schema.sha256, "files": Schema.array(fileEntry)]))

    static let deltaEntry = Schema.object(["path": Schema.relativePath, "sha256": Schema.sha256, "size": Schema.nonNegativeInteger])
    static let delta = OutputKind(
        name: "delta", pathTemplate: "releases/{version}/delta-from-{oldVersion}.json",
        summary: "What changed between an older release and this one: added, changed and removed files.",
        schema: Schema.object(["fromVersion": Schema.integer(min: 1), "toVersion": Schema.integer(min: 1),
                          "added": Schema.array(deltaEntry),
                          "changed": Schema.array(Schema.object(["path": Schema.relativePath, "sha256": Schema.sha256, "size": Schema.nonNegativeInteger,
                                                       "oldSha256": Schema.sha256, "oldSize": Schema.nonNegativeInteger,
                                                       // (`move`, from a temporary member and back, puts a kept member last:
                                                       // see `JSONPatch.Reorder`.)
                                                       "patch": Schema.optional(Schema.array(Schema.object(["op": Schema.enumeration(["add", "remove", "replace", "move"]),
                                                                                             "path": Schema.string, "from": Schema.optional(Schema.string),
                                                                                             "value": Schema.optional(true)])))])),
                          "removed": Schema.array(Schema.object(["path": Schema.relativePath, "oldSha256": Schema.sha256, "oldSize": Schema.nonNegativeInteger])),
                          "downloadBytes": Schema.nonNegativeInteger]))

    static let manifest = OutputKind(
        name: "update-manifest", pathTemplate: "update-manifest.json",
        summary: "The small file apps poll: current version, file index reference and available deltas.",
        schema: Schema.object([
            "currentVersion": Schema.nonEmptyString, "version": Schema.integer(min: 1), "previousVersion": Schema.nullable(Schema.integer(min: 1)),
            "forceUpdate": Schema.boolean, "minimumAppVersion": Schema.string(pattern: #"^\d+(\.\d+){0,2}$"#), "lastUpdated": Schema.dateTime,
            "fileIndex": Schema.object(["path": Schema.relativePath, "sha256": Schema.sha256, "size": Schema.nonNegativeInteger]),
            "delta": Schema.nullable(Schema.object(["fromVersion": Schema.integer(min: 1), "path": Schema.relativePath, "added": Schema.nonNegativeInteger,
                                          "changed": Schema.nonNegativeInteger, "removed": Schema.nonNegativeInteger,
                                          "downloadBytes": Schema.nonNegativeInteger])),
            "deltasAvailable": Schema.array(Schema.object(["fromVersion": Schema.integer(min: 1), "path": Schema.relativePath])),
            // A signed release (see `SignedRelease`): when it expires, the root it was signed under, and the signature
            // over the rest of the manifest.
            "expires": Schema.optional(Schema.dateTime), "rootVersion": Schema.optional(Schema.integer(min: 1)),
            "signed": Schema.optional(SigningKinds.envelope),
        ]))
}
