// Runs a tree's search.js in Node (20+) over the files on disk: `node node-search.mjs DIST/search/search.js [LIMIT] < requests.json`
// reads a JSON array of requests, each a query or `{query, limit, offset, complete, filters, sort, facets}` (search's
// options), and prints one JSON line per request: {query, total, partial, results: [[document, score, id]], facets,
// files: [[path, bytes]]}, or {query, error} for a request the index refuses — what the browser module returns and
// downloads, for comparing with `generator search DIST QUERY --filter … --sort … --facets --json`. (Node's fetch has
// no file: URLs, so fetch is given them here.)
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
for (const [i, request] of JSON.parse(input).entries()) {
  const { query, ...options } = typeof request === "string" ? { query: request } : request;
  // A fresh module per request, so each request's downloads are its own (as a first query on a page).
  const m = await import(`${script}?${i}`);
  let line;
  try {
    const { total, partial, results, facets } = await m.search(query, { limit, ...options });
    line = { query, total, partial, results: results.map((r) => [r.document, r.score, r.item?.id ?? null]), facets };
  } catch (e) {
    if (!(e instanceof m.RequestError)) throw e;
    line = { query, error: e.message };
  }
  // Paths from the tree's root, as the index names them.
  const root = await m.treeURL();
  line.files = m.downloads().map((f) => [f.url.slice(root.length), f.bytes]);
  console.log(JSON.stringify(line));
}
