import XCTest
import Foundation
import Schemas
import TestTools

/// Reads a built ranked index (`…/search/`) the way its format is documented, written here from the format (meta
/// `format` 3), not with the reference client: the oracle tests compare what it reads with what they compute.
enum RankedIndexReading {
    /// One result-store group: its first document, its documents, its name, and its slices' paths (`slice` documents
    /// each, the last one fewer).
    struct StoreGroup {
        var first: Int, count: Int, name: String, slices: [String], slice: Int
    }

    /// The result store's groups in document order: the meta file's `store` holds the slice size and the top level of
    /// the store tree (`levels`, `entries`), each entry `[documents, name]`: with levels left a store directory
    /// `stores/{name}.json` of entries of the level below (their documents adding up to the entry's), at the last level
    /// a group, whose documents are in slices `store/{name}-{k}.json` of `slice` documents (the last one fewer). No file
    /// says where it starts: that is the sum of the counts before it.
    static func storeGroups(_ meta: JSON, folder: String, file: (String) throws -> JSON) throws -> [StoreGroup] {
        let slice = try XCTUnwrap(meta["store"]?["slice"]?.intValue)
        XCTAssertGreaterThan(slice, 0)
        var out: [StoreGroup] = [], start = 0
        func walk(_ entries: [JSON], levels: Int) throws {
            for entry in entries {
                let count = try XCTUnwrap(entry[0]?.intValue), name = try XCTUnwrap(entry[1]?.stringValue)
                let first = start
                if levels == 0 {
                    let slices = (0..<((count + slice - 1) / slice)).map { "\(folder)/store/\(name)-\($0).json" }
                    out.append(StoreGroup(first: start, count: count, name: name, slices: slices, slice: slice))
                    start += count
                } else {
                    try walk(try file("\(folder)/stores/\(name).json")["entries"]?.arrayValue ?? [], levels: levels - 1)
                }
                XCTAssertEqual(start - first, count, "\(name): the entry gives its documents")
            }
        }
        try walk(meta["store"]?["entries"]?.arrayValue ?? [], levels: try XCTUnwrap(meta["store"]?["levels"]?.intValue))
        return out
    }

    /// Every document of the result store, in document order (see `storeGroups`); each slice but a group's last holds
    /// `slice` documents.
    static func storedDocuments(_ meta: JSON, folder: String, file: (String) throws -> JSON) throws -> [JSON] {
        let slice = try XCTUnwrap(meta["store"]?["slice"]?.intValue)
        var out: [JSON] = []
        for group in try storeGroups(meta, folder: folder, file: file) {
            for (k, path) in group.slices.enumerated() {
                let documents = try file(path)["documents"]?.arrayValue ?? []
                XCTAssertEqual(documents.count, min(slice, group.count - k * slice), path)
                out += documents
            }
        }
        return out
    }

    /// The term shards' paths in term order: the meta file's `termShards` holds the top level of the term tree
    /// (`levels`, `entries` of `[first term, name]`), each entry with levels left a term directory
    /// (`{folder}/termdirs/{name}.json`, `folder` the meta file's) of the entries of the level below (the first's first term its own), each leaf a
    /// term shard (`{folder}/terms/{name}.json`) whose first term is its entry's.
    static func termShardPaths(_ meta: JSON, file: (String) throws -> JSON) throws -> [String] {
        var out: [String] = []
        let folder = try XCTUnwrap(meta["folder"]?.stringValue, "the meta file names its folder")
        func walk(_ entries: [JSON], levels: Int) throws {
            for entry in entries {
                let name = try XCTUnwrap(entry[1]?.stringValue)
                if levels == 0 {
                    let path = "\(folder)/terms/\(name).json"
                    XCTAssertEqual(try file(path)["terms"]?[0], entry[0], path)
                    out.append(path); continue
                }
                let path = "\(folder)/termdirs/\(name).json"
                let below = try file(path)["entries"]?.arrayValue ?? []
                XCTAssertEqual(below.first?[0], entry[0], path)
                try walk(below, levels: levels - 1)
            }
        }
        try walk(meta["termShards"]?["entries"]?.arrayValue ?? [], levels: try XCTUnwrap(meta["termShards"]?["levels"]?.intValue))
        return out
    }

    /// term → document → stored score, from the term shards (each list read by TestTools' `packedPostings`, which
    /// checks its shape).
    static func postings(_ meta: JSON, file: (String) throws -> JSON) throws -> [String: [Int: Int]] {
        var out: [String: [Int: Int]] = [:]
        for path in try termShardPaths(meta, file: file) {
            let s = try file(path)
            for (i, term) in (s["terms"]?.arrayValue ?? []).enumerated() {
                let term = try XCTUnwrap(term.stringValue)
                let flat = try postingNumbers(XCTUnwrap(s["postings"]?[i]?.stringValue, "\(term): a posting list is text"))
                let list = try packedPostings(term, flat)
                out[term] = list
            }
        }
        return out
    }

    /// A BM25 score as the index stores it: × 100, moved to the nearest step (in the exponent) of the grid 1.06^k, and
    /// rounded (at least 1).
    static func quantised(_ score: Double) -> Int {
        let step = Foundation.log(1.06)
        return Int(Foundation.exp((Foundation.log(max(1, score * 100)) / step).rounded() * step).rounded())
    }
}
