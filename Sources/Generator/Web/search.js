// Ranked search over the index in this folder (meta.json and the content-named files it lists), for web pages.
// A dependency-free ES module, published beside the index it reads:
//
//   import { search } from "https://you.github.io/repo/search/search.js";
//   const { total, partial, results, facets } = await search("dewalt drill", {
//     limit: 10, filters: { brand: ["DEWALT"], price: ["50..200"], rating: ["4"] }, sort: "price", facets: true });
//   // results[i] = { document, score, item }  (item: what the index stores for a result: id, name, path, …)
//   // facets[i] = { field, values: [{ value, label, count }] }  (over every result, most first)
//
// It is a port of the reference client (Sources/Indexer/Query.swift, Query+Words.swift, Query+Fields.swift and
// Analyzer.swift) and returns exactly its results in the same order, with the same scores, totals and facet counts,
// downloading the same files: the query is analysed like the documents (folding, words, stemming, stop words); each
// word matches its index term and its stem, the last word also the terms it starts (while typing), and a word of 5+
// characters that is not in the index the terms one edit away. A result matches every word; only when no document
// does are those matching the most words returned (`partial`). Filters narrow the results (OR within a field, AND
// across fields); filters without words browse every document they admit. Results are ordered by relevance or by a
// sort the index declares, ties by relevance, then by document order.
// It downloads only what a request needs: meta.json once, the term shards of its words (more for a prefix) and the
// term directories above them, the vocabulary files of a typo, the facet shards of its filters (all of them for facet
// counts) or, for a price-like filter with words, the facet columns of one word's terms, the sort chunks up to the end of the page, and the result-store slices of the page and the store
// directories above them. Every file but meta.json is named by a hash of its content, so it is cached for good, in
// memory and by the browser.


const folder = new URL("./", import.meta.url);

// Analysis. "Characters" below are what the reference (Swift) counts, compares and splits: extended grapheme
// clusters. In folded text (no combining marks) the only clusters of more than one code point are Hangul jamo
// sequences and a "prepend" letter with what follows it, so they are computed from these two small tables
// instead of a segmenter whose Unicode version varies (Tests/Web checks them against Swift for every code point).

// Grapheme_Cluster_Break=Prepend (Unicode 17): joined to the code point that follows.
const PREPEND = [[0x600, 0x605], [0x6dd, 0x6dd], [0x70f, 0x70f], [0x890, 0x891], [0x8e2, 0x8e2], [0xd4e, 0xd4e],
  [0x110bd, 0x110bd], [0x110cd, 0x110cd], [0x111c2, 0x111c3], [0x113d1, 0x113d1], [0x1193f, 0x1193f],
  [0x11941, 0x11941], [0x11a84, 0x11a89], [0x11d46, 0x11d46], [0x11f02, 0x11f02]];
// Compatibility decompositions that came with Unicode 16 and 17: the analyzer folds with the decompositions of
// Unicode 15.1 (those of the reference's Foundation), so these code points are kept as they are.
const KEPT = [[0xa7f1, 0xa7f1], [0x105c9, 0x105c9], [0x105e4, 0x105e4], [0x11383, 0x11383], [0x11385, 0x11385],
  [0x1138e, 0x1138e], [0x11391, 0x11391], [0x16d68, 0x16d6a], [0x1ccd6, 0x1ccf9]];

const inRanges = (ranges, c) => ranges.some(([lo, hi]) => c >= lo && c <= hi);
const MARK = /\p{M}/u;
const WORD = /[\p{Alphabetic}\p{Nd}]/u;
const NUMBER = /\p{N}/u;
const ASCII = /^[\x00-\x7f]*$/;
const JOINERS = "/-.'\u2019";

/** Lowercase, diacritics-free text: NFKD, combining marks dropped, each code point lowercased on its own. */
export function fold(text) {
  if (ASCII.test(text)) return text.toLowerCase();
  let out = "", run = "";
  const keep = (c) => { if (!MARK.test(c)) out += c.toLowerCase(); };
  const flush = () => { for (const c of run.normalize("NFKD")) keep(c); run = ""; };
  for (const c of text) {
    // A kept code point is a starter that decomposes to itself: the text is decomposed around it.
    if (inRanges(KEPT, c.codePointAt(0))) { flush(); keep(c); } else run += c;
  }
  flush();
  return out;
}

// Hangul jamo after NFKD (syllables are decomposed): leading, vowel and trailing.
const jamo = (c) => (c >= 0x1100 && c <= 0x115f) || (c >= 0xa960 && c <= 0xa97c) ? "L"
  : (c >= 0x1160 && c <= 0x11a7) || (c >= 0xd7b0 && c <= 0xd7c6) ? "V"
  : (c >= 0x11a8 && c <= 0x11ff) || (c >= 0xd7cb && c <= 0xd7fb) ? "T" : "";

