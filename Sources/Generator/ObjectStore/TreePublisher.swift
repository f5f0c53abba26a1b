import Foundation
import TreeClient

/// `generator publish DIST --to s3://BUCKET/PREFIX`: uploads a built tree to an S3-compatible store so that at every
/// moment the manifest apps read (`TreeSync`) names only files they can get with their sha256.
///
/// What is on the store is known only from what this tool wrote there: the published `update-manifest.json`, the
/// file index it names (checked against the manifest's sha256 and size) and the publish log
/// (`releases/publish-log.json`: every file index this tool uploaded, with its sha256, and the content-addressed
/// copies of a publish not yet cleaned up). The store's listing and ETags are never used.
///
/// The tree's paths are fixed and S3 cannot switch many objects at once, so no object the published release names is
/// written before the switch. Order of the writes:
/// 1. files the published release does not name (new content, then the new release's file index and deltas);
/// 2. the publish log, naming the copies of step 3 before any of them exists;
/// 3. the new bytes of each file it names that changes, at `releases/objects/SHA256.EXT` (`TreePath.contentAddressed`),
///    where no tree path can be;
/// 4. `update-manifest.json`, the one object that switches apps to the new release;
/// 5. the changed files at their paths (apps that fetch paths directly); until then `TreeSync` reads a path that
///    holds other bytes from its copy;
/// 6. the copies deleted once every path holds its new bytes, and the log without them (a publish stopped anywhere
///    is completed by running it again: steps 5 and 6 are redone from the log);
/// 7. with `--prune`, objects named only by file indexes of releases the new tree no longer keeps (content first,
///    their file indexes last, so an interrupted prune can be run again).
public final class TreePublisher {
    public struct Options: Sendable {
        public var prune = false
        public var dryRun = false
        /// Publish over a manifest that is not this tool's, or over a newer release (a rollback).
        public var force = false
        public var parallel = 8
        public init() {}
    }

    public struct Report: Sendable {
        public var version = 0
        public var currentVersion = ""
        /// The release the store had before (nil: none, or one that was not ours and was overridden).
        public var previousVersion: Int?
        public var alreadyPublished = false
        public var dryRun = false
        /// Objects written (files, content-addressed copies, the manifest; not the publish log) and their bytes.
        public var uploaded = 0
        public var uploadedBytes = 0
        public var skipped = 0
        /// Content-addressed copies uploaded, changed files rewritten at their paths, copies removed.
        public var copies = 0, rewritten = 0, copiesRemoved = 0
        public var pruned = 0
        /// Objects in upload order, for `--dry-run` and the tests.
        public var plan: [Planned] = []
        /// Content-addressed copies the clean-up deletes.
        public var cleanup: [String] = []
        public var deletions: [String] = []
        public var notes: [String] = []
    }

    /// One object a publish writes.
    public struct Planned: Sendable, Equatable {
        public enum Phase: String, Sendable { case new, copy, manifest, rewrite }
        public var path: String
        public var phase: Phase
        /// For a copy: the path whose new bytes it holds.
        public var of: String?
        public init(path: String, phase: Phase, of: String? = nil) { self.path = path; self.phase = phase; self.of = of }
    }

    /// A file of a tree as its index lists it.
    typealias File = (path: String, sha256: String, size: Int)

    /// Why a publish stopped. `refused`: nothing was written (exit 2); `failed`: a request failed (exit 1), with
    /// what that left on the store said plainly.
    public struct Failure: Error, CustomStringConvertible {
        public enum Kind: Sendable { case refused, failed }
        public let kind: Kind
        public let description: String
    }

    /// The object of the publish log, beside the releases (no tree file is ever named so: the build writes only
    /// `releases/N/files.json` and `releases/N/delta-from-M.json` there).
    public static let logPath = "releases/publish-log.json"

    let dist: URL
    let location: S3Location
    let store: ObjectStore
    let options: Options
    let progress: (String) -> Void

    public init(dist: URL, location: S3Location, store: ObjectStore, options: Options, progress: @escaping (String) -> Void = { _ in }) {
        self.dist = dist; self.location = location; self.store = store; self.options = options; self.progress = progress
    }

