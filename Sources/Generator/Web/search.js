// Ranked search over the index in this folder (meta.json, terms/, vocab/, store/), for web pages.
// A dependency-free ES module, published beside the index it reads:
//
//   import { search } from "https://you.github.io/repo/search/search.js";
//   const { total, results } = await search("dewalt drill", { limit: 10 });
//   // results[i] = { document, score, item }  (item: what the index stores for a result: id, name, path, …)
//
// It is a port of the reference client (Sources/Indexer/Query.swift and Analyzer.swift) and returns exactly its
// results in the same order, with the same scores: the query is analysed like the documents (folding, words,
// stemming, stop words), each term matches its index term, the last term also matches the terms it starts
// (while typing), and a word of 5+ characters that is not in the index matches terms one edit away.
// It downloads only what a query needs: meta.json once, the term shards of its words (more for a prefix), the
// vocabulary files of a typo, and the result-store shards of the page. Every file but meta.json is named by a hash
// of its content, so it is cached for good, in memory and by the browser.

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
// shard it names has gone (a new release replaced the tree), in which case the query runs once more.

let meta = null;
let files = new Map();
const log = [];

class Gone extends Error {}

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
  const any = [...m.termShards, ...m.vocabulary, ...m.store.shards][0];
  const depth = any ? any.path.split("/").length - 2 : 1;
  return new URL("../".repeat(depth), folder).href;
}

/** Every file this module has downloaded (URL and bytes of the body), in order. */
export function downloads() { return log.slice(); }

/**
 * Runs a query. `complete: false` (the default) means the user is still typing: the last word is also a prefix.
 * Returns `{ total, results }`, results best first: `{ document, score, item }`.
 */
export async function search(query, { limit = 10, offset = 0, complete = false } = {}) {
  try {
    return await run(query, limit, offset, complete);
  } catch (e) {
    if (!(e instanceof Gone)) throw e;
    // A new release replaced the files meta.json named: read the new one and ask again.
    meta = null; files = new Map();
    return run(query, limit, offset, complete);
  }
}

async function run(query, limit, offset, complete) {
  const m = await loadMeta();
  const ranked = await rank(m, String(query).toWellFormed(), complete);
  const page = ranked.slice(offset, offset + limit);
  // The result store: only the shards holding this page (the last shard starting at or before each document).
  const shardOf = (doc) => m.store.shards.findLast((s) => s.first <= doc);
  const entries = page.map((r) => shardOf(r.doc));
  const shards = await Promise.all(entries.map((s) => s && file(s.path)));
  // (A document no store shard holds is left out, as the reference does. Where a shard starts is in meta.json only.)
  const results = page.flatMap((r, k) => shards[k] ? [{ document: r.doc, score: r.score, item: shards[k].documents[r.doc - entries[k].first] }] : []);
  return { total: ranked.length, results };
}

/** Every matching document with its score, best first (Query.rank). */
async function rank(m, text, complete) {
  const stop = new Set(m.analyzer.stopWords);
  const q = m.query;
  const ws = words(text).filter((w) => !stop.has(w));
  if (ws.length === 0) return [];
  const postingCache = new Map();

  const shardFor = (term) => m.termShards.find((s) => byteOrder(term, s.first) >= 0 && byteOrder(s.last, term) >= 0);
  // The shards of every word's exact term, fetched together.
  await Promise.all(ws.flatMap((w) => [w, stem(w)]).map(shardFor).filter(Boolean).map((s) => file(s.path)));

  async function postings(term) {
    if (postingCache.has(term)) return postingCache.get(term);
    let out = null;
    const shard = shardFor(term);
    if (shard) {
      const j = await file(shard.path);
      let lo = 0, hi = j.terms.length;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (byteOrder(j.terms[mid], term) < 0) lo = mid + 1; else hi = mid; }
      if (lo < j.terms.length && j.terms[lo] === term) {
        out = new Map();
        const flat = j.postings[lo];
        for (let k = 0, doc = 0; k + 1 < flat.length; k += 2) { doc += flat[k]; out.set(doc, flat[k + 1]); }
      }
    }
    postingCache.set(term, out);
    return out;
  }

  // Index terms that start with `prefix`, most frequent first (at most prefixExpansions).
  async function expansions(prefix) {
    const found = [];
    for (const s of m.termShards) {
      if (byteOrder(s.last, prefix) < 0) continue;
      if (!startsWith(s.first, prefix) && byteOrder(prefix, s.first) < 0) break;
      const j = await file(s.path);
      j.terms.forEach((t, i) => { if (t !== prefix && startsWith(t, prefix)) found.push([t, j.postings[i].length >> 1]); });
    }
    found.sort((a, b) => (a[1] !== b[1] ? b[1] - a[1] : byteOrder(a[0], b[0])));
    return found.slice(0, q.prefixExpansions).map((e) => e[0]);
  }

  // Index terms one edit away, from the vocabulary files of lengths L-1, L and L+1.
  async function typoCandidates(term) {
    const len = characters(term).length;
    const lists = m.vocabulary.filter((v) => Math.abs(v.length - len) <= 1);
    const out = [];
    for (const v of await Promise.all(lists.map((v) => file(v.path)))) for (const t of v.terms) if (oneEdit(term, t)) out.push(t);
    return out.sort(byteOrder);
  }

  const perTerm = [];
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i], term = stem(w);
    const best = new Map();
    const add = async (t, weight) => {
      const p = await postings(t);
      if (p) for (const [d, s] of p) best.set(d, Math.max(best.get(d) ?? 0, s * weight));
    };
    await add(term, 1);
    if (term !== w) await add(w, 1);
    const last = i === ws.length - 1;
    if (last && !complete && !endsWithSpace(text)) {
      for (const t of await expansions(w)) if (t !== term) await add(t, q.prefixWeight);
    }
    if (best.size === 0 && characters(w).length >= q.typoMinimumLength) {
      // One edit from the word as typed or from its stem ("drils" → "drill", "drills").
      const candidates = new Set(await typoCandidates(w));
      if (term !== w && characters(term).length >= q.typoMinimumLength - 1) for (const t of await typoCandidates(term)) candidates.add(t);
      // The likeliest intended words: candidates at least half as frequent as the most frequent one.
      const lists = [];
      for (const t of [...candidates].sort(byteOrder)) { const p = await postings(t); if (p) lists.push(p); }
      const top = Math.max(0, ...lists.map((p) => p.size));
      for (const p of lists) if (p.size * 2 >= top) for (const [d, s] of p) best.set(d, Math.max(best.get(d) ?? 0, s * q.typoWeight));
    }
    perTerm.push(best);
  }
  const total = new Map();
  for (const best of perTerm) {
    for (const [d, s] of best) {
      const t = total.get(d) ?? { score: 0, matched: 0 };
      t.score += s; t.matched += 1;
      total.set(d, t);
    }
  }
  const n = perTerm.length;
  return [...total].map(([doc, t]) => ({ doc, score: (t.score * t.matched) / n }))
    .sort((a, b) => (a.score !== b.score ? b.score - a.score : a.doc - b.doc));
}

/** The text's last character is a space (a prepend character before it would make one character of both). */
function endsWithSpace(text) {
  if (!text.endsWith(" ")) return false;
  const before = Array.from(text.slice(0, -1)).pop();
  return before === undefined || !inRanges(PREPEND, before.codePointAt(0));
}
