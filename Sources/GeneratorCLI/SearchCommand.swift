import ArgumentParser
import Foundation
import Generator

struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Query a built tree as an app would, and show what the app downloads for it.",
        discussion: """
        full and compact use the design document's exact keyword lookup (lowercase, split on spaces, union); \
        ranked uses the sharded BM25 index under search/ with prefix matching on the last word and one-typo \
        tolerance. Reads only regular files inside the tree. Exit codes: 0 done (with or without results), 2 error (including \
        an index file that is a symlink or special file, or a path in the index that leaves the tree).
        """)

    @Argument(help: "A built tree (e.g. dist).") var dist: String
    @Argument(help: "The query, as a user would type it.") var query: String
    @Option(help: "Number of results to show.") var limit: Int = 10
    @Option(help: "Which index to use: full, compact or ranked.") var index: TreeSearch.IndexKind = .ranked

    func run() throws {
        let outcome: TreeSearch.Outcome
        do { outcome = try TreeSearch.run(dist: OutputGuard.fileURL(dist), query: query, index: index, limit: max(1, limit)) } catch {
            // E.g. an index file that is a symlink or FIFO (never opened) or a shard path that leaves the tree.
            FileHandle.standardError.write(Data("error: \(TreeReader.terminalSafe("\(error)"))\n".utf8))
            throw ExitCode(2)
        }
        print("\(outcome.total) result(s) for \"\(query)\" in the \(index.rawValue) index")
        for (i, h) in outcome.hits.enumerated() {
            let score = h.score.map { String(format: "  [%.1f]", $0) } ?? ""
            // Names and ids come from the tree: control characters escaped.
            print(TreeReader.terminalSafe(String(format: "%3d. ", i + 1) + "\(h.name) — \(h.brand), \(h.price) (\(h.id))\(score)"))
        }
        print("downloaded: \(outcome.files.count) file(s), \(outcome.bytes) bytes (\(outcome.gzipBytes) gzip)")
        for f in outcome.files { print("  \(f.path)  \(f.bytes) B, \(f.gzip) B gzip") }
    }
}

extension TreeSearch.IndexKind: ExpressibleByArgument {}
