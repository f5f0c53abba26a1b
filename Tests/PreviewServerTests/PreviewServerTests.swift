import Foundation
import Generator
import XCTest
@testable import PreviewServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `serve --watch`: rebuilds on input changes, keeps the last good tree when a build fails, and never lets a request
/// see a half-built or mixed tree, with real HTTP on 127.0.0.1 and the default input copied to a temp folder.
final class PreviewServerTests: XCTestCase {
    static let productId = "300179"
    static let productName = "18V Brushless Compact Drill/Driver"
    static let detailsPath = "products/\(productId)/details.json"

    /// Renames the default catalog's product 300179 in the input copy (a save as an editor does it: a new file).
    func rename(in input: URL, to name: String) throws {
        let file = input.appendingPathComponent("catalog/products.jsonl")
        let text = try String(contentsOf: file, encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.contains("\"id\": \"\(Self.productId)\"") }) else { throw RawHTTP.Failure("no product \(Self.productId)") }
        let edited = line.replacingOccurrences(of: #""name": "[^"]*""#, with: "\"name\": \"\(name)\"", options: .regularExpression)
        try text.replacingOccurrences(of: String(line), with: edited).write(to: file, atomically: true, encoding: .utf8)
    }

    func productName(_ port: Int) throws -> String? {
        let r = try RawHTTP.get(port: port, "/" + Self.detailsPath)
        guard r.status == 200, let json = try JSONSerialization.jsonObject(with: r.body) as? [String: Any] else { return nil }
        return json["title"] as? String
    }

    /// The edit is served by event, not by a clock: the test waits (up to a minute, for a loaded machine) until the
    /// rebuilt page is served, and prints how long that took; the time an edit takes is a benchmark's matter.
    func testAnInputEditIsServedOnceRebuilt() throws {
        let input = ServeSupport.copyOfDefaultInput()
        let dist = ServeSupport.tempDir("watch").appendingPathComponent("dist")
        let running = try ServeSupport.serve(dist, watch: input)
        defer { running.stop() }
        XCTAssertEqual(try productName(running.port), Self.productName, "the first build is served")
        let first = try XCTUnwrap(running.server.servedVersion)

        let name = "Edited Drill \(UUID().uuidString.prefix(6))"
        try rename(in: input, to: name)
        let edited = Date()
        XCTAssertTrue(ServeSupport.waitFor(60) { (try? productName(running.port)) == name }, "\(running.log.all)")
        print("the edit was served \(String(format: "%.2f", Date().timeIntervalSince(edited))) s after it was saved")
        XCTAssertEqual(running.server.servedVersion, first + 1)
        XCTAssertEqual(try ServeSupport.fileIndex(dist).version, first + 1, "the build went into DIST, as generator build does")
    }

    func testABrokenInputKeepsTheLastGoodTreeServedAndPrintsTheError() throws {
        let input = ServeSupport.copyOfDefaultInput()
        let dist = ServeSupport.tempDir("broken").appendingPathComponent("dist")
        let running = try ServeSupport.serve(dist, watch: input)
        defer { running.stop() }
        let version = try XCTUnwrap(running.server.servedVersion)
        let before = try RawHTTP.get(port: running.port, "/" + Self.detailsPath)

        let products = input.appendingPathComponent("catalog/products.jsonl")
        let good = try Data(contentsOf: products)
        try (good + Data("{\"id\": \"broken\", \"name\": \n".utf8)).write(to: products)
        XCTAssertTrue(ServeSupport.waitFor(60) { running.errors.contains { $0.contains("products.jsonl") } }, "\(running.log.all)")
        let error = try XCTUnwrap(running.errors.first { $0.contains("products.jsonl") })
        XCTAssertTrue(error.contains("products.jsonl:281") || error.contains("line 281"), "the error names file and line: \(error)")
        XCTAssertTrue(error.contains("still serving version \(version)"), error)
        XCTAssertEqual(running.server.servedVersion, version)
        let during = try RawHTTP.get(port: running.port, "/" + Self.detailsPath)
        XCTAssertEqual(during.status, 200)
        XCTAssertEqual(during.body, before.body)
        XCTAssertEqual(during.header("ETag"), before.header("ETag"))

        // Fixed (with an edit): the next release is served.
        try good.write(to: products)
        try rename(in: input, to: "Fixed Drill")
        XCTAssertTrue(ServeSupport.waitFor(60) { (try? productName(running.port)) == "Fixed Drill" }, "\(running.log.all)")
        XCTAssertEqual(running.server.servedVersion, version + 1)
    }

