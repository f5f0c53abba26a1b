import XCTest
import Foundation
@testable import TreeClient
import TestTools

/// How the sync reads and writes the files of a local copy.
final class LocalCopyTests: XCTestCase {
    var work: URL!

    override func setUpWithError() throws { work = scratchFolder("local-copy") }
    override func tearDown() { try? FileManager.default.removeItem(at: work) }

    /// A file comes back whole whatever size the caller expected: the size fstat gave, a file that grew since (more
    /// than one read after the first), one that shrank, an empty one.
    func testReadAllReadsTheWholeFileWhateverTheHint() throws {
        let big = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let url = work.appendingPathComponent("file")
        for (bytes, hints) in [(big, [big.count, 0, 1, 4096, big.count - 1, big.count + 10]), ([UInt8](), [0, 5]), ([7], [0, 1, 2])] {
            try Data(bytes).write(to: url)
            for hint in hints {
                let fd = open(url.path, O_RDONLY)
                XCTAssertGreaterThanOrEqual(fd, 0)
                defer { close(fd) }
                XCTAssertEqual(LocalCopy.readAll(fd, sizeHint: hint), bytes, "\(bytes.count) bytes, hint \(hint)")
            }
        }
        XCTAssertNil(LocalCopy.readAll(-1, sizeHint: 10), "a read error")
    }

    /// Staged files hold their bytes exactly, an empty one included; an existing file is never written over.
    func testStagingWritesNewFilesOnly() throws {
        let copy = LocalCopy(work.appendingPathComponent("copy"))
        let staging = try LocalCopy.Staging(beside: copy)
        defer { staging.discard() }
        let big = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try staging.write("a/b/big.bin", big)
        try staging.write("empty.json", [])
        XCTAssertEqual(try Data(contentsOf: staging.tree.appendingPathComponent("a/b/big.bin")), Data(big))
        XCTAssertEqual(try Data(contentsOf: staging.tree.appendingPathComponent("empty.json")), Data())
        XCTAssertThrowsError(try staging.write("empty.json", [1])) { e in
            XCTAssertEqual((e as? SyncError)?.kind, .localFailure)
            XCTAssertTrue("\(e)".hasPrefix("cannot write empty.json in "), "\(e)")
        }
    }
}
