// Runs a tree's search.js in Node (20+) over the files on disk: `node node-search.mjs DIST/search/search.js < queries.json`
// reads a JSON array of queries and prints one JSON line per query: {query, total, results: [[document, score, id]],
// files: [[path, bytes]]} — what the browser module returns and downloads. (Node's fetch has no file: URLs, so
// fetch is given them here.)
import { readFile } from "node:fs/promises";
import { pathToFileURL, fileURLToPath } from "node:url";

const nodeFetch = globalThis.fetch;
globalThis.fetch = async (url, init) => {
  const u = new URL(url);
  if (u.protocol !== "file:") return nodeFetch(url, init);
  try { return new Response(await readFile(fileURLToPath(u)), { status: 200 }); }
  catch { return new Response("", { status: 404 }); }
};

const script = pathToFileURL(process.argv[2]).href;
const limit = Number(process.argv[3] ?? 10);
// Whole bytes first: a chunk may end inside a character.
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = Buffer.concat(chunks).toString("utf8");
for (const query of JSON.parse(input)) {
  // A fresh module per query, so each query's downloads are its own (as a first query on a page).
  const m = await import(script + "?" + encodeURIComponent(query));
  const { total, results } = await m.search(query, { limit });
  const files = m.downloads().map((f) => [f.url.slice(f.url.indexOf("/search/") + 1), f.bytes]);
  console.log(JSON.stringify({ query, total, results: results.map((r) => [r.document, r.score, r.item.id ?? null]), files }));
}