/** Whether no grapheme cluster boundary lies between code points a and b (of folded text). */
function joined(a, b) {
  if (inRanges(PREPEND, a)) return b !== 0x0d && b !== 0x0a && !/\p{Cc}/u.test(String.fromCodePoint(b));
  const x = jamo(a), y = jamo(b);
  return (x === "L" && (y === "L" || y === "V")) || (x === "V" && (y === "V" || y === "T")) || (x === "T" && y === "T");
}

/** The characters (grapheme clusters) of folded text. */
export function characters(text) {
  if (ASCII.test(text)) return text.split("");
  const out = [];
  let last = -1;
  for (const c of text) {
    const cp = c.codePointAt(0);
    if (out.length > 0 && joined(last, cp)) out[out.length - 1] += c; else out.push(c);
    last = cp;
  }
  return out;
}

/** Swift's `split(whereSeparator:)` over characters: non-empty pieces between separators. */
function splitOn(text, separators) {
  const pieces = [];
  let piece = "";
  for (const c of characters(text)) {
    if (separators.includes(c)) { if (piece) pieces.push(piece); piece = ""; } else piece += c;
  }
  if (piece) pieces.push(piece);
  return pieces;
}

/** Words before stemming and stop-word removal, in text order (Analyzer.words). */
export function words(text) {
  const f = Array.from(fold(text));
  const isWord = (c) => WORD.test(c);
  const out = [];
  let i = 0;
  while (i < f.length) {
    if (!isWord(f[i])) { i++; continue; }
    // A run of word characters and inner joiners (/ - . ' ’ followed by a word character).
    let j = i;
    while (j < f.length && (isWord(f[j]) || (JOINERS.includes(f[j]) && j + 1 < f.length && isWord(f[j + 1])))) j++;
    const run = f.slice(i, j).join("").replaceAll("\u2019", "'");
    i = j;
    if (/[0-9]/.test(run)) {
      // With a digit, "/" and "." stay inside ("1/2-in", "7.5"); the hyphen parts are words too ("20v-max").
      out.push(run);
      const parts = splitOn(run, ["-"]);
      if (parts.length > 1) out.push(...parts);
    } else {
      for (const piece of splitOn(run, ["/", "."])) {
        out.push(piece);
        const parts = splitOn(piece, ["-"]);
        if (parts.length > 1) out.push(...parts);
      }
    }
  }
  return out;
}

/** Light English stemming: possessives, then plurals; words with a number are kept (Analyzer.stem). */
export function stem(word) {
  let w = characters(word);
  const ends = (s) => w.length >= s.length && s.split("").every((c, k) => w[w.length - s.length + k] === c);
  if (ends("'s")) w = w.slice(0, -2); else if (ends("'")) w = w.slice(0, -1);
  w = w.filter((c) => c !== "'");
  if (w.length <= 3 || w.some((c) => NUMBER.test(c))) return w.join("");
  if (ends("ies") && w.length > 4) return w.slice(0, -3).join("") + "y";
  if (ends("sses") || ends("xes") || ends("zes") || ends("ches") || ends("shes")) return w.slice(0, -2).join("");
  if (ends("s") && !ends("ss") && !ends("us") && !ends("is")) return w.slice(0, -1).join("");
  return w.join("");
}