    /// A release's file index as published: every file with its sha256 and size.
    struct Release {
        var version: Int
        var currentVersion: String
        var indexPath: String
        var indexSha: String
        var indexSize: Int
        /// Listed files (the index itself and the manifest are not listed in it), in index order.
        var files: [(path: String, sha256: String, size: Int)]
        var byPath: [String: String]
        /// Versions and hashes of the older file indexes this tree carries (`releases/K/files.json`).
        var carried: [LogEntry] {
            files.compactMap { f in Self.indexVersion(f.path).map { LogEntry(version: $0, sha256: f.sha256, size: f.size) } }
        }

        /// K for `releases/K/files.json`.
        static func indexVersion(_ path: String) -> Int? {
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0] == "releases", parts[2] == "files.json", let v = Int(parts[1]), v >= 1, String(v) == parts[1] else { return nil }
            return v
        }
    }

    /// The publish log: the file indexes uploaded, and the copies of a publish that has not finished.
    struct Log: Equatable {
        var releases: [LogEntry] = []
        var pending: [Pending] = []
    }

    /// A changed file of a publish not yet completed: its new bytes are (or are about to be) in its content-addressed
    /// copy, and its path may still hold older bytes.
    struct Pending: Equatable {
        var path: String
        var sha256: String
        /// Derived, never read from the log: the clean-up deletes nothing outside `releases/objects/`.
        var object: String { TreePath.contentAddressed(sha256: sha256, path: path)! }
    }

    /// One file index this tool uploaded, as the publish log remembers it.
    struct LogEntry: Equatable {
        var version: Int
        var sha256: String
        var size: Int
        /// Its files were pruned (its index may stay while a kept release still carries it).
        var contentPruned = false
        var path: String { "releases/\(version)/files.json" }
    }

    // MARK: Run

    public func run() throws -> Report {
        var report = Report()
        report.dryRun = options.dryRun
        let (reader, local, manifestBytes) = try readLocalTree()
        report.version = local.version
        report.currentVersion = local.currentVersion
        let (published, log) = try readStore(&report)
        report.previousVersion = published?.version
        report.alreadyPublished = try isPublished(local, on: published)

        let plan = Plan(local: local, published: published, log: log, switchesManifest: !report.alreadyPublished)
        report.skipped = plan.skipped
        report.plan = plan.objects
        report.cleanup = plan.cleanup
        if options.dryRun {
            if options.prune {
                do { report.deletions = try planPrune(local: local, reader: reader, log: plan.log.releases, report: &report).delete } catch let f as S3Failure {
                    throw Failure(kind: .failed, description: "cannot read what \(location) holds: \(f); nothing was written")
                }
            }
            return report
        }

        var writes = Writes()
        do { try write(plan, over: log, manifest: manifestBytes, version: local.version, reader: reader, &report, &writes) } catch {
            throw writes.failure(error, plan: plan, published: published, version: local.version)
        }
        if options.prune {
            var after = plan.log
            after.pending = []
            do { try prune(local: local, reader: reader, log: after, report: &report) } catch let e {
                throw Failure(kind: .failed, description: "version \(local.version) is published, but pruning failed: \((e as? Failure)?.description ?? "\(e)"). "
                              + "Run the publish with --prune again to finish it")
            }
        }
        return report
    }

    /// What the store holds (reads only): the release its manifest names, and the publish log.
    func readStore(_ report: inout Report) throws -> (published: Release?, log: Log) {
        do { return (try readPublished(&report), try readLog(&report)) } catch let f as S3Failure {
            throw Failure(kind: .failed, description: "cannot read what \(location) holds: \(f); nothing was uploaded")
        }
    }

    /// Whether the store already has this release. Refuses a newer one (a rollback; unless forced) and another
    /// release under the same version.
    func isPublished(_ local: Release, on published: Release?) throws -> Bool {
        guard let p = published else { return false }
        if p.version > local.version && !options.force {
            throw Failure(kind: .refused, description: "\(location) has version \(p.version) (\(TreePath.shown(p.currentVersion))), newer than "
                          + "\(dist.path)'s version \(local.version): apps never move back to a lower version (refusing to roll back; "
                          + "give --force to publish it anyway). Nothing was uploaded")
        }
        guard p.version == local.version else { return false }
        if p.indexSha != local.indexSha {
            throw Failure(kind: .refused, description: "\(location) already has a version \(p.version) with other content: apps at "
                          + "that version would never get this one. Build the next release on the published one "
                          + "(generator build --previous \(location.publicBase.absoluteString)) and publish that. Nothing was uploaded")
        }
        return true
    }
}
