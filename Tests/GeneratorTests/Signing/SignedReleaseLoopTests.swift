import XCTest
import Foundation
import TreeClient
import FaultServerSupport

/// The signed release loop with the command line alone, as a publisher and an app run it: keys, a root, a signed
/// build, a sync that pins the root, the next release built on the live site, and `generator verify` on the folder
/// and on the published site (a real HTTP server on 127.0.0.1).
final class SignedReleaseLoopTests: XCTestCase {
    func cli(_ args: [String], env: [String: String] = [:]) throws -> (status: Int32, output: String) {
        try TestSupport.runCLI(args, env: env)
    }

    func testSignedLoopWithTheCommandLine() throws {
        let work = TestSupport.tempDir("signed-loop")
        let input = work.appendingPathComponent("input"), keys = work.appendingPathComponent("keys")
        try FileManager.default.copyItem(at: TestSupport.defaultInput, to: input)
        let now = Int(Date().timeIntervalSince1970)
        XCTAssertEqual(try cli(["keys", "generate", "--out", keys.path]).status, 0)
        let key = keys.appendingPathComponent("signing-key").path, pub = keys.appendingPathComponent("signing-key.pub").path
        let rotated = try cli(["keys", "rotate", "--roots", input.appendingPathComponent("roots").path, "--key", pub, "--sign", key])
        XCTAssertEqual(rotated.status, 0, rotated.output)
        XCTAssertTrue(rotated.output.contains("root 1, 1 key(s), threshold 1"), rotated.output)
        let pinned = input.appendingPathComponent("roots/1.root.json").path

        // Release 1, signed with the key file.
        let dist1 = work.appendingPathComponent("site1/dist")
        let first = try cli(["build", "--input", input.path, "--out", dist1.path, "--signing-key", key], env: ["SOURCE_DATE_EPOCH": "\(now - 3_600)"])
        XCTAssertEqual(first.status, 0, first.output)
        let verified = try cli(["verify", dist1.path, "--root", pinned])
        XCTAssertEqual(verified.status, 0, verified.output)
        XCTAssertTrue(verified.output.contains("version 1"), verified.output)
        let server = try FaultServer(root: dist1)
        defer { server.stop() }
        let url = server.base.absoluteString
        let copy = work.appendingPathComponent("app/copy")
        let synced = try cli(["sync", url, copy.path, "--root", pinned])
        XCTAssertEqual(synced.status, 0, synced.output)
        XCTAssertTrue(synced.output.contains("signed under root 1"), synced.output)

        // Release 2 on the live site alone, the key from the environment (as CI passes a secret).
        try SignedTrees.edit(input.appendingPathComponent("catalog/products.jsonl"), #""price": 73.97"#, #""price": 72.00"#)
        let dist2 = work.appendingPathComponent("site2/dist")
        let keyText = try String(contentsOfFile: key, encoding: .utf8)
        let second = try cli(["build", "--input", input.path, "--out", dist2.path, "--previous", url],
                             env: ["SOURCE_DATE_EPOCH": "\(now)", "GENERATOR_SIGNING_KEY": keyText])
        XCTAssertEqual(second.status, 0, second.output)
        XCTAssertTrue(second.output.contains("previous release: version 1"), second.output)
        try server.serve(dist2)
        let published = try cli(["verify", url, "--root", pinned])
        XCTAssertEqual(published.status, 0, published.output)
        XCTAssertTrue(published.output.contains("version 2"), published.output)
        let next = try cli(["sync", url, copy.path, "--root", pinned])
        XCTAssertEqual(next.status, 0, next.output)
        XCTAssertTrue(next.output.contains("version 1 → version 2"), next.output)
        XCTAssertEqual(TestSupport.snapshot(copy), TestSupport.snapshot(dist2))

        // A page changed on the host: verify names it and fails, on the folder and on the site.
        let page = dist2.appendingPathComponent("products/300179/details.json")
        try Data("{}".utf8).write(to: page)
        let tampered = try cli(["verify", dist2.path, "--root", pinned])
        XCTAssertEqual(tampered.status, 1, tampered.output)
        XCTAssertTrue(tampered.output.contains("products/300179/details.json: its bytes differ"), tampered.output)
        XCTAssertEqual(try cli(["verify", url, "--root", pinned]).status, 1)

        // A key is never read from inside the input folder; a root is required with a key, and a key with roots.
        try FileManager.default.copyItem(atPath: key, toPath: input.appendingPathComponent("leaked-key").path)
        let inside = try cli(["build", "--input", input.path, "--out", work.appendingPathComponent("x/dist").path,
                              "--signing-key", input.appendingPathComponent("leaked-key").path])
        XCTAssertEqual(inside.status, 2, inside.output)
        XCTAssertTrue(inside.output.contains("never read from inside"), inside.output)
        try FileManager.default.removeItem(at: input.appendingPathComponent("leaked-key"))
        let keyless = try cli(["build", "--input", input.path, "--out", work.appendingPathComponent("y/dist").path])
        XCTAssertEqual(keyless.status, 1, keyless.output)
        XCTAssertTrue(keyless.output.contains("no signing key was given"), keyless.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("y/dist").path))
    }
}
