import Foundation

/// The repository the tests run in, and the data they read from it.
public enum Repository {
    /// The repository's root folder (this file is Tests/TestTools/Repository.swift).
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Tests/Data`: the real datasets and community test suites the tests read, each folder with its provenance
    /// (see `Tests/Data/README.md`).
    public static let testData = root.appendingPathComponent("Tests/Data")

    /// A file or folder of `Tests/Data`, e.g. `testData("catalog/products.jsonl")`.
    public static func testData(_ path: String) -> URL { testData.appendingPathComponent(path) }

    /// `scripts/NAME`.
    public static func script(_ name: String) -> URL { root.appendingPathComponent("scripts/\(name)") }
}
