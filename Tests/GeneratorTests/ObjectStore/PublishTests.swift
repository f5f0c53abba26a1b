import XCTest
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
        // A missing weed fails every test with the install command; it never skips.
        if let e = Self.startError { XCTFail("\(e)"); throw e }
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

    /// Checks every object the tree's file index names on the store, fetched as an app would: the store's manifest is
    /// the tree's, and each file has the index's sha256, or (for the paths `mayHold` gives) that other sha256.
    /// Returns the paths that hold the other one.
    @discardableResult
    func checkEveryObject(_ prefix: String, _ tree: URL, mayHold: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws -> Set<String> {
        let idx = try Self.index(tree)
        XCTAssertEqual(try object(prefix, "update-manifest.json").map { Data($0) }, try Data(contentsOf: tree.appendingPathComponent("update-manifest.json")),
                       "the store's manifest is \(tree.lastPathComponent)'s", file: file, line: line)
        let all = idx.all
        let lock = NSLock()
        var other = Set<String>(), wrong: [String] = []
        let fetcher = HTTPFetcher(.init(timeout: 10, retries: 0, maxParallel: 8))
        try fetcher.fetchAll(Array(all.keys), url: { TreePath.url($0, under: self.store.site(Self.bucket, prefix)) }, expected: { _ in nil }) { path, body in
            let sha = HTTPFetcher.sha256Hex(body)
            lock.lock(); defer { lock.unlock() }
            if sha == all[path] { return }
            if sha == mayHold[path] { other.insert(path) } else { wrong.append(path) }
        }
        XCTAssertEqual(wrong.sorted(), [], "objects whose bytes are neither", file: file, line: line)
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

    /// The tree paths of a proxy log's PUTs, in order (the publish log is the tool's own object, not a tree file).
    func puts(_ log: [S3Proxy.Request], _ prefix: String) -> [String] {
        log.filter { $0.method == "PUT" && $0.status == 200 }.map { String($0.path.dropFirst("/\(Self.bucket)/\(prefix)/".count)) }
            .filter { $0 != TreePublisher.logPath }
    }

    // MARK: Done when

    /// The whole loop on the default tree (real data), one store prefix:
    /// 1. release 1 published, and synced byte for byte over plain HTTP;
    /// 2. a publish of release 2 killed (SIGKILL) among the new files: release 1 wholly intact (every object it names,
    ///    with its sha256), a fresh sync gets it whole;
    /// 3. killed among the changed files: the manifest still names release 1 and exactly the files replaced so far
    ///    hold release 2's bytes; a copy at release 1 stays current, a fresh sync fails on them and writes nothing;
    /// 4. the next run completes release 2, uploading exactly the files whose sha256 differs from release 1's index,
    ///    new files before changed ones, the manifest last; the copy follows with the delta.
    func testPublishSyncKillAndCompleteTheNextRelease() throws {
        let r1 = ReleaseLoop.release1, r2 = ReleaseLoop.release2
        let idx1 = try Self.index(r1), idx2 = try Self.index(r2)
        let first = try publish(r1, "loop")
        XCTAssertEqual(first.status, 0, first.output)
        XCTAssertTrue(first.output.contains("uploaded \(idx1.all.count + 1) file(s)"), first.output)   // + the manifest
        XCTAssertFalse(first.output.contains(store.secretKey), "the secret is never printed")
        let copy = TestSupport.tempDir("publish-copy").appendingPathComponent("copy")
        let s1 = try sync("loop", copy)
        XCTAssertEqual(s1.status, 0, s1.output)
        XCTAssertEqual(Array(ReleaseLoop.differences(copy, r1).prefix(10)), [], "a copy synced from the store is byte-identical to release 1")

        // Served with their types and caching (a HEAD as any HTTP client or CDN makes it).
        let site = store.site(Self.bucket, "loop")
        let shard = try XCTUnwrap(idx1.files.keys.first { $0.hasPrefix("search/store/") })
        let expect: [(String, String, String)] = [
            ("update-manifest.json", "application/json; charset=utf-8", "no-cache"),
            (shard, "application/json; charset=utf-8", "public, max-age=31536000, immutable"),
            ("releases/1/files.json", "application/json; charset=utf-8", "public, max-age=86400"),
            ("products/\(ReleaseLoop.changedPrice)/details.json", "application/json; charset=utf-8", "public, max-age=60"),
            ("404.html", "text/html; charset=utf-8", "public, max-age=60"),
        ]
        for (path, type, cache) in expect {
            let h = headers(TreePath.url(path, under: site))
            XCTAssertEqual(h["content-type"], type, path)
            XCTAssertEqual(h["cache-control"], cache, path)
        }

        // What release 2 must upload: every file whose sha256 differs from release 1's (its files and its index).
        let changedOrNew = Set(idx2.all.filter { idx1.all[$0.key] != $0.value }.map(\.key))
        let newCount = changedOrNew.filter { idx1.all[$0] == nil }.count
        let changed = idx2.all.filter { idx1.all[$0.key] != nil && idx1.all[$0.key] != $0.value }
        XCTAssertGreaterThan(newCount, 3)
        XCTAssertGreaterThan(changed.count, 3)

        let proxy = try S3Proxy(upstreamPort: store.port)
        defer { proxy.stop() }
        /// Starts a publish of release 2 through the proxy, one upload at a time, and kills it (SIGKILL) while its
        /// PUT number `k + 1` is held by the proxy.
        func killedPublish(after k: Int) throws {
            try proxy.clearLog()
            try proxy.failPuts(after: k, mode: "hang")
            let p = Process()
            p.executableURL = TestSupport.generatorBinary
            p.arguments = ["publish", r2.path, "--to", "s3://\(Self.bucket)/loop", "--endpoint", proxy.endpoint, "--parallel", "1"]
            p.environment = ProcessInfo.processInfo.environment.merging(env, uniquingKeysWith: { _, b in b })
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            let deadline = Date().addingTimeInterval(20)
            while try proxy.log().filter({ $0.method == "PUT" }).count < k && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            Thread.sleep(forTimeInterval: 0.2)   // the next PUT is in the proxy's hands
            XCTAssertTrue(p.isRunning, "still uploading when killed")
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationReason, .uncaughtSignal)
            try proxy.clearFaults()
            XCTAssertEqual(try proxy.log().filter { $0.method == "PUT" && $0.status == 200 }.count, k)
        }

        // Killed among the new files.
        try killedPublish(after: newCount / 2)
        let uploaded = puts(try proxy.log(), "loop")
        XCTAssertEqual(uploaded.count, newCount / 2)
        XCTAssertEqual(uploaded.filter { idx1.all[$0] != nil }, [], "only files release 1 does not name were written")
        XCTAssertEqual(try checkEveryObject("loop", r1), [], "every object release 1 names has its sha256")
        let fresh = TestSupport.tempDir("kill-fresh").appendingPathComponent("copy")
        let s = try sync("loop", fresh)
        XCTAssertEqual(s.status, 0, s.output)
        XCTAssertEqual(Array(ReleaseLoop.differences(fresh, r1).prefix(10)), [], "a fresh sync gets release 1 whole")

        // Killed among the changed files, after two of them.
        try killedPublish(after: newCount + 2)
        let replaced = try checkEveryObject("loop", r1, mayHold: changed)
        XCTAssertEqual(replaced.count, 2, "exactly the two changed files uploaded before the kill hold release 2's bytes")
        let current = try sync("loop", copy)
        XCTAssertEqual(current.status, 0, current.output)
        XCTAssertTrue(current.output.contains("is current: version 1"), current.output)
        let fresh2 = TestSupport.tempDir("kill-fresh2").appendingPathComponent("copy")
        let failed = try sync("loop", fresh2)
        XCTAssertEqual(failed.status, 1, failed.output)
        XCTAssertTrue(replaced.contains { failed.output.contains($0) }, "names a replaced file: \(failed.output)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: fresh2.path), "nothing written")

        // The next run completes release 2: exactly the differing files, new before changed, the manifest last.
        try proxy.clearLog()
        let second = try publish(r2, "loop", endpoint: proxy.endpoint)
        XCTAssertEqual(second.status, 0, second.output)
        let expected = changedOrNew.union(["update-manifest.json"])
        let put = puts(try proxy.log(), "loop")
        XCTAssertEqual(put.count, expected.count, "each file once")
        XCTAssertEqual(Set(put), expected, "exactly the files whose sha256 differs from the published index, and the manifest")
        XCTAssertEqual(put.last, "update-manifest.json", "the manifest last")
        XCTAssertTrue(second.output.contains("uploaded \(expected.count) file(s)"), second.output)
        XCTAssertTrue(second.output.contains("skipped \(idx2.all.count - changedOrNew.count) unchanged"), second.output)
        // Files the published release names are replaced only after every file it does not name is up.
        let firstChanged = try XCTUnwrap(put.firstIndex { idx1.all[$0] != nil })
        XCTAssertEqual(firstChanged, newCount)
        XCTAssertEqual(put.dropLast().filter { idx1.all[$0] == nil && put.firstIndex(of: $0)! > firstChanged }, [], "no new file after the first changed one")
        XCTAssertLessThan(put.firstIndex(of: idx2.path)!, firstChanged, "the new file index before any file of release 1 is touched")
        print("release 1 → 2 on the store: \(put.count) PUTs (\(newCount) new, \(changed.count) changed, the manifest) for \(idx2.all.count) files")
        try checkEveryObject("loop", r2)
        let s2 = try sync("loop", copy)
        XCTAssertEqual(s2.status, 0, s2.output)
        XCTAssertTrue(s2.output.contains("using the delta from version 1"), s2.output)
        XCTAssertEqual(Array(ReleaseLoop.differences(copy, r2).prefix(10)), [], "the copy follows to release 2, byte-identical")

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
    /// carries it), never a file a kept release names, never an object the tool did not upload.
    func testPruneDeletesOnlyObjectsOfReleasesNoLongerKept() throws {
        let trees = Self.small
        for t in trees.prefix(2) { XCTAssertEqual(try publish(t, "prune").status, 0) }
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
        XCTAssertEqual(try object("prune", "update-manifest.json").flatMap { try? JSONReader.parse($0)["version"]?.intValue }, 2, "a dry run writes nothing")

        let r = try publish(trees[2], "prune", ["--prune"])
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertTrue(r.output.contains("pruned \(gone.count)"), r.output)
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
        try proxy.clearFaults()
        try checkEveryObject("retry", Self.small[0])
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
