import Foundation
import Schemas

extension SeedIndex {
    /// The most entries a rebuild may add or drop (a product whose text changed is both) for the maps to be spliced;
    /// beyond it the index is written whole (each change edits a few dozen lists, the whole write costs the same
    /// whatever changed).
    public static let mapSpliceLimit = 256

    /// The name of a map member made anew in a splice (checked as `{member}`, a one-member map).
    public static let memberFragment = "map member"

    /// Each document's number (its place in the documents' order) by its id, for a splice to place an added id in its
    /// maps' lists: made on first use, once, and shared by the indexes a build splices (a table of every id per index
    /// was most of what placing one added product cost). Looked up by the id's bytes (`TokenTable`): no `String` per
    /// document.
    public final class IdPositions: @unchecked Sendable {
        private let count: Int
        private let id: (Int, (UnsafeBufferPointer<UInt8>) -> Void) -> Void
        private var table: TokenTable<Int32>?
        private let lock = NSLock()

        /// `count` documents; `id(k, body)` calls `body` with the UTF-8 bytes of document `k`'s id.
        public init(count: Int, id: @escaping (Int, (UnsafeBufferPointer<UInt8>) -> Void) -> Void) {
            self.count = count; self.id = id
        }

        /// The number of the document with this id; nil for none.
        public func position(_ of: String) -> Int? {
            lock.lock()
            if table == nil {
                var t = TokenTable<Int32>()
                // (Ids are distinct; the first of two equal ones would be kept.)
                for k in 0..<count { id(k) { bytes in if t.find(bytes) == nil { t.insert(bytes, Int32(k)) } } }
                table = t
            }
            let t = table!
            lock.unlock()
            var of = of
            return of.withUTF8 { t.find($0).map { Int(t.values[$0]) } }
        }
    }

    /// The keyword, category and brand maps of an earlier index, edited for a few added and dropped entries: each
    /// member whose list gains or loses an id is made anew and put where the writer would put it (maps are ordered by
    /// each list's first position, then by key), every other member copied as it was, runs of them as one block.
    ///
    /// Lists hold ids in index order, and the entries that stay keep their relative order (the order is a function of
    /// each entry's own text), so an id is placed in a list by comparing index positions, looked up by id.
    struct MapSplice {
        /// The earlier maps' text: `"keywords":{…},"categories":{…},"brands":{…}`.
        let tail: [UInt8]
        private(set) var maps: [Map] = []
        /// The JSON text of each dropped entry's id.
        let dropped: [[UInt8]]
        private let droppedHashes: Set<Int>

        struct Member {
            /// Its key's JSON text (with the quotes) and the text between the list's brackets, in `tail`.
            let key: Range<Int>
            let list: Range<Int>
            /// Whether the list holds a dropped id.
            var dropsSome: Bool
        }
        /// `open`: where its `{` is in `tail`.
        struct Map { let name: String; var open: Int; var members: [Member] }
        static let names = ["keywords", "categories", "brands"]

        /// The earlier maps parsed, with the members that hold dropped ids marked; nil when the text is not as the
        /// writer makes it (the caller writes the index whole).
        init?(tail: [UInt8], dropped: [[UInt8]]) {
            self.tail = tail; self.dropped = dropped
            droppedHashes = Set(dropped.map { $0.withUnsafeBufferPointer { Self.hash($0) } })
            let parsed: [Map]? = tail.withUnsafeBufferPointer { b in
                var p = 0, out: [Map] = []
                for (k, name) in Self.names.enumerated() {
                    let head = Array("\(k == 0 ? "" : ",")\"\(name)\":{".utf8)
                    guard b.count - p >= head.count, b[p..<(p + head.count)].elementsEqual(head) else { return nil }
                    p += head.count
                    let open = p - 1
                    guard let members = parseMembers(b, &p) else { return nil }
                    out.append(Map(name: name, open: open, members: members))
                }
                return p == b.count ? out : nil
            }
            guard let parsed else { return nil }
            maps = parsed
        }

        /// The members of a map from `p` (after its `{`) to its `}` (`p` then after it).
        private func parseMembers(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int) -> [Member]? {
            var members: [Member] = []
            guard p < b.count else { return nil }
            if b[p] == 0x7D { p += 1; return members }
            while true {
                guard let keyEnd = JSONText.stringEnd(b, from: p), keyEnd + 1 < b.count, b[keyEnd] == 0x3A, b[keyEnd + 1] == 0x5B else { return nil }
                let key = p..<keyEnd
                var q = keyEnd + 2
                let start = q
                var drops = false
                if q < b.count, b[q] == 0x5D {
                    // (never written: every list has an id)
                } else {
                    while true {
                        guard let e = JSONText.stringEnd(b, from: q), e < b.count else { return nil }
                        if !droppedHashes.isEmpty && !drops && isDropped(UnsafeBufferPointer(rebasing: b[q..<e])) { drops = true }
                        q = e
                        if b[q] == 0x2C { q += 1; continue }
                        guard b[q] == 0x5D else { return nil }
                        break
                    }
                }
                members.append(Member(key: key, list: start..<q, dropsSome: drops))
                p = q + 1
                guard p < b.count else { return nil }
                if b[p] == 0x2C { p += 1; continue }
                guard b[p] == 0x7D else { return nil }
                p += 1
                return members
            }
        }

