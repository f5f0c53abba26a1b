import XCTest
import Foundation
@testable import Generator

/// Two builds into the same output: a file whose bytes did not change is the previous file itself (hard-linked:
/// same inode), a changed one is new, and nothing the second build no longer makes is left behind — a removed
/// file, a folder emptied, the files of a renamed kind.
final class TreeReuseTests: XCTestCase {
    static let categories = #"{"categories":[{"id":"tools","name":"Tools","parent":null},{"id":"tools/drills","name":"Drills","parent":"tools"},{"id":"tools/saws","name":"Saws","parent":"tools"}]}"#
    static let collection = #"{"sources": ["collections/data/p.csv"], "id": "sku", "fields": {"sku": {"type": "string"}}}"#

    /// An input with products (id, price, category), a collection named `collection` with the given skus.
    func input(_ products: [(String, String, String)], collection: String = "p", skus: [String] = ["a", "b"]) -> URL {
        let lines = products.map { TestSupport.productLine($0.0, price: $0.1, name: "Cordless Drill \($0.0)", category: $0.2) }
        return TestSupport.makeInput(files: [
            "catalog/products.jsonl": lines.joined(separator: "\n") + "\n",
            "catalog/categories.json": Self.categories,
            "collections/\(collection).json": Self.collection,
            "collections/data/p.csv": (["sku"] + skus).joined(separator: "\n") + "\n",
        ])
    }

    static let three = [("p1", "19.99", "tools/drills"), ("p2", "29.99", "tools/drills"), ("p3", "39.99", "tools/saws")]

    func build(_ input: URL, _ out: URL, day: Int) throws -> BuildSummary {
        try Build.run(BuildOptions(input: input, output: out, threads: 2, epochSeconds: 1_700_000_000 + day * 86_400))
    }

    func inode(_ url: URL) -> UInt64? {
        var st = stat()
        return lstat(url.path, &st) == 0 ? UInt64(st.st_ino) : nil
    }

    /// Relative path → inode of every regular file.
    func inodes(_ root: URL) -> [String: UInt64] {
        TestSupport.snapshot(root).keys.reduce(into: [:]) { $0[$1] = inode(root.appendingPathComponent($1)) }
    }

    /// Folders of the tree with nothing in them.
    func emptyFolders(_ root: URL) -> [String] {
        var out: [String] = []
        let e = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey])!
        for case let url as URL in e where (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
            if (try? FileManager.default.contentsOfDirectory(atPath: url.path))?.isEmpty == true { out.append(url.path) }
        }
        return out
    }

    func testUnchangedFilesAreTheSameInodeChangedOnesAreNew() throws {
        let out = TestSupport.tempDir("reuse").appendingPathComponent("dist")
        _ = try build(input(Self.three), out, day: 0)
        let before = inodes(out), bytes1 = TestSupport.snapshot(out)
        var changed = Self.three
        changed[0].1 = "17.49"
        let s = try build(input(changed), out, day: 1)
        XCTAssertTrue(s.changed)
        let after = inodes(out), bytes2 = TestSupport.snapshot(out)
        // The changed product's page is new; an untouched product's page is the very same file.
        XCTAssertNotEqual(bytes1["products/p1/details.json"], bytes2["products/p1/details.json"])
        XCTAssertNotEqual(before["products/p1/details.json"], after["products/p1/details.json"])
        XCTAssertEqual(bytes1["products/p2/details.json"], bytes2["products/p2/details.json"])
        XCTAssertEqual(before["products/p2/details.json"], after["products/p2/details.json"])
        // Every file whose bytes did not change is linked (release 1's own files too: they are kept), no changed one is.
        var same: [String] = [], relinked: [String] = [], notLinked: [String] = []
        for (path, data) in bytes2 where bytes1[path] != nil {
            if bytes1[path] == data {
                if before[path] == after[path] { same.append(path) } else { notLinked.append(path) }
            } else if before[path] == after[path] { relinked.append(path) }
        }
        XCTAssertEqual(notLinked.sorted(), [], "unchanged files that were rewritten instead of linked")
        XCTAssertEqual(relinked.sorted(), [], "changed files that kept the old inode")
        XCTAssertGreaterThan(same.count, 20)
        XCTAssertEqual(s.linked, same.count)
        // The old tree is gone: a linked file has one link (the new tree's).
        let attrs = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("products/p2/details.json").path)
        XCTAssertEqual((attrs[.referenceCount] as? NSNumber)?.intValue, 1)
    }

    func testARemovedProductLeavesNeitherFileNorFolder() throws {
        let out = TestSupport.tempDir("stale").appendingPathComponent("dist")
        _ = try build(input(Self.three), out, day: 0)
        XCTAssertNotNil(TestSupport.snapshot(out)["products/p3/details.json"])
        let s = try build(input(Array(Self.three.prefix(2)), skus: ["a"]), out, day: 1)
        let tree = TestSupport.snapshot(out)
        XCTAssertNil(tree["products/p3/details.json"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("products/p3").path))
        XCTAssertNil(tree["collections/p/items/b.json"])
        XCTAssertNotNil(tree["collections/p/items/a.json"])
        XCTAssertEqual(emptyFolders(out), [])
        XCTAssertGreaterThanOrEqual(s.removed, 2)
        // The delta of release 2 lists them as removed.
        let delta = try XCTUnwrap(try JSONSerialization.jsonObject(with: XCTUnwrap(tree["releases/2/delta-from-1.json"])) as? [String: Any])
        let removed = Set((delta["removed"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String })
        XCTAssertTrue(removed.isSuperset(of: ["products/p3/details.json", "collections/p/items/b.json"]), "\(removed)")
    }

    /// A collection whose every item is gone: its items folder goes too (no empty folder stays behind).
    func testAnEmptiedFolderIsRemoved() throws {
        let out = TestSupport.tempDir("emptied").appendingPathComponent("dist")
        _ = try build(input(Self.three), out, day: 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("collections/p/items").path))
        _ = try build(input(Self.three, skus: []), out, day: 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("collections/p/items").path))
        XCTAssertNotNil(TestSupport.snapshot(out)["collections/p/page-1.json"])     // an empty collection still has page 1
        XCTAssertEqual(emptyFolders(out), [])
    }

    /// A collection renamed (p → q): its files and its kinds' schemas under the old name are gone.
    func testARenamedKindLeavesNothingOfTheOldName() throws {
        let out = TestSupport.tempDir("renamed").appendingPathComponent("dist")
        _ = try build(input(Self.three), out, day: 0)
        let first = TestSupport.snapshot(out)
        XCTAssertNotNil(first["schemas/collection-p-item.schema.json"])
        _ = try build(input(Self.three, collection: "q"), out, day: 1)
        let tree = TestSupport.snapshot(out)
        let old = tree.keys.filter { $0.hasPrefix("collections/p/") || $0.hasPrefix("schemas/collection-p-") }
        XCTAssertEqual(old.sorted(), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("collections/p").path))
        XCTAssertNotNil(tree["collections/q/items/a.json"])
        XCTAssertNotNil(tree["schemas/collection-q-item.schema.json"])
        // The same bytes under the new name (reuse is by path, so this file is written anew; the old path is gone).
        XCTAssertEqual(tree["collections/q/items/a.json"], first["collections/p/items/a.json"])
        XCTAssertEqual(emptyFolders(out), [])
    }
}
