import Foundation
import Indexer

extension ProductSnapshot {
    /// One read of a products file against the snapshot: chunks in file order, each taken from the snapshot when it is
    /// unchanged, the others queued until a few megabytes of them are to be read anew; those are then parsed and
    /// checked in parallel, and the queue is stored in order (each taken chunk's records, each other chunk's claims
    /// then made).
    struct Taking {
        let snapshot: ProductSnapshot
        var check: CatalogCheck
        let store: ProductStore.Builder
        let display: String, threads: Int
        /// Table indices of the snapshot, as the store interns them (-2: not interned yet).
        private var remap: [[Int32]]
        private var used = Set<Fingerprint>()
        private var taken: [Range<Int>] = [], made: [Range<Int>] = []
        private var count = 0, reused = 0, failed = false
        /// For each record stored: the snapshot record it came from (-1: read anew), and its claims' hashes.
        private var origins: [Int32] = [], ids: [UInt64] = [], folds: [UInt64] = []
        private enum Item { case taken(Range<Int>, firstLine: Int), anew(bytes: [UInt8], firstLine: Int) }
        private var queue: [Item] = [], queuedBytes = 0

        init(_ snapshot: ProductSnapshot, check: CatalogCheck, store: ProductStore.Builder, display: String, threads: Int) {
            self.snapshot = snapshot; self.check = check; self.store = store; self.display = display; self.threads = threads
            remap = snapshot.tables.map { [Int32](repeating: -2, count: $0.count) }
            let n = snapshot.records.count
            origins.reserveCapacity(n); ids.reserveCapacity(n); folds.reserveCapacity(n)
            store.records.reserveCapacity(n)
        }

        /// A chunk of the file as the chunker cut it: taken when the snapshot has it, else queued to be read anew.
        mutating func take(_ chunk: LineChunker.Chunk, _ lines: ArraySlice<UInt8>) {
            guard !failed else { return }
            if let c = snapshot.chunks[chunk.digest], c.lines == chunk.lines, used.insert(chunk.digest).inserted {
                if queue.isEmpty { storeTaken(c.records, firstLine: chunk.firstLine) } else { queue.append(.taken(c.records, firstLine: chunk.firstLine)) }
                reused += chunk.lines
            } else {
                queue.append(.anew(bytes: Array(lines), firstLine: chunk.firstLine))
                queuedBytes += lines.count
                if queuedBytes >= 4 << 20 { flush() }
            }
        }

        /// The end of the file: the queue stored, then the records read anew against the records taken (an id or a
        /// folded file name both claim is a full read's error). Nil when the file cannot be read this way.
        mutating func finish() -> Taken? {
            guard flush() else { return nil }
            var madeIds = Set<UInt64>(), madeFolds = Set<UInt64>()
            for range in made { for k in range { madeIds.insert(ids[k]); madeFolds.insert(folds[k]) } }
            if !madeIds.isEmpty {
                for range in taken {
                    for i in range where madeIds.contains(snapshot.idHashes[i]) || madeFolds.contains(snapshot.foldedHashes[i]) { return nil }
                }
            }
            return Taken(records: count, reusedLines: reused, origins: origins, idHashes: ids, foldedHashes: folds)
        }

        /// A table index of the snapshot as the store has it (interned on first use).
        private mutating func map(_ v: Int32, _ table: ProductStore.Builder.Table) -> Int32 {
            guard v >= 0 else { return v }
            let k = table.rawValue
            if remap[k][Int(v)] == -2 { remap[k][Int(v)] = store.intern(snapshot.tables[k][Int(v)], in: table) }
            return remap[k][Int(v)]
        }

        private mutating func storeTaken(_ range: Range<Int>, firstLine: Int) {
            for i in range {
                let x = snapshot.records[i]
                // (Interned in the order `append` interns: brand, brand key, currency, category.)
                let brand = map(x.brand, .brand), brandKey = map(x.brandKey, .brandKey)
                let currency = map(x.currency, .currency), category = map(x.category, .category)
                store.append(stored: x, text: snapshot.text(x), line: firstLine + Int(x.line), brand: brand, brandKey: brandKey,
                             currency: currency, category: category, price: x.price >= 0 ? snapshot.prices[Int(x.price)] : nil,
                             extra: x.extra >= 0 ? snapshot.extras[Int(x.extra)] : nil)
                origins.append(Int32(i)); ids.append(snapshot.idHashes[i]); folds.append(snapshot.foldedHashes[i])
            }
            taken.append(range)
            count += range.count
        }

        /// Parses, checks and stores the queue; false once the file cannot be read this way.
        @discardableResult
        private mutating func flush() -> Bool {
            defer { queue = []; queuedBytes = 0 }
            guard !failed else { return false }
            var anew: [(bytes: [UInt8], firstLine: Int)] = []
            for case .anew(let bytes, let firstLine) in queue { anew.append((bytes, firstLine)) }
            let (display, threads) = (self.display, self.threads)
            let parsed = Parallel.map(anew.count, threads: threads) { k in
                let text = anew[k].bytes[...]
                return ProductFileReader.parseLines(text.span, firstLine: anew[k].firstLine, display: display, threads: 1)
            }
            guard parsed.allSatisfy({ $0.errors.isEmpty }) else { failed = true; return false }
            var batch = check.checked(parsed.flatMap(\.records), threads: threads)
            check.reserve(parsed.reduce(0) { $0 + $1.records.count }, in: store)
            var next = 0, k = 0
            for item in queue {
                switch item {
                case .taken(let range, let firstLine): storeTaken(range, firstLine: firstLine)
                case .anew:
                    let n = parsed[k].records.count
                    k += 1
                    let before = store.records.count
                    check.claim(&batch, next..<(next + n), into: store)
                    next += n
                    guard check.errors.isEmpty else { failed = true; return false }
                    made.append(before..<store.records.count)
                    store.withText { text in
                        for x in store.records[before...] {
                            origins.append(-1); ids.append(ByteHash.of(text.extracting(x.idRange)))
                            folds.append(ProductSnapshot.foldedHash(text.extracting(x.segmentRange)))
                        }
                    }
                    count += n
                }
            }
            return true
        }
    }
}
