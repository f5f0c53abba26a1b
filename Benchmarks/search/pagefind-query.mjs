// Runs Pagefind's own browser client (pagefind.js) in Node against a site served over HTTP on loopback, and prints
// every file the client fetched for a query and its first results page (10 results' fragments), with filters and
// filter counts when asked.
// Usage: node pagefind-query.mjs SITE_DIR "query" [--facets] [FIELD=VALUE …]
//   An empty query is a filter-only browse (pagefind.search(null, …)). Filters are written as `generator search
//   --filter` takes them and translated to the page's Pagefind filters (run.sh writes them): brand and category as
//   they are, price=LOW..HIGH as every price range between the two edges ({any: [...]}), rating=N as the at-least
//   value N, inStock as `stock`. Several values of one field are ORed, as ours.
//   --facets first loads every filter's counts (pagefind.filters()), so the search returns them (result.filters).
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const [site, query, ...rest] = process.argv.slice(2);
const facets = rest.includes("--facets");
const edges = [25, 50, 100, 200, 500, 1000];
const ranges = [`..${edges[0]}`, ...edges.slice(1).map((e, i) => `${edges[i]}..${e}`), `${edges.at(-1)}..`];
const bound = (s, open) => (s === "" ? open : Number(s));

// Pagefind filter names and values of our filters.
const grouped = {};
for (const arg of rest.filter((a) => a !== "--facets")) {
  const eq = arg.indexOf("=");
  if (eq < 1) throw new Error(`filter ${arg}: write FIELD=VALUE`);
  const field = arg.slice(0, eq), value = arg.slice(eq + 1);
  let name = field, values = [value];
  if (field === "inStock") name = "stock";
  else if (field === "price") {
    const [lo, hi] = value.split("..").map((s, i) => bound(s, i ? Infinity : -Infinity));
    values = ranges.filter((r) => {
      const [a, b] = r.split("..").map((s, i) => bound(s, i ? Infinity : -Infinity));
      return a >= lo && b <= hi;
    });
    if (values.length === 0) throw new Error(`price=${value}: no whole range between the edges ${edges}`);
  } else if (!["brand", "category", "rating"].includes(field)) throw new Error(`unknown filter field ${field}`);
  (grouped[name] ??= []).push(...values);
}
const filters = Object.fromEntries(Object.entries(grouped).map(([k, v]) => [k, v.length === 1 ? v[0] : { any: v }]));

const fetched = [];
const server = http.createServer((req, res) => {
  const rel = decodeURIComponent(req.url.split("?")[0]);
  try {
    const body = fs.readFileSync(path.join(site, rel));
    fetched.push(rel);
    // A fresh connection per file: decoding a large filter file can outlast the keep-alive timeout, and a request
    // sent on a connection the server is closing fails (ECONNRESET).
    res.writeHead(200, { Connection: "close" });
    res.end(body);
  } catch {
    res.writeHead(404);
    res.end();
  }
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}/pagefind/`;
const pagefind = await import(path.resolve(site, "pagefind/pagefind.js"));
await pagefind.options({ basePath: base });
if (facets) await pagefind.filters();
const search = await pagefind.search(query === "" ? null : query, { filters });
await Promise.all(search.results.slice(0, 10).map((r) => r.data()));
server.close();
// The client script itself is downloaded too.
const files = ["/pagefind/pagefind.js", ...fetched];
let raw = 0, gz = 0;
for (const f of files) {
  const b = fs.readFileSync(path.join(site, f));
  raw += b.length;
  // Pagefind's index files are stored gzip-compressed already; others are measured as a host would serve them.
  const isGz = b[0] === 0x1f && b[1] === 0x8b;
  gz += isGz ? b.length : zlib.gzipSync(b, { level: 9 }).length;
}
const out = { query, filters, results: search.results.length, files: files.length, bytes: raw, gzip: gz };
if (facets) out.facets = search.filters;
console.log(JSON.stringify(out));
