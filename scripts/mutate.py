#!/usr/bin/env python3
"""Mutation check: do the tests catch small planted bugs?

Each mutation is a textual edit of one source line that changes behaviour. For each one, in a copy of the
repository (never the real tree), the script applies the edit, builds incrementally (`swift build --build-tests`),
runs only the test classes related to it (`swift test --skip-build --filter ...`), and restores the file — always,
even after Ctrl-C or an exception. A mutation is caught when the tests fail (or time out).

Usage: scripts/mutate.py [--only ID,ID] [--list] [--check] [--workdir DIR] [--timeout SECONDS]

The copy lives in --workdir (default /tmp/mutate-<repo folder name>): `repo/`, the working tree (test data included)
copied on each run without .git and .build — only files that differ, so uncommitted changes are included; its own
.build is kept between runs, so only the first run builds from scratch. Tests run with every tool required
(REQUIRE_TOOLS=1, the tools `scripts/test` installed in .build/test-tools/venv on PATH): a skipped test catches
nothing. A baseline run of every filter must pass before any mutation counts. The last line is `N of M caught`.
Slow (a build and a test run per mutation): run it with nohup and read its log.
"""
import argparse, fcntl, os, re, shutil, signal, subprocess, sys, time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The tests' environment: every tool required, found where scripts/test installs them.
TEST_ENV = dict(os.environ, REQUIRE_TOOLS="1",
                PATH=os.path.join(REPO, ".build", "test-tools", "venv", "bin") + os.pathsep + os.environ.get("PATH", ""))

# Test filters by area (regular expressions for `swift test --filter`).
T = {
    "schemas": r"SchemasTests\.",
    "indexer": r"IndexerTests\.|GeneratorTests\.RankedSearchOracleTests",
    "catalog": r"GeneratorTests\.(RankedSearchOracleTests|CatalogOracleTests|SummaryTests|RealCorpusTests|SafePathTests|AppConfigReleaseTests|BuildDeterminismTests)",
    "search": r"GeneratorTests\.(RankedSearchOracleTests|SearchTests)",
    "auctions": r"GeneratorTests\.Auction",
    "nba": r"GeneratorTests\.NBA",
    "collections": r"GeneratorTests\.Collection",
    "release": r"GeneratorTests\.(JSONPatch|ReleaseTests|SchemaChangeRuleTests|DiffCommandTests|CheckPatchesScriptTests|JSONByteDiffTests|FileIndexTextTests|TreeClientCompatibilityTests)",
    # Deltas from every kept release, over three releases (BuildLockTests checks each delta against the trees).
    "history": r"GeneratorTests\.(ReleaseTests|BuildLockTests|TreeClientCompatibilityTests)",
    "writer": r"GeneratorTests\.(StagedTreeTests|InPlaceCommitTests|IncrementalBuildTests|TreeReuseTests|StagingLeftoverTests|BuildDeterminismTests|BuildLockTests|OutputGuardTests|PagesRulesTests)",
    # Build cache, fingerprints and fragments: incremental trees against full builds.
    "incremental": r"GeneratorTests\.(IncrementalBuildTests|TreeReuseTests)|IndexerTests\.SeedIndexTests",
    "publish": r"GeneratorTests\.(S3SignerTests|S3LocationTests|PublishTests)",
    "treeclient": r"TreeClientTests\.|GeneratorTests\.(RemotePreviousTests|TreeClientCompatibilityTests)",
    "large": r"GeneratorTests\.(ProductStoreTests|BlockReadTests|LargeCatalogTests|PagesRulesTests)",
    "web": r"GeneratorTests\.WebAnalyzerTests",
}