/** Terms are ordered by their UTF-8 bytes, that is by code point (JavaScript's < compares UTF-16 units). */
export function byteOrder(a, b) {
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k++) {
    const x = a.charCodeAt(k), y = b.charCodeAt(k);
    if (x === y) continue;
    // A surrogate (an astral code point) sorts after every other unit of the basic plane.
    const sx = x >= 0xd800 && x <= 0xdfff, sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

const startsWith = (t, p) => {
  if (!t.startsWith(p)) return false;
  if (t.length === p.length || ASCII.test(t)) return true;
  // Character by character, as Swift's hasPrefix: the prefix must end on a character boundary of t.
  const a = characters(p), b = characters(t);
  return a.every((c, k) => b[k] === c);
};

/** Exactly one edit apart (insert, delete, substitute, or swap two neighbours), character by character. */
function oneEdit(a, b) {
  const x = characters(a), y = characters(b);
  if (x.length === y.length) {
    const diffs = [];
    for (let k = 0; k < x.length; k++) if (x[k] !== y[k]) diffs.push(k);
    if (diffs.length === 1) return true;
    return diffs.length === 2 && diffs[1] === diffs[0] + 1 && x[diffs[0]] === y[diffs[1]] && x[diffs[1]] === y[diffs[0]];
  }
  const [s, l] = x.length < y.length ? [x, y] : [y, x];
  if (l.length - s.length !== 1) return false;
  let i = 0;
  while (i < s.length && s[i] === l[i]) i++;
  for (let k = i; k < s.length; k++) if (s[k] !== l[k + 1]) return false;
  return true;
}

// Files. Content-named files never change: each is fetched once (browser cache allowed to answer without asking)
// and kept parsed. meta.json changes with each release: it is revalidated when the module loads, and again if a
// file it names has gone (a new release replaced the tree), in which case the request runs once more.

let meta = null;
let files = new Map();
const log = [];

class Gone extends Error {}

/** A request the index cannot answer (an unknown field, value form or sort): the message says what it has instead. */
export class RequestError extends Error {
  constructor(message) { super(message); this.name = "RequestError"; }
}

async function get(path, hashed) {
  // Paths in meta.json are from the tree's root (e.g. "search/terms/….json"); this module sits in their folder.
  const url = new URL(hashed ? path.split("/").slice(-2).join("/") : path, folder);
  const response = await fetch(url, { cache: hashed ? "force-cache" : "no-cache" });
  if (response.status === 404 && hashed) throw new Gone(url.href);
  if (!response.ok) throw new Error(`search: ${url.href}: HTTP ${response.status}`);
  const body = await response.arrayBuffer();
  log.push({ url: url.href, bytes: body.byteLength });
  return JSON.parse(new TextDecoder().decode(body));
}

function file(path) {
  if (!files.has(path)) {
    const p = get(path, true);
    files.set(path, p);
    p.catch(() => files.delete(path));
  }
  return files.get(path);
}

async function loadMeta() {
  if (!meta) { meta = get("meta.json", false); meta.catch(() => { meta = null; }); }
  return meta;
}

/** The tree's root URL (result items' `path` is relative to it). */
export async function treeURL() {
  const m = await loadMeta();
  // meta.json's `folder` (from the tree's root) says how deep this folder is: "search" is one folder down.
  const depth = typeof m.folder === "string" ? m.folder.split("/").length : 1;
  return new URL("../".repeat(depth), folder).href;
}

/** Every file this module has downloaded (URL and bytes of the body), in order. */
export function downloads() { return log.slice(); }

/**
 * What the index offers beside text, for building filter and sort controls: its facet fields (`field`, `label`,
 * `kind`: "value", "ranges" with `edges`, or "atLeast" with `thresholds`), its sorts (`name`, `label`) and the sort a
 * browse takes (`browse`, or null for document order).
 * @returns {Promise<{ facets: { field: string, label: string, kind: string, edges?: number[], thresholds?: number[] }[],
 *   sorts: { name: string, label: string }[], browse: string | null }>}
 */
export async function fields() {
  const m = await loadMeta();
  return {
    facets: m.facets.map(({ field, label, kind, edges, thresholds }) => ({ field, label, kind, edges, thresholds })),
    sorts: m.sorts.map(({ name, label }) => ({ name, label })),
    browse: m.browse ?? null,
  };
}

/**
 * @typedef {object} SearchOptions
 * @property {number} [limit] Results in the page (10).
 * @property {number} [offset] Results before the page (0).
 * @property {boolean} [complete] The query is finished: its last word is not also a prefix (false: still typing).
 * @property {Record<string, string[] | string>} [filters] Values by field, any of which admits a result (OR within a
 *   field, AND across fields). A range field takes spans of its ranges ("50..200", "25..", "..100"), an "atLeast"
 *   field a threshold ("4").
 * @property {string} [sort] "relevance" (the default) or a sort of the index (`fields().sorts`).
 * @property {boolean} [facets] Count every facet value over the whole result set (false).
 *
 * @typedef {object} SearchResponse
 * @property {number} total Every result there is (the page is `results`).
 * @property {boolean} partial No result has every word: these have the most.
 * @property {{ document: number, score: number, item: any }[]} results The page; `item` is what the index stores.
 * @property {{ field: string, values: { value: string, label: string, count: number }[] }[]} facets Per facet field,
 *   its values with results, most first (when asked for).
 */

/**
 * Runs a request: the results of `query` narrowed by the filters, in the order of the sort, and the page's items.
 * Throws a RequestError for a field, value or sort the index does not have.
 * @param {string} query
 * @param {SearchOptions} [options]
 * @returns {Promise<SearchResponse>}
 */
export async function search(query, options = {}) {
  try {
    return await run(query, options);
  } catch (e) {
    if (!(e instanceof Gone)) throw e;
    // A new release replaced the files meta.json named: read the new one and ask again.
    meta = null; files = new Map();
    return run(query, options);
  }
}

async function run(query, { limit = 10, offset = 0, complete = false, filters = {}, sort = "relevance", facets = false } = {}) {
  const m = await loadMeta();
  const text = String(query).toWellFormed();
  // (Swift traps on a negative offset; here it counts as none.)
  offset = Math.max(0, offset);
  const wanted = fieldFilters(m, filters);
  checkSort(m, String(sort));
  const words = queryWords(m, text);
  let matched, partial = false;
  if (words.length === 0) {
    // A browse: every document the filters admit (nothing without a filter), in the declared order.
    const filter = await filterSet(wanted);
    if (!filter) return { total: 0, partial: false, results: [], facets: await facetCounts(m, new Set(), facets) };
    matched = new Map([...filter].sort((a, b) => a - b).map((d) => [d, 0]));
  } else {
    // Words first: with facet counts not asked for, a filter on a field with columns reads only the documents every
    // word matched (columnFilter); otherwise, or when that leaves none, the value lists whole.
    const { perWord, postings } = await wordMatchList(m, words, text, complete);
    let filter = null;
    if (wanted.length > 0) {
      const kept = facets ? null : await columnFilter(m, perWord, wanted, postings);
      filter = kept && kept.size > 0 ? kept : await filterSet(wanted);
    }
    ({ scores: matched, partial } = combine(perWord, filter));
  }
  const sortName = words.length === 0 && sort === "relevance" ? (m.browse ?? "relevance") : String(sort);
  const ordered = await order(m, matched, sortName, offset + limit);
  const page = ordered.slice(offset, offset + limit);
  const [items, counts] = await Promise.all([Promise.all(page.map((d) => stored(m, d))), facetCounts(m, new Set(matched.keys()), facets)]);
  // (A document the store does not hold is left out, as the reference does.)
  const results = page.flatMap((d, k) => items[k] === undefined ? [] : [{ document: d, score: matched.get(d), item: items[k] }]);
  return { total: matched.size, partial, results, facets: counts };
}

// Shards of a sorted list of keys (terms, facet values), each found by its first and last key.

/** Whether a shard's key range holds `key`. */
const holds = (key) => (s) => byteOrder(key, s.first) >= 0 && byteOrder(s.last, key) >= 0;

/** The shard whose key range holds `key`. */
const shardFor = (shards, key) => shards.find(holds(key));

/**
 * The term shards that may hold `term` (with `prefix`, every term it starts), walking down the term tree (meta.json
 * holds its top level; entries are `[first term, name]`, each holding the terms from its first to the next one's),
 * each `{ path, at }` with its positions down the tree, which the column trees share. A level's directories are
 * fetched together.
 */
async function termShards(m, term, prefix = false) {
  let entries = covering(m.termShards.entries, term, prefix).map(([k, name]) => ({ name, at: [k] }));
  for (let level = 0; level < m.termShards.levels; level++) {
    const below = await Promise.all(entries.map((e) => file(`termdirs/${e.name}.json`)));
    entries = below.flatMap((j, i) => covering(j.entries, term, prefix).map(([k, name]) => ({ name, at: [...entries[i].at, k] })));
  }
  return entries.map((e) => ({ path: `terms/${e.name}.json`, at: e.at }));
}

/**
 * Of a term tree's entries, `[position, name]` of the one whose range holds `term` (the last whose first term is not
 * after it) and, with `prefix`, of the ones after it whose first term starts with it.
 */
function covering(entries, term, prefix) {
  let lo = 0, hi = entries.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (byteOrder(term, entries[mid][0]) < 0) hi = mid; else lo = mid + 1; }
  const picked = lo > 0 ? [lo - 1] : [];
  if (prefix) for (let k = lo; k < entries.length && startsWith(entries[k][0], term); k++) picked.push(k);
  return picked.flatMap((k) => (typeof entries[k][1] === "string" ? [[k, entries[k][1]]] : []));
}

