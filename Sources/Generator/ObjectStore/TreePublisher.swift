import Foundation
import Indexer
import Schemas
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

        // What the store holds (reads only).
        let published: Release?
        do { published = try readPublished(&report) } catch let f as S3Failure {
            throw Failure(kind: .failed, description: "cannot read what \(location) holds: \(f); nothing was uploaded")
        }
        let log: Log
        do { log = try readLog(&report) } catch let f as S3Failure {
            throw Failure(kind: .failed, description: "cannot read what \(location) holds: \(f); nothing was uploaded")
        }
        report.previousVersion = published?.version
        if let p = published {
            if p.version > local.version && !options.force {
                throw Failure(kind: .refused, description: "\(location) has version \(p.version) (\(TreePath.shown(p.currentVersion))), newer than "
                              + "\(dist.path)'s version \(local.version): apps never move back to a lower version (refusing to roll back; "
                              + "give --force to publish it anyway). Nothing was uploaded")
            }
            if p.version == local.version {
                if p.indexSha != local.indexSha {
                    throw Failure(kind: .refused, description: "\(location) already has a version \(p.version) with other content: apps at "
                                  + "that version would never get this one. Build the next release on the published one "
                                  + "(generator build --previous \(location.publicBase.absoluteString)) and publish that. Nothing was uploaded")
                }
                report.alreadyPublished = true
            }
        }

        // The plan: every file whose sha256 differs from the published index's. Paths the published release does not
        // name are written directly; a file it names whose bytes change goes first to its content-addressed copy
        // (no path of a tree is there), and to its path only after the manifest switch.
        let was = published?.byPath.merging(published.map { [$0.indexPath: $0.indexSha] } ?? [:], uniquingKeysWith: { a, _ in a }) ?? [:]
        let localFiles = local.files + [(local.indexPath, local.indexSha, local.indexSize)]
        var newContent: [File] = [], newRelease = newContent, changed = newContent
        for f in localFiles {
            guard let old = was[f.path] else {
                if f.path.hasPrefix("releases/") { newRelease.append(f) } else { newContent.append(f) }
                continue
            }
            if old == f.sha256 { report.skipped += 1 } else { changed.append(f) }
        }
        let newFiles = newContent + newRelease
        var copies: [(object: String, file: File)] = [], copied: Set<String> = []
        for f in changed {
            let object = TreePath.contentAddressed(sha256: f.sha256, path: f.path)!
            if copied.insert(object).inserted { copies.append((object, f)) }
        }
        // Rewritten at their paths after the switch: the changed files, and the files an earlier publish left pending
        // that this release names unchanged (stopped before it had rewritten them, they may still hold older bytes).
        var rewrite = changed
        var planned = Set(newFiles.map(\.path)).union(changed.map(\.path))
        let byPath = Dictionary(localFiles.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        for p in log.pending where planned.insert(p.path).inserted {
            if let f = byPath[p.path] { rewrite.append(f) }
        }
        report.skipped -= rewrite.count - changed.count

        // The publish log after this release: every file index uploaded so far and this tree's, and the copies this
        // publish writes (recorded before any of them exists, so the clean-up always knows them).
        var newLog = log
        for e in (published?.carried ?? []) + (published.map { [LogEntry(version: $0.version, sha256: $0.indexSha, size: $0.indexSize)] } ?? [])
            + local.carried + [LogEntry(version: local.version, sha256: local.indexSha, size: local.indexSize)] {
            // The same index again keeps what the log knows of it; another one under that version replaces it.
            if newLog.releases.contains(where: { $0.version == e.version && $0.sha256 == e.sha256 }) { continue }
            newLog.releases.removeAll { $0.version == e.version }
            newLog.releases.append(e)
        }
        newLog.releases.sort { $0.version < $1.version }
        for f in changed where !newLog.pending.contains(Pending(path: f.path, sha256: f.sha256)) {
            newLog.pending.append(Pending(path: f.path, sha256: f.sha256))
        }
        var cleanup: [String] = [], seen: Set<String> = []
        for p in newLog.pending where seen.insert(p.object).inserted { cleanup.append(p.object) }
        let manifestChanged = !report.alreadyPublished

        report.plan = newFiles.map { Planned(path: $0.path, phase: .new) } + copies.map { Planned(path: $0.object, phase: .copy, of: $0.file.path) }
            + (manifestChanged ? [Planned(path: "update-manifest.json", phase: .manifest)] : [])
            + rewrite.map { Planned(path: $0.path, phase: .rewrite) }
        report.cleanup = cleanup
        if options.dryRun {
            if options.prune {
                do { report.deletions = try planPrune(local: local, reader: reader, log: newLog.releases, report: &report).delete } catch let f as S3Failure {
                    throw Failure(kind: .failed, description: "cannot read what \(location) holds: \(f); nothing was written")
                }
            }
            return report
        }

        // The writes, in parallel within each step.
        let p = published.map { "version \($0.version)" } ?? "no release"
        var step = "new files"
        let copiesDone = Work(count: 0), rewritten = Work(count: 0), removed = Work(count: 0)
        var switched = false
        do {
            try upload(newFiles.map { ($0.path, $0) }, "new files", reader, &report)
            step = "the publish log"
            if newLog != log { try putLog(newLog) }
            step = "content-addressed copies"
            try upload(copies, "content-addressed copies of changed files", reader, &report, counter: copiesDone)
            report.copies = copies.count
            step = "update-manifest.json"
            if manifestChanged {
                progress("switching to version \(local.version): update-manifest.json")
                try store.put(location.key("update-manifest.json"), body: manifestBytes, sha256: HTTPFetcher.sha256Hex(manifestBytes),
                              contentType: ContentTypes.entry(for: "update-manifest.json").type, cacheControl: Self.manifestCache)
                report.uploaded += 1
                report.uploadedBytes += manifestBytes.count
            }
            switched = true
            step = "changed files at their paths"
            try upload(rewrite.map { ($0.path, $0) }, "changed files at their paths", reader, &report, counter: rewritten)
            report.rewritten = rewrite.count
            step = "the clean-up of content-addressed copies"
            if !cleanup.isEmpty {
                progress("removing \(cleanup.count) content-addressed cop\(cleanup.count == 1 ? "y" : "ies")")
                try Self.forEach(cleanup, parallel: options.parallel) { o in
                    try self.store.delete(self.location.key(o))
                    _ = removed.finish()
                }
                report.copiesRemoved = cleanup.count
            }
            step = "the publish log"
            var done = newLog
            done.pending = []
            if done != newLog { try putLog(done) }
        } catch let e {
            let why = (e as? Failure)?.description ?? "\(e)"
            // Said exactly: what apps now read, and what is left to do.
            let v = "version \(local.version)"
            let state: String
            if !switched && step == "update-manifest.json" {
                state = "update-manifest.json names \(p) or, if the store applied the last request, \(v): either is whole for apps (every file it "
                    + "names is at its path or in its content-addressed copy)"
            } else if !switched {
                state = "the published release (\(p)) is unchanged: no object it names was written"
                    + (copiesDone.finished > 0 ? " (\(copiesDone.finished) of \(copies.count) content-addressed copies of changed files are up)" : "")
            } else if rewritten.finished < rewrite.count {
                state = "\(v) is published and whole for apps: \(rewrite.count - rewritten.finished) of the \(rewrite.count) changed files do not "
                    + "hold their new bytes at their paths yet, and are read from their content-addressed copies"
            } else {
                state = "\(v) is published and every file holds its bytes at its path; \(cleanup.count - removed.finished) content-addressed "
                    + "cop\(cleanup.count - removed.finished == 1 ? "y is" : "ies are") left on the store"
            }
            throw Failure(kind: .failed, description: "uploading \(step) failed: \(why). \(state). Run the same publish again to complete it")
        }

        // Prune.
        if options.prune {
            var after = newLog
            after.pending = []
            do { try prune(local: local, reader: reader, log: after, report: &report) } catch let e {
                throw Failure(kind: .failed, description: "version \(local.version) is published, but pruning failed: \((e as? Failure)?.description ?? "\(e)"). "
                              + "Run the publish with --prune again to finish it")
            }
        }
        return report
    }

    // MARK: The local tree

    /// Refuses anything but a complete, valid tree (every file's size, sha256 and schema checked) before the store is
    /// even read: a corrupt or tampered tree is never published.
    func readLocalTree() throws -> (TreeReader, Release, [UInt8]) {
        let validation: TreeValidation.Report
        do { validation = try TreeValidation.check(dist, threads: 2) } catch {
            throw Failure(kind: .refused, description: "\(error); nothing was uploaded")
        }
        guard validation.isValid else {
            let first = validation.problems.prefix(5).map { "  \($0.path): \($0.message)" }.joined(separator: "\n")
            throw Failure(kind: .refused, description: "\(dist.path) is not a valid built tree (generator validate finds "
                          + "\(validation.problems.count) problem(s)); nothing was uploaded:\n\(first)")
        }
        let reader: TreeReader
        let manifest: [UInt8]
        do {
            reader = try TreeReader(root: dist)
            manifest = try reader.read("update-manifest.json")
        } catch { throw Failure(kind: .refused, description: "\(dist.path): \(error); nothing was uploaded") }
        do {
            let release = try Self.parseRelease(manifest: manifest) { path in try reader.read(path) }
            return (reader, release, manifest)
        } catch let n as NotOurs {
            throw Failure(kind: .refused, description: "\(dist.path): \(n.why); nothing was uploaded")
        } catch { throw Failure(kind: .refused, description: "\(dist.path): \(error); nothing was uploaded") }
    }

    struct NotOurs: Error { let why: String }

    /// A release from its manifest and the index it names (read by `index`): the shape this tool writes, every path
    /// plain and relative, the index's size and sha256 those of the manifest, its version the manifest's.
    static func parseRelease(manifest bytes: [UInt8], index read: (String) throws -> [UInt8]?) throws -> Release {
        func parse(_ what: String, _ b: [UInt8]) throws -> JSON {
            do { return try JSONReader.parse(b) } catch { throw NotOurs(why: "\(what) is not JSON") }
        }
        let m = try parse("update-manifest.json", bytes)
        guard let version = m["version"]?.intValue, version >= 1 else { throw NotOurs(why: "update-manifest.json has no version") }
        guard let ref = m["fileIndex"], let path = ref["path"]?.stringValue, let sha = ref["sha256"]?.stringValue, let size = ref["size"]?.intValue else {
            throw NotOurs(why: "update-manifest.json has no fileIndex {path, sha256, size}")
        }
        guard path == "releases/\(version)/files.json", isSha256(sha), size >= 0 else {
            throw NotOurs(why: "update-manifest.json's fileIndex is not releases/\(version)/files.json with a sha256")
        }
        guard let indexBytes = try read(path) else { throw NotOurs(why: "\(path), named by update-manifest.json, is missing") }
        guard indexBytes.count == size, HTTPFetcher.sha256Hex(indexBytes) == sha else {
            throw NotOurs(why: "\(path) differs from the size and sha256 update-manifest.json gives")
        }
        let index = try parse(path, indexBytes)
        guard index["version"]?.intValue == version, let list = index["files"]?.arrayValue else {
            throw NotOurs(why: "\(path) is not the file index of version \(version)")
        }
        var files: [(path: String, sha256: String, size: Int)] = []
        var byPath: [String: String] = [:]
        for (i, e) in list.enumerated() {
            guard let p = e["path"]?.stringValue, let h = e["sha256"]?.stringValue, let s = e["size"]?.intValue, isSha256(h), s >= 0 else {
                throw NotOurs(why: "\(path): entry \(i) lacks a path, a sha256 or a size")
            }
            if let why = TreePath.rejection(p) { throw NotOurs(why: "\(path): entry \(i) \(TreePath.shown(p)): \(why)") }
            guard p != "update-manifest.json", p != path, p != logPath, !p.hasPrefix(TreePath.objectsFolder), byPath.updateValue(h, forKey: p) == nil else {
                throw NotOurs(why: "\(path): entry \(i) \(TreePath.shown(p)) cannot be listed (twice, or a path the publish writes itself: "
                              + "the manifest, \(logPath), \(TreePath.objectsFolder)…)")
            }
            files.append((p, h, s))
        }
        return Release(version: version, currentVersion: m["currentVersion"]?.stringValue ?? String(version), indexPath: path,
                       indexSha: sha, indexSize: size, files: files, byPath: byPath)
    }

    static func isSha256(_ s: String) -> Bool {
        s.utf8.count == 64 && s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    // MARK: The store

    /// The release the store's `update-manifest.json` names; nil when there is none (or, with --force, when it is
    /// not one of ours).
    func readPublished(_ report: inout Report) throws -> Release? {
        guard let manifest = try store.get(location.key("update-manifest.json")) else { return nil }
        do {
            return try Self.parseRelease(manifest: manifest) { try store.get(location.key($0)) }
        } catch let n as NotOurs {
            guard options.force else {
                throw Failure(kind: .refused, description: "\(location) holds an update-manifest.json that is not a release published by "
                              + "generator (\(n.why)); nothing was uploaded (give --force to publish over it: its objects are never pruned)")
            }
            report.notes.append("\(location)'s update-manifest.json is not one of ours (\(n.why)): replaced (--force)")
            return nil
        }
    }

    /// The publish log; empty when there is none. One that cannot be read as ours is set aside (noted): it only
    /// limits what --prune and the clean-up can find.
    func readLog(_ report: inout Report) throws -> Log {
        guard let bytes = try store.get(location.key(Self.logPath)) else { return Log() }
        guard let json = try? JSONReader.parse(bytes), json["format"]?.intValue == 1, let list = json["releases"]?.arrayValue else {
            report.notes.append("\(Self.logPath) on the store is not a publish log of ours: ignored (--prune finds only the releases it can vouch for)")
            return Log()
        }
        var pending: [Pending] = []
        for e in json["pending"]?.arrayValue ?? [] {
            guard let p = e["path"]?.stringValue, TreePath.rejection(p) == nil, !p.hasPrefix(TreePath.objectsFolder),
                  let h = e["sha256"]?.stringValue, Self.isSha256(h) else {
                report.notes.append("\(Self.logPath): a pending entry is malformed: ignored")
                continue
            }
            let entry = Pending(path: p, sha256: h)
            if !pending.contains(entry) { pending.append(entry) }
        }
        var out: [LogEntry] = []
        for e in list {
            guard let v = e["version"]?.intValue, v >= 1, let h = e["sha256"]?.stringValue, Self.isSha256(h), let s = e["size"]?.intValue, s >= 0 else {
                report.notes.append("\(Self.logPath): an entry is malformed: ignored")
                continue
            }
            out.removeAll { $0.version == v }
            out.append(LogEntry(version: v, sha256: h, size: s, contentPruned: e["contentPruned"]?.boolValue ?? false))
        }
        return Log(releases: out.sorted { $0.version < $1.version }, pending: pending)
    }

    func putLog(_ log: Log) throws {
        var fields: [(String, JSON)] = [
            ("format", .int(1)),
            ("about", .string("Written by generator publish: every file index it uploaded here (what --prune may delete files of), and the "
                              + "content-addressed copies of a publish not completed yet (pending: deleted once every path holds its new bytes).")),
            ("releases", .array(log.releases.map { .obj(["version": .int($0.version), "path": .string($0.path), "sha256": .string($0.sha256), "size": .int($0.size),
                                                         "contentPruned": .bool($0.contentPruned)]) })),
        ]
        if !log.pending.isEmpty {
            fields.append(("pending", .array(log.pending.map { .obj(["path": .string($0.path), "sha256": .string($0.sha256), "object": .string($0.object)]) })))
        }
        let json: JSON = .object(JSONObject(fields.map { JSONObject.Member(key: $0.0, value: $0.1) }))
        let bytes = try JSONWriter(pretty: true).bytes(json)
        try store.put(location.key(Self.logPath), body: bytes, sha256: HTTPFetcher.sha256Hex(bytes),
                      contentType: ContentTypes.entry(for: Self.logPath).type, cacheControl: Self.manifestCache)
    }

    // MARK: Uploads

    static let manifestCache = "no-cache"
    static let immutableCache = "public, max-age=31536000, immutable"
    static let releaseCache = "public, max-age=86400"
    static let contentCache = "public, max-age=60"

    /// Cache-Control of an object: a year and `immutable` for a content-addressed copy and for a file named by a hash
    /// of its own bytes (the search shards), a day for a release's file index and deltas (named by version, never
    /// rewritten once published), a minute for every other file (fixed paths whose content a later release changes).
    static func cacheControl(path: String, bytes: [UInt8]) -> String {
        if path.hasPrefix(TreePath.objectsFolder) { return immutableCache }
        if path.hasPrefix("releases/") { return releaseCache }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let stem = name.split(separator: ".").first.map(String.init) ?? name
        if let hash = stem.split(separator: "-").last, hash.utf8.count == 16, String(hash) == RankedIndexBuilder.contentName(bytes) {
            return immutableCache
        }
        return contentCache
    }

    /// Uploads each file of the tree to its object (its path, or its content-addressed copy) in parallel; `counter`
    /// counts those the store accepted.
    func upload(_ items: [(object: String, file: File)], _ what: String, _ reader: TreeReader, _ report: inout Report,
                counter: Work = Work(count: 0)) throws {
        guard !items.isEmpty else { return }
        let bytes = items.reduce(0) { $0 + $1.file.size }
        progress("uploading \(what): \(items.count) file(s), \(bytes) bytes")
        let shown = Shown()
        try Self.forEach(items, parallel: options.parallel, done: { done in
            if shown.next(done, total: items.count) { self.progress("  \(what): \(done)/\(items.count)") }
        }) { item in
            let f = item.file
            let body: [UInt8]
            do { body = try reader.read(f.path) } catch { throw Failure(kind: .failed, description: "\(self.dist.path): \(error)") }
            // The tree was validated before; a file that changed since is not published.
            guard body.count == f.size, HTTPFetcher.sha256Hex(body) == f.sha256 else {
                throw Failure(kind: .failed, description: "\(self.dist.path)/\(TreePath.shown(f.path)) changed while publishing (its sha256 is no longer the file index's)")
            }
            try self.store.put(self.location.key(item.object), body: body, sha256: f.sha256, contentType: ContentTypes.entry(for: item.object).type,
                               cacheControl: Self.cacheControl(path: item.object, bytes: body))
            _ = counter.finish()
        }
        report.uploaded += items.count
        report.uploadedBytes += bytes
    }

    /// Runs `body` for every item on up to `parallel` threads (each mostly waits on the network); the first error
    /// stops the rest (items not yet started are not run) and is thrown. `done` is told how many items have
    /// finished after each one.
    static func forEach<T>(_ items: [T], parallel: Int, done: ((Int) -> Void)? = nil, _ body: @escaping (T) throws -> Void) throws {
        guard !items.isEmpty else { return }
        let work = Work(count: items.count)
        let group = DispatchGroup()
        for _ in 0..<min(max(1, parallel), items.count) {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                while let i = work.take() {
                    do {
                        try body(items[i])
                        done?(work.finish())
                    } catch {
                        work.fail(error)
                        return
                    }
                }
            }
        }
        group.wait()
        if let failure = work.failure { throw failure }
    }

    /// The shared state of one `forEach`: the next item, how many finished, the first failure.
    final class Work: @unchecked Sendable {
        private let lock = NSLock()
        private let count: Int
        private var next = 0, done = 0
        private var error: Error?
        init(count: Int) { self.count = count }

        /// The next item's index; nil when all are taken or one failed.
        func take() -> Int? {
            lock.lock(); defer { lock.unlock() }
            guard error == nil, next < count else { return nil }
            next += 1
            return next - 1
        }
        func finish() -> Int { lock.lock(); defer { lock.unlock() }; done += 1; return done }
        var finished: Int { lock.lock(); defer { lock.unlock() }; return done }
        func fail(_ e: Error) { lock.lock(); if error == nil { error = e }; lock.unlock() }
        var failure: Error? { lock.lock(); defer { lock.unlock() }; return error }
    }

    /// About ten progress lines per step, however many files: enough to see it move, no flood.
    final class Shown: @unchecked Sendable {
        private let lock = NSLock()
        private var last = 0
        func next(_ done: Int, total: Int) -> Bool {
            lock.lock(); defer { lock.unlock() }
            guard done == total || (total >= 20 && done - last >= total / 10) else { return false }
            last = done
            return true
        }
    }

    // MARK: Prune

    /// What --prune deletes: every path named by a file index in the publish log whose release the new tree no longer
    /// keeps, and by none it keeps (nor the manifest or the log). Indexes that cannot be vouched for (changed on the
    /// store since they were logged) name nothing deletable.
    func planPrune(local: Release, reader: TreeReader, log: [LogEntry], report: inout Report) throws -> (delete: [String], gone: Set<Int>, emptied: Set<Int>) {
        var keep: Set<String> = ["update-manifest.json", Self.logPath, local.indexPath]
        keep.formUnion(local.files.map(\.path))
        let kept = Set([local.version] + local.carried.map(\.version))
        // Files of the kept older releases stay too: an app may be in the middle of syncing one.
        for c in local.carried {
            guard let bytes = try? reader.read(c.path), let json = try? JSONReader.parse(bytes), let list = json["files"]?.arrayValue else {
                throw Failure(kind: .failed, description: "\(dist.path)/\(c.path) cannot be read")
            }
            for e in list { if let p = e["path"]?.stringValue { keep.insert(p) } }
        }
        var candidates: Set<String> = []
        var gone: Set<Int> = [], emptied: Set<Int> = []
        for e in log where !kept.contains(e.version) {
            // Files pruned before: only the index may be left to delete.
            if e.contentPruned { candidates.insert(e.path); continue }
            guard let bytes = try store.get(location.key(e.path)) else { gone.insert(e.version); continue }
            guard bytes.count == e.size, HTTPFetcher.sha256Hex(bytes) == e.sha256, let json = try? JSONReader.parse(bytes),
                  json["version"]?.intValue == e.version, let list = json["files"]?.arrayValue else {
                report.notes.append("\(location)/\(e.path) differs from the file index that was published there: the files it names are not pruned")
                continue
            }
            var paths: [String] = []
            for f in list {
                // Only plain paths of a tree; a path that would leave the prefix is never deleted, nor one where the
                // publish keeps its content-addressed copies (the clean-up's alone).
                guard let p = f["path"]?.stringValue, TreePath.rejection(p) == nil, !p.hasPrefix(TreePath.objectsFolder) else { paths = []; break }
                paths.append(p)
            }
            if paths.isEmpty && !list.isEmpty {
                report.notes.append("\(location)/\(e.path) names a path that is not a plain path of a tree: the files it names are not pruned")
                continue
            }
            candidates.formUnion(paths)
            candidates.insert(e.path)
            emptied.insert(e.version)
        }
        // Content first, then deltas, then the file indexes themselves (so a prune stopped halfway can be rerun).
        let delete = candidates.subtracting(keep).sorted { a, b in
            func rank(_ p: String) -> Int { Release.indexVersion(p) != nil ? 2 : p.hasPrefix("releases/") ? 1 : 0 }
            return rank(a) != rank(b) ? rank(a) < rank(b) : a < b
        }
        // A logged index leaves the log once it is deleted; one a kept release still names (its index carried in a
        // kept tree) stays logged, and is deleted with that release's files later.
        for p in delete { if let v = Release.indexVersion(p) { gone.insert(v) } }
        return (delete, gone, emptied)
    }

    func prune(local: Release, reader: TreeReader, log: Log, report: inout Report) throws {
        let plan = try planPrune(local: local, reader: reader, log: log.releases, report: &report)
        report.deletions = plan.delete
        if !plan.delete.isEmpty {
            progress("pruning: \(plan.delete.count) object(s) named only by releases no longer kept")
            for rank in 0...2 {
                let batch = plan.delete.filter { p in (Release.indexVersion(p) != nil ? 2 : p.hasPrefix("releases/") ? 1 : 0) == rank }
                try Self.forEach(batch, parallel: options.parallel) { p in try self.store.delete(self.location.key(p)) }
                report.pruned += batch.count
            }
        }
        var remaining = log
        remaining.releases = log.releases.filter { !plan.gone.contains($0.version) }.map { e in
            var e = e
            if plan.emptied.contains(e.version) { e.contentPruned = true }
            return e
        }
        if remaining != log { try putLog(remaining) }
    }
}
