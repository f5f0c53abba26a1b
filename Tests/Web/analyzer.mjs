// The web module's analyzer on stdin's texts, for comparison with the reference (Analyzer.swift):
// `node analyzer.mjs SEARCH_JS < texts.json` reads a JSON array of strings and prints one line per text:
// the folded text's code points (hex), then each word with its stem and its length in characters, tab-separated.
import { pathToFileURL } from "node:url";

const { fold, words, stem, characters } = await import(pathToFileURL(process.argv[2]).href);
// Whole bytes first: a chunk may end inside a character.
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = Buffer.concat(chunks).toString("utf8");
const hex = (s) => Array.from(s, (c) => c.codePointAt(0).toString(16)).join(" ");
const lines = [];
for (const text of JSON.parse(input)) {
  lines.push([hex(fold(text)), ...words(text).map((w) => `${hex(w)}|${hex(stem(w))}|${characters(w).length}`)].join("\t"));
}
process.stdout.write(lines.join("\n") + "\n");