        private func isDropped(_ id: UnsafeBufferPointer<UInt8>) -> Bool {
            droppedHashes.contains(Self.hash(id)) && dropped.contains { $0.elementsEqual(id) }
        }

        /// The bytes' hash (a quick filter before an exact comparison, with no array made per id).
        static func hash(_ b: UnsafeBufferPointer<UInt8>) -> Int {
            var h = Hasher()
            h.combine(bytes: UnsafeRawBufferPointer(b))
            return h.finalize()
        }

        /// An id added to a map's lists: the key it is listed under (JSON text and string), and its entry's position.
        struct Addition { let keyText: [UInt8]; let key: String; let position: Int; let id: [UInt8] }

        /// What a map becomes: the members made anew, each with the number of kept members before it.
        struct Plan { var made: [(text: [UInt8], before: Int)] = []; var kept: [Int] = [] }

        /// The edited maps, worked out before anything is written (a failure then leaves the caller free to write the
        /// index whole). `additions`: per map, the ids added to its lists; `position`: the index position of the entry
        /// with an id (decoded), nil for none. Throws `SpliceFailed` when a list holds an id the new index does not have.
        func plan(adding additions: [[Addition]], position: (String) -> Int?) throws -> [Plan] {
            try tail.withUnsafeBufferPointer { b in
                try maps.indices.map { try planMap(maps[$0], b, adding: $0 < additions.count ? additions[$0] : [], position: position) }
            }
        }

        /// What writes the maps as planned, without the earlier text (let go before the new file grows: the kept
        /// members are copied from the earlier file itself).
        func writer(_ plans: [Plan]) -> Writer { Writer(maps: maps, plans: plans) }

        struct Writer {
            let maps: [Map]
            let plans: [Plan]

            /// Writes the maps (as `write` writes them, after the products array); `copy`: appends a range of the
            /// earlier maps' text to `out`; `rendered`: where each member made anew is in `out`. Returns where each
            /// map's members lie in the earlier maps' text (`tail`) and in `out`.
            func write(to out: JSONStream, copy: (Range<Int>) throws -> Void, rendered: (Range<Int>) -> Void) throws
                -> [(old: ObjectLayout, new: ObjectLayout)] {
                var layouts: [(old: ObjectLayout, new: ObjectLayout)] = []
                for (map, plan) in zip(maps, plans) {
                    out.key(map.name)
                    out.beginObject()
                    var placed = ObjectLayout(open: out.count - 1, members: [])
                    // Runs of kept members that lay side by side are copied as one block.
                    var j = 0
                    func copyKept(upTo end: Int) throws {
                        while j < end {
                            var last = j
                            while last + 1 < end && plan.kept[last + 1] == plan.kept[last] + 1 { last += 1 }
                            let run = map.members[plan.kept[j]].key.lowerBound..<(map.members[plan.kept[last]].list.upperBound + 1)
                            try copy(run)
                            let shift = out.count - run.upperBound
                            for k in plan.kept[j]...plan.kept[last] { placed.members.append(Self.layout(map.members[k]).shifted(by: shift)) }
                            j = last + 1
                        }
                    }
                    for m in plan.made {
                        try copyKept(upTo: m.before)
                        out.raw(m.text)
                        let start = out.count - m.text.count
                        rendered(start..<out.count)
                        let keyEnd = m.text.withUnsafeBufferPointer { JSONText.stringEnd($0, from: 0) } ?? 0
                        placed.members.append(.init(key: start..<(start + keyEnd), value: (start + keyEnd + 1)..<out.count))
                    }
                    try copyKept(upTo: plan.kept.count)
                    out.endObject()
                    layouts.append((ObjectLayout(open: map.open, members: map.members.map { Self.layout($0) }), placed))
                }
                return layouts
            }

            /// A member's key and value (the list with its brackets).
            static func layout(_ m: Member) -> ObjectLayout.Member { .init(key: m.key, value: (m.list.lowerBound - 1)..<(m.list.upperBound + 1)) }
        }

        /// A member made anew: its text, key, and the first position in its list (the writer orders members by that,
        /// then by key).
        private struct Made { var text: [UInt8]; var key: String; var firstPosition: Int }

