// Runs the compiled app (app.ts → OUT/app.js) in Node against a tree on disk: `node run.mjs OUT TREE`.
// fetch is given file: URLs (Node's has none), and OUT/search.js forwards to the tree's own search/search.js, so
// the module finds its index from its own URL as it does in a browser. Prints the app's lines.
import { readFile, writeFile } from "node:fs/promises";
import { pathToFileURL, fileURLToPath } from "node:url";

const [out, tree] = process.argv.slice(2);
const nodeFetch = globalThis.fetch;
globalThis.fetch = async (url, init) => {
  const u = new URL(url);
  if (u.protocol !== "file:") return nodeFetch(url, init);
  try { return new Response(await readFile(fileURLToPath(u)), { status: 200 }); }
  catch { return new Response("", { status: 404 }); }
};
const root = pathToFileURL(tree.endsWith("/") ? tree : tree + "/");
await writeFile(`${out}/package.json`, JSON.stringify({ type: "module" }));
await writeFile(`${out}/search.js`, `export * from ${JSON.stringify(new URL("search/search.js", root).href)};\n`);
const { main } = await import(pathToFileURL(`${out}/app.js`).href);
for (const line of await main(root)) console.log(line);