# (id, file, text to find — exactly once in the file, the replacement, test filter)
MUTATIONS = [
    # --- listed under "Why" in issue 24 ---
    ("auction-grade-boundary", "Sources/Generator/Auctions/AuctionScoring.swift",
     "for (g, t) in thresholds where score >= t", "for (g, t) in thresholds where score > t", T["auctions"]),
    ("auction-rank-ppa-reversed", "Sources/Generator/Auctions/AuctionsDomain+Rank.swift",
     "if pa != pb { return pa < pb }", "if pa != pb { return pa > pb }", T["auctions"]),
    ("bm25-k1", "Sources/Indexer/RankedIndex.swift", "public var k1 = 1.2", "public var k1 = 2.0", T["indexer"]),
    ("search-name-weight", "Sources/Generator/Catalog/Outputs/RankedSearch.swift",
     "static let weights = (name: 3.0,", "static let weights = (name: 1.0,", T["search"]),
    ("bm25-idf-one", "Sources/Indexer/RankedIndexBuilder+Terms.swift",
     "let idf = log(1 + (n - df + 0.5) / (df + 0.5))", "let idf = 1.0 + 0 * df", T["indexer"]),
    ("nba-overtime-default", "Sources/Generator/NBA/NBASettings.swift",
     'default: 0.06)', 'default: 0.10)', T["nba"]),
    ("jsonpatch-copy-dropped", "Sources/Generator/Release/JSONPatch.swift",
     'case "move", "copy":', 'case "move":', T["release"]),
    # (Was writer-no-hard-links: unchanged files are now kept in place, or linked only for a whole swap.)
    ("writer-no-reuse", "Sources/Generator/Writer/StagedTree.swift",
     "guard outputFD >= 0, isRealFolder(folder, keeper: keeper) else { return false }",
     "guard outputFD < 0, isRealFolder(folder, keeper: keeper) else { return false }", T["writer"]),
    # --- Schemas ---
    ("schema-minimum", "Sources/Schemas/Validator/Validator.swift",
     'if let m = n.minimum, x < m {', 'if let m = n.minimum, x <= m {', T["schemas"]),
    ("schema-exclusive-maximum", "Sources/Schemas/Validator/Validator.swift",
     'if let m = n.exclusiveMaximum, !(x < m) {', 'if let m = n.exclusiveMaximum, x > m {', T["schemas"]),
    ("json-leading-zero", "Sources/Schemas/JSONReader.swift",
     'if pos < buf.count, isDigit(buf[pos]) { throw error("leading zeros are not allowed in numbers") }',
     'if false, pos < buf.count, isDigit(buf[pos]) { throw error("leading zeros are not allowed in numbers") }', T["schemas"]),
    ("json-escape-tab", "Sources/Schemas/JSONWriter.swift",
     'case 0x09: out.byte(0x5C); out.byte(UInt8(ascii: "t"))', 'case 0x09: out.byte(0x09)', T["schemas"]),
    ("schema-min-items", "Sources/Schemas/Validator/Validator.swift",
     'if let m = n.minItems, a.count < m {', 'if let m = n.minItems, a.count + 1 < m {', T["schemas"]),
    # --- Indexer ---
    ("bm25-b", "Sources/Indexer/RankedIndex.swift", "public var b = 0.75", "public var b = 0.5", T["indexer"]),
    ("query-prefix-weight", "Sources/Indexer/Query.swift",
     "public static let prefixWeight = 0.9", "public static let prefixWeight = 1.0", T["indexer"]),
    ("query-typo-weight", "Sources/Indexer/Query.swift",
     "public static let typoWeight = 0.7", "public static let typoWeight = 0.9", T["indexer"]),
    ("query-tie-order", "Sources/Indexer/Query.swift",
     ".sorted { $0.score != $1.score ? $0.score > $1.score : $0.doc < $1.doc }",
     ".sorted { $0.score != $1.score ? $0.score > $1.score : $0.doc > $1.doc }", T["indexer"]),
    ("query-no-share", "Sources/Indexer/Query.swift",
     "score: $0.value.score * Double($0.value.matched) / n)", "score: $0.value.score)", T["indexer"]),
    ("query-typo-frequency", "Sources/Indexer/Query.swift",
     "where p.count * 2 >= top", "where p.count * 4 >= top", T["indexer"]),
    ("analyzer-ies", "Sources/Indexer/Analyzer.swift",
     'if ends("ies"), b.count > 4 { b.removeLast(3); b.append(0x79);', 'if ends("ies"), b.count > 4 { b.removeLast(2);',
     T["indexer"]),
    # --- Catalog ---
    ("search-brand-weight", "Sources/Generator/Catalog/Outputs/RankedSearch.swift",
     "brand: 2.0,", "brand: 2.5,", T["search"]),
    ("catalog-bayesian-prior", "Sources/Generator/Catalog/CatalogLoad+Orders.swift",
     "return (m * c + n * (p.ratingAverage ?? 0)) / (m + n)", "return (c + n * (p.ratingAverage ?? 0)) / (m + n)", T["catalog"]),
    ("catalog-popularity-order", "Sources/Generator/Catalog/CatalogLoad+Orders.swift",
     "popularity[a] != popularity[b] ? popularity[a] > popularity[b] : a < b",
     "popularity[a] != popularity[b] ? popularity[a] < popularity[b] : a < b", T["catalog"]),
    ("summary-top-brands", "Sources/Generator/Catalog/Outputs/Summary.swift",
     "let top = brandCounts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(20)",
     "let top = brandCounts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key > $1.key }.prefix(20)", T["catalog"]),
    # --- Auctions ---
    ("auction-water-primary", "Sources/Generator/Auctions/AuctionScoring.swift",
     "for k in primary where d.contains(k) { score += 3 }", "for k in primary where d.contains(k) { score += 2 }", T["auctions"]),
    # (Not `acres <= 4` → `< 4`: the acreage part is continuous there, so that edit changes nothing.)
    ("auction-acreage-small", "Sources/Generator/Auctions/AuctionScoring.swift",
     "if acres < 2 { return 100 * acres / 2 }", "if acres < 2 { return 100 * acres / 3 }", T["auctions"]),
    ("auction-county-fee", "Sources/Generator/Auctions/AuctionScoring.swift",
     "b.divided(by: 20, places: 2, rounding: .halfUp)", "b.divided(by: 25, places: 2, rounding: .halfUp)", T["auctions"]),
    ("auction-recording-fee", "Sources/Generator/Auctions/AuctionScoring.swift",
     "return b + ExactDecimal(35) +", "return b + ExactDecimal(30) +", T["auctions"]),
    ("auction-rank-water", "Sources/Generator/Auctions/AuctionsDomain+Rank.swift",
     "if a.waterScore != b.waterScore { return a.waterScore > b.waterScore }",
     "if a.waterScore != b.waterScore { return a.waterScore < b.waterScore }", T["auctions"]),
    ("auction-assessed-ratio", "Sources/Generator/Auctions/AuctionsDomain+Score.swift",
     "amountDouble / Self.double($0) : 1.0", "Self.double($0) / max(amountDouble, 1) : 1.0", T["auctions"]),
    ("auction-python-round", "Sources/Generator/Auctions/AuctionScoring.swift",
     "let up = r > half || (r == half && q % 2 == 1)", "let up = r >= half", T["auctions"]),
    # --- NBA ---
    ("nba-rho-default", "Sources/Generator/NBA/NBASettings.swift",
     's.rho = try o.double("rho", default: 0.2)', 's.rho = try o.double("rho", default: 0.5)', T["nba"]),
    ("nba-sd-floor", "Sources/Generator/NBA/TeamForm.swift",
     "static let defaultPpg = 110.0, defaultSD = 10.0, sdFloor = 8.0", "static let defaultPpg = 110.0, defaultSD = 10.0, sdFloor = 7.0",
     T["nba"]),
    ("nba-sample-sd", "Sources/Generator/NBA/TeamForm.swift",
     "f.sd = max(sdFloor, (ss / (n - 1)).squareRoot())", "f.sd = max(sdFloor, (ss / n).squareRoot())", T["nba"]),
    ("nba-strong-threshold", "Sources/Generator/NBA/TotalsModel.swift",
     'if e >= s.strongEdge { return "STRONG_\\(side)" }', 'if e > s.strongEdge { return "STRONG_\\(side)" }', T["nba"]),
    ("nba-exact-continuity", "Sources/Generator/NBA/TotalsModel.swift",
     "let threshold = line.rounded(.down) + 0.5", "let threshold = line.rounded(.down)", T["nba"]),
    ("nba-kelly-fraction", "Sources/Generator/NBA/NBASettings.swift",
     's.kellyFraction = try o.double("kellyFraction", default: 0.25)', 's.kellyFraction = try o.double("kellyFraction", default: 0.5)',
     T["nba"]),
    ("nba-overtime-field", "Sources/Generator/NBA/NBASettings.swift",
     "var overtimeProbability = 0.06", "var overtimeProbability = 0.10", T["nba"]),
    ("nba-projection", "Sources/Generator/NBA/TotalsModel.swift",
     "Projection(homeMean: (home.ppg + away.oppPpg) / 2,", "Projection(homeMean: (home.ppg + home.oppPpg) / 2,", T["nba"]),
    ("nba-whole-totals", "Sources/Generator/NBA/TotalsModel.swift",
     "totals[i] = total.rounded(.toNearestOrAwayFromZero)", "totals[i] = total", T["nba"]),
    ("nba-backtest-bins", "Sources/Generator/NBA/Backtest.swift",
     "let bin = min(9, Int(pOver * 10))", "let bin = min(9, Int(pOver * 9))", T["nba"]),
    ("nba-players-pct", "Sources/Generator/NBA/Outputs/PlayersOutput.swift",
     "return a == 0 ? .int(0) : r(ls.reduce(0) { $0 + $1[keyPath: made] } / a, 3)",
     "return a == 0 ? .int(0) : r(ls.reduce(0) { $0 + $1[keyPath: made] } / (a + 1), 3)", T["nba"]),
    ("nba-streak", "Sources/Generator/NBA/TeamForm.swift",
     "let n = results.reversed().prefix { $0 == last }.count", "let n = results.prefix { $0 == last }.count", T["nba"]),
    # --- Collections ---
    ("collections-nulls-last", "Sources/Generator/Collections/CollectionsDomain+Order.swift",
     "if xNull != yNull { return !xNull }", "if xNull != yNull { return xNull }", T["collections"]),
    ("collections-descending", "Sources/Generator/Collections/CollectionsDomain+Order.swift",
     "return key.descending ? c > 0 : c < 0", "return key.descending ? c < 0 : c < 0", T["collections"]),
    ("collections-page-count", "Sources/Generator/Collections/Outputs/CollectionPageOutput.swift",
     "max(1, (items + pageSize - 1) / pageSize)", "max(1, (items + pageSize) / pageSize)", T["collections"]),
    ("collections-mean-places", "Sources/Generator/Collections/Outputs/CollectionIndexOutput.swift",
     "static let meanScale = 6", "static let meanScale = 4", T["collections"]),
    ("collections-facet-order", "Sources/Generator/Collections/Outputs/CollectionIndexOutput.swift",
     "values = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }",
     "values = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key > $1.key }", T["collections"]),
    ("collections-search-weights", "Sources/Generator/Collections/Outputs/CollectionSearchOutput.swift",
     "fields: decl.search.map { f in (f.field, f.weight, Self.text(item.values[f.field])) }",
     "fields: decl.search.map { f in (f.field, 1.0, Self.text(item.values[f.field])) }", T["collections"]),
    # --- Release ---
    ("jsonpatch-test-inverted", "Sources/Generator/Release/JSONPatch.swift",
     "guard try get(doc, tokens[...]) == (try value()) else", "guard try get(doc, tokens[...]) != (try value()) else", T["release"]),
    ("jsonpatch-move-keeps-source", "Sources/Generator/Release/JSONPatch.swift",
     'let v = name == "move" ? try remove(&doc, ft[...]) : try get(doc, ft[...])', 'let v = try get(doc, ft[...])', T["release"]),
    ("jsonpatch-append-dash", "Sources/Generator/Release/JSONPatch.swift",
     'if first == "-" { a.append(value); return }', 'if first == "-" { a.insert(value, at: 0); return }', T["release"]),
    ("sync-no-rollback-guard", "Sources/TreeClient/SyncRun.swift",
     "if let have = local.version, manifest.version < have {", "if let have = local.version, manifest.version < 0 && have > 0 {",
     T["treeclient"]),
    ("diff-changed-files", "Sources/Generator/Release/TreeDiff.swift",
     "if oh != h { d.changed.append(p);", "if oh == h { d.changed.append(p);", T["release"]),
    # --- Writer ---
    ("writer-dotdot-path", "Sources/Generator/Writer/StagedTree.swift",
     "if segmentStart || dots == 1 || dots == 2 { return false }", "if segmentStart || dots == 1 { return false }", T["writer"]),
    ("writer-pages-limit", "Sources/Generator/Writer/PagesRules.swift",
     "if size > maxFileBytes {", "if size > maxFileBytes * 2 {", T["writer"]),
    ("writer-removed-count", "Sources/Generator/Writer/StagedTree.swift",
     "linked: keptPaths.count, removed: removedPaths.count)", "linked: keptPaths.count, removed: 0)", T["writer"]),
    # --- Writer: reuse and the in-place commit ---
    ("writer-reuse-any-file-type", "Sources/Generator/Writer/StagedTree.swift",
     "== 0 && (st.st_mode & S_IFMT) == S_IFREG && st.st_size == size", "== 0 && st.st_size == size", T["writer"]),
    ("writer-reuse-through-symlinked-folder", "Sources/Generator/Writer/StagedTree.swift",
     "guard outputFD >= 0, isRealFolder(folder, keeper: keeper) else { return false }", "guard outputFD >= 0 else { return false }", T["writer"]),
    ("inplace-manifest-not-last", "Sources/Generator/Writer/StagedTree.swift",
     "if let m = manifest { files.append(files.remove(at: m)) }", "_ = manifest", T["writer"]),
    ("inplace-undo-remove-skipped", "Sources/Generator/Writer/StagedTree.swift",
     "if inode(output, p) == nil, inode(AT_FDCWD, backup) == step.old {", "if inode(output, p) != nil, inode(AT_FDCWD, backup) == step.old {",
     T["writer"]),
    ("inplace-limit-ignored", "Sources/Generator/Writer/StagedTree.swift",
     "public static let inPlaceLimit = 0.25", "public static let inPlaceLimit = 1.0", T["writer"]),
    ("inplace-through-symlinked-folder", "Sources/Generator/Writer/StagedTree.swift",
     "guard isRealFolder(folder), (st.st_mode & S_IFMT) == S_IFREG else { return nil }",
     "guard (st.st_mode & S_IFMT) == S_IFREG else { return nil }", T["writer"]),
    # --- Build cache, fingerprints, fragments (incremental rebuilds) ---
    ("fingerprint-no-price", "Sources/Generator/Catalog/CatalogDomain.swift",
     "h.add(p.price?.description); h.add(p.currency);", "h.add(p.currency);", T["incremental"]),
    ("fingerprint-no-category", "Sources/Generator/Catalog/CatalogDomain.swift",
     "h.add(p.ratingAverage); h.add(p.ratingCount); h.add(categoryId)", "h.add(p.ratingAverage); h.add(p.ratingCount)",
     T["incremental"]),
    ("context-no-category-names", "Sources/Generator/Catalog/Outputs/CatalogOutput.swift",
     "h.add(n.id); h.add(n.path); h.add(n.name); h.add(n.parent);", "h.add(n.id); h.add(n.path); h.add(n.parent);", T["incremental"]),
    ("salted-unsalted", "Sources/Generator/Pipeline/Fingerprint.swift",
     "func salted(_ salt: Fingerprint) -> Fingerprint { Fingerprint(a: a ^ salt.a, b: b ^ salt.b, c: c ^ salt.c, d: d ^ salt.d) }",
     "func salted(_ salt: Fingerprint) -> Fingerprint { self }", T["incremental"]),
    ("cache-tool-unchecked", "Sources/Generator/PreviousBuild/BuildCache.swift",
     "guard tool == ToolIdentity.digest else { return .failure(.otherTool) }",
     "guard tool == ToolIdentity.digest || true else { return .failure(.otherTool) }", T["incremental"]),
    ("cache-release-unchecked", "Sources/Generator/PreviousBuild/BuildCache.swift",
     "readFile(url).flatMap { $0.release == release ? .success($0) : .failure(.otherRelease) }",
     "readFile(url).flatMap { $0.release == release || true ? .success($0) : .failure(.otherRelease) }", T["incremental"]),
    ("seed-tail-key-no-name", "Sources/Generator/Catalog/CatalogDomain.swift",
     "t.add(utf8: id); t.add(utf8: segment); t.add(utf8: name); t.add(p.descriptionIsName)",
     "t.add(utf8: id); t.add(utf8: segment); t.add(p.descriptionIsName)", T["incremental"]),
    ("seed-order-reused-without-tail", "Sources/Indexer/SeedIndex.swift",
     "guard reuse.has(tailKey), old.count == entryKeys.count else { return nil }",
     "guard old.count == entryKeys.count else { return nil }", T["incremental"]),
    ("seed-entry-range-off-by-one", "Sources/Indexer/SeedIndex.swift",
     "start = base + end + 1", "start = base + end", T["incremental"]),
    ("fragment-copy-length", "Sources/Indexer/Fragments.swift",
     "return r.count\n", "return r.count + 1\n", T["incremental"]),
    ("fragment-checks-inverted", "Sources/Generator/Pipeline/Build+Serialise.swift",
     "let found = reuse.copied == 0 ?", "let found = reuse.copied != 0 ?", T["incremental"]),
    # --- Release stage ---
    ("fileindex-leading-zero", "Sources/Generator/Release/FileIndexText.swift",
     "guard digits > 0, digits == 1 || b[i - digits] != 0x30 else { return nil }", "guard digits > 0 else { return nil }", T["release"]),
    ("fileindex-duplicate-member", "Sources/Generator/Release/FileIndexText.swift",
     'case .path: guard path == nil, let v = string() else { return nil }; path = v',
     'case .path: guard let v = string() else { return nil }; path = v', T["release"]),
    ("release-older-entries-from-previous", "Sources/Generator/Release/ReleaseFiles+Previous.swift",
     "if e.path == previous.fileIndex.path { return .init(file: file, version: v, files: Array(previous.files.dropLast())) }",
     "if e.path != previous.fileIndex.path { return .init(file: file, version: v, files: Array(previous.files.dropLast())) }",
     T["release"]),
    ("bytediff-remove-order", "Sources/Generator/Release/JSONByteDiff.swift",
     "for i in stride(from: pre + oldMid - 1, through: pre + common, by: -1) {", "for i in (pre + common)..<(pre + oldMid) {", T["release"]),
    # --- Publish (object storage) ---
    ("signer-query-values-unsorted", "Sources/Generator/ObjectStore/S3Signer.swift",
     ": Array($0.1.utf8).lexicographicallyPrecedes(Array($1.1.utf8)) }", ": false }", T["publish"]),
    ("signer-headers-unsorted", "Sources/Generator/ObjectStore/S3Signer.swift",
     "let names = order.sorted()", "let names = order", T["publish"]),
    ("publish-changed-before-switch", "Sources/Generator/ObjectStore/TreePublisher+Writes.swift",
     'try upload(plan.newFiles.map { ($0.path, $0) }, "new files", reader, &report)',
     'try upload((plan.newFiles + plan.rewrite).map { ($0.path, $0) }, "new files", reader, &report)', T["publish"]),
    ("prune-kept-release-files", "Sources/Generator/ObjectStore/TreePublisher+Prune.swift",
     'for e in list { if let p = e["path"]?.stringValue { keep.insert(p) } }',
     'for e in list { if let p = e["path"]?.stringValue, p.hasPrefix("releases/") { keep.insert(p) } }', T["publish"]),
    # --- TreeClient: content-addressed copies ---
    ("fetch-copy-hash-unchecked", "Sources/TreeClient/HTTPFetcher.swift",
     "where (200..<300).contains(a.status) && Self.mismatch(a.body, expected) == nil:",
     "where (200..<300).contains(a.status) && a.body.count == expected.size:", T["treeclient"]),
    ("content-addressed-any-name", "Sources/TreeClient/TreePath.swift",
     "guard sha256.utf8.count == 64, sha256.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else { return nil }",
     "guard sha256.utf8.count == 64 else { return nil }", T["treeclient"]),
    # --- Large catalogs ---
    ("productstore-image-offset", "Sources/Generator/Catalog/Model.swift",
     "var imageOffset: Int { descriptionOffset + (descriptionLength == Self.same ? 0 : Int(descriptionLength)) }",
     "var imageOffset: Int { descriptionOffset + Int(descriptionLength == Self.same ? nameLength : descriptionLength) }", T["large"]),
    ("blockread-line-after-boundary", "Sources/Generator/Catalog/CatalogInput.swift",
     "start = nl + 1", "start = nl", T["large"]),
    ("objectstorage-limit-off-by-one", "Sources/Generator/Writer/PagesRules.swift",
     "if size > limit {", "if size >= limit {", T["large"]),
    ("seedindexes-ignored-by-deeplinks", "Sources/Generator/Catalog/Outputs/DeeplinkMap.swift",
     'let brandWeb = c.settings.seedIndexes ? web + "search-index.json"', 'let brandWeb = true ? web + "search-index.json"', T["large"]),
    # --- Web search module ---
    ("web-stem-ies", "Sources/Generator/Web/search.js",
     'if (ends("ies") && w.length > 4)', 'if (ends("ies") && w.length > 3)', T["web"]),
]


