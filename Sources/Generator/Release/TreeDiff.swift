import Foundation
import Schemas

/// The difference between two built trees, for people (text, markdown) and machines (JSON).
public struct TreeDiff: Sendable {
    public struct KindCount: Sendable { public var kind: String; public var added = 0, changed = 0, removed = 0 }
    public struct PriceChange: Sendable { public var product: String; public var old: String; public var new: String }

    public var added: [String] = []
    public var changed: [String] = []
    public var removed: [String] = []
    public var byKind: [KindCount] = []
    public var productsAdded: [String] = []
    public var productsRemoved: [String] = []
    public var priceChanges: [PriceChange] = []
    public var kindsRemoved: [String] = []
    public var schemaChanges: [SchemaChange] = []
    /// Feature flags and update policy (`config/flags.json`) in words.
    public var flagChanges: [FlagChange] = []
    public var oldVersion: String?
    public var newVersion: String?

    public var isEmpty: Bool { added.isEmpty && changed.isEmpty && removed.isEmpty }
    public var breaking: [String] {
        kindsRemoved.map { "output kind \($0) removed" }
            + removedTemplatesPaths.map { "path \($0) removed" }
            + schemaChanges.filter(\.breaking).map { "\($0.kind) \($0.location): \($0.rule)" }
    }
    /// Fixed (non-record) paths that disappeared: apps fetch these by name.
    var removedTemplatesPaths: [String] = []

    /// Compares two tree folders file by file (hashing every file).
    public static func compare(old: URL, new: URL) throws -> TreeDiff {
        let a = try scan(old), b = try scan(new)
        var d = TreeDiff()
        d.oldVersion = a.version; d.newVersion = b.version
        func kindOf(_ path: String, _ index: [String: String]) -> String {
            if let s = index[path] { return s.hasPrefix("schemas/") ? String(s.dropFirst(8).dropLast(12)) : "json-schema" }
            return "other"
        }
        var counts: [String: KindCount] = [:]
        for (p, h) in b.files.sorted(by: { $0.key < $1.key }) {
            if let oh = a.files[p] {
                if oh != h { d.changed.append(p); counts[kindOf(p, b.schemas), default: KindCount(kind: kindOf(p, b.schemas))].changed += 1 }
            } else { d.added.append(p); counts[kindOf(p, b.schemas), default: KindCount(kind: kindOf(p, b.schemas))].added += 1 }
        }
        for p in a.files.keys.sorted() where b.files[p] == nil {
            d.removed.append(p); counts[kindOf(p, a.schemas), default: KindCount(kind: kindOf(p, a.schemas))].removed += 1
        }
        d.byKind = counts.values.sorted { $0.kind < $1.kind }

        // Notable record changes: products in and out, price changes.
        func productId(_ p: String) -> String? {
            let parts = p.split(separator: "/")
            return parts.count == 3 && parts[0] == "products" && parts[2] == "details.json" ? String(parts[1]) : nil
        }
        d.productsAdded = d.added.compactMap(productId)
        d.productsRemoved = d.removed.compactMap(productId)
        for p in d.changed { if let id = productId(p),
            let o = try? JSONReader.parse(a.tree.read(p)), let n = try? JSONReader.parse(b.tree.read(p)),
            let op = o["pricing"]?["currentPrice"], let np = n["pricing"]?["currentPrice"], op != np {
            d.priceChanges.append(PriceChange(product: id, old: op.compactText, new: np.compactText))
        } }

        let flags = FlagsOutput.path
        if d.changed.contains(flags) || d.added.contains(flags) || d.removed.contains(flags) {
            d.flagChanges = FlagChanges.compare(old: a.files[flags] == nil ? nil : try? a.tree.read(flags),
                                                new: b.files[flags] == nil ? nil : try? b.tree.read(flags))
        }
        // Schemas: a kind removed, or a schema change old apps would reject.
        for p in d.removed where p.hasPrefix("schemas/") { d.kindsRemoved.append(String(p.dropFirst(8).dropLast(12))) }
        for p in d.changed where p.hasPrefix("schemas/") {
            guard let o = try? JSONReader.parse(a.tree.read(p)), let n = try? JSONReader.parse(b.tree.read(p)) else { continue }
            d.schemaChanges += SchemaChanges.compare(kind: String(p.dropFirst(8).dropLast(12)), old: o, new: n)
        }
        // Fixed paths (no record id in them) that vanished, other than schemas and release files.
        let recordPrefixes = ["products/", "categories/", "auctions/properties/", "auctions/counties/", "nba/totals/", "releases/",
                              "schemas/", "search/", "collections/"]
        d.removedTemplatesPaths = d.removed.filter { p in !recordPrefixes.contains { p.hasPrefix($0) } }
        return d
    }

    struct Scan { var files: [String: String]; var schemas: [String: String]; var version: String?; var tree: TreeReader }

