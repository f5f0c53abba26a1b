import XCTest
import Foundation
@testable import Generator
import Schemas
import TreeClient
import TestTools

/// Release 1 from the real corpus, then 10 price changes, 3 removals, 2 additions → release 2.
final class ReleaseTests: XCTestCase {
    func realInput(editing: (inout [String]) -> Void) throws -> URL {
        let dir = RealCorpusTests.realInput()
        let productsURL = dir.appendingPathComponent("catalog/products.jsonl")
        var lines = try String(contentsOf: productsURL, encoding: .utf8).split(separator: "\n").map(String.init)
        editing(&lines)
        try FileManager.default.removeItem(at: productsURL)
        try (lines.joined(separator: "\n") + "\n").write(to: productsURL, atomically: true, encoding: .utf8)
        return dir
    }

    func testTwoReleasesDeltaPatchesAndNoChangeBuild() throws {
        try Tool.require(.python3, .jsonschema, .jsonpatch)
        let out = TestSupport.tempDir("rel").appendingPathComponent("dist")
        let input1 = try realInput { _ in }
        let r1 = try Build.run(BuildOptions(input: input1, output: out, threads: 2, epochSeconds: 1_700_000_000))
        let v1 = TestSupport.snapshot(out)
        let oldCopy = TestSupport.tempDir("old")
        for (p, d) in v1 { let u = oldCopy.appendingPathComponent(p); try FileManager.default.createDirectory(at: u.deletingLastPathComponent(), withIntermediateDirectories: true); try d.write(to: u) }

        var repriced: [String] = [], removed: [String] = [], added = ["900000001", "900000002"]
        let input2 = try realInput { lines in
            var priced = lines.indices.filter { !lines[$0].contains("\"price\": null") }
            for i in priced.prefix(10) {
                var o = try! JSONSerialization.jsonObject(with: Data(lines[i].utf8)) as! [String: Any]
                o["price"] = ((o["price"] as! NSNumber).doubleValue + 1.25)
                repriced.append(o["itemId"] as! String)
                lines[i] = String(data: try! JSONSerialization.data(withJSONObject: o, options: [.sortedKeys]), encoding: .utf8)!
            }
            priced.removeFirst(10)
            for i in priced.suffix(3).reversed() {
                removed.append((try! JSONSerialization.jsonObject(with: Data(lines[i].utf8)) as! [String: Any])["itemId"] as! String)
                lines.remove(at: i)
            }
            for id in added {
                lines.append(#"{"itemId":"\#(id)","name":"Test Cordless Drill \#(id)","description":"new","brand":"DEWALT","price":99.5,"currency":"USD","inStock":true,"imageUrl":"https://x.example/a.jpg","rating":{"average":4,"count":2},"category":"tools/drills"}"#)
            }
        }
        let r2 = try Build.run(BuildOptions(input: input2, output: out, threads: 2, epochSeconds: 1_700_086_400))
        XCTAssertEqual(r2.version, r1.version + 1)
        XCTAssertEqual(r2.currentVersion, "2023.11.15.1")
        let v2 = TestSupport.snapshot(out)
        // The two outside judges (python's jsonpatch on every patch, python-jsonschema on the tree) run meanwhile,
        // each a process of its own; their verdicts are read at the end.
        let judges = TestSupport.tempDir("rel-judges")
        func start(_ script: URL, _ args: [String], _ name: String) throws -> Process {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["python3", script.path] + args
            _ = FileManager.default.createFile(atPath: judges.appendingPathComponent(name).path, contents: nil)
            let log = try FileHandle(forWritingTo: judges.appendingPathComponent(name))
            p.standardOutput = log; p.standardError = log
            try p.run()
            return p
        }
        let patchesJudge = try start(Repository.script("check-patches.py"), [oldCopy.path, out.path], "patches")
        let distJudge = try start(Repository.script("check-tree.py"), [out.path], "dist")

        // The delta lists exactly the files whose bytes differ (release bookkeeping aside).
        let deltaJSON = try JSONReader.parse(v2["releases/2/delta-from-1.json"]!)
        func paths(_ k: String) -> Set<String> { Set(deltaJSON[k]!.arrayValue!.map { $0["path"]!.stringValue! }) }
        let content1 = v1.filter { !$0.key.hasPrefix("releases/") && $0.key != "update-manifest.json" }
        let content2 = v2.filter { !$0.key.hasPrefix("releases/") && $0.key != "update-manifest.json" }
        XCTAssertEqual(paths("added"), Set(content2.keys).subtracting(content1.keys))
        XCTAssertEqual(paths("removed"), Set(content1.keys).subtracting(content2.keys))
        XCTAssertEqual(paths("changed"), Set(content1.keys.filter { content2[$0] != nil && content2[$0] != content1[$0] }))
        for id in repriced { XCTAssertTrue(paths("changed").contains("products/\(id)/details.json"), id) }
        for id in removed { XCTAssertTrue(paths("removed").contains("products/\(id)/details.json"), id) }
        for id in added { XCTAssertTrue(paths("added").contains("products/\(id)/details.json"), id) }
        for p in ["SUMMARY.json", "categories/index.json", "app-config.json"] { XCTAssertTrue(paths("changed").contains(p), p) }
        // An untouched product's page is not in the delta.
        XCTAssertFalse(paths("changed").contains { $0.hasPrefix("products/") && !repriced.contains(String($0.split(separator: "/")[1])) })

        // Every JSON Patch applied to the old file gives the new file, byte for byte.
        var patched = 0
        for c in deltaJSON["changed"]!.arrayValue! {
            guard let patch = c["patch"] else { continue }
            let path = c["path"]!.stringValue!
            let result = try JSONPatch.apply(patch, to: try JSONReader.parse(v1[path]!))
            XCTAssertEqual(Data(try JSONWriter().bytes(result)), v2[path], path)
            patched += 1
        }
        XCTAssertGreaterThan(patched, 10)

        // The same patches through python's jsonpatch (scripts/check-patches.py).
        patchesJudge.waitUntilExit()
        let text = try String(contentsOf: judges.appendingPathComponent("patches"), encoding: .utf8)
        XCTAssertEqual(patchesJudge.terminationStatus, 0, text)
        XCTAssertTrue(text.contains("\(patched) passed, 0 failed"), text)

        // What an app does (TreeClient): release 1's files, unchanged ones kept, changed ones patched with the delta
        // (TreePatch), the rest downloaded, give release 2's files exactly.
        let manifest = try JSONReader.parse(v2["update-manifest.json"]!)
        let index = try JSONReader.parse(v2[manifest["fileIndex"]!["path"]!.stringValue!]!)
        let idx1 = try JSONReader.parse(v1["releases/1/files.json"]!)
        var had: [String: String] = [:]
        for f in idx1["files"]!.arrayValue! { had[f["path"]!.stringValue!] = f["sha256"]!.stringValue! }
        let appPatches = try TreeJSON.parse([UInt8](v2["releases/2/delta-from-1.json"]!))["changed"]?.array ?? []
        var byPatch = 0, kept = 0
        for f in index["files"]!.arrayValue! {
            let path = f["path"]!.stringValue!, sha = f["sha256"]!.stringValue!
            if had[path] == sha { XCTAssertEqual(v1[path], v2[path], path); kept += 1; continue }
            guard let c = appPatches.first(where: { $0["path"]?.string == path }), let patch = c["patch"] else { continue }
            let result = try TreePatch.apply(patch, to: TreeJSON.parse([UInt8](v1[path]!)))
            XCTAssertEqual(Data(result.bytes), v2[path], path)
            byPatch += 1
        }
        XCTAssertGreaterThan(byPatch, 10)
        XCTAssertGreaterThan(kept, 4000)

        // A third build with no input change creates no version and writes nothing.
        let r3 = try Build.run(BuildOptions(input: input2, output: out, threads: 2, epochSeconds: 1_700_200_000))
        XCTAssertFalse(r3.changed)
        XCTAssertEqual(r3.version, r2.version)
        XCTAssertEqual(TestSupport.snapshot(out), v2)

        // The manifest stays small.
        XCTAssertLessThanOrEqual(v2["update-manifest.json"]!.count, 4096)
        // The release tree passes python-jsonschema's check (hashes, index, every schema).
        distJudge.waitUntilExit()
        let judged = try String(contentsOf: judges.appendingPathComponent("dist"), encoding: .utf8)
        XCTAssertEqual(distJudge.terminationStatus, 0, String(judged.suffix(1500)))
    }

    /// The build checks its release files against their schemas before it stages them, as it does every other file.
    func testReleaseFilesAreCheckedAgainstTheirSchemas() throws {
        let out = TestSupport.tempDir("relcheck").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: TestSupport.defaultInput, output: out, threads: 2, epochSeconds: 1_700_000_000))
        let kinds = [ManifestKinds.fileIndex, ManifestKinds.delta, ManifestKinds.manifest]
        let checkers = try [OutputValidation(kinds: kinds, baseURL: "https://example.org/"),
                            OutputValidation(kinds: kinds, baseURL: "https://example.org/")]
        func file(_ path: String, _ kind: OutputKind, _ edit: (inout String) -> Void = { _ in }) throws -> ReleaseFiles.NewFile {
            var text = try String(contentsOf: out.appendingPathComponent(path), encoding: .utf8)
            edit(&text)
            let bytes = Array(text.utf8)
            return (path, bytes, Build.sha256Hex(bytes), kind)
        }
        let index = "releases/1/files.json", manifest = "update-manifest.json"
        // As built: valid.
        XCTAssertNoThrow(try Build.check([try file(index, ManifestKinds.fileIndex), try file(manifest, ManifestKinds.manifest)],
                                         checkers: checkers))
        // A manifest without forceUpdate, and an index listing a path that climbs out of the tree.
        let noForce = try file(manifest, ManifestKinds.manifest) { $0 = $0.replacingOccurrences(of: #""forceUpdate":false,"#, with: "") }
        XCTAssertThrowsError(try Build.check([try file(index, ManifestKinds.fileIndex), noForce], checkers: checkers)) { error in
            let e = error as? BuildError
            XCTAssertEqual(e?.file, manifest)
            XCTAssertTrue(e?.description.contains("forceUpdate") ?? false, "\(error)")
        }
        let climbing = try file(index, ManifestKinds.fileIndex) { $0 = $0.replacingOccurrences(of: #""path":"SUMMARY.json""#, with: #""path":"../SUMMARY.json""#) }
        XCTAssertThrowsError(try Build.check([climbing], checkers: checkers)) { error in
            let e = error as? BuildError
            XCTAssertEqual(e?.file, index)
            XCTAssertTrue(e?.field?.hasPrefix("/files/") ?? false, "\(error)")
        }
    }

    /// When the previous release's index was checked by this executable, the new one is checked by its header and the
    /// entries that index did not list as they are (new and changed files, the release files): a new entry that
    /// breaks the schema is still refused, and the part is valid whenever the whole index is.
    func testTheNewIndexIsCheckedByWhatThePreviousOneDidNotList() throws {
        let out = TestSupport.tempDir("indexpart").appendingPathComponent("dist")
        _ = try Build.run(BuildOptions(input: TestSupport.defaultInput, output: out, threads: 2, epochSeconds: 1_700_000_000))
        let previous = try XCTUnwrap(try PreviousRelease.load(from: out))
        let site = try SiteConfig.load(TestSupport.defaultInput.appendingPathComponent("site.json"), displayName: "site.json")
        let settings = ReleaseSettings(versionPattern: "YYYY.MM.DD.N", keep: 5, forceUpdate: false)
        var tree = previous.files.filter { !$0.path.hasPrefix("releases/") }
            .map { ReleaseFiles.TreeFile(path: $0.path, size: $0.size, sha256: $0.sha256, schema: $0.schema) }
        let summary = try XCTUnwrap(tree.firstIndex { $0.path == "SUMMARY.json" })
        tree[summary].sha256 = String(repeating: "a", count: 64)
        func made(_ tree: [ReleaseFiles.TreeFile], previous: PreviousRelease, checked: Bool = true,
                  digest: String = String(repeating: "b", count: 64)) throws -> ReleaseFiles.Made {
            try ReleaseFiles.make(version: 2, currentVersion: "2023.11.15.1", generatedAt: "2023-11-15T00:00:00Z", contentDigest: digest,
                                       inputDigest: String(repeating: "c", count: 64), current: ReleaseFiles.inPathOrder(tree), previous: previous,
                                       settings: settings, site: site, threads: 2, previousChecked: checked, bytes: { _ in nil })
        }
        let checkers = try [OutputValidation(kinds: [ManifestKinds.fileIndex], baseURL: "https://example.org/"),
                            OutputValidation(kinds: [ManifestKinds.fileIndex], baseURL: "https://example.org/")]
        func check(_ bytes: [UInt8]) throws { try Build.check([("releases/2/files.json", bytes, Build.sha256Hex(bytes), ManifestKinds.fileIndex)], checkers: checkers) }
        func index(_ m: ReleaseFiles.Made) throws -> [UInt8] { try XCTUnwrap(m.files.first { $0.path == "releases/2/files.json" }).bytes }
        func listed(_ bytes: [UInt8]) throws -> (header: [JSONObject.Member], paths: [String]) {
            let v = try JSONReader.parse(bytes)
            return ((v.objectValue?.members ?? []).filter { $0.key != "files" }, v["files"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? [])
        }

        // The changed summary and the release files; the same header; both valid.
        let first = try made(tree, previous: previous)
        let part = try XCTUnwrap(first.indexToCheck)
        let whole = try listed(try index(first)), checked = try listed(part)
        XCTAssertEqual(checked.header, whole.header)
        let releaseFiles = first.files.map(\.path).filter { $0.hasPrefix("releases/") && $0 != "releases/2/files.json" }
        XCTAssertEqual(Set(checked.paths), Set(["SUMMARY.json"] + releaseFiles))
        XCTAssertEqual(checked.paths, whole.paths.filter(Set(checked.paths).contains), "in the index's order")
        XCTAssertGreaterThan(whole.paths.count, checked.paths.count + 20)
        XCTAssertNoThrow(try check(try index(first)))
        XCTAssertNoThrow(try check(part))
        // A new file whose path the schema refuses (a space): refused by the part as by the whole.
        let bad = ReleaseFiles.TreeFile(path: "new file.json", size: 2, sha256: String(repeating: "d", count: 64), schema: nil)
        let second = try made(tree + [bad], previous: previous)
        XCTAssertTrue(try listed(try XCTUnwrap(second.indexToCheck)).paths.contains("new file.json"))
        XCTAssertThrowsError(try check(try index(second)))
        XCTAssertThrowsError(try check(try XCTUnwrap(second.indexToCheck)))
        // A header the schema refuses: refused by the part too.
        let third = try made(tree, previous: previous, digest: "not hex")
        XCTAssertThrowsError(try check(try index(third)))
        XCTAssertThrowsError(try check(try XCTUnwrap(third.indexToCheck)))
        // An entry the previous index listed as it is is not checked again (it was, when that index was made); one of
        // another size is.
        var before = previous
        before.files.append(FileEntry(path: bad.path, sha256: bad.sha256, size: bad.size, schema: nil))
        XCTAssertFalse(try listed(try XCTUnwrap(try made(tree + [bad], previous: before).indexToCheck)).paths.contains("new file.json"))
        var resized = bad
        resized.size = 3
        XCTAssertTrue(try listed(try XCTUnwrap(try made(tree + [resized], previous: before).indexToCheck)).paths.contains("new file.json"))
        // Without that word (no build cache of this executable): the whole index is checked.
        XCTAssertNil(try made(tree, previous: previous, checked: false).indexToCheck)
    }

    /// An older file index is carried into the next release as it was published (byte for byte, read back with the
    /// sha256 its manifest gives) and not checked again: a release's index is immutable, and checking 18 MB again on
    /// every rebuild held up the release stage. Here release 1's index has a member today's schema does not allow.
    func testAnOlderIndexIsCarriedAsPublishedWithoutCheckingItAgain() throws {
        let work = TestSupport.tempDir("carried"), input = work.appendingPathComponent("input"), out = work.appendingPathComponent("dist")
        try FileManager.default.copyItem(at: TestSupport.defaultInput, to: input)
        _ = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000))
        let indexURL = out.appendingPathComponent("releases/1/files.json"), manifestURL = out.appendingPathComponent("update-manifest.json")
        let index = try Data(contentsOf: indexURL)
        var edited = Data(#"{"publishedBy":"an earlier generator","#.utf8)
        edited.append(index.dropFirst())
        try edited.write(to: indexURL)
        var manifest = try String(contentsOf: manifestURL, encoding: .utf8)
        manifest = manifest.replacingOccurrences(of: Build.sha256Hex([UInt8](index)), with: Build.sha256Hex([UInt8](edited)))
            .replacingOccurrences(of: #""size":\#(index.count)"#, with: #""size":\#(edited.count)"#)
        try manifest.write(to: manifestURL, atomically: true, encoding: .utf8)
        // Today's schema refuses it.
        let checkers = try [OutputValidation(kinds: [ManifestKinds.fileIndex], baseURL: "https://example.org/")]
        XCTAssertThrowsError(try Build.check([("releases/1/files.json", [UInt8](edited), Build.sha256Hex([UInt8](edited)), ManifestKinds.fileIndex)],
                                             checkers: checkers))
        // Release 2 (another app version) carries it as it is.
        let site = input.appendingPathComponent("site.json")
        let siteText = try String(contentsOf: site, encoding: .utf8)
        XCTAssertTrue(siteText.contains(#""appVersion": "2.1.0""#))
        try siteText.replacingOccurrences(of: #""appVersion": "2.1.0""#, with: #""appVersion": "2.2.0""#).write(to: site, atomically: true, encoding: .utf8)
        let second = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_086_400))
        XCTAssertEqual(second.version, 2)
        XCTAssertEqual(try Data(contentsOf: indexURL), edited)
        let index2 = try JSONReader.parse(Data(contentsOf: out.appendingPathComponent("releases/2/files.json")))
        let listed = index2["files"]?.arrayValue?.first { $0["path"]?.stringValue == "releases/1/files.json" }
        XCTAssertEqual(listed?["sha256"]?.stringValue, Build.sha256Hex([UInt8](edited)))
    }

    /// Three releases, each with its own change: release 3's delta from release 1 lists exactly the files whose bytes
    /// differ between trees 1 and 3 (both changes), and its delta from release 2 only the second change's; each delta
    /// names the index it starts from by its sha256.
    func testDeltasFromOlderReleasesSpanEveryChangeSinceThem() throws {
        let work = TestSupport.tempDir("older-deltas"), input = work.appendingPathComponent("input"), out = work.appendingPathComponent("dist")
        try FileManager.default.copyItem(at: TestSupport.defaultInput, to: input)
        func edit(_ path: String, _ old: String, _ new: String) throws {
            let url = input.appendingPathComponent(path)
            let text = try String(contentsOf: url, encoding: .utf8)
            XCTAssertTrue(text.contains(old), "\(path): \(old)")
            try text.replacingOccurrences(of: old, with: new).write(to: url, atomically: true, encoding: .utf8)
        }
        var trees: [[String: Data]] = []
        for day in 0..<3 {
            if day == 1 {
                try edit("site.json", #""appVersion": "2.1.0""#, #""appVersion": "2.2.0""#)
                // And a file the price change of release 3 leaves alone, so that the two deltas differ: a price
                // changes app-config.json (its data version) and openapi.json too (its examples name the first file
                // of each kind: the price sort chunk and order file are renamed).
                try edit("catalog/products.jsonl", #""average": 4.1546, "count": 1280"#, #""average": 4.1546, "count": 1281"#)
            }
            if day == 2 { try edit("catalog/products.jsonl", #""price": 73.97"#, #""price": 71.50"#) }
            let r = try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000 + day * 86_400))
            XCTAssertEqual(r.version, day + 1)
            trees.append(TestSupport.snapshot(out).filter { !$0.key.hasPrefix("releases/") && $0.key != "update-manifest.json" })
        }
        let last = TestSupport.snapshot(out)
        // (The two deltas differ, so a delta from 1 made from release 2's list would fail.)
        func differing(_ a: [String: Data], _ b: [String: Data]) -> Set<String> { Set(Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }) }
        XCTAssertNotEqual(differing(trees[0], trees[2]), differing(trees[1], trees[2]))
        for from in [1, 2] {
            let (a, b) = (trees[from - 1], trees[2])
            let delta = try JSONReader.parse(XCTUnwrap(last["releases/3/delta-from-\(from).json"], "delta from \(from)"))
            func paths(_ k: String) -> Set<String> { Set((delta[k]?.arrayValue ?? []).compactMap { $0["path"]?.stringValue }) }
            XCTAssertEqual(paths("added"), Set(b.keys).subtracting(a.keys), "from \(from)")
            XCTAssertEqual(paths("removed"), Set(a.keys).subtracting(b.keys), "from \(from)")
            XCTAssertEqual(paths("changed"), Set(a.keys.filter { b[$0] != nil && b[$0] != a[$0] }), "from \(from)")
            XCTAssertTrue(paths("changed").contains("products/300179/details.json"), "from \(from)")
        }
    }

    /// The previous release's entries by path: the first of two with one path; paths told apart by their bytes (a
    /// file's name on disk), so two spellings of "é" are two paths.
    func testEntriesByPath() {
        func entry(_ path: String, _ sha: String) -> FileEntry { FileEntry(path: path, sha256: sha, size: 1, schema: nil) }
        let files = [entry("a.json", "1"), entry("products/p1/details.json", "2"), entry("a.json", "3"), entry("caf\u{E9}.json", "4"),
                     entry("cafe\u{301}.json", "5")] + (0..<1000).map { entry("products/x\($0)/details.json", "\($0)") }
        let index = PreviousRelease.EntryIndex(files)
        XCTAssertEqual(index["a.json"]?.sha256, "1")
        XCTAssertEqual(index["products/p1/details.json"]?.sha256, "2")
        XCTAssertEqual(index["caf\u{E9}.json"]?.sha256, "4")
        XCTAssertEqual(index["cafe\u{301}.json"]?.sha256, "5")
        XCTAssertNil(index["b.json"]); XCTAssertNil(index["products/p1"]); XCTAssertNil(index[""])
        for k in [0, 517, 999] { XCTAssertEqual(index["products/x\(k)/details.json"]?.sha256, "\(k)") }
    }

    /// A large file whose new version copied every fragment but a few, its last one (a seed index's maps) included,
    /// is a small change (its diff is not held back behind another large one); maps made anew, or many entries
    /// changed, are not.
    func testSmallChangeIsToldByTheCopiedFragments() {
        let ranges = (0..<1000).map { ($0 * 10)..<($0 * 10 + 9) }
        func layout(copied: [Int]) -> ReleaseFiles.Fragments {
            var f = ReleaseFiles.Fragments(oldSha256: "x", old: ranges, new: ranges)
            f.same = copied.map { (ranges[$0], ranges[$0]) }
            return f
        }
        XCTAssertTrue(layout(copied: Array(0..<1000)).isSmallChange)
        XCTAssertTrue(layout(copied: Array(0..<1000).filter { $0 % 100 != 7 }).isSmallChange)
        XCTAssertFalse(layout(copied: Array(0..<999)).isSmallChange, "the maps were made anew")
        XCTAssertFalse(layout(copied: Array(300..<1000)).isSmallChange, "300 entries changed")
        XCTAssertFalse(ReleaseFiles.Fragments(oldSha256: "x", old: [], new: []).isSmallChange)
    }
}