def run(cmd, cwd, timeout=None, log=None):
    """Runs a command in its own process group; kills the group on timeout or interrupt. Returns (status, output)."""
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
                         env=TEST_ENV)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return None, out
    except BaseException:
        try: os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError: pass
        p.wait()
        raise


TOP_EXCLUDES = {".build", ".git", "dist"}


def sync(src, dst):
    """Makes dst a copy of src (minus TOP_EXCLUDES at the top), touching only files whose bytes differ, so the
    copy's incremental build sees only real changes."""
    os.makedirs(dst, exist_ok=True)
    for here, dirs, files in os.walk(src):
        rel = os.path.relpath(here, src)
        if rel == ".":
            dirs[:] = [d for d in dirs if d not in TOP_EXCLUDES]
            files = [f for f in files if f not in TOP_EXCLUDES]
        target = os.path.normpath(os.path.join(dst, rel))
        os.makedirs(target, exist_ok=True)
        wanted = set(dirs) | set(files)
        for name in os.listdir(target):
            if name in wanted or (rel == "." and name in TOP_EXCLUDES): continue
            gone = os.path.join(target, name)
            if os.path.isdir(gone) and not os.path.islink(gone): shutil.rmtree(gone)
            else: os.remove(gone)
        for name in files:
            a, b = os.path.join(here, name), os.path.join(target, name)
            if os.path.islink(a):
                if os.path.lexists(b): os.remove(b)
                os.symlink(os.readlink(a), b)
                continue
            if os.path.isfile(b) and not os.path.islink(b) and os.path.getsize(a) == os.path.getsize(b):
                with open(a, "rb") as x, open(b, "rb") as y:
                    if x.read() == y.read(): continue
            if os.path.lexists(b): os.remove(b)
            shutil.copy2(a, b)