    /// Without --watch: a `generator build` into the served tree by someone else is served once it is swapped in.
    func testABuildByAnotherProcessIsServedOnceSwappedIn() throws {
        let input = ServeSupport.smallInput()
        let dist = try ServeSupport.build(input)
        let running = try ServeSupport.serve(dist)
        defer { running.stop() }
        let before = try RawHTTP.get(port: running.port, "/products/p1/details.json")
        XCTAssertEqual(before.status, 200)
        let products = input.appendingPathComponent("catalog/products.jsonl")
        try String(contentsOf: products, encoding: .utf8).replacingOccurrences(of: "Cordless Drill 1", with: "Rebuilt Drill 1")
            .write(to: products, atomically: true, encoding: .utf8)
        _ = try Build.run(BuildOptions(input: input, output: dist, threads: 2, epochSeconds: 1_700_000_100))
        XCTAssertTrue(ServeSupport.waitFor(60) {
            (try? RawHTTP.get(port: running.port, "/products/p1/details.json").body).map { String(decoding: $0, as: UTF8.self).contains("Rebuilt Drill 1") } == true
        }, "\(running.log.all)")
        XCTAssertEqual(running.server.servedVersion, 2)
        XCTAssertTrue(running.log.all.contains(.info("\(dist.path) was rebuilt: serving version 2 (\(try ServeSupport.currentVersion(dist)))")), "\(running.log.all)")
    }