    /// Hashes every regular file of the tree. A symlink or special file anywhere in it is an error (never followed or
    /// opened: diffing its target would report another file's content as the tree's), as is a release whose manifest
    /// or index cannot be read safely.
    static func scan(_ root: URL) throws -> Scan {
        let tree: TreeReader
        do { tree = try TreeReader(root: root) } catch { throw BuildError(file: root.path, "not a folder") }
        let walk = tree.walk()
        if let first = walk.problems.min(by: { $0.path < $1.path }) {
            let more = walk.problems.count > 1 ? " (and \(walk.problems.count - 1) more)" : ""
            throw BuildError(file: root.path, "\(first)\(more); a tree to compare holds only regular files and folders")
        }
        var files: [String: String] = [:]
        files.reserveCapacity(walk.files.count)
        for p in walk.files {
            // Hashed from the bytes read through the checked descriptor, not by opening the path again.
            do { files[p] = Build.sha256Hex(try tree.read(p)) } catch { throw BuildError(file: root.path, "\(error)") }
        }
        var schemas: [String: String] = [:]
        var version: String? = nil
        let release: PreviousRelease?
        do { release = try PreviousRelease.load(tree) } catch let e as PreviousRelease.Unreadable {
            throw BuildError(file: root.path, "its release (manifest and file index) cannot be read safely: \(e.why)")
        }
        if let prev = release {
            version = "\(prev.version) (\(prev.currentVersion))"
            for f in prev.files { if let s = f.schema { schemas[f.path] = s } }
        }
        return Scan(files: files, schemas: schemas, version: version, tree: tree)
    }

    // MARK: Rendering

    public func text() -> String {
        var l: [String] = []
        l.append("\(oldVersion ?? "old") → \(newVersion ?? "new"): \(added.count) added, \(changed.count) changed, \(removed.count) removed")
        for k in byKind { l.append("  \(k.kind): +\(k.added) ~\(k.changed) -\(k.removed)") }
        if !productsAdded.isEmpty { l.append("products added: \(productsAdded.prefix(20).joined(separator: ", "))\(productsAdded.count > 20 ? " …" : "")") }
        if !productsRemoved.isEmpty { l.append("products removed: \(productsRemoved.prefix(20).joined(separator: ", "))\(productsRemoved.count > 20 ? " …" : "")") }
        for p in priceChanges.prefix(20) { l.append("price \(p.product): \(p.old) → \(p.new)") }
        if !flagChanges.isEmpty { l.append("flags:") }
        for f in flagChanges { l.append("  \(f.text)") }
        for s in schemaChanges { l.append("schema \(s.kind) \(s.location): \(s.rule) [\(s.breaking ? "breaking" : "compatible")]") }
        for k in kindsRemoved { l.append("BREAKING: output kind \(k) removed") }
        for p in removedTemplatesPaths { l.append("BREAKING: path \(p) removed") }
        return l.joined(separator: "\n")
    }

    public func markdown() -> String {
        var l: [String] = ["## API diff: \(oldVersion ?? "old") → \(newVersion ?? "new")", ""]
        if isEmpty { return (l + ["No differences."]).joined(separator: "\n") }
        let b = breaking
        l.append(b.isEmpty ? "✅ No breaking changes." : "❌ **\(b.count) breaking change(s)**")
        l.append("")
        l.append("| output kind | added | changed | removed |")
        l.append("|---|---:|---:|---:|")
        for k in byKind { l.append("| \(k.kind) | \(k.added) | \(k.changed) | \(k.removed) |") }
        l.append("| **total** | **\(added.count)** | **\(changed.count)** | **\(removed.count)** |")
        if !productsAdded.isEmpty || !productsRemoved.isEmpty || !priceChanges.isEmpty {
            l += ["", "### Notable changes", ""]
            if !productsAdded.isEmpty { l.append("- Products added (\(productsAdded.count)): " + productsAdded.prefix(20).map { "`\($0)`" }.joined(separator: ", ")) }
            if !productsRemoved.isEmpty { l.append("- Products removed (\(productsRemoved.count)): " + productsRemoved.prefix(20).map { "`\($0)`" }.joined(separator: ", ")) }
            if !priceChanges.isEmpty {
                l.append("- Price changes (\(priceChanges.count)):")
                for p in priceChanges.prefix(20) { l.append("  - `\(p.product)`: \(p.old) → \(p.new)") }
            }
        }
        if !flagChanges.isEmpty {
            l += ["", "### Flags", ""]
            for f in flagChanges { l.append("- \(f.text)") }
        }
        if !schemaChanges.isEmpty || !b.isEmpty {
            l += ["", "### Contract changes", ""]
            for s in schemaChanges { l.append("- \(s.breaking ? "❌" : "✅") `\(s.kind)` `\(s.location)`: \(s.rule)") }
            for k in kindsRemoved { l.append("- ❌ output kind `\(k)` removed") }
            for p in removedTemplatesPaths { l.append("- ❌ path `\(p)` removed") }
        }
        return l.joined(separator: "\n")
    }

    public func json() -> JSON {
        .obj([
            "oldVersion": .optional(oldVersion), "newVersion": .optional(newVersion),
            "added": .strings(added), "changed": .strings(changed), "removed": .strings(removed),
            "byKind": .array(byKind.map { .obj(["kind": .string($0.kind), "added": .int($0.added), "changed": .int($0.changed), "removed": .int($0.removed)]) }),
            "productsAdded": .strings(productsAdded), "productsRemoved": .strings(productsRemoved),
            "priceChanges": .array(priceChanges.map { .obj(["product": .string($0.product), "old": .string($0.old), "new": .string($0.new)]) }),
            "schemaChanges": .array(schemaChanges.map { .obj(["kind": .string($0.kind), "location": .string($0.location), "rule": .string($0.rule), "breaking": .bool($0.breaking)]) }),
            "breaking": .strings(breaking),
            "flagChanges": .array(flagChanges.map { .obj(["flag": .string($0.flag), "change": .string($0.text), "widening": .double($0.widening)]) }),
        ])
    }
}
