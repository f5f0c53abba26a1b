import Foundation

/// The catalog's fingerprints, its data version, and the products snapshot a later build reads back.
extension CatalogLoad {
    /// Each product's fingerprints (of every field it has, and of its searchable text), in parallel, and the data
    /// version: the hash of them all in order, which changes whenever anything a product shows does. A product whose
    /// record was taken from the snapshot has the fingerprints made then, unless the policies now give it another
    /// brand or category.
    func fingerprint(_ model: inout CatalogModel, readIndex: [Int], taken: ProductSnapshot.Taken?, snapshot: ProductSnapshot?) {
        let products = model.products
        let origins = taken.map { t in readIndex.map { t.origins[$0] } }
        let both = Parallel.map(products.count, threads: context.threads) { i -> (all: Fingerprint, text: Fingerprint) in
            let p = products[i]
            return origins.flatMap { snapshot?.fingerprints(of: p, origin: $0[i], store: products) } ?? CatalogDomain.fingerprints(p)
        }
        var version = FingerprintHasher("data-version")
        version.add(both.count)
        for f in both { version.add(f.all) }
        model.dataVersion = String(BuildCache.hex(version.finish().bytes).prefix(12))
        model.productFingerprints = both.map(\.all)
        model.textFingerprints = both.map(\.text)
    }

    /// The next snapshot (JSON Lines with a build cache, every line read): the records as read, and the fingerprints
    /// of those that became products.
    func writeSnapshot(_ read: ProductsRead, records readRecords: [ProductStore.Record], model: CatalogModel, readIndex: [Int]) {
        guard let snapshotFile = read.snapshotFile else { return }
        snapshotFile.noteReused(read.taken?.reusedLines ?? 0)
        guard read.skipped.isEmpty else { return }
        let fingerprinting = context.site.sourceFingerprint != nil
        var made = [ProductSnapshot.Made](repeating: .none, count: fingerprinting ? readRecords.count : 0)
        if fingerprinting {
            for (k, p) in model.products.enumerated() {
                made[readIndex[k]] = .init(all: model.productFingerprints[k], text: model.textFingerprints[k],
                                           brand: Int32(p.brandIndex), category: Int32(p.categoryIndex))
            }
        }
        let (chunks, hashes, fingerprints, key, store) = (read.chunker.chunks, read.taken.map { ($0.idHashes, $0.foldedHashes) }, made,
                                                          read.snapshotKey, model.products)
        snapshotFile.write { fd in
            ProductSnapshot.write(to: fd, key: key, chunks: chunks, records: readRecords, store: store, hashes: hashes, made: fingerprints)
        }
    }
}