    /// Three clients request every file of the tree in a loop while the input is edited and rebuilt three times.
    /// Each answer is checked against the file index of the release that answered it (read from disk afterwards):
    /// a 200's body hashes to its ETag and to that index's sha256, a 404 is only for a path that index does not
    /// list, nothing is 5xx, and no client sees the release version go backwards.
    func testAClientHammeringDuringRebuildsNeverSeesAMixedTree() throws {
        let input = ServeSupport.copyOfDefaultInput()
        let dist = ServeSupport.tempDir("hammer").appendingPathComponent("dist")
        let running = try ServeSupport.serve(dist, watch: input)
        defer { running.stop() }
        let first = try ServeSupport.fileIndex(dist)
        let paths = ["update-manifest.json"] + first.files.keys.sorted()

        struct Seen { var path: String; var status: Int; var version: Int; var etag: String?; var sha: String; var manifestVersion: Int? }
        let stop = Flag()
        let collected = Collector<Seen>()
        let clients = (0..<3).map { client in
            Thread {
                let config = URLSessionConfiguration.ephemeral
                config.httpMaximumConnectionsPerHost = 1
                let session = URLSession(configuration: config)
                defer { session.invalidateAndCancel() }
                var i = client * 97, lastVersion = 0
                var mine: [Seen] = [], bad: [String] = []
                while !stop.isSet {
                    let path = paths[i % paths.count]
                    i += 1
                    guard let (r, body) = Self.fetch(session, running.url, path) else { bad.append("\(path): no response"); continue }
                    let version = Int(r.value(forHTTPHeaderField: TreeResponder.versionHeader) ?? "") ?? -1
                    if version < lastVersion { bad.append("\(path): version \(version) after \(lastVersion)") }
                    lastVersion = max(lastVersion, version)
                    var manifestVersion: Int?
                    if path == "update-manifest.json", r.statusCode == 200 {
                        manifestVersion = (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["version"] as? Int
                    }
                    mine.append(Seen(path: path, status: r.statusCode, version: version, etag: r.value(forHTTPHeaderField: "ETag"),
                                     sha: ServeSupport.sha256(body), manifestVersion: manifestVersion))
                }
                collected.add(mine, bad)
            }
        }
        clients.forEach { $0.start() }
        var version = first.version
        for edit in 1...3 {
            try rename(in: input, to: "Hammer edit \(edit)")
            XCTAssertTrue(ServeSupport.waitFor(60) { running.server.servedVersion == version + 1 }, "edit \(edit): \(running.log.all)")
            version += 1
            usleep(150_000)   // some requests on this release too
        }
        stop.set()
        clients.forEach { _ in collected.done.wait() }
        let (seen, problems) = collected.all
        XCTAssertEqual(problems, [])

        var indexes: [Int: [String: String]] = [:]
        for v in Set(seen.map(\.version)) {
            indexes[v] = try ServeSupport.indexFile(dist.appendingPathComponent("releases/\(v)/files.json"))
        }
        print("\(seen.count) answers from releases \(indexes.keys.sorted())")
        XCTAssertGreaterThanOrEqual(indexes.count, 4, "answers came from the first release and each of the three rebuilds")
        XCTAssertGreaterThan(seen.count, 300, "enough requests to overlap the swaps")
        var failures: [String] = []
        for s in seen {
            let index = indexes[s.version]!
            if s.status >= 500 { failures.append("\(s.path): \(s.status)"); continue }
            if s.path == "update-manifest.json" {
                if s.status != 200 || s.manifestVersion != s.version { failures.append("manifest \(s.status) version \(String(describing: s.manifestVersion)) from release \(s.version)") }
                continue
            }
            switch s.status {
            case 200:
                let tag = s.etag.map { $0.replacingOccurrences(of: "W/", with: "").replacingOccurrences(of: "\"", with: "") }
                if tag != s.sha { failures.append("\(s.path): body \(s.sha) but ETag \(s.etag ?? "none")") }
                if index[s.path] != s.sha { failures.append("\(s.path): body is not release \(s.version)'s file") }
            case 404:
                if index[s.path] != nil { failures.append("\(s.path): 404 although release \(s.version) lists it") }
            default:
                failures.append("\(s.path): status \(s.status)")
            }
        }
        XCTAssertEqual(failures.prefix(20).map { $0 }, [], "\(failures.count) bad answers of \(seen.count)")

        // Replaced snapshots are removed once unused; at stop the server's own folder goes, and nothing else.
        let parent = dist.deletingLastPathComponent()
        let privateFolders = try FileManager.default.contentsOfDirectory(atPath: parent.path).filter { $0.hasPrefix(".dist.serve-") }
        XCTAssertEqual(privateFolders.count, 1, "\(privateFolders)")
        XCTAssertTrue(ServeSupport.waitFor(60) {
            ((try? FileManager.default.contentsOfDirectory(atPath: parent.appendingPathComponent(privateFolders[0]).path)) ?? []).filter { $0 != "made-by-generator-serve" }.count == 1
        }, "only the snapshot being served is left")
        running.stop()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.path).sorted(), [".dist.cache", ".dist.cache.products", "dist"], "only the tree and its build cache (and products snapshot)")
    }

    static func fetch(_ session: URLSession, _ base: URL, _ path: String) -> (HTTPURLResponse, Data)? {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var out: (HTTPURLResponse, Data)?
        session.dataTask(with: URL(string: path, relativeTo: base)!) { data, response, _ in
            if let r = response as? HTTPURLResponse { out = (r, data ?? Data()) }
            done.signal()
        }.resume()
        done.wait()
        return out
    }

    /// What the client threads saw; `done` is signalled once per finished client.
    final class Collector<T>: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [T] = [], problems: [String] = []
        let done = DispatchSemaphore(value: 0)
        func add(_ more: [T], _ bad: [String]) { lock.withLock { items += more; problems += bad }; done.signal() }
        var all: ([T], [String]) { lock.withLock { (items, problems) } }
    }

    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }
}
