import Foundation
import Schemas

extension CatalogLoad {
    /// What reading the products file gave, beside the records now in `store`.
    struct ProductsRead {
        var records: Int
        var skipped: [BuildError]
        /// Taken from the build cache's products snapshot (nil: every line was read and checked).
        var taken: ProductSnapshot.Taken?
        var snapshot: ProductSnapshot?
        /// Where the next snapshot goes (nil: no build cache, or not JSON Lines), under what key, and the file's chunks.
        var snapshotFile: ProductSnapshotFile?
        var snapshotKey: Fingerprint
        var chunker: LineChunker
    }

    /// The products file into `store`, every record checked. JSON Lines: the records of lines an earlier build read
    /// are taken from the cache's snapshot when it can be used (see `ProductSnapshot`); the file is cut into chunks as
    /// it is read, for the next snapshot. Otherwise read and checked a batch at a time: the records of a batch are
    /// released once its products are made.
    mutating func readProducts(_ url: URL) throws -> ProductsRead {
        let snapshotFile = ProductFileReader.isJSONLines(productsFile) ? context.previous?.productSnapshot : nil
        let key = ProductSnapshot.key(settings)
        var chunker = LineChunker(keepBytes: true)
        var read: ProductsRead
        let fileSize = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        store.reserveText(fileSize)
        if let snapshot = snapshotFile?.take(), snapshot.key == key,
           let t = try snapshot.read(url, display: productsFile, check: &check, into: store, chunker: &chunker, threads: context.threads) {
            read = ProductsRead(records: t.records, skipped: [], taken: t, snapshot: snapshot, snapshotFile: snapshotFile, snapshotKey: key, chunker: chunker)
        } else {
            check = CatalogCheck(settings: settings, productsFile: productsFile)
            store = ProductStore.Builder(file: productsFile)
            store.reserveText(fileSize)
            chunker = LineChunker(keepBytes: false)
            let (builder, threads) = (store, context.threads)
            var check = self.check
            let found = try ProductFileReader.forEachBatch(url, display: productsFile, threads: threads, skipBadRecords: context.skipBadRows,
                                                           lines: snapshotFile == nil ? nil : { chunker.feed($0) { _, _ in } }) {
                check.products($0, threads: threads, into: builder)
            }
            self.check = check
            if snapshotFile != nil { chunker.finish { _, _ in } }
            read = ProductsRead(records: found.records, skipped: found.skipped, taken: nil, snapshot: nil, snapshotFile: snapshotFile,
                                snapshotKey: key, chunker: chunker)
        }
        // Policy: an empty products file is an error, not an empty catalog: a truncated export would otherwise
        // publish a release that removes every product.
        if read.records == 0 {
            let why = read.skipped.isEmpty ? "has no products" : "has no readable products (\(read.skipped.count) malformed records skipped)"
            throw BuildError(file: productsFile, "\(why); an empty catalog is refused (remove the file, or catalog.products in site.json, to build without a catalog)")
        }
        return read
    }

    /// The category tree (when there is a categories file), checked; then every error found so far is thrown, and the
    /// summary starts with what the checks counted.
    mutating func readCategories(categoriesFile file: (url: URL, display: String)?) throws {
        if let (url, display) = file {
            let bytes = [UInt8](try InputFiles.read(url, display: display))
            let json: JSON
            do { json = try JSONReader.parse(bytes) } catch let e as JSONSyntaxError {
                throw BuildError(file: display, line: e.line, "invalid JSON at column \(e.column): \(e.message)")
            }
            (nodes, order) = check.categories(json, file: display, lines: ProductFileReader.entryLines(bytes, member: json.arrayValue == nil ? "categories" : nil))
        }
        if !check.errors.isEmpty { throw BuildErrors(check.errors) }
        report = check.report
    }
}
