// Runs Pagefind's own browser client (pagefind.js) in Node against a site served over HTTP on loopback, and prints
// every file the client fetched for a query and its first results page (10 results' fragments).
// Usage: node pagefind-query.mjs SITE_DIR "query"
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const [site, query] = process.argv.slice(2);
const fetched = [];
const server = http.createServer((req, res) => {
  const rel = decodeURIComponent(req.url.split("?")[0]);
  try {
    const body = fs.readFileSync(path.join(site, rel));
    fetched.push(rel);
    res.writeHead(200);
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
const search = await pagefind.search(query);
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
console.log(JSON.stringify({ query, results: search.results.length, files: files.length, bytes: raw, gzip: gz }));
