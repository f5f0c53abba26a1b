import Foundation
import Schemas

// The values the build's stages hand each other (see `Build.run`): each stage takes the one before and returns its
// own, so what a stage may read is what it is given.

/// What the first stage read: the site's settings as the domains get them, the release settings, and the inputs'
/// digest (hashed on a thread of its own: a first build needs it only for the release files).
struct BuildInputs {
    var context: BuildContext
    var release: ReleaseSettings
    let inputDigest: Background<String>
    /// The roots and keys of a signed build; nil for an unsigned one.
    let signing: ReleaseSigning?
    var site: SiteConfig { context.site }
}

/// The files of the tree before they are written: the domains' and the tree's own (schemas, TypeScript types, what
/// GitHub Pages needs), the kinds they use, the orders kept for the next build, the content-named files being made
/// meanwhile, and one compiled copy of the schemas per worker.
struct CompiledTree {
    var files: [OutputFile]
    var kinds: [String: OutputKind]
    var keptOrders: [String: [Int32]]
    /// No domain wrote `app-config.json`: it is written last, versioned by the other files' content.
    var siteAppConfig: Bool
    let lateFiles: Background<[OutputFile]>
    let checkers: [OutputValidation]
}

/// Every file checked against its schema and written into the staging folder: the files (their contents let go) and
/// what each became (`Build.Rendered`), in the same order.
struct StagedFiles {
    var files: [OutputFile]
    var rendered: [Build.Rendered]
    let staged: StagedTree
    var keptOrders: [String: [Int32]]
    let checkers: [OutputValidation]
}

/// The staged tree checked against the host's rules, with its content digest and its files' order by path.
struct CheckedTree {
    var files: StagedFiles
    var digest: String
    /// `files.rendered`'s positions in path order.
    var pathOrder: [Int]
}

/// The new release staged: its version, every file of the tree with the release files, and the next build cache's
/// bytes, made on a thread of their own while the tree is committed.
struct ReleasedTree {
    var files: StagedFiles
    var version: Int
    var tree: [ReleaseFiles.TreeFile]
    let cacheBytes: Background<([UInt8], Checksum)>?
}
