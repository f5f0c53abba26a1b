import Foundation
import Schemas
import Crypto

/// `generator validate DIST`: what an app or CI can check on a published tree — the manifest contract, every file
/// of the file index present with its size and SHA-256, no file outside the index, and every JSON file valid
/// against the schema the index names (the tree's own `schemas/`, registered by their `$id`).
public enum TreeValidation {
    public struct Report: Sendable {
        public var checked = 0
        public var problems: [(path: String, message: String)] = []
        public var isValid: Bool { problems.isEmpty }

        public func json() -> JSON {
            .obj(["valid": .bool(isValid), "filesChecked": .int(checked),
                  "problems": .array(problems.map { .obj(["path": .string($0.path), "message": .string($0.message)]) })])
        }
    }

    public struct UsageError: Error, CustomStringConvertible { public let description: String }

    public static func check(_ root: URL, threads: Int = ProcessInfo.processInfo.activeProcessorCount) throws -> Report {
        var run = try Run(root)
        guard let index = run.checkManifest() else { return run.report }
        let listed = run.checkListing(index)
        let schemas = run.compileSchemas(for: listed, workers: max(1, threads))
        run.checkFiles(listed, schemas, threads: threads)
        return run.report
    }

    static func hex(_ bytes: [UInt8]) -> String { Build.sha256Hex(bytes) }
}
