import XCTest
import LowLevel
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import Generator
import Schemas
import TreeClient
import FaultServerSupport

/// `generator publish` against a real S3 store (SeaweedFS on 127.0.0.1, one for the class), read back over plain
/// HTTP as apps read it (`generator sync`, `HTTPFetcher`), with `scripts/s3-proxy.py` in between where the order of
/// the writes is checked or a publish is cut off.
final class PublishTests: XCTestCase {
    nonisolated(unsafe) static var server: SeaweedStore?
    nonisolated(unsafe) static var startError: Error?
    static let bucket = "site"

    override class func setUp() {
        super.setUp()
        do {
            let s = try SeaweedStore(folder: TestSupport.tempDir("seaweed"))
            try s.createBucket(bucket)
            server = s
        } catch { startError = error }
    }

    override class func tearDown() {
        server?.stop()
        server = nil
        super.tearDown()
    }

    override func setUpWithError() throws {
        // Without weed: skipped with the install command (failed under REQUIRE_TOOLS=1, as in CI).
        if let e = Self.startError { throw e }
    }

    var store: SeaweedStore { Self.server! }

    /// The store's keys, and nothing of the machine's own AWS settings.
    var env: [String: String] {
        ["AWS_ACCESS_KEY_ID": store.accessKey, "AWS_SECRET_ACCESS_KEY": store.secretKey, "AWS_SESSION_TOKEN": "",
         "AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "", "AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_S3": ""]
    }

    func publish(_ dist: URL, _ prefix: String, _ extra: [String] = [], endpoint: String? = nil, env: [String: String]? = nil) throws -> (status: Int32, output: String) {
        try TestSupport.runCLI(["publish", dist.path, "--to", "s3://\(Self.bucket)/\(prefix)", "--endpoint", endpoint ?? store.endpoint] + extra,
                               env: env ?? self.env)
    }

    func sync(_ prefix: String, _ dir: URL) throws -> (status: Int32, output: String) {
        try TestSupport.runCLI(["sync", store.site(Self.bucket, prefix).absoluteString, dir.path])
    }

    /// An object as anyone reads it (anonymous HTTP GET); nil for 404.
    let reader = HTTPFetcher(.init(timeout: 10, retries: 0))
    func object(_ prefix: String, _ path: String) throws -> [UInt8]? {
        do { return try reader.fetch(TreePath.url(path, under: store.site(Self.bucket, prefix))).body } catch let f as HTTPFetcher.Failure where f.isNotFound {
            return nil
        }
    }

    /// Path → sha256 of a tree's file index (parsed here, not by the code under test); `all` adds the index itself.
    static func index(_ tree: URL) throws -> (version: Int, files: [String: String], path: String, all: [String: String]) {
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: tree.appendingPathComponent("update-manifest.json"))) as! [String: Any]
        let path = (manifest["fileIndex"] as! [String: Any])["path"] as! String
        let data = try Data(contentsOf: tree.appendingPathComponent(path))
        let index = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        var files: [String: String] = [:]
        for e in index["files"] as! [[String: Any]] { files[e["path"] as! String] = (e["sha256"] as! String) }
        return (manifest["version"] as! Int, files, path, files.merging([path: HTTPFetcher.sha256Hex([UInt8](data))], uniquingKeysWith: { a, _ in a }))
    }

    /// Where the store keeps a changed file's new bytes while a publish replaces it (the Object storage article: `releases/objects/`, the
    /// sha256, the path's extension), written out here rather than taken from the code under test.
    static func copyKey(_ path: String, _ sha256: String) -> String {
        let name = path.split(separator: "/").last!
        return "releases/objects/\(sha256)" + (name.contains(".") ? "." + name.split(separator: ".").last!.lowercased() : "")
    }

    /// Checks every object the tree's file index names on the store, fetched as an app would: the store's manifest is
    /// the tree's, and each file has the index's sha256 at its path or, with `viaCopies`, in its content-addressed
    /// copy (what `TreeSync` reads when the path holds other bytes). `only`: just these of its paths. Returns the
    /// paths read through their copies.
    @discardableResult
    func checkEveryObject(_ prefix: String, _ tree: URL, viaCopies: Bool = false, only: Set<String>? = nil,
                          file: StaticString = #filePath, line: UInt = #line) throws -> Set<String> {
        let idx = try Self.index(tree)
        XCTAssertEqual(try object(prefix, "update-manifest.json").map { Data($0) }, try Data(contentsOf: tree.appendingPathComponent("update-manifest.json")),
                       "the store's manifest is \(tree.lastPathComponent)'s", file: file, line: line)
        let all = idx.all.filter { only?.contains($0.key) ?? true }
        let found = Locked((other: Set<String>(), wrong: [String]()))
        let fetcher = HTTPFetcher(.init(timeout: 10, retries: 0, maxParallel: 8))
        try fetcher.fetchAll(Array(all.keys), url: { TreePath.url($0, under: self.store.site(Self.bucket, prefix)) }, expected: { _ in nil }) { path, body in
            if HTTPFetcher.sha256Hex(body) == all[path] { return }
            let copy = viaCopies ? try self.object(prefix, Self.copyKey(path, all[path]!)) : nil
            found.withLock { if let copy, HTTPFetcher.sha256Hex(copy) == all[path] { $0.other.insert(path) } else { $0.wrong.append(path) } }
        }
        let (other, wrong) = found.withLock { $0 }
        XCTAssertEqual(wrong.sorted(), [], "objects whose bytes are not the index's", file: file, line: line)
        return other
    }

    func headers(_ url: URL) -> [String: String] {
        var request = URLRequest(url: url)
        request.httpMethod = "HEAD"
        final class Box: @unchecked Sendable { var headers: [String: String] = [:] }
        let box = Box(), done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { _, response, _ in
            for (k, v) in (response as? HTTPURLResponse)?.allHeaderFields ?? [:] { box.headers["\(k)".lowercased()] = "\(v)" }
            done.signal()
        }.resume()
        done.wait()
        return box.headers
    }

    /// What a publish of `to` over `from` writes, from the two trees' indexes: the paths `from` does not name, the
    /// files it names whose sha256 changes (path → new sha256), and their content-addressed copies.
    static func changes(from: URL, to: URL) throws -> (new: Set<String>, changed: [String: String], copies: Set<String>) {
        let a = try index(from).all, b = try index(to).all
        let changed = b.filter { a[$0.key] != nil && a[$0.key] != $0.value }
        return (Set(b.keys.filter { a[$0] == nil }), changed, Set(changed.map { copyKey($0.key, $0.value) }))
    }

    /// (method, tree path or object) of the successful writes under `prefix` in a proxy log, in order.
    func writes(_ log: [S3Proxy.Request], _ prefix: String) -> [(method: String, path: String)] {
        log.filter { ($0.method == "PUT" || $0.method == "DELETE") && (200..<300).contains($0.status) }
            .map { ($0.method, String($0.path.dropFirst("/\(Self.bucket)/\(prefix)/".count))) }
    }
    /// The objects written (the publish log aside: it is the tool's own) and deleted.
    func puts(_ log: [S3Proxy.Request], _ prefix: String) -> [String] {
        writes(log, prefix).filter { $0.method == "PUT" && $0.path != TreePublisher.logPath }.map(\.path)
    }
    func deletes(_ log: [S3Proxy.Request], _ prefix: String) -> [String] { writes(log, prefix).filter { $0.method == "DELETE" }.map(\.path) }

    /// Starts a publish of `tree` through `proxy`, one request at a time, kills it (SIGKILL) while its `method`
    /// request number `k + 1` is held by the proxy, and returns the requests it made.
    func killedPublish(_ tree: URL, _ prefix: String, via proxy: S3Proxy, after k: Int, _ method: String = "PUT",
                       file: StaticString = #filePath, line: UInt = #line) throws -> [S3Proxy.Request] {
        try proxy.clearLog()
        if method == "PUT" { try proxy.failPuts(after: k, mode: "hang") } else { try proxy.failDeletes(after: k, mode: "hang") }
        let p = Process()
        p.executableURL = TestSupport.generatorBinary
        p.arguments = ["publish", tree.path, "--to", "s3://\(Self.bucket)/\(prefix)", "--endpoint", proxy.endpoint, "--parallel", "1"]
        p.environment = ProcessInfo.processInfo.environment.merging(env, uniquingKeysWith: { _, b in b })
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        func done() throws -> Int { try proxy.log().filter { $0.method == method && (200..<300).contains($0.status) }.count }
        let deadline = Date().addingTimeInterval(20)
        while try done() < k && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        Thread.sleep(forTimeInterval: 0.1)   // the next one is in the proxy's hands
        XCTAssertTrue(p.isRunning, "still writing when killed", file: file, line: line)
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationReason, .uncaughtSignal, file: file, line: line)
        let log = try proxy.log()
        try proxy.clearFaults()
        XCTAssertEqual(log.filter { $0.method == method && (200..<300).contains($0.status) }.count, k, file: file, line: line)
        return log
    }

    // MARK: Done when

    /// The whole loop on the default tree (real data), one store prefix: release 1 published, and synced byte for
    /// byte over plain HTTP; then a publish of release 2 killed (SIGKILL) in each of its steps — among the new files,
    /// after the new file index, among the content-addressed copies, right after the manifest switch, among the
    /// rewrites of the changed paths, during the clean-up — each the rerun of the one before. After every kill the
    /// manifest on the store names only objects sync gets with their sha256 (at their paths or through their
    /// copies), a fresh sync is byte-identical to that release and a copy at release 1 syncs to it; no object release
    /// 1 names is written before the switch. The last rerun completes it: every path holds its bytes, no copy is left.
    func testPublishSyncKillAndCompleteTheNextRelease() throws {
        let r1 = ReleaseLoop.release1, r2 = ReleaseLoop.release2
        let idx1 = try Self.index(r1), idx2 = try Self.index(r2)
        let first = try publish(r1, "loop")
        XCTAssertEqual(first.status, 0, first.output)
        XCTAssertTrue(first.output.contains("uploaded \(idx1.all.count + 1) file(s)"), first.output)   // + the manifest
        XCTAssertFalse(first.output.contains("changed files:"), first.output)
        XCTAssertFalse(first.output.contains(store.secretKey), "the secret is never printed")
        let copy = TestSupport.tempDir("publish-copy").appendingPathComponent("copy")
        let s1 = try sync("loop", copy)
        XCTAssertEqual(s1.status, 0, s1.output)
        XCTAssertEqual(Array(ReleaseLoop.differences(copy, r1).prefix(10)), [], "a copy synced from the store is byte-identical to release 1")

        // Served with their types and caching (a HEAD as any HTTP client or CDN makes it).
        let site = store.site(Self.bucket, "loop")
        let shard = try XCTUnwrap(idx1.files.keys.first { $0.hasPrefix("search/store/") })
        var expect: [(String, String, String)] = [
            ("update-manifest.json", "application/json; charset=utf-8", "no-cache"),
            (shard, "application/json; charset=utf-8", "public, max-age=31536000, immutable"),
            ("releases/1/files.json", "application/json; charset=utf-8", "public, max-age=86400"),
            ("products/\(ReleaseLoop.changedPrice)/details.json", "application/json; charset=utf-8", "public, max-age=60"),
            ("404.html", "text/html; charset=utf-8", "public, max-age=60"),
        ]
        func checkHeaders() {
            for (path, type, cache) in expect {
                let h = headers(TreePath.url(path, under: site))
                XCTAssertEqual(h["content-type"], type, path)
                XCTAssertEqual(h["cache-control"], cache, path)
            }
        }
        checkHeaders()

        // What release 2 must write: every file whose sha256 differs from release 1's (its files and its index); the
        // new bytes of a file release 1 names go first to their content-addressed copy.
        let (newPaths, changed, copyKeys) = try Self.changes(from: r1, to: r2)
        let changedOrNew = newPaths.union(changed.keys)
        XCTAssertGreaterThan(newPaths.count, 3)
        XCTAssertGreaterThan(changed.count, 3)
        XCTAssertTrue(newPaths.contains(idx2.path))

        let proxy = try S3Proxy(upstreamPort: store.port)
        defer { proxy.stop() }
        func writes(_ log: [S3Proxy.Request]) -> [(method: String, path: String)] { self.writes(log, "loop") }
        func puts(_ log: [S3Proxy.Request]) -> [String] { self.puts(log, "loop") }
        func deletes(_ log: [S3Proxy.Request]) -> [String] { self.deletes(log, "loop") }
        func killedPublish(after k: Int, _ method: String = "PUT", line: UInt = #line) throws -> [S3Proxy.Request] {
            try self.killedPublish(r2, "loop", via: proxy, after: k, method, line: line)
        }

        /// After a kill: the manifest on the store is `tree`'s; a fresh sync is byte-identical to `tree` (so every
        /// object it names is there for sync, at its path or through its copy), and so is a copy at release 1 once
        /// synced. The paths a publish of release 2 writes are checked here too (checkEveryObject): returns those
        /// read through their content-addressed copies.
        func checkConsistent(_ tree: URL, _ when: String, line: UInt = #line) throws -> Set<String> {
            let through = try checkEveryObject("loop", tree, viaCopies: true, only: changedOrNew, line: line)
            // The two syncs at once (each mostly waits on the store).
            let fresh = TestSupport.tempDir("kill-fresh").appendingPathComponent("copy")
            // Before the switch the copy at release 1 is current and left as it is: no need to sync a copy of it.
            let old = tree == r1 ? copy : ReleaseLoop.copy(copy, "kill-old")
            let runs = TestSupport.concurrently(2) { i in try self.sync("loop", i == 0 ? fresh : old) }
            let s = try runs[0].get(), o = try runs[1].get()
            XCTAssertEqual(s.status, 0, "\(when): \(s.output)", line: line)
            XCTAssertEqual(Array(ReleaseLoop.differences(fresh, tree).prefix(10)), [], "\(when): a fresh sync", line: line)
            XCTAssertEqual(o.status, 0, "\(when): \(o.output)", line: line)
            XCTAssertTrue(o.output.contains(tree == r1 ? "is current: version 1" : "version 1 → version 2"), "\(when): \(o.output)", line: line)
            XCTAssertEqual(Array(ReleaseLoop.differences(old, tree).prefix(10)), [], "\(when): a copy at release 1", line: line)
            return through
        }

        // 1. Killed among the new files: only paths release 1 does not name were written.
        var log = try killedPublish(after: newPaths.count / 2)
        XCTAssertEqual(puts(log).filter { idx1.all[$0] != nil }, [], "only files release 1 does not name were written")
        XCTAssertEqual(try checkConsistent(r1, "among the new files"), [], "every object release 1 names at its path")

        // 2. Killed after every new file, the new index and delta included (its publish-log write held).
        log = try killedPublish(after: newPaths.count)
        XCTAssertEqual(Set(puts(log)), newPaths)
        XCTAssertEqual(try object("loop", idx2.path).map { HTTPFetcher.sha256Hex($0) }, idx2.all[idx2.path], "the new index is up")
        XCTAssertEqual(try checkConsistent(r1, "after the new index"), [])

        // 3. Killed among the content-addressed copies, after two: still nothing release 1 names written; the log
        // (naming the copies) was written after the new files and before any copy.
        log = try killedPublish(after: newPaths.count + 1 + 2)
        let w3 = writes(log).map(\.path)
        XCTAssertEqual(w3.filter { idx1.all[$0] != nil }, [], "no object release 1 names is written before the switch")
        XCTAssertEqual(w3.count, newPaths.count + 3, "\(w3)")
        XCTAssertEqual(w3.dropLast(3).sorted(), newPaths.sorted())
        XCTAssertEqual(w3.dropLast(2).last, TreePublisher.logPath)
        XCTAssertTrue(copyKeys.isSuperset(of: w3.suffix(2)), "\(w3.suffix(2))")
        XCTAssertEqual(try checkConsistent(r1, "among the copies"), [])

        // 4. Killed right after the manifest (its first rewrite held). The whole order up to the switch: each file
        // whose sha256 differs once, new paths first, then the copies, then the manifest; never a path release 1 names.
        log = try killedPublish(after: newPaths.count + copyKeys.count + 1)
        let w4 = puts(log)
        XCTAssertEqual(w4.count, newPaths.count + copyKeys.count + 1, "each once")
        XCTAssertEqual(Set(w4), newPaths.union(copyKeys).union(["update-manifest.json"]))
        XCTAssertEqual(Set(w4.prefix(newPaths.count)), newPaths, "new paths first")
        XCTAssertEqual(w4.last, "update-manifest.json", "then the copies, then the manifest")
        XCTAssertEqual(try checkConsistent(r2, "right after the manifest"), Set(changed.keys), "every changed file read through its copy")
        expect = [(copyKeys.first!, "application/json; charset=utf-8", "public, max-age=31536000, immutable")]
        checkHeaders()

        // 5. Killed among the rewrites of the changed paths, after two (a rerun: release 2 is published, its log
        // says what is pending).
        log = try killedPublish(after: 2)
        XCTAssertEqual(puts(log).filter { changed[$0] == nil }, [], "only changed paths are rewritten")
        XCTAssertEqual(try checkConsistent(r2, "among the rewrites").count, changed.count - 2)

        // 6. Killed during the clean-up, after two copies were deleted: every path holds its bytes.
        log = try killedPublish(after: 2, "DELETE")
        XCTAssertEqual(puts(log).sorted(), changed.keys.sorted(), "every pending path rewritten, once")
        let removed = Set(deletes(log))
        XCTAssertTrue(removed.isSubset(of: copyKeys), "\(removed)")
        XCTAssertEqual(Set(try store.list(Self.bucket, "loop/releases/objects").map { "releases/objects/" + $0 }), copyKeys.subtracting(removed))
        XCTAssertEqual(try checkConsistent(r2, "during the clean-up"), [])

        // 7. The rerun completes it: the pending paths rewritten once more, every copy deleted, then the log.
        try proxy.clearLog()
        let last = try publish(r2, "loop", endpoint: proxy.endpoint)
        XCTAssertEqual(last.status, 0, last.output)
        XCTAssertTrue(last.output.contains("already has version 2 (\(try Self.currentVersion(r2))): completed its publish (rewrote \(changed.count) "
                                           + "file(s) at their paths, removed \(copyKeys.count) content-addressed copies)"), last.output)
        XCTAssertTrue(last.output.contains("skipped \(idx2.all.count - changed.count) unchanged"), last.output)
        log = try proxy.log()
        XCTAssertEqual(puts(log).sorted(), changed.keys.sorted())
        XCTAssertEqual(Set(deletes(log)), copyKeys)
        XCTAssertEqual(writes(log).last?.path, TreePublisher.logPath, "the log, without the copies, last")
        XCTAssertEqual(try store.list(Self.bucket, "loop/releases/objects"), [], "no content-addressed copy left")
        XCTAssertNil(try JSONReader.parse(XCTUnwrap(object("loop", TreePublisher.logPath)))["pending"])
        XCTAssertEqual(try checkEveryObject("loop", r2), [], "every file at its path")
        print("release 1 → 2 on the store: \(newPaths.count) new, \(copyKeys.count) content-addressed copies, the manifest, "
              + "\(changed.count) changed paths rewritten, \(copyKeys.count) copies deleted, for \(idx2.all.count) files")
        let s2 = try sync("loop", copy)
        XCTAssertEqual(s2.status, 0, s2.output)
        XCTAssertTrue(s2.output.contains("using the delta from version 1"), s2.output)
        XCTAssertEqual(Array(ReleaseLoop.differences(copy, r2).prefix(10)), [], "the copy follows to release 2, byte-identical")
    }

    static func currentVersion(_ tree: URL) throws -> String {
        let m = try JSONSerialization.jsonObject(with: Data(contentsOf: tree.appendingPathComponent("update-manifest.json"))) as! [String: Any]
        return m["currentVersion"] as! String
    }

    // MARK: Prune

    /// Three releases of a small catalog kept two at a time (release 3 removes p3's page, release 2 removed p2's and
    /// changed p1's), and a release 1 of another catalog: built once, for the prune test and the refusals.
    static let small: [URL] = {
        func input(_ ids: [String], price: String) -> URL {
            TestSupport.makeInput(site: { s in
                s["release"] = ["versionPattern": "V", "keep": 2, "forceUpdate": false]
            }, files: ["catalog/categories.json": TestSupport.categoriesJSON,
                       "catalog/products.jsonl": ids.map { TestSupport.productLine($0, price: $0 == "p1" ? price : "9.99") }.joined(separator: "\n") + "\n"])
        }
        var trees: [URL] = []
        for (i, (ids, price)) in [(["p1", "p2", "p3"], "10.00"), (["p1", "p3"], "11.00"), (["p1", "p4"], "11.00"), (["q1"], "1.00")].enumerated() {
            let out = TestSupport.tempDir("small-r\(i + 1)").appendingPathComponent("site")
            let previous = i == 1 || i == 2 ? ["--previous", trees[i - 1].path] : []
            let r = try! TestSupport.runCLI(["build", "--input", input(ids, price: price).path, "--out", out.path] + previous,
                                            env: ["SOURCE_DATE_EPOCH": String(1_700_000_000 + i * 86_400)])
            precondition(r.status == 0, r.output)
            trees.append(out)
        }
        return trees
    }()

    func client(_ prefix: String) throws -> S3Client {
        S3Client(location: try S3Location("s3://\(Self.bucket)/\(prefix)", endpoint: store.endpoint, region: "us-east-1"),
                 signer: S3Signer(credentials: S3Credentials(accessKeyId: store.accessKey, secretAccessKey: store.secretKey), region: "us-east-1"))
    }

    /// Writes an object as another tool would (not through `generator publish`).
    func putForeign(_ prefix: String, _ path: String, _ body: String) throws {
        let c = try client(prefix), b = Array(body.utf8)
        try c.put(c.location.key(path), body: b, sha256: HTTPFetcher.sha256Hex(b), contentType: "application/json", cacheControl: "no-cache")
    }

    /// --prune deletes exactly the objects only release 1's index named (and that index, once no kept release
    /// carries it), never a file a kept release names, never an object the tool did not upload. Release 2's publish
    /// was killed right after its manifest: release 3's publish also rewrites the paths it left pending (among them
    /// one release 3 does not change) and removes both releases' content-addressed copies, before pruning.
    func testPruneDeletesOnlyObjectsOfReleasesNoLongerKept() throws {
        let trees = Self.small
        XCTAssertEqual(try publish(trees[0], "prune").status, 0)
        let c12 = try Self.changes(from: trees[0], to: trees[1]), c23 = try Self.changes(from: trees[1], to: trees[2])
        let proxy = try S3Proxy(upstreamPort: store.port)
        defer { proxy.stop() }
        _ = try killedPublish(trees[1], "prune", via: proxy, after: c12.new.count + 1 + c12.copies.count + 1)
        XCTAssertEqual(try checkEveryObject("prune", trees[1], viaCopies: true), Set(c12.changed.keys), "release 2's changed files through their copies")
        // Objects the tool never uploaded, beside and among the tree's.
        let foreign = ["notes.txt", "products/p2/photo.jpg", "releases/1/notes.txt"]
        for f in foreign { try putForeign("prune", f, "x") }

        // Expected: what release 1's index names (and the index), less what the kept releases 3 and 2 name.
        let i1 = try Self.index(trees[0]), i2 = try Self.index(trees[1]), i3 = try Self.index(trees[2])
        let kept = Set(i3.all.keys).union(i2.all.keys).union(["update-manifest.json"])
        let gone = Set(i1.all.keys).subtracting(kept)
        XCTAssertTrue(gone.contains("products/p2/details.json"), "\(gone.sorted())")
        XCTAssertTrue(i2.files.keys.contains(i1.path), "release 2 carries release 1's index, so it stays")

        func planned(_ output: String) -> Set<String> {
            Set(output.split(separator: "\n").filter { $0.hasPrefix("  prune: ") }.map { String($0.dropFirst("  prune: ".count)) })
        }
        let dry = try publish(trees[2], "prune", ["--prune", "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.output)
        XCTAssertEqual(planned(dry.output), gone)
        // Rewritten after the switch: release 3's changed files, and release 2's pending ones it names unchanged.
        let pendingSame = Set(c12.changed.keys).intersection(i3.all.keys).subtracting(c23.changed.keys)
        XCTAssertTrue(pendingSame.contains("products/p1/details.json"), "\(pendingSame.sorted())")
        let rewrites = Set(c23.changed.keys).union(pendingSame), copies = c12.copies.union(c23.copies)
        func lines(_ start: String) -> Set<String> {
            Set(dry.output.split(separator: "\n").filter { $0.hasPrefix(start) }.map { String($0.dropFirst(start.count).split(separator: " ").first!) })
        }
        XCTAssertEqual(lines("  rewrite: "), rewrites)
        XCTAssertEqual(lines("  upload copy: "), c23.copies)
        XCTAssertEqual(lines("  remove copy: "), copies)
        XCTAssertEqual(try object("prune", "update-manifest.json").flatMap { try? JSONReader.parse($0)["version"]?.intValue }, 2, "a dry run writes nothing")

        let r = try publish(trees[2], "prune", ["--prune"])
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertTrue(r.output.contains("pruned \(gone.count)"), r.output)
        XCTAssertTrue(r.output.contains("changed files: \(c23.copies.count) content-addressed copies before the switch, \(rewrites.count) rewritten at "
                                        + "their paths after it, \(copies.count) copies removed"), r.output)
        XCTAssertEqual(try store.list(Self.bucket, "prune/releases/objects"), [], "no content-addressed copy left")
        for p in gone { XCTAssertNil(try object("prune", p), "\(p) deleted") }
        for p in kept { XCTAssertNotNil(try object("prune", p), "\(p) kept") }
        for p in foreign { XCTAssertNotNil(try object("prune", p), "\(p), not ours, kept") }
        try checkEveryObject("prune", trees[2])
        let copy = TestSupport.tempDir("prune-copy").appendingPathComponent("copy")
        XCTAssertEqual(try sync("prune", copy).status, 0)
        XCTAssertEqual(Array(ReleaseLoop.differences(copy, trees[2]).prefix(10)), [])
        // Nothing left to prune, and the publish log says so.
        let again = try publish(trees[2], "prune", ["--prune", "--dry-run"])
        XCTAssertEqual(planned(again.output), [], again.output)
        let log = try JSONReader.parse(XCTUnwrap(object("prune", TreePublisher.logPath)))
        XCTAssertEqual(log["releases"]?.arrayValue?.map { "\($0["version"]!.intValue!):\($0["contentPruned"]!.boolValue!)" }, ["1:true", "2:false", "3:false"])
    }

    // MARK: Refusals

    /// Everything refused before a byte is written: usage, a DIST that is not a valid tree, a store holding another
    /// tool's manifest, a hostile published index, a rollback, the same version with other content; a wrong secret
    /// is refused by the store (the signature is checked), a missing bucket named.
    func testRefusals() throws {
        let v1 = Self.small[0], v2 = Self.small[1], otherV1 = Self.small[3]
        func nothingAt(_ prefix: String, file: StaticString = #filePath, line: UInt = #line) throws {
            XCTAssertNil(try object(prefix, "update-manifest.json"), "nothing published at \(prefix)", file: file, line: line)
        }
        func refused(_ r: (status: Int32, output: String), _ status: Int32, _ text: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertEqual(r.status, status, r.output, file: file, line: line)
            XCTAssertTrue(r.output.contains(text), "expected “\(text)” in: \(r.output)", file: file, line: line)
            XCTAssertFalse(r.output.contains(store.secretKey), file: file, line: line)
        }
        func cli(_ args: [String], env e: [String: String]? = nil) throws -> (status: Int32, output: String) {
            try TestSupport.runCLI(["publish", v1.path] + args + ["--endpoint", store.endpoint], env: e ?? env)
        }

        // Usage.
        refused(try cli(["--to", "http://x/y"]), 2, "is not an s3://BUCKET/PREFIX address")
        refused(try cli(["--to", "s3://Bad_Bucket/x"]), 2, "is not a bucket name")
        refused(try cli(["--to", "s3://site/a/../b"]), 2, "climbs out")
        refused(try cli(["--to", "s3://site/t", "--parallel", "0"]), 2, "--parallel 1 or more")
        refused(try cli(["--to", "s3://site/t"], env: env.merging(["AWS_SECRET_ACCESS_KEY": ""], uniquingKeysWith: { _, b in b })), 2, "no credentials")

        // Not a valid tree: missing, empty, one corrupt byte, a path in the index that climbs out.
        refused(try publish(URL(fileURLWithPath: "/nonexistent/dist"), "t"), 2, "nothing was uploaded")
        refused(try publish(TestSupport.tempDir("empty"), "t"), 2, "nothing was uploaded")
        let corrupt = ReleaseLoop.copy(v1, "corrupt")
        let page = corrupt.appendingPathComponent("products/p2/details.json")
        var bytes = try Data(contentsOf: page)
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: page)
        refused(try publish(corrupt, "t"), 2, "products/p2/details.json")
        let hostile = ReleaseLoop.copy(v1, "hostile")
        try Self.addIndexEntry(hostile, path: "../outside.json")
        refused(try publish(hostile, "t"), 2, "../outside.json")
        try nothingAt("t")

        // The store holds what is not ours: another manifest, an index naming a path outside the prefix.
        try putForeign("foreign", "update-manifest.json", #"{"name": "someone else's site"}"#)
        refused(try publish(v1, "foreign"), 2, "not a release published by generator")
        let evilIndex = #"{"version": 1, "files": [{"path": "../../etc/passwd", "sha256": "\#(String(repeating: "a", count: 64))", "size": 1}]}"#
        try putForeign("hostile", "releases/1/files.json", evilIndex)
        try putForeign("hostile", "update-manifest.json", #"{"version": 1, "currentVersion": "1", "fileIndex": {"path": "releases/1/files.json", "sha256": "\#(HTTPFetcher.sha256Hex(Array(evilIndex.utf8)))", "size": \#(evilIndex.utf8.count)}}"#)
        refused(try publish(v1, "hostile"), 2, "climbs out")
        // An index naming a path where the publish keeps its content-addressed copies is not ours either.
        let objectsIndex = #"{"version": 1, "files": [{"path": "releases/objects/\#(String(repeating: "a", count: 64)).json", "sha256": "\#(String(repeating: "a", count: 64))", "size": 1}]}"#
        try putForeign("objects", "releases/1/files.json", objectsIndex)
        try putForeign("objects", "update-manifest.json", #"{"version": 1, "currentVersion": "1", "fileIndex": {"path": "releases/1/files.json", "sha256": "\#(HTTPFetcher.sha256Hex(Array(objectsIndex.utf8)))", "size": \#(objectsIndex.utf8.count)}}"#)
        refused(try publish(v1, "objects"), 2, "releases/objects/")
        try putForeign("hostile", "mine.json", "{}")
        // --force publishes over it; nothing it did not upload is pruned.
        refused(try publish(v1, "hostile", ["--force", "--prune"]), 0, "is not one of ours")
        XCTAssertNotNil(try object("hostile", "mine.json"))
        try checkEveryObject("hostile", v1)

        // A newer release published: no rollback; the same version with other content: refused.
        XCTAssertEqual(try publish(v2, "newer").status, 0)
        refused(try publish(v2, "newer"), 0, "already has version 2 (2): nothing to upload")
        refused(try publish(v1, "newer"), 2, "refusing to roll back")
        XCTAssertEqual(try object("newer", "update-manifest.json").flatMap { try? JSONReader.parse($0)["version"]?.intValue }, 2)
        refused(try publish(otherV1, "newer"), 2, "refusing to roll back")
        XCTAssertEqual(try publish(otherV1, "samever").status, 0)
        refused(try publish(v1, "samever"), 2, "already has a version 1 with other content")

        // Signing is checked: a wrong secret is refused by the store; a missing bucket is named.
        refused(try publish(v1, "wrong", env: env.merging(["AWS_SECRET_ACCESS_KEY": "not-the-secret"], uniquingKeysWith: { _, b in b })), 1, "SignatureDoesNotMatch")
        try nothingAt("wrong")
        refused(try cli(["--to", "s3://no-such-bucket/x"]), 1, "NoSuchBucket")
    }

    /// A PUT the store fails once is retried and the publish completes; one that keeps failing stops the publish
    /// (exit 1) before the manifest, and the error says the published release is unchanged.
    func testRetriesThenAFailureThatLeavesThePublishedRelease() throws {
        let proxy = try S3Proxy(upstreamPort: store.port)
        defer { proxy.stop() }
        try proxy.failPuts(after: 3, mode: "500once")
        let ok = try publish(Self.small[0], "retry", ["--retries", "1"], endpoint: proxy.endpoint)
        XCTAssertEqual(ok.status, 0, ok.output)
        let log = try proxy.log().filter { $0.method == "PUT" }
        let failedOnce = log.filter { $0.status == 500 }
        XCTAssertEqual(failedOnce.count, 1)
        XCTAssertEqual(log.filter { $0.path == failedOnce.first?.path }.map(\.status), [500, 200], "the same object again, accepted")

        try proxy.failPuts(after: 2, mode: "500")
        let failed = try publish(Self.small[1], "retry", ["--retries", "1"], endpoint: proxy.endpoint)
        XCTAssertEqual(failed.status, 1, failed.output)
        XCTAssertTrue(failed.output.contains("HTTP 500 InternalError: fault injected by s3-proxy.py (after 2 attempts)"), failed.output)
        XCTAssertTrue(failed.output.contains("the published release (version 1) is unchanged"), failed.output)
        try checkEveryObject("retry", Self.small[0])

        // Failing after the switch: release 2 is published and whole for apps (its changed files through their
        // copies), the error says so; the next run completes it.
        let c = try Self.changes(from: Self.small[0], to: Self.small[1])
        try proxy.failPuts(after: c.new.count + 1 + c.copies.count + 1, mode: "500")
        let after = try publish(Self.small[1], "retry", ["--retries", "0"], endpoint: proxy.endpoint)
        XCTAssertEqual(after.status, 1, after.output)
        XCTAssertTrue(after.output.contains("uploading changed files at their paths failed"), after.output)
        XCTAssertTrue(after.output.contains("version 2 is published and whole for apps: \(c.changed.count) of the \(c.changed.count) changed files do not "
                                            + "hold their new bytes at their paths yet, and are read from their content-addressed copies"), after.output)
        XCTAssertEqual(try checkEveryObject("retry", Self.small[1], viaCopies: true), Set(c.changed.keys))
        try proxy.clearFaults()
        let done = try publish(Self.small[1], "retry", endpoint: proxy.endpoint)
        XCTAssertEqual(done.status, 0, done.output)
        XCTAssertTrue(done.output.contains("completed its publish (rewrote \(c.changed.count) file(s) at their paths, removed \(c.copies.count) "
                                           + "content-addressed copies)"), done.output)
        XCTAssertEqual(try checkEveryObject("retry", Self.small[1]), [])
        XCTAssertEqual(try store.list(Self.bucket, "retry/releases/objects"), [])
    }

    /// Adds an entry to a tree's file index and makes the manifest vouch for the new index (a tampered tree whose
    /// hashes agree).
    static func addIndexEntry(_ tree: URL, path: String) throws {
        let manifestURL = tree.appendingPathComponent("update-manifest.json")
        var manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as! [String: Any]
        var ref = manifest["fileIndex"] as! [String: Any]
        let indexURL = tree.appendingPathComponent(ref["path"] as! String)
        var index = try JSONSerialization.jsonObject(with: Data(contentsOf: indexURL)) as! [String: Any]
        index["files"] = (index["files"] as! [[String: Any]]) + [["path": path, "sha256": String(repeating: "0", count: 64), "size": 0, "schema": NSNull()]]
        let data = try JSONSerialization.data(withJSONObject: index, options: [.sortedKeys])
        try data.write(to: indexURL)
        ref["sha256"] = HTTPFetcher.sha256Hex([UInt8](data))
        ref["size"] = data.count
        manifest["fileIndex"] = ref
        try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys]).write(to: manifestURL)
    }
}
