import Foundation
import XCTest
@testable import Generator
import Schemas

/// Two releases of the default input, built once per test process for the tests of the release loop: release 1, and
/// release 2 after a price change, a product removed, one added and a collection item edited (built on release 1's
/// folder: the reference a build from the live site must reproduce).
enum ReleaseLoop {
    static let epoch1 = 1_700_000_000, epoch2 = 1_700_086_400
    static let env1 = ["SOURCE_DATE_EPOCH": String(epoch1)], env2 = ["SOURCE_DATE_EPOCH": String(epoch2)]

    /// A copy of `TestSupport.defaultInput`.
    static let input1: URL = {
        let dir = TestSupport.tempDir("loop-input1")
        try! FileManager.default.removeItem(at: dir)
        try! FileManager.default.copyItem(at: TestSupport.defaultInput, to: dir)
        return dir
    }()

    static let changedPrice = "300179", removedProduct = "300249", addedProduct = "999001", editedSchool = 2501

    /// input1 with the four edits.
    static let input2: URL = {
        let dir = TestSupport.tempDir("loop-input2")
        try! FileManager.default.removeItem(at: dir)
        try! FileManager.default.copyItem(at: input1, to: dir)
        try! edit(dir.appendingPathComponent("catalog/products.jsonl")) { lines in
            var template: [String: Any] = [:]
            lines = lines.compactMap { line in
                var o = try! JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
                if o["id"] as? String == removedProduct { template = o; return nil }
                if o["id"] as? String == changedPrice { o["price"] = 74.97; return json(o) }
                return line
            }
            template["id"] = addedProduct
            template["name"] = "Test Drill \(addedProduct)"
            lines.append(json(template))
        }
        try! edit(dir.appendingPathComponent("collections/data/schools.jsonl")) { lines in
            for (i, line) in lines.enumerated() {
                var o = try! JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
                if (o["id"] as? Int) == editedSchool { o["name"] = "Adams Middle School (renamed)"; lines[i] = json(o) }
            }
        }
        return dir
    }()

    static func json(_ o: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: o, options: [.sortedKeys]), as: UTF8.self)
    }

    static func edit(_ url: URL, _ change: (inout [String]) -> Void) throws {
        var lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
        let before = lines
        change(&lines)
        precondition(lines != before, "\(url.path): the edit changed nothing")
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
    }

    /// Built by the CLI, like every build these tests compare with (the file index records a digest of the executable).
    static let release1: URL = build(input1, env: env1)

    /// Release 2 built on release 1's folder.
    static let release2: URL = build(input2, env: env2, ["--previous", release1.path])

    static func build(_ input: URL, env: [String: String], _ extra: [String] = []) -> URL {
        let out = TestSupport.tempDir("loop-release").appendingPathComponent("site")
        let r = try! TestSupport.runCLI(["build", "--input", input.path, "--out", out.path, "--threads", "2"] + extra, env: env)
        precondition(r.status == 0, r.output)
        return out
    }

    /// Files of release 2 a sync from release 1 downloads whole (added, or changed without a patch): where a fault
    /// must hit a sync.
    static let wholeDownloads: [String] = {
        let delta = try! JSONReader.parse(Data(contentsOf: release2.appendingPathComponent("releases/2/delta-from-1.json")))
        let added = delta["added"]!.arrayValue!.map { $0["path"]!.stringValue! }
        let unpatched = delta["changed"]!.arrayValue!.filter { $0["patch"] == nil }.map { $0["path"]!.stringValue! }
        return (added + unpatched).sorted()
    }()

    /// A copy of `tree` at a new path (a local copy or an output folder to start from).
    static func copy(_ tree: URL, _ name: String) -> URL {
        let to = TestSupport.tempDir(name).appendingPathComponent("tree")
        try! FileManager.default.copyItem(at: tree, to: to)
        return to
    }

    /// Staging folders, locks or anything else left beside `folder`.
    static func leftovers(beside folder: URL) -> [String] {
        let name = folder.lastPathComponent
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.deletingLastPathComponent().path)) ?? [])
            .filter { $0.hasPrefix(".\(name).") && $0 != ".\(name).sync-state.json" }
    }

    /// `scripts/check-tree.py tree`: its last line.
    static func checkTree(_ tree: URL) throws -> String {
        let r = try TestSupport.checkTree(tree)
        return r.output.split(separator: "\n").last.map(String.init) ?? r.output
    }

    /// The paths whose bytes differ between two trees (present in one only, or different), for short failure messages.
    static func differences(_ a: URL, _ b: URL) -> [String] {
        differences(TestSupport.snapshot(a), TestSupport.snapshot(b))
    }

    static func differences(_ x: [String: Data], _ y: [String: Data]) -> [String] {
        Set(x.keys).union(y.keys).filter { x[$0] != y[$0] }.sorted()
    }
}
