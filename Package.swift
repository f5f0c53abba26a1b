// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "StaticJSONCompiler",
    // iOS for apps using TreeClient (its async API needs iOS 13; 15 is what apps target today).
    platforms: [.macOS(.v13), .iOS(.v15)],
    products: [
        .executable(name: "generator", targets: ["GeneratorCLI"]),
        .library(name: "Generator", targets: ["Generator"]),
        .library(name: "Schemas", targets: ["Schemas"]),
        .library(name: "Indexer", targets: ["Indexer"]),
        // For apps: keeps a local copy of a published tree in sync (Foundation and swift-crypto only).
        .library(name: "TreeClient", targets: ["TreeClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // Sockets of `generator serve` only (its FlyingSocks library; see the Preview server article): pure Swift.
        .package(url: "https://github.com/swhitty/FlyingFox", .upToNextMinor(from: "0.27.1")),
        // Documentation only (`swift package generate-documentation`): the libraries' DocC catalogs and their snippets.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // System zlib (Debian: zlib1g-dev) for gzip sizes in reports and benchmarks.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // The few lines of unsafe Swift the libraries share (a lock, an atomic swap of two paths, folder listing),
        // behind safe APIs.
        .target(name: "LowLevel", dependencies: [.target(name: "CCurlShim", condition: .when(platforms: [.linux]))]),
        .target(name: "Schemas", dependencies: ["LowLevel"], resources: [.copy("MetaSchemas")]),
        .target(name: "Indexer", dependencies: ["Schemas"]),
        // libcurl's easy interface loaded at run time (wrapped by LowLevel's CurlEasy): TreeClient's transport on Linux,
        // where URLSession can neither stop a flooding transfer nor wait on a slow one without spinning (see
        // HTTPFetcher+Curl.swift).
        .target(name: "CCurlShim"),
        .target(name: "TreeClient", dependencies: [
            "LowLevel", .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .target(name: "Generator", dependencies: [
            "Schemas", "Indexer", "CZlib", "TreeClient", "LowLevel",
            .product(name: "Crypto", package: "swift-crypto"),
        ], resources: [
            // The browser search module and page published beside each ranked index (see Generator/Web).
            .copy("Web/search.js"), .copy("Web/search.html"), .copy("Web/flags.js"),
        ]),
        // `generator serve`: kept out of Generator and TreeClient, so neither they nor apps get the HTTP server.
        .target(name: "PreviewServer", dependencies: [
            "Generator", "TreeClient", "LowLevel", .product(name: "FlyingSocks", package: "FlyingFox"),
        ]),
        .executableTarget(name: "GeneratorCLI", dependencies: [
            "Generator", "Indexer", "Schemas", "TreeClient", "PreviewServer", "LowLevel",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The repository's test data (Tests/Data) and the outside tools tests need: a missing tool skips its test
        // with the command that installs it, or fails it under REQUIRE_TOOLS=1 (scripts/test).
        .target(name: "TestTools", path: "Tests/TestTools"),
        .testTarget(name: "SchemasTests", dependencies: ["Schemas", "TestTools"]),
        .testTarget(name: "IndexerTests", dependencies: ["Indexer", "Schemas", "TestTools"]),
        // Runs scripts/fault-server.py for the tests that download trees over real HTTP.
        .target(name: "FaultServerSupport", dependencies: ["TreeClient", "TestTools"], path: "Tests/FaultServerSupport"),
        .testTarget(name: "GeneratorTests", dependencies: ["Generator", "Schemas", "Indexer", "TreeClient", "LowLevel", "FaultServerSupport", "TestTools"]),
        .testTarget(name: "TreeClientTests", dependencies: ["TreeClient", "LowLevel", "FaultServerSupport", "TestTools"]),
        .testTarget(name: "PreviewServerTests", dependencies: ["PreviewServer", "Generator", "TreeClient", "CZlib", "TestTools"]),
    ]
)