/** The position of `key` in a shard's sorted `list`, or -1. */
function find(key, list) {
  let lo = 0, hi = list.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (byteOrder(list[mid], key) < 0) lo = mid + 1; else hi = mid; }
  return lo < list.length && list[lo] === key ? lo : -1;
}

// Words (Query+Words.swift): each query word's matching documents and scores, from the term shards and vocabulary
// files, and how they combine.

const queryWords = (m, text) => { const stop = new Set(m.analyzer.stopWords); return words(text).filter((w) => !stop.has(w)); };

/**
 * A posting list's numbers (PostingText.swift): each is q × 32 + r, r one character 0-9 a-v, q before it in base 26
 * as letters A-Z (none when 0).
 */
function postingNumbers(text) {
  const out = [];
  let q = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 65 && c <= 90) { q = q * 26 + (c - 65); continue; }
    const r = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 118 ? c - 87 : 0;
    out.push(q * 32 + r); q = 0;
  }
  return out;
}

/**
 * `[G, score₀ … score_G−1, n…]` (a list's numbers): G scores best first, then per document in document order
 * n = (gap from the document before − 1) × G + its score's rank → Map document → score.
 */
function decodePacked(flat) {
  const out = new Map();
  const g = flat[0] ?? 0;
  if (g <= 0) return out;
  let doc = -1;
  for (let k = g + 1; k < flat.length; k++) {
    const n = flat[k];
    doc += Math.floor(n / g) + 1;
    out.set(doc, flat[1 + (n % g)]);
  }
  return out;
}

/** The number of documents of a posting list as written (one number per document after the scores). */
function documentCount(flat) {
  return flat.length ? Math.max(0, flat.length - flat[0] - 1) : 0;
}

