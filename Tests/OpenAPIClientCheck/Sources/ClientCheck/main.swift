// Usage: ClientCheck SERVER_URL TREE_DIR
// Reads a served tree the way an app with a generated client would (manifest → file index → files) and checks that
// every decoded response, encoded again, equals the file in the tree. Prints "N passed, M failed" last; exit 1 on a failure.
import Foundation
import OpenAPIRuntime
import OpenAPIURLSession

let args = CommandLine.arguments
guard args.count == 3, let server = URL(string: args[1]) else {
    FileHandle.standardError.write(Data("usage: ClientCheck SERVER_URL TREE_DIR\n".utf8))
    exit(2)
}
let tree = URL(fileURLWithPath: args[2])
let client = Client(serverURL: server, transport: URLSessionTransport())
var passed = 0, failed = 0

/// JSON without null members: the generated types leave an absent optional out, where our files write null.
func normalized(_ value: Any) -> Any {
    if let o = value as? [String: Any] { return o.filter { !($0.value is NSNull) }.mapValues(normalized) }
    if let a = value as? [Any] { return a.map(normalized) }
    return value
}

/// The decoded value, encoded again, against the file's JSON.
func check<T: Encodable>(_ name: String, _ path: String, _ decoded: T) {
    do {
        let file = try JSONSerialization.jsonObject(with: Data(contentsOf: tree.appendingPathComponent(path)))
        let again = try JSONSerialization.jsonObject(with: JSONEncoder().encode(decoded))
        if NSDictionary(dictionary: ["v": normalized(file)]).isEqual(to: ["v": normalized(again)]) {
            passed += 1
            print("ok   \(name): \(path)")
        } else {
            failed += 1
            print("FAIL \(name): \(path): the decoded value differs from the file")
        }
    } catch {
        failed += 1
        print("FAIL \(name): \(path): \(error)")
    }
}

func fail(_ name: String, _ error: Any) {
    failed += 1
    print("FAIL \(name): \(error)")
}

do {
    let manifest = try await client.getUpdateManifest().ok.body.json
    check("update manifest", "update-manifest.json", manifest)
    let index = try await client.getFileIndex(path: .init(version: String(manifest.version))).ok.body.json
    check("file index", "releases/\(manifest.version)/files.json", index)
    let paths = index.files.map(\.path)
    func first(_ prefix: String, _ suffix: String, depth: Int) -> String? {
        paths.filter { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) && $0.split(separator: "/").count == depth }.sorted().first
    }
    func middle(_ path: String, _ prefix: String, _ suffix: String) -> String {
        String(path.dropFirst(prefix.count).dropLast(suffix.count))
    }

    check("app-config", "app-config.json", try await client.getAppConfig().ok.body.json)

    if let p = first("products/", "/details.json", depth: 3) {
        let id = middle(p, "products/", "/details.json")
        check("product detail", p, try await client.getProductDetails(path: .init(productId: id)).ok.body.json)
    } else { fail("product detail", "no product in the file index") }

    if let p = paths.filter({ $0.hasPrefix("categories/") && $0.split(separator: "/").count == 2 && $0 != "categories/index.json" }).sorted().first {
        let id = middle(p, "categories/", ".json")
        check("category page", p, try await client.getCategoryPage(path: .init(categoryId: id)).ok.body.json)
    } else { fail("category page", "no top-level category page in the file index") }

    if let p = first("auctions/properties/", ".json", depth: 3) {
        let id = middle(p, "auctions/properties/", ".json")
        check("auction property", p, try await client.getAuctionProperty(path: .init(parcelId: id)).ok.body.json)
    } else { fail("auction property", "no auction property in the file index") }

    // The latest totals snapshot: latest.json, as the app reads it (else the newest dated file).
    if let p = paths.contains("nba/totals/latest.json") ? "nba/totals/latest.json"
        : paths.filter({ $0.hasPrefix("nba/totals/20") && $0.hasSuffix(".json") }).sorted().last {
        let date = middle(p, "nba/totals/", ".json")
        check("latest NBA totals", p, try await client.getNbaTotals(path: .init(date: date)).ok.body.json)
    } else { fail("latest NBA totals", "no totals snapshot in the file index") }

    if paths.contains("collections/listings/page-1.json") {
        check("collection page", "collections/listings/page-1.json", try await client.getCollectionListingsPage(path: .init(n: "1")).ok.body.json)
    } else { fail("collection page", "collections/listings/page-1.json is not in the file index") }

    // A path the tree does not have is the documented 404.
    switch try await client.getProductDetails(path: .init(productId: "no-such-product")) {
    case .notFound: passed += 1; print("ok   missing product: 404")
    default: fail("missing product", "expected the documented 404")
    }
} catch {
    fail("client", error)
}
print("\(passed) passed, \(failed) failed")
exit(failed == 0 ? 0 : 1)
