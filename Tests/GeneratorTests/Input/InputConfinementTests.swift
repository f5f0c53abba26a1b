import XCTest
import Foundation
@testable import Generator

/// Every file a build reads lies inside the input folder once links are resolved (issue 18, scope 4). Each escape
/// is an error naming the file and field, and nothing of the outside file reaches the tree or the message: the
/// outside files carry a marker that must appear nowhere.
final class InputConfinementTests: XCTestCase {
    static let marker = "RUNNER-SECRET-7F3A"
    let cats = TestSupport.categoriesJSON

    /// Outside files, each valid for its reader (so following them would build and publish the marker), in a
    /// folder beside the input: `../name` from the input reaches them.
    func outside(_ input: URL) throws -> URL {
        let dir = input.deletingLastPathComponent()
        let m = Self.marker
        let files: [String: String] = [
            "secret.jsonl": TestSupport.productLine("s1", name: m) + "\n",
            "secret.json": #"{"categories":[{"id":"\#(m)","name":"\#(m)","parent":null}],"sections":[{"id":"\#(m)","title":"\#(m)","type":"x"}]}"#,
            "secret.csv": "parcel id,amount,acreage,county\n\(m),100,1,Baldwin\n",
            "nba-out/teams.csv": "team_id,abbreviation,full_name\n1,AAA,\(m)\n2,BBB,B\n",
            "nba-out/games.csv": "game_id,season,game_date,home_team_id,away_team_id,home_score,away_score,ot_periods\n\(m),2023,2023-01-01,1,2,100,99,0\n",
            "coll-out/c.json": #"{"sources": ["coll-out/c.csv"], "id": "id", "fields": {"id": {"type": "string"}}}"#,
            "coll-out/c.csv": "id\n\(m)\n",
        ]
        for (path, text) in files {
            let url = dir.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return dir
    }

    /// A catalog-only input (products and categories), edited by `site`.
    func catalogInput(site: ((inout [String: Any]) -> Void)? = nil, files: [String: String] = [:]) throws -> URL {
        var all = ["catalog/products.jsonl": TestSupport.productLine("1"), "catalog/categories.json": cats]
        for (k, v) in files { all[k] = v }
        let input = TestSupport.makeInput(site: site, files: all)
        _ = try outside(input)
        return input
    }

    func edit(_ section: String, _ key: String, _ value: Any) -> (inout [String: Any]) -> Void {
        { s in var c = s[section] as? [String: Any] ?? [:]; c[key] = value; s[section] = c }
    }

    /// Builds in process; returns the error text (nil when the build succeeded) and asserts the marker is absent
    /// from it and from whatever was written.
    @discardableResult
    func build(_ input: URL, file: StaticString = #filePath, line: UInt = #line) -> String? {
        let out = TestSupport.tempDir("conf").appendingPathComponent("dist")
        var message: String?
        do { _ = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000)) }
        catch { message = "\(error)" }
        if let message {
            XCTAssertFalse(message.contains(Self.marker), "outside text in the message: \(message)", file: file, line: line)
            XCTAssertFalse(message.contains("Error Domain"), "a raw Foundation error: \(message)", file: file, line: line)
        }
        for (path, data) in TestSupport.snapshot(out) {
            XCTAssertFalse(String(decoding: data, as: UTF8.self).contains(Self.marker), "outside text published in \(path)", file: file, line: line)
        }
        return message
    }

    func assertRefused(_ input: URL, _ expected: [String], file: StaticString = #filePath, line: UInt = #line) {
        guard let message = build(input, file: file, line: line) else { return XCTFail("the build succeeded", file: file, line: line) }
        for e in expected { XCTAssertTrue(message.contains(e), "expected '\(e)' in: \(message)", file: file, line: line) }
    }

    // MARK: One test per site.json key and per kind of path

    func testCatalogProductsClimbingOut() throws {
        assertRefused(try catalogInput(site: edit("catalog", "products", "../secret.jsonl")),
                      ["site.json: field 'catalog.products': ../secret.jsonl is outside the input folder"])
    }

    func testCatalogProductsClimbingOutThroughASubfolder() throws {
        assertRefused(try catalogInput(site: edit("catalog", "products", "catalog/../../secret.jsonl")),
                      ["field 'catalog.products': catalog/../../secret.jsonl is outside the input folder"])
    }

    func testCatalogCategoriesClimbingOut() throws {
        assertRefused(try catalogInput(site: edit("catalog", "categories", "../secret.json")),
                      ["site.json: field 'catalog.categories': ../secret.json is outside the input folder"])
    }

    func testCatalogFeaturedClimbingOut() throws {
        assertRefused(try catalogInput(site: edit("catalog", "featured", "../secret.json")),
                      ["site.json: field 'catalog.featured': ../secret.json is outside the input folder"])
    }

    func testAuctionsFilesEntryClimbingOut() throws {
        let input = TestSupport.makeInput(site: { s in
            s.removeValue(forKey: "catalog")
            s["auctions"] = ["files": ["auctions/a.csv", ["path": "../secret.csv", "county": "Baldwin"]], "recordedAt": "2025-12-15T00:00:00Z"]
        }, files: ["auctions/a.csv": "parcel id,amount,acreage,county\nA1,100,1,Baldwin\n"])
        _ = try outside(input)
        assertRefused(input, ["site.json: field 'auctions.files[1]': ../secret.csv is outside the input folder"])
    }

    func testNBAFolderClimbingOut() throws {
        let input = TestSupport.makeInput(site: { s in s.removeValue(forKey: "catalog"); s["nba"] = ["folder": "../nba-out"] }, files: [:])
        _ = try outside(input)
        assertRefused(input, ["site.json: field 'nba.folder': ../nba-out is outside the input folder"])
    }

    func testCollectionsFolderClimbingOut() throws {
        let input = TestSupport.makeInput(site: { s in s.removeValue(forKey: "catalog"); s["collections"] = ["folder": "../coll-out"] }, files: [:])
        _ = try outside(input)
        assertRefused(input, ["site.json: field 'collections.folder': ../coll-out is outside the input folder"])
    }

    func testCollectionSourceClimbingOut() throws {
        let decl = #"{"sources": ["../secret.csv"], "id": "parcel id", "fields": {"parcel id": {"type": "string"}}}"#
        let input = TestSupport.makeInput(site: { $0.removeValue(forKey: "catalog") }, files: ["collections/c.json": decl])
        _ = try outside(input)
        assertRefused(input, ["collections/c.json: field 'sources[0]': ../secret.csv is outside the input folder"])
    }

    func testAbsolutePath() throws {
        let secret = TestSupport.scratch.appendingPathComponent("secret.jsonl").path   // what outside() writes
        assertRefused(try catalogInput(site: edit("catalog", "products", secret)),
                      ["field 'catalog.products': \(secret) is an absolute path; paths are relative to the input folder"])
    }

    /// The default products path (not named in site.json) is a link to a file outside: refused, and not a byte of it
    /// shown or published.
    func testSymlinkToAFileOutside() throws {
        let input = try catalogInput(site: { s in var c = s["catalog"] as! [String: Any]; c.removeValue(forKey: "products"); s["catalog"] = c })
        let products = input.appendingPathComponent("catalog/products.jsonl")
        try FileManager.default.removeItem(at: products)
        try FileManager.default.createSymbolicLink(at: products, withDestinationURL: input.deletingLastPathComponent().appendingPathComponent("secret.jsonl"))
        assertRefused(input, ["catalog/products.jsonl: resolves outside the input folder (through a symbolic link)"])
    }

    /// The same through the CLI: exit 1, the message names the file, the marker is nowhere in the output.
    func testSymlinkToAFileOutsideThroughTheCLI() throws {
        let input = try catalogInput(site: edit("catalog", "products", "catalog/p.jsonl"))
        try FileManager.default.createSymbolicLink(at: input.appendingPathComponent("catalog/p.jsonl"),
                                                   withDestinationURL: input.deletingLastPathComponent().appendingPathComponent("secret.jsonl"))
        let out = TestSupport.tempDir("conf-cli").appendingPathComponent("dist")
        let r = try TestSupport.runCLI(["build", "--input", input.path, "--out", out.path])
        XCTAssertEqual(r.status, 1, r.output)
        XCTAssertTrue(r.output.contains("site.json: field 'catalog.products': catalog/p.jsonl resolves outside the input folder"), r.output)
        XCTAssertFalse(r.output.contains(Self.marker), r.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
    }

    /// A link to a folder outside, used as a path component.
    func testSymlinkedFolderOutside() throws {
        let input = try catalogInput(site: edit("catalog", "products", "data/secret.jsonl"))
        try FileManager.default.createSymbolicLink(at: input.appendingPathComponent("data"), withDestinationURL: input.deletingLastPathComponent())
        assertRefused(input, ["field 'catalog.products': data/secret.jsonl resolves outside the input folder"])
    }

    /// A link whose target does not exist outside is refused the same way: no probing of the runner's files.
    func testDanglingSymlinkOutsideIsRefusedNotMissing() throws {
        let input = try catalogInput(site: edit("catalog", "products", "catalog/p.jsonl"))
        try FileManager.default.createSymbolicLink(atPath: input.appendingPathComponent("catalog/p.jsonl").path, withDestinationPath: "/nonexistent/x.jsonl")
        assertRefused(input, ["catalog/p.jsonl resolves outside the input folder"])
    }

    func testScanOfAuctionsWithASymlinkOut() throws {
        let input = TestSupport.makeInput(site: { s in s.removeValue(forKey: "catalog") },
                                          files: ["auctions/a.csv": "parcel id,amount,acreage,county\nA1,100,1,Baldwin\n"])
        let dir = try outside(input)
        try FileManager.default.createSymbolicLink(at: input.appendingPathComponent("auctions/b.csv"), withDestinationURL: dir.appendingPathComponent("secret.csv"))
        assertRefused(input, ["auctions/b.csv: resolves outside the input folder (through a symbolic link)"])
    }

    func testScanOfCollectionsWithASymlinkOut() throws {
        let input = TestSupport.makeInput(site: { s in s.removeValue(forKey: "catalog") }, files: [:])
        let dir = try outside(input)
        try FileManager.default.createDirectory(at: input.appendingPathComponent("collections"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: input.appendingPathComponent("collections/c.json"), withDestinationURL: dir.appendingPathComponent("coll-out/c.json"))
        assertRefused(input, ["collections/c.json: resolves outside the input folder"])
    }

    func testNBAFileSymlinkedOut() throws {
        let input = TestSupport.makeInput(site: { s in s.removeValue(forKey: "catalog"); s["nba"] = ["folder": "nba", "simulations": 100] },
                                          files: ["nba/games.csv": "game_id,season,game_date,home_team_id,away_team_id,home_score,away_score,ot_periods\n"])
        let dir = try outside(input)
        try FileManager.default.createSymbolicLink(at: input.appendingPathComponent("nba/teams.csv"), withDestinationURL: dir.appendingPathComponent("nba-out/teams.csv"))
        assertRefused(input, ["nba/teams.csv: resolves outside the input folder"])
    }

    func testSiteJSONSymlinkedOut() throws {
        let input = try catalogInput()
        let elsewhere = TestSupport.tempDir("site-out").appendingPathComponent("site.json")
        try FileManager.default.moveItem(at: input.appendingPathComponent("site.json"), to: elsewhere)
        try FileManager.default.createSymbolicLink(at: input.appendingPathComponent("site.json"), withDestinationURL: elsewhere)
        assertRefused(input, ["site.json: resolves outside the input folder"])
    }

    // MARK: What stays allowed

    /// Links that stay inside are fine, and the input folder itself may be a link (resolved once as the root).
    func testLinksInsideAndALinkedInputFolderBuild() throws {
        let input = try catalogInput(site: edit("catalog", "products", "catalog/current.jsonl"))
        try FileManager.default.createSymbolicLink(atPath: input.appendingPathComponent("catalog/current.jsonl").path, withDestinationPath: "products.jsonl")
        XCTAssertNil(build(input))
        let link = TestSupport.tempDir("linked").appendingPathComponent("in")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: input)
        XCTAssertNil(build(link))
    }

    // MARK: Special files

    /// A FIFO as the products file is refused at once (opening it blocking would wait forever); one lying unused in
    /// the input is not read at all (the fingerprint walk skips special files).
    func testFIFOIsAnErrorNotAHang() throws {
        let input = try catalogInput()
        let products = input.appendingPathComponent("catalog/products.jsonl")
        try FileManager.default.removeItem(at: products)
        XCTAssertEqual(mkfifo(products.path, 0o644), 0)
        let out = TestSupport.tempDir("fifo").appendingPathComponent("dist")
        let r = try runWithTimeout(["build", "--input", input.path, "--out", out.path], seconds: 120)
        XCTAssertEqual(r.status, 1, r.output)
        XCTAssertTrue(r.output.contains("catalog/products.jsonl: is a named pipe (FIFO), not a regular file"), r.output)

        // Unused: the build goes on.
        try FileManager.default.removeItem(at: products)
        try TestSupport.productLine("1").write(to: products, atomically: true, encoding: .utf8)
        XCTAssertEqual(mkfifo(input.appendingPathComponent("notes.fifo").path, 0o644), 0)
        let ok = try runWithTimeout(["build", "--input", input.path, "--out", out.path], seconds: 120)
        XCTAssertEqual(ok.status, 0, ok.output)
    }

    /// The CLI, killed if it has not finished in time (a hang fails the test instead of blocking the suite).
    func runWithTimeout(_ args: [String], seconds: Double) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = TestSupport.generatorBinary
        p.arguments = args
        let file = TestSupport.tempDir("log").appendingPathComponent("out.txt")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        p.standardOutput = handle
        p.standardError = handle
        let done = DispatchSemaphore(value: 0)
        p.terminationHandler = { _ in done.signal() }
        try p.run()
        if done.wait(timeout: .now() + seconds) == .timedOut {
            p.terminate()
            done.wait()
            XCTFail("the build hung (killed after \(Int(seconds)) s)")
        }
        try handle.close()
        return (p.terminationStatus, try String(contentsOf: file, encoding: .utf8))
    }

    // MARK: The resolver on its own

    func testResolverComparesComponentsNotPrefixes() throws {
        let base = TestSupport.tempDir("res")
        let root = base.appendingPathComponent("in"), sibling = base.appendingPathComponent("in-other")
        for d in [root, sibling] { try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true) }
        try "x".write(to: sibling.appendingPathComponent("f"), atomically: true, encoding: .utf8)
        // "…/in-other" starts with the text "…/in" but is not inside it.
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("l").path, withDestinationPath: "../in-other/f")
        let real = try InputFiles.root(root)
        XCTAssertThrowsError(try InputFiles.resolve("l", root: real, file: "f", field: nil)) { e in
            XCTAssertTrue("\(e)".contains("resolves outside the input folder"), "\(e)")
        }
        XCTAssertThrowsError(try InputFiles.resolve("../in-other/f", root: real, file: "f", field: "k"))
        XCTAssertThrowsError(try InputFiles.resolve("a\u{1B}b", root: real, file: "f", field: "k")) { e in
            XCTAssertTrue("\(e)".contains(#""a\u{1B}b" contains a control character"#), "\(e)")
        }
        // Inside, and a missing file inside is not an error here (the caller decides).
        XCTAssertEqual(try InputFiles.resolve("./a/../b/c.csv", root: real, file: "f", field: "k").path, real.path + "/b/c.csv")
        XCTAssertEqual(try InputFiles.resolve("", root: real, file: "f", field: "k").path, real.path)
        // A link loop ends with a message, not a hang.
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("loop").path, withDestinationPath: "loop")
        XCTAssertThrowsError(try InputFiles.resolve("loop", root: real, file: "f", field: "k")) { e in
            XCTAssertTrue("\(e)".contains("too many levels of symbolic links"), "\(e)")
        }
    }
}