/**
 * One word's matches: document → best weighted score through its exact or stemmed term (`exact`) and through the
 * terms it is a prefix of or one edit from (`other`). `postings(term)` is the query's cache of term postings.
 */
async function wordMatches(m, w, prefix, postings) {
  const q = m.query;
  const term = stem(w);
  const exact = new Map(), other = new Map(), matchedTerms = [];
  const add = async (t, weight, isExact) => {
    const p = await postings(t);
    if (!p) return;
    matchedTerms.push(t);
    // A prefix reaching a term no document's first field has (a brand or category word only) weighs less.
    if (!isExact && p.secondary && weight === q.prefixWeight) weight = q.secondaryPrefixWeight;
    const best = isExact ? exact : other;
    for (const [d, s] of p.scores) best.set(d, Math.max(best.get(d) ?? 0, s * weight));
  };
  await add(term, 1, true);
  if (term !== w) await add(w, 1, true);
  if (prefix) {
    const terms = (await expansions(m, w)).filter((t) => t !== term);
    // Fetched together, added in order (the maxima do not depend on it, only the requests' overlap would).
    await Promise.all(terms.map(postings));
    for (const t of terms) await add(t, q.prefixWeight, false);
  }
  if (exact.size === 0 && other.size === 0 && characters(w).length >= q.typoMinimumLength) {
    // One edit from the word as typed or from its stem ("drils" → "drill", "drills").
    const candidates = new Set(await typoCandidates(m, w));
    if (term !== w && characters(term).length >= q.typoMinimumLength - 1) for (const t of await typoCandidates(m, term)) candidates.add(t);
    // The likeliest intended words: candidates at least half as frequent as the most frequent one ("drils" means
    // "drill", not the rarer "drip").
    const sorted = [...candidates].sort(byteOrder);
    const found = await Promise.all(sorted.map(postings));
    const lists = found.flatMap((p, k) => (p ? [[sorted[k], p.scores]] : []));
    const top = Math.max(0, ...lists.map(([, p]) => p.size));
    for (const [t, p] of lists) {
      if (p.size * 2 < top) continue;
      matchedTerms.push(t);
      for (const [d, s] of p) other.set(d, Math.max(other.get(d) ?? 0, s * q.typoWeight));
    }
  }
  return { exact, other, terms: matchedTerms };
}

/** Index terms that start with `prefix`, most frequent first (at most prefixExpansions). */
async function expansions(m, prefix) {
  const shards = await termShards(m, prefix, true);
  const found = [];
  for (const j of await Promise.all(shards.map((s) => file(s.path)))) {
    j.terms.forEach((t, i) => { if (t !== prefix && startsWith(t, prefix)) found.push([t, documentCount(postingNumbers(j.postings[i] ?? ""))]); });
  }
  found.sort((a, b) => (a[1] !== b[1] ? b[1] - a[1] : byteOrder(a[0], b[0])));
  return found.slice(0, m.query.prefixExpansions).map((e) => e[0]);
}

/** Index terms one edit away, from the vocabulary files of lengths L-1, L and L+1. */
async function typoCandidates(m, term) {
  const len = characters(term).length;
  // (meta.json names the list of vocabulary files: only a typo reads it.)
  const lists = (typeof m.vocabulary === "string" ? (await file(m.vocabulary)).files : []).filter((v) => Math.abs(v.length - len) <= 1);
  const out = [];
  for (const v of await Promise.all(lists.map((v) => file(v.path)))) for (const t of v.terms) if (oneEdit(term, t)) out.push(t);
  return out.sort(byteOrder);
}

/** Each word's matches (the last one also as a prefix while typing), and the query's cache of term postings. */
async function wordMatchList(m, words, text, complete) {
  const typing = !complete && !endsWithSpace(text);
  // One query's postings, by term (a promise each, so words looked up together share them).
  const cache = new Map();
  const postings = (term) => {
    if (!cache.has(term)) cache.set(term, termPostings(m, term));
    return cache.get(term);
  };
  const perWord = await Promise.all(words.map((w, i) => wordMatches(m, w, i === words.length - 1 && typing, postings)));
  return { perWord, postings };
}

/**
 * The documents (within `filter`, when given) that match every word, with their scores; or, when none does, those
 * that match the most words, scaled by the share they match, and `partial`. Filtered after the typo rule looked at
 * each word's matches: a filter never turns a known word into a typo.
 */
