import Foundation

/// The browser side of a ranked index: `search.js` (a dependency-free ES module, the port of `Indexer/Query.swift`
/// and its extensions: words, filters, facets, sorts) and `index.html` (a search page using it: results as you type,
/// facet chips, a range control and a sort menu when the index has fields), published in the index's folder (`search/`, and each collection's
/// `collections/{name}/search/`). Both come from the templates beside this file (package resources). The module is
/// the same bytes in every folder of every tree (it finds its files from its own URL); the page differs only by
/// its title.
enum WebSearch {
    static func scriptAsset(folder: String, name: String) -> AssetKind {
        AssetKind(name: "\(name)-script", pathTemplate: "\(folder)/search.js", mediaType: "text/javascript; charset=utf-8",
                  summary: "Ranked search in the browser: an ES module exporting search(query, {limit, offset, filters, sort, facets}), the same results, totals and facet counts as the reference client, downloading only what a request needs.")
    }

    static func pageAsset(folder: String, name: String) -> AssetKind {
        AssetKind(name: "\(name)-page", pathTemplate: "\(folder)/index.html", mediaType: "text/html; charset=utf-8",
                  summary: "A search page over this index: results as you type, facet filters and sorts when the index has them, keyboard and phone friendly, nothing loaded from outside the tree.")
    }

    /// The two files of the index in `folder` (`name`: the asset kinds' prefix, e.g. `search` or
    /// `collection-listings-search`).
    static func files(folder: String, name: String, title: String) throws -> [OutputFile] {
        [OutputFile(path: "\(folder)/search.js", bytes: try template("search", "js"), asset: scriptAsset(folder: folder, name: name)),
         OutputFile(path: "\(folder)/index.html", bytes: try page(title: title), asset: pageAsset(folder: folder, name: name))]
    }

    static func page(title: String) throws -> [UInt8] {
        // Every `{{title}}` replaced, as bytes (Foundation's replacing went through the whole page's characters).
        let page = try template("search", "html"), mark = Array("{{title}}".utf8), with = Array(escape(title).utf8)
        var out: [UInt8] = [], i = 0
        out.reserveCapacity(page.count + 2 * with.count)
        while i < page.count {
            if page[i] == mark[0], i + mark.count <= page.count, page[i..<(i + mark.count)].elementsEqual(mark) {
                out += with; i += mark.count
            } else {
                out.append(page[i]); i += 1
            }
        }
        return out
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// Every template (the build's input fingerprint covers them: they can change without the executable), the flags
    /// evaluator `flags.js` (see `FlagsOutput.script`) included.
    static let templates = [("search", "js"), ("search", "html"), ("flags", "js")]

    /// A template's bytes (read once per process).
    static func template(_ name: String, _ ext: String) throws -> [UInt8] {
        let key = "\(name).\(ext)"
        cacheLock.lock(); defer { cacheLock.unlock() }
        if let b = cache[key] { return b }
        guard let url = Bundle.module.url(forResource: name, withExtension: ext),
              let data = FileManager.default.contents(atPath: url.path) else {
            throw BuildError(file: key, "the web search template is missing from the generator's resources")
        }
        cache[key] = [UInt8](data)
        return [UInt8](data)
    }
    nonisolated(unsafe) private static var cache: [String: [UInt8]] = [:]
    private static let cacheLock = NSLock()
}