def prepare(workdir):
    """The copy: workdir/repo (the working tree, its own .build kept between runs)."""
    os.makedirs(workdir, exist_ok=True)
    copy = os.path.join(workdir, "repo")
    sync(REPO, copy)
    # A new copy gets the package dependencies already fetched here (no network); its build products are its own.
    seed = os.path.join(REPO, ".build")
    if not os.path.exists(os.path.join(copy, ".build")) and os.path.isdir(seed):
        for name in ["checkouts", "repositories", "artifacts", "workspace-state.json"]:
            a, b = os.path.join(seed, name), os.path.join(copy, ".build", name)
            if os.path.isdir(a): shutil.copytree(a, b, symlinks=True)
            elif os.path.isfile(a): os.makedirs(os.path.dirname(b), exist_ok=True); shutil.copy2(a, b)
    return copy


def tests(copy, pattern, timeout):
    return run(["swift", "test", "--skip-build", "--filter", pattern], cwd=copy, timeout=timeout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated mutation ids")
    ap.add_argument("--list", action="store_true", help="list the mutations and exit")
    ap.add_argument("--check", action="store_true", help="copy the tree, check every mutation's text is found once, and exit")
    ap.add_argument("--workdir", default=os.path.join("/tmp", "mutate-" + os.path.basename(REPO)))
    ap.add_argument("--timeout", type=float, default=1200, help="seconds for one test run (a timeout counts as caught)")
    args = ap.parse_args()
    chosen = MUTATIONS
    if args.only:
        ids = args.only.split(",")
        unknown = [i for i in ids if i not in {m[0] for m in MUTATIONS}]
        if unknown: sys.exit(f"unknown mutation ids: {unknown}")
        chosen = [m for m in MUTATIONS if m[0] in ids]
    if args.list:
        for m in chosen: print(f"{m[0]:32} {m[1]}")
        print(f"{len(chosen)} mutations")
        return
    # SIGTERM (e.g. kill) unwinds like Ctrl-C, so the finally clauses restore files.
    def on_term(*_): raise KeyboardInterrupt()
    signal.signal(signal.SIGTERM, on_term)

    # One run per copy at a time (a second run would overwrite the first one's mutated files).
    os.makedirs(args.workdir, exist_ok=True)
    lock = open(os.path.join(args.workdir, ".lock"), "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        sys.exit(f"another mutation run is using {args.workdir}; wait for it or pass --workdir")
    copy = prepare(args.workdir)
    print(f"copy: {copy}", flush=True)
    # Every mutation's text must be found exactly once (checked before anything runs).
    for mid, path, find, repl, _ in chosen:
        text = open(os.path.join(copy, path), encoding="utf-8").read()
        if text.count(find) != 1:
            sys.exit(f"{mid}: the text to mutate occurs {text.count(find)} times in {path} (expected once): {find!r}")
    if args.check:
        print(f"{len(chosen)} mutations, each found once")
        return

    t0 = time.time()
    status, out = run(["swift", "build", "--build-tests"], cwd=copy)
    if status != 0:
        sys.exit("the unmutated copy does not build:\n" + out[-3000:])
    print(f"baseline build: {time.time() - t0:.0f} s", flush=True)
    for pattern in sorted({m[4] for m in chosen}):
        t = time.time()
        status, out = tests(copy, pattern, args.timeout)
        if status != 0:
            sys.exit(f"baseline tests fail for {pattern} (fix them first):\n" + out[-3000:])
        # Every class named in a filter must exist (a misspelt name would silently test less).
        ran = {l.split("'")[1].split(".")[0] for l in out.splitlines() if l.startswith("Test Case '")}
        named = set(re.findall(r"[A-Z][A-Za-z0-9]+Tests|JSONPatch[A-Za-z]*", pattern)) - {"GeneratorTests", "IndexerTests", "SchemasTests", "TreeClientTests"}
        missing = [n for n in named if not any(r == n or r.startswith(n) for r in ran)]
        if missing or not ran:
            sys.exit(f"the filter {pattern} names classes that ran no test: {missing or 'all'}")
        print(f"baseline {pattern}: passed in {time.time() - t:.0f} s", flush=True)

    results = []
    for mid, path, find, repl, pattern in chosen:
        full = os.path.join(copy, path)
        original = open(full, encoding="utf-8").read()
        t = time.time()
        try:
            with open(full, "w", encoding="utf-8") as f:
                f.write(original.replace(find, repl, 1))
            status, out = run(["swift", "build", "--build-tests"], cwd=copy)
            if status != 0:
                verdict = "INVALID (does not build)"
                detail = [l for l in out.splitlines() if "error:" in l][:3]
            else:
                status, out = tests(copy, pattern, args.timeout)
                if status is None: verdict, detail = "caught (timeout)", []
                elif status != 0:
                    verdict = "caught"
                    detail = sorted({l.split("'")[1] for l in out.splitlines() if l.startswith("Test Case '") and "' failed" in l})[:4]
                else: verdict, detail = "SURVIVED", []
        finally:
            with open(full, "w", encoding="utf-8") as f:
                f.write(original)
        results.append((mid, verdict))
        print(f"{mid:32} {verdict:24} {time.time() - t:5.0f} s  {path}  {'; '.join(detail)}", flush=True)

    # A last build of the restored copy, so its .build matches the unmutated sources for the next run.
    run(["swift", "build", "--build-tests"], cwd=copy)
    valid = [r for r in results if not r[1].startswith("INVALID")]
    caught = [r for r in valid if r[1].startswith("caught")]
    survived = [r[0] for r in valid if r[1] == "SURVIVED"]
    invalid = [r[0] for r in results if r[1].startswith("INVALID")]
    if survived: print("survived: " + ", ".join(survived))
    if invalid: print("invalid (not counted): " + ", ".join(invalid))
    print(f"{len(caught)} of {len(valid)} caught")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        print("interrupted; every mutated file was restored", file=sys.stderr)
        sys.exit(130)