function combine(matchList, filter) {
  const perWord = matchList.map((wm) => {
    if (!filter) return wm;
    const keep = (map) => new Map([...map].filter(([d]) => filter.has(d)));
    return { ...wm, exact: keep(wm.exact), other: keep(wm.other) };
  });
  const count = new Map();
  for (const { exact, other } of perWord) {
    for (const d of new Set([...exact.keys(), ...other.keys()])) count.set(d, (count.get(d) ?? 0) + 1);
  }
  let most = 0;
  for (const c of count.values()) if (c > most) most = c;
  const scores = new Map();
  if (most === 0) return { scores, partial: false };
  for (const [d, c] of count) {
    if (c !== most) continue;
    // Each word's best; a prefix or typo match never counts for more than the least of the other words' exact
    // matches (a last word still being typed never outranks the words already typed).
    const best = perWord.map((wm) => [wm.exact.get(d) ?? 0, wm.other.get(d) ?? 0]);
    let cap = Infinity;
    for (const [e, o] of best) if (e > 0 && e >= o && e < cap) cap = e;
    // Summed from 0 in word order, then scaled: the reference's operations in its order, for identical doubles.
    let sum = 0;
    for (const [e, o] of best) sum += e >= o ? e : Math.max(e, Math.min(o, cap));
    scores.set(d, (sum * c) / perWord.length);
  }
  return { scores, partial: most < perWord.length };
}

/** Postings of one term: `{ scores: Map document → score, secondary }`, or null when the index does not have it. */
async function termPostings(m, term) {
  const [shard] = await termShards(m, term);
  if (!shard) return null;
  const j = await file(shard.path);
  const k = find(term, j.terms);
  if (k < 0 || typeof j.postings[k] !== "string") return null;
  return { scores: decodePacked(postingNumbers(j.postings[k])), secondary: (j.secondary ?? []).includes(k), at: shard.at, index: k };
}

// Fields (Query+Fields.swift): filters and facet counts from the facet shards, sorted orders from the sort chunks,
// and a page's stored objects from the result store.

function facetEntry(m, field) {
  const e = m.facets.find((f) => f.field === field);
  if (!e) {
    const names = m.facets.map((f) => f.field);
    throw new RequestError(`no filter field "${field}" in this index (it has: ${names.length === 0 ? "none" : names.join(", ")})`);
  }
  return e;
}

/** Runs `gap, length, …` (a string of posting numbers) as documents. */
function decodeRuns(text) {
  const flat = postingNumbers(text), out = [];
  for (let k = 0, end = 0; k + 1 < flat.length; k += 2) {
    const start = end + flat[k], n = flat[k + 1];
    for (let d = start; d < start + n; d++) out.push(d);
    end = start + n;
  }
  return out;
}

/** How many documents of the runs `gap, length, …` (a string of posting numbers) are in `docs` (without listing them). */
function countRuns(text, docs) {
  const flat = postingNumbers(text);
  let n = 0;
  for (let k = 0, end = 0; k + 1 < flat.length; k += 2) {
    const start = end + flat[k];
    end = start + flat[k + 1];
    for (let d = start; d < end; d++) if (docs.has(d)) n++;
  }
  return n;
}

/** The documents that have one value of a facet field (none when the index has no such value). */
async function facetDocuments(entry, value) {
  const shard = shardFor(entry.shards, value);
  if (!shard) return [];
  const j = await file(shard.path);
  const k = find(value, j.values);
  return k < 0 ? [] : decodeRuns(j.postings[k] ?? "");
}

/**
 * A number as the index names it: Swift's SearchFields.numberText, which is JavaScript's String(x) for the numbers
 * an index declares as edges and thresholds (plain decimals), but for -0, which Swift writes with its sign.
 */
const numberText = (x) => (Object.is(x, -0) ? "-0" : String(x));

/** A filter's number: a plain decimal ("50", "+25", "4.0", ".5", "5e1"), or null (SearchFields.filterNumber). */
const filterNumber = (s) => (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s) ? Number(s) : null);

/** The values a filter on one field stands for: itself, or for ranges every range between its two edges. */
function filterValues(entry, value) {
  const field = entry.field;
  if (entry.kind === "ranges") {
    const edges = entry.edges ?? [];
    const edge = (s) => {
      if (s === "") return null;
      const x = filterNumber(s), k = x === null ? -1 : edges.indexOf(x);
      if (k < 0) throw new RequestError(`${field}=${value}: ${s} is not an edge of ${field}'s ranges (${edges.map(numberText).join(", ")})`);
      return k;
    };
    const parts = value.split("..");
    if (parts.length !== 2) throw new RequestError(`${field}=${value}: a range is LOW..HIGH, LOW.. or ..HIGH (e.g. 50..200)`);
    const lo = edge(parts[0]), hi = edge(parts[1]);
    // Range k lies between edges k-1 and k.
    const first = lo === null ? 0 : lo + 1, last = hi === null ? edges.length : hi;
    if (first > last) throw new RequestError(`${field}=${value}: the low edge is above the high one`);
    const bounds = [null, ...edges, null];
    const names = [];
    for (let k = first; k <= last; k++) names.push((bounds[k] === null ? "" : numberText(bounds[k])) + ".." + (bounds[k + 1] === null ? "" : numberText(bounds[k + 1])));
    return names;
  }
  if (entry.kind === "atLeast") {
    const ts = (entry.thresholds ?? []).map(numberText);
    const x = filterNumber(value);
    if (x === null || !ts.includes(numberText(x))) {
      throw new RequestError(`${field}=${value}: ${field} filters by at least one of ${ts.join(", ")}`);
    }
    return [numberText(x)];
  }
  return [value];
}

