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
    ///
    /// (Sendable, unchecked by the compiler: the table is made once, by whichever index asks first, behind a lock;
    /// `Mutex`, which the compiler could check, needs macOS 15.)
    public final class IdPositions: @unchecked Sendable {
        private let count: Int
        private let id: (Int, (Span<UInt8>) -> Void) -> Void
        private var table: TokenTable<Int32>?
        private let lock = NSLock()

        /// `count` documents; `idBytes(k, body)` calls `body` with the UTF-8 bytes of document `k`'s id.
        public init(count: Int, idBytes: @escaping (Int, (Span<UInt8>) -> Void) -> Void) {
            self.count = count; self.id = idBytes
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
            return of.withUTF8Span { t.find($0).map { Int(t.values[$0]) } }
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
        private let droppedHashes: Set<UInt64>

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
            droppedHashes = Set(dropped.map { ByteHash.of($0) })
            let whole = tail[...]
            let b = whole.span
            var p = 0, parsed: [Map] = []
            for (k, name) in Self.names.enumerated() {
                let head = Array("\(k == 0 ? "" : ",")\"\(name)\":{".utf8)
                guard tail.count - p >= head.count, tail[p..<(p + head.count)].elementsEqual(head) else { return nil }
                p += head.count
                let open = p - 1
                guard let members = parseMembers(b, &p) else { return nil }
                parsed.append(Map(name: name, open: open, members: members))
            }
            guard p == tail.count else { return nil }
            maps = parsed
        }

        /// The members of a map from `p` (after its `{`) to its `}` (`p` then after it).
        private func parseMembers(_ b: Span<UInt8>, _ p: inout Int) -> [Member]? {
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
                        if !droppedHashes.isEmpty && !drops && isDropped(b.extracting(q..<e)) { drops = true }
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

        /// Whether the id is a dropped one: its hash first (a quick filter, with no array made per id), then its bytes.
        private func isDropped(_ id: Span<UInt8>) -> Bool {
            guard droppedHashes.contains(ByteHash.of(id)) else { return false }
            for d in dropped where Self.equal(d, id) { return true }
            return false
        }

        static func equal(_ a: [UInt8], _ b: Span<UInt8>) -> Bool {
            guard a.count == b.count else { return false }
            for k in a.indices where a[k] != b[k] { return false }
            return true
        }

        /// An id added to a map's lists: the key it is listed under (JSON text and string), and its entry's position.
        struct Addition { let keyText: [UInt8]; let key: String; let position: Int; let id: [UInt8] }

        /// What a map becomes: the members made anew, each with the number of kept members before it.
        struct Plan { var made: [(text: [UInt8], before: Int)] = []; var kept: [Int] = [] }

        /// The edited maps, worked out before anything is written (a failure then leaves the caller free to write the
        /// index whole). `additions`: per map, the ids added to its lists; `position`: the index position of the entry
        /// with an id (decoded), nil for none. Throws `SpliceFailed` when a list holds an id the new index does not have.
        func plan(adding additions: [[Addition]], position: (String) -> Int?) throws -> [Plan] {
            let whole = tail[...]
            let b = whole.span
            var plans: [Plan] = []
            for (k, map) in maps.enumerated() {
                plans.append(try planMap(map, b, adding: k < additions.count ? additions[k] : [], position: position))
            }
            return plans
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
                        let keyEnd = JSONText.stringEnd(m.text, from: 0) ?? 0
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

        /// The members of a map whose lists change, and how.
        private struct Changes {
            /// Per member: whether its list changes (it holds a dropped id, or gains one).
            var changed: [Bool]
            /// The additions to each member that gains ids, in position order.
            var added: [Int: [Addition]]
            /// The additions under keys the map does not have, by key text, each key's in position order.
            var newKeys: [[UInt8]: [Addition]]
        }

        /// What `map` (whose text is in `b`) becomes with `adding`: the changed members made anew, and where each goes
        /// among the members kept as they were.
        private func planMap(_ map: Map, _ b: Span<UInt8>, adding: [Addition], position: (String) -> Int?) throws -> Plan {
            let changes = Self.changes(map, b, adding: adding)
            let text = MemberText()
            var made = try remade(map, b, changes, text, position: position)
            made += try Self.newMembers(map, b, changes.newKeys, text)
            made.sort { ($0.firstPosition, $0.key) < ($1.firstPosition, $1.key) }
            return try Self.place(made, among: map, b, changed: changes.changed, position: position)
        }

        /// The members whose lists change: those holding a dropped id, and those under a key an addition has.
        private static func changes(_ map: Map, _ b: Span<UInt8>, adding: [Addition]) -> Changes {
            // Additions by key, each key's ids in position order.
            var byKey: [[UInt8]: [Addition]] = [:]
            for a in adding { byKey[a.keyText, default: []].append(a) }
            for k in byKey.keys { byKey[k]!.sort { $0.position < $1.position } }
            var changed = [Bool](repeating: false, count: map.members.count)
            var added: [Int: [Addition]] = [:]
            let lengths = Set(byKey.keys.map(\.count))
            for (k, m) in map.members.enumerated() {
                if m.dropsSome { changed[k] = true }
                guard lengths.contains(m.key.count) else { continue }
                if let a = byKey.removeValue(forKey: bytes(b, m.key)) { added[k] = a; changed[k] = true }
            }
            return Changes(changed: changed, added: added, newKeys: byKey)
        }

        /// The changed members made anew: each list's ids but the dropped, each added one where its position puts it
        /// (found by bisection: the positions of a few ids of a long list are looked up). A list left empty goes, with
        /// its key.
        private func remade(_ map: Map, _ b: Span<UInt8>, _ changes: Changes, _ text: MemberText,
                            position: (String) -> Int?) throws -> [Made] {
            var made: [Made] = []
            for (k, m) in map.members.enumerated() where changes.changed[k] {
                let ids = try keptIds(m, b)
                let adds = changes.added[k] ?? []
                var places: [Int] = [], lo = 0
                for a in adds {
                    var hi = ids.count
                    while lo < hi {
                        let mid = (lo + hi) / 2
                        if try Self.positionOf(b.extracting(ids[mid]), position) < a.position { lo = mid + 1 } else { hi = mid }
                    }
                    places.append(lo)
                }
                let first: Int
                if let p = places.first, p == 0 { first = adds[0].position } else if let id = ids.first {
                    first = try Self.positionOf(b.extracting(id), position)
                } else { continue }
                guard let key = JSONText.string(b.extracting(m.key)) else { throw SpliceFailed() }
                made.append(Made(text: text.make(key: b.extracting(m.key), kept: ids, of: b, adds: adds, places: places),
                                 key: key, firstPosition: first))
            }
            return made
        }

        /// The ids of a member's list but the dropped ones, as ranges of the earlier text.
        private func keptIds(_ m: Member, _ b: Span<UInt8>) throws -> [Range<Int>] {
            var ids: [Range<Int>] = []
            var q = m.list.lowerBound
            while q < m.list.upperBound {
                guard let e = JSONText.stringEnd(b, from: q) else { throw SpliceFailed() }
                if !(m.dropsSome && isDropped(b.extracting(q..<e))) { ids.append(q..<e) }
                q = e + 1
            }
            return ids
        }

        /// Members under keys the earlier map did not have. (A key spelled otherwise than an earlier one Swift holds
        /// equal, "é" composed and not, is one key to the writer, spelled as its first product has it: written whole.)
        private static func newMembers(_ map: Map, _ b: Span<UInt8>, _ byKey: [[UInt8]: [Addition]], _ text: MemberText) throws -> [Made] {
            if byKey.values.contains(where: { !$0[0].key.utf8.allSatisfy { $0 < 0x80 } }) {
                let spellings = Set(byKey.values.map { $0[0].key })
                for m in map.members where JSONText.string(b.extracting(m.key)).map(spellings.contains) ?? true { throw SpliceFailed() }
            }
            var made: [Made] = []
            for (keyText, adds) in byKey {
                let key = keyText[...]
                let t = text.make(key: key.span, kept: [], of: b, adds: adds, places: Array(repeating: 0, count: adds.count))
                made.append(Made(text: t, key: adds[0].key, firstPosition: adds[0].position))
            }
            return made
        }

        /// The plan: the members that stay as they were, in their order, with each made member (in the writer's order)
        /// before the first of them that the writer's order puts after it.
        private static func place(_ made: [Made], among map: Map, _ b: Span<UInt8>, changed: [Bool],
                                  position: (String) -> Int?) throws -> Plan {
            var plan = Plan()
            plan.kept = map.members.indices.filter { !changed[$0] }
            func keptPrecedes(_ j: Int, _ m: Made) throws -> Bool {
                let member = map.members[plan.kept[j]]
                guard let e = JSONText.stringEnd(b, from: member.list.lowerBound) else { throw SpliceFailed() }
                let first = try positionOf(b.extracting(member.list.lowerBound..<e), position)
                if first != m.firstPosition { return first < m.firstPosition }
                guard let key = JSONText.string(b.extracting(member.key)) else { throw SpliceFailed() }
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

        /// The index position of the entry whose id is the string literal `idText`.
        private static func positionOf(_ idText: Span<UInt8>, _ position: (String) -> Int?) throws -> Int {
            guard let id = JSONText.string(idText), let p = position(id) else { throw SpliceFailed() }
            return p
        }

        /// A copy of the bytes of `b` in `r`.
        private static func bytes(_ b: Span<UInt8>, _ r: Range<Int>) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(r.count)
            for k in r { out.append(b[k]) }
            return out
        }

        /// Members' text, one after another in one buffer: a key, then a list of ids (kept ones, ranges of the earlier
        /// text, with added ones at their places).
        private struct MemberText {
            let text = JSONStream(capacity: 4096)

            func make(key: Span<UInt8>, kept: [Range<Int>], of b: Span<UInt8>, adds: [Addition], places: [Int]) -> [UInt8] {
                text.reset()
                text.append(key)
                text.append([0x3A])
                text.beginArray()
                var a = 0
                for (j, r) in kept.enumerated() {
                    while a < adds.count && places[a] == j { text.raw(adds[a].id); a += 1 }
                    text.raw(b.extracting(r))
                }
                while a < adds.count { text.raw(adds[a].id); a += 1 }
                text.endArray()
                return text.bytes
            }
        }
    }

    /// The splice met text it cannot read as the writer made it.
    struct SpliceFailed: Error {}
}
