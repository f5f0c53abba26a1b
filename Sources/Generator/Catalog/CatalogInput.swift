import Foundation
import Schemas

/// Settings of the `catalog` section of site.json (all optional).
public struct CatalogSettings: Sendable {
    public var productsFile: String?
    public var categoriesFile: String
    public var featuredFile: String
    /// Logical field → input field name (dotted paths reach into JSON objects: "rating.average").
    public var fields: [String: String]
    public var unbrandedName: String
    public var uncategorizedId: String
    public var uncategorizedName: String
    /// Weight m of the Bayesian average (a product needs about m reviews to be trusted on its own).
    public var ratingPrior: Double

    public static let fieldNames = ["id", "name", "description", "brand", "price", "currency", "inStock",
                                    "imageUrl", "ratingAverage", "ratingCount", "category"]
    static let defaultFields: [String: String] = [
        "id": "id", "name": "name", "description": "description", "brand": "brand", "price": "price",
        "currency": "currency", "inStock": "inStock", "imageUrl": "imageUrl", "ratingAverage": "rating.average",
        "ratingCount": "rating.count", "category": "category",
    ]

    public static func read(_ site: SiteConfig, file: String) throws -> CatalogSettings {
        var o = try site.section("catalog", file: file)
        var s = CatalogSettings(productsFile: try o.optionalString("products"),
                                categoriesFile: try o.string("categories", default: "catalog/categories.json"),
                                featuredFile: try o.string("featured", default: "catalog/featured.json"),
                                fields: defaultFields,
                                unbrandedName: try o.string("unbrandedName", default: "Unbranded"),
                                uncategorizedId: try o.string("uncategorizedId", default: "uncategorized"),
                                uncategorizedName: try o.string("uncategorizedName", default: "Uncategorized"),
                                ratingPrior: try o.double("ratingPrior", default: 20))
        if var f = try o.object("fields") {
            for name in fieldNames { if let v = try f.optionalString(name) { s.fields[name] = v } }
            try f.finish()
        }
        try o.finish()
        return s
    }
}

/// One input record (a JSON object or a CSV row) with its location.
struct RawRecord {
    enum Source { case json(JSON), csv([String: String]) }
    let line: Int
    let source: Source

    /// The value at a field path (["rating", "average"]); CSV columns are named by the joined path.
    func value(_ path: [String]) -> JSON? {
        switch source {
        case .json(let j):
            var cur: JSON? = j
            for part in path { cur = cur?[part] }
            if cur == nil, path.count > 1 { return j[path.joined(separator: ".")] }
            return cur
        case .csv(let row):
            guard let s = row[path.joined(separator: ".")] else { return nil }
            return s.isEmpty ? .null : .string(s)
        }
    }
}

enum ProductFileReader {
    /// Reads products from JSON Lines, a JSON array or CSV, chosen by extension.
    static func read(_ url: URL, display: String, threads: Int) throws -> [RawRecord] {
        let ext = url.pathExtension.lowercased()
        if ext == "csv" {
            let table = try CSVReader.read(url, displayName: display)
            return table.records.map { r in
                var row: [String: String] = [:]
                for (i, h) in table.header.enumerated() where i < r.fields.count { row[h] = r.fields[i] }
                return RawRecord(line: r.line, source: .csv(row))
            }
        }
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw BuildError(file: display, "cannot read file (\(error.localizedDescription))") }
        if ext == "json" {
            let json: JSON
            do { json = try JSONReader.parse(data) } catch let e as JSONSyntaxError {
                throw BuildError(file: display, line: e.line, "invalid JSON at column \(e.column): \(e.message)")
            }
            let items = json.arrayValue ?? json["products"]?.arrayValue
            guard let items else { throw BuildError(file: display, "expected a JSON array of products (or {\"products\": [...]})") }
            // JSON arrays carry no line numbers per item; the record number stands in for the line.
            return items.enumerated().map { RawRecord(line: $0.offset + 1, source: .json($0.element)) }
        }
        return try readLines(data, display: display, threads: threads)
    }

    /// JSON Lines, parsed in parallel chunks; errors name the line.
    static func readLines(_ data: Data, display: String, threads: Int) throws -> [RawRecord] {
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var starts: [Int] = [0]
        for (i, b) in bytes.enumerated() where b == 0x0A { starts.append(i + 1) }
        let lineCount = starts.count
        var results = [RawRecord?](repeating: nil, count: lineCount)
        var errors = [BuildError?](repeating: nil, count: lineCount)
        let chunks = max(1, min(threads * 4, lineCount))
        bytes.withUnsafeBufferPointer { buf in
            results.withUnsafeMutableBufferPointer { res in
                errors.withUnsafeMutableBufferPointer { errs in
                    DispatchQueue.concurrentPerform(iterations: chunks) { c in
                        let lo = c * lineCount / chunks, hi = (c + 1) * lineCount / chunks
                        for li in lo..<hi {
                            let s = starts[li]
                            var e = li + 1 < lineCount ? starts[li + 1] - 1 : buf.count
                            if e > s, buf[e - 1] == 0x0D { e -= 1 }
                            // Blank lines are allowed (editors add a trailing newline).
                            if !(s..<e).contains(where: { buf[$0] != 0x20 && buf[$0] != 0x09 }) { continue }
                            do {
                                let v = try JSONReader.parse(UnsafeBufferPointer(rebasing: buf[s..<e]))
                                res[li] = RawRecord(line: li + 1, source: .json(v))
                            } catch let err as JSONSyntaxError {
                                errs[li] = BuildError(file: display, line: li + 1, "malformed JSON Lines record at column \(err.column): \(err.message)")
                            } catch {
                                errs[li] = BuildError(file: display, line: li + 1, "\(error)")
                            }
                        }
                    }
                }
            }
        }
        let found = errors.compactMap { $0 }
        if !found.isEmpty { throw BuildErrors(found) }
        return results.compactMap { $0 }
    }
}