/**
 * The filters checked and spelled out: `{ field, entry, values }` per field in byte order (the first unknown field is
 * the one an error names, as in the reference), a range span as its ranges.
 */
function fieldFilters(m, filters) {
  return Object.keys(filters).map((f) => f.toWellFormed()).sort(byteOrder).map((field) => {
    const entry = facetEntry(m, field);
    // (A lone string is taken as a list of one.)
    const values = [].concat(filters[field]).map((v) => String(v).toWellFormed()).flatMap((v) => filterValues(entry, v));
    return { field, entry, values };
  });
}

/** The documents every filtered field admits (any of its values), from the value lists; null without filters. */
async function filterSet(wanted) {
  let set = null;
  for (const { entry, values } of wanted) {
    const lists = await Promise.all(values.map((value) => facetDocuments(entry, value)));
    const admitted = new Set(lists.flat());
    set = set === null ? admitted : new Set([...set].filter((d) => admitted.has(d)));
  }
  return set;
}

// Facet columns (Query+Columns.swift): with words, a filter on a field of ranges or thresholds reads the codes of the
// documents every word matched from the columns of one word's terms.

/** The column codes a filter admits (a document's code: 0 without a value, 1 + its range, or thresholds reached), or null. */
function admittedCodes({ entry, values }) {
  if (!entry.columns) return null;
  if (entry.kind === "ranges") {
    const names = filterValues(entry, "..");   // ("..": every range)
    return new Set(values.flatMap((v) => (names.includes(v) ? [names.indexOf(v) + 1] : [])));
  }
  if (entry.kind === "atLeast") {
    const ts = (entry.thresholds ?? []).map(numberText), codes = new Set();
    for (const v of values) { const k = ts.indexOf(v); if (k >= 0) for (let c = k + 1; c <= Math.max(k + 1, ts.length); c++) codes.add(c); }
    return codes;
  }
  return null;
}

/**
 * The documents that match every word and pass the filters, read through columns where a field has them; null when
 * no filtered field has columns or no document matches every word (the filters are then read whole).
 */
async function columnFilter(m, perWord, wanted, postings) {
  if (perWord.length === 0 || !wanted.some((f) => admittedCodes(f) !== null)) return null;
  const docsOf = (wm) => new Set([...wm.exact.keys(), ...wm.other.keys()]);
  const sets = perWord.map(docsOf);
  let kept = new Set([...sets[0]].filter((d) => sets.every((s) => s.has(d))));
  if (kept.size === 0) return null;
  // The word with the fewest documents (the first of equals): its terms hold every document left.
  let word = 0;
  for (let k = 1; k < sets.length; k++) if (sets[k].size < sets[word].size) word = k;
  for (const f of wanted) {
    const admitted = admittedCodes(f);
    if (admitted) {
      const codes = await columnCodes(m, f.entry, kept, perWord[word].terms, postings);
      kept = new Set([...kept].filter((d) => admitted.has(codes.get(d) ?? 0)));
    } else {
      const lists = await Promise.all(f.values.map((value) => facetDocuments(f.entry, value)));
      const admittedDocs = new Set(lists.flat());
      kept = new Set([...kept].filter((d) => admittedDocs.has(d)));
    }
  }
  return kept;
}

/** Each of `docs`' code in a field's columns, from the columns of `terms` in order, each fetched only when needed. */
async function columnCodes(m, entry, docs, terms, postings) {
  const codes = new Map(), left = new Set(docs);
  for (const t of terms) {
    if (left.size === 0) break;
    const p = await postings(t);
    if (!p) continue;
    const here = [...left].filter((d) => p.scores.has(d));
    if (here.length === 0) continue;
    const col = await column(entry, p.at, p.index);
    const sorted = [...p.scores.keys()].sort((a, b) => a - b);
    for (const d of here) {
      // The document's place among the term's documents in document order is its character's.
      let lo = 0, hi = sorted.length;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (sorted[mid] < d) lo = mid + 1; else hi = mid; }
      codes.set(d, lo < col.length ? digit(col.charCodeAt(lo)) : 0);
      left.delete(d);
    }
  }
  return codes;
}

const digit = (c) => (c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 118 ? c - 87 : 0);