        private func planMap(_ map: Map, _ b: UnsafeBufferPointer<UInt8>, adding: [Addition], position: (String) -> Int?) throws -> Plan {
            func bytes(_ r: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: b[r]) }
            func positionOf(_ idText: UnsafeBufferPointer<UInt8>) throws -> Int {
                guard let id = JSONText.string(idText), let p = position(id) else { throw SpliceFailed() }
                return p
            }
            // Additions by key, each key's ids in position order.
            var byKey: [[UInt8]: [Addition]] = [:]
            for a in adding { byKey[a.keyText, default: []].append(a) }
            for k in byKey.keys { byKey[k]!.sort { $0.position < $1.position } }
            // The members whose lists change: those holding a dropped id, and those under a key an addition has.
            var changed = [Bool](repeating: false, count: map.members.count)
            var added: [Int: [Addition]] = [:]
            let lengths = Set(byKey.keys.map(\.count))
            for (k, m) in map.members.enumerated() {
                if m.dropsSome { changed[k] = true }
                guard lengths.contains(m.key.count) else { continue }
                if let a = byKey.removeValue(forKey: [UInt8](bytes(m.key))) { added[k] = a; changed[k] = true }
            }
            let text = JSONStream(capacity: 4096)
            /// A member's text: its key, then the ids of `kept` (ranges of the earlier text) with `adds` at `places`.
            func memberText(_ keyText: UnsafeRawBufferPointer, kept: [Range<Int>], adds: [Addition], places: [Int]) -> [UInt8] {
                text.reset()
                text.append(keyText)
                [UInt8(0x3A)].withUnsafeBytes { text.append($0) }
                text.beginArray()
                var a = 0
                for (j, r) in kept.enumerated() {
                    while a < adds.count && places[a] == j { adds[a].id.withUnsafeBytes { text.raw($0) }; a += 1 }
                    text.raw(UnsafeRawBufferPointer(bytes(r)))
                }
                while a < adds.count { adds[a].id.withUnsafeBytes { text.raw($0) }; a += 1 }
                text.endArray()
                return text.bytes
            }
            var made: [Made] = []
            for (k, m) in map.members.enumerated() where changed[k] {
                // The list's ids but the dropped; each added one goes where its position puts it (found by bisection:
                // the positions of a few ids of a long list are looked up).
                var ids: [Range<Int>] = []
                var q = m.list.lowerBound
                while q < m.list.upperBound {
                    guard let e = JSONText.stringEnd(b, from: q) else { throw SpliceFailed() }
                    if !(m.dropsSome && isDropped(bytes(q..<e))) { ids.append(q..<e) }
                    q = e + 1
                }
                let adds = added[k] ?? []
                var places: [Int] = [], lo = 0
                for a in adds {
                    var hi = ids.count
                    while lo < hi { let mid = (lo + hi) / 2; if try positionOf(bytes(ids[mid])) < a.position { lo = mid + 1 } else { hi = mid } }
                    places.append(lo)
                }
                // (A list left empty goes, with its key.)
                let first: Int
                if let p = places.first, p == 0 { first = adds[0].position } else if let id = ids.first { first = try positionOf(bytes(id)) } else { continue }
                guard let key = JSONText.string(bytes(m.key)) else { throw SpliceFailed() }
                made.append(Made(text: memberText(UnsafeRawBufferPointer(bytes(m.key)), kept: ids, adds: adds, places: places), key: key, firstPosition: first))
            }
            // Keys the earlier map did not have. (A key spelled otherwise than an earlier one Swift holds equal, "é"
            // composed and not, is one key to the writer, spelled as its first product has it: written whole.)
            if byKey.values.contains(where: { !$0[0].key.utf8.allSatisfy { $0 < 0x80 } }) {
                let spellings = Set(byKey.values.map { $0[0].key })
                for m in map.members where JSONText.string(bytes(m.key)).map(spellings.contains) ?? true { throw SpliceFailed() }
            }
            for (keyText, adds) in byKey {
                let t = keyText.withUnsafeBytes { memberText($0, kept: [], adds: adds, places: Array(repeating: 0, count: adds.count)) }
                made.append(Made(text: t, key: adds[0].key, firstPosition: adds[0].position))
            }
            made.sort { ($0.firstPosition, $0.key) < ($1.firstPosition, $1.key) }

            // The members that stay as they were, in their order; each made member goes before the first of them that
            // the writer's order puts after it.
            var plan = Plan()
            plan.kept = map.members.indices.filter { !changed[$0] }
            func keptPrecedes(_ j: Int, _ m: Made) throws -> Bool {
                let member = map.members[plan.kept[j]]
                guard let e = JSONText.stringEnd(b, from: member.list.lowerBound) else { throw SpliceFailed() }
                let first = try positionOf(bytes(member.list.lowerBound..<e))
                if first != m.firstPosition { return first < m.firstPosition }
                guard let key = JSONText.string(bytes(member.key)) else { throw SpliceFailed() }
                return key < m.key
            }
            var lo = 0
            for m in made {
                // (In order: each one's place is at or after the one before's.)
                var hi = plan.kept.count
                while lo < hi { let mid = (lo + hi) / 2; if try keptPrecedes(mid, m) { lo = mid + 1 } else { hi = mid } }
                plan.made.append((m.text, lo))
            }
            return plan
        }
    }

    /// The splice met text it cannot read as the writer made it.
    struct SpliceFailed: Error {}
}
