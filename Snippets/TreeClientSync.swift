// TreeClient: keep a local copy of a published tree up to date, as an app does: the delta when it is smaller, every
// file checked against its sha256, the copy replaced whole only when the new release is complete.
// Run it: swift run TreeClientSync https://example.github.io/orange-catalog/ ./copy
import Foundation
import TreeClient

let arguments = CommandLine.arguments
guard arguments.count == 3, let site = URL(string: arguments[1]) else {
    print("usage: TreeClientSync SITE-URL FOLDER")
    exit(2)
}

// snippet.show
let sync = TreeSync(site: site, directory: URL(fileURLWithPath: arguments[2]),
                    configuration: HTTPFetcher.Configuration(timeout: 10, retries: 2))
do {
    let report = try sync.run(progress: nil)
    print(report.summary)
    // The copy is a release, whole: read its files as usual, e.g. FOLDER/categories/index.json.
} catch {
    // The previous copy is intact and usable; try again later.
    print("not synced: \(error)")
    exit(1)
}
// snippet.end