/** The column of term `index` of the term shard at `at`, down the field's column tree by the same positions. */
async function column(entry, at, index) {
  const tree = entry.columns;
  if (!tree || at.length !== tree.levels + 1) return "";
  let entries = tree.entries;
  for (let level = 0; level < tree.levels; level++) {
    const name = entries[at[level]];
    if (typeof name !== "string") return "";
    entries = (await file(`coldirs/${name}.json`)).entries;
  }
  const name = entries[at[tree.levels]];
  if (typeof name !== "string") return "";
  const col = (await file(`columns/${name}.json`)).columns[index];
  return typeof col === "string" ? col : "";
}

/** Per facet field, how many of `docs` have each value (values with none left out), most first, ties by value. */
async function facetCounts(m, docs, asked) {
  if (!asked) return [];
  return Promise.all(m.facets.map(async (entry) => {
    const values = [];
    for (const j of await Promise.all(entry.shards.map((s) => file(s.path)))) {
      j.values.forEach((value, k) => {
        const count = countRuns(j.postings[k] ?? "", docs);
        const label = j.labels?.[k];
        if (count > 0) values.push({ value, label: typeof label === "string" ? label : value, count });
      });
    }
    values.sort((a, b) => (a.count !== b.count ? b.count - a.count : byteOrder(a.value, b.value)));
    return { field: entry.field, values };
  }));
}

/** Refuses a sort the index does not have (before anything is read: an empty query is refused like any other). */
function checkSort(m, sort) {
  if (sort === "relevance") return;
  const s = m.sorts.find((e) => e.name === sort);
  if (s && typeof m.orders.find((o) => o.field === s.field)?.path === "string") return;
  throw new RequestError(`no sort "${sort}" in this index (it has: ${["relevance", ...m.sorts.map((e) => e.name)].join(", ")})`);
}

/**
 * The matched documents in the order of `sort`, at least the first `upTo` of them: by relevance (score, then
 * document), or walking the sort's chunks from the start (or the end, descending) until the page is full and its last
 * key complete, ties by relevance; documents without the sort's value come last, by relevance. The chunks are read
 * one after another: where the walk stops depends on what the ones before held.
 */
async function order(m, matched, sort, upTo) {
  const byRelevance = (a, b) => {
    const x = matched.get(a), y = matched.get(b);
    return x !== y ? (x > y ? -1 : 1) : a - b;
  };
  if (sort === "relevance") return [...matched.keys()].sort(byRelevance);
  const s = m.sorts.find((e) => e.name === sort);
  const path = s && m.orders.find((o) => o.field === s.field)?.path;
  if (typeof path !== "string") {
    throw new RequestError(`no sort "${sort}" in this index (it has: ${["relevance", ...m.sorts.map((e) => e.name)].join(", ")})`);
  }
  const descending = s.descending === true;
  const chunks = (await file(path)).chunks;
  const out = [], seen = new Set();
  // The documents of the current key, sorted by relevance when the key ends (it may go on in the next chunk).
  let key, pending = [];
  const flush = () => { pending.sort(byRelevance); for (const d of pending) { out.push(d); seen.add(d); } pending = []; };
  walk: for (const c of descending ? [...chunks].reverse() : chunks) {
    if (typeof c.path !== "string") continue;
    const j = await file(c.path);
    const n = j.documents.length;
    for (let i = 0; i < n; i++) {
      const g = descending ? n - 1 - i : i;
      if (j.keys[g] !== key) {
        flush();
        if (out.length >= upTo) break walk;
        key = j.keys[g];
      }
      let doc = 0;
      for (const gap of j.documents[g]) { doc += gap; if (matched.has(doc)) pending.push(doc); }
    }
    // Every match found: the chunks after this one hold none of them.
    if (out.length + pending.length === matched.size) break;
  }
  flush();
  if (out.length < upTo) for (const d of [...matched.keys()].filter((d) => !seen.has(d)).sort(byRelevance)) out.push(d);
  return out;
}

/**
 * The stored object of one document: down the store tree (meta.json holds its top level), each level's entries
 * `[documents, name]` counted from where their directory starts, to its group, then the group's slice of `slice`
 * documents that holds it (`store/{group}-{k}.json`). (Paths from this folder: the store's files are named by the
 * tree, not listed by path.)
 */
async function stored(m, doc) {
  const slice = m.store.slice;
  if (!(Number.isInteger(slice) && slice > 0)) return undefined;
  let entries = m.store.entries, levels = m.store.levels, start = 0;
  for (;;) {
    let found = null;
    for (const [n, name] of entries) {
      if (doc < start + n) { found = name; break; }
      start += n;
    }
    if (found === null) return undefined;
    if (levels === 0) return (await file(`store/${found}-${Math.floor((doc - start) / slice)}.json`)).documents[(doc - start) % slice];
    entries = (await file(`stores/${found}.json`)).entries;
    levels -= 1;
  }
}

/** The text's last character is a space (a prepend character before it would make one character of both). */
function endsWithSpace(text) {
  if (!text.endsWith(" ")) return false;
  const before = Array.from(text.slice(0, -1)).pop();
  return before === undefined || !inRanges(PREPEND, before.codePointAt(0));
}
