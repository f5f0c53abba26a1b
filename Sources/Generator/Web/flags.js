// Feature flags in the browser: the port of TreeClient's FeatureFlags (Sources/TreeClient/Flags), dependency-free.
//
//   import { loadFlags, evaluate } from "./flags.js";
//   const doc = await loadFlags();            // this tree's config/flags.json
//   const { flags, update } = evaluate(doc, { unit: installId, platform: "web", appVersion: "3.2.0", attributes: { country: "US" } });
//
// A flag's rules are tried in order: a rule whose `when` holds decides with its `value`; a rule with a `rollout`
// decides for the units whose bucket is below percent × 100 and lets the others go on; otherwise `default`.
// bucket = first 4 bytes of SHA-256("<flag key>:<unit id>" as UTF-8), big-endian, modulo 10,000.

export const FORMAT = 1;

/** Fetches and checks config/flags.json (beside this module's folder unless `url` is given). */
export async function loadFlags(url = new URL("../config/flags.json", import.meta.url)) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`config/flags.json: HTTP ${response.status}`);
  const doc = await response.json();
  if (doc.format !== FORMAT) throw new Error(`config/flags.json: format ${doc.format}, this client reads format ${FORMAT}`);
  return doc;
}

/**
 * Every flag's value (in the document's order) and the update status for a context.
 * @param {{flags: Object<string, any>, updates: Object<string, any>}} doc config/flags.json
 * @param {{unit?: string, platform?: string, appVersion?: string, attributes?: Object<string, string>}} context
 * @returns {{flags: Object<string, unknown>, update: "none" | "recommended" | "required" | "blocked"}}
 */
export function evaluate(doc, context) {
  /** @type {Object<string, unknown>} */
  const flags = {};
  for (const [key, flag] of Object.entries(doc.flags)) flags[key] = flagValue(key, flag, context);
  return { flags, update: updateStatus(doc, context) };
}

export function flagValue(key, flag, context) {
  for (const rule of flag.rules) {
    if (!ruleHolds(rule, context)) continue;
    if ("value" in rule) return rule.value;
    const unit = context.unit;
    if (unit != null && bucket(key, unit) < Math.round(rule.rollout.percent * 100)) return rule.rollout.value;
  }
  return flag.default;
}

function ruleHolds(rule, context) {
  for (const [name, condition] of Object.entries(rule.when ?? {})) {
    if (name === "appVersion") {
      const version = parseVersion(context.appVersion);
      if (version === null || !inRange(version, parseRange(condition))) return false;
    } else {
      const value = attribute(context, name);
      if (value == null || !condition.includes(value)) return false;
    }
  }
  return true;
}

function attribute(context, name) {
  switch (name) {
    case "platform": return context.platform;
    case "unit": return context.unit;
    case "appVersion": return context.appVersion;
    default: return Object.hasOwn(context.attributes ?? {}, name) ? context.attributes[name] : undefined;
  }
}

/**
 * blocked, required, recommended or none (see TreeClient's FeatureFlags.update).
 * @returns {"none" | "recommended" | "required" | "blocked"}
 */
export function updateStatus(doc, context) {
  const policy = context.platform != null && Object.hasOwn(doc.updates, context.platform) ? doc.updates[context.platform] : null;
  const version = parseVersion(context.appVersion);
  if (policy === null || version === null) return "none";
  if ((policy.blocked ?? []).some(b => compareVersions(version, parseVersion(b)) === 0)) return "blocked";
  if (policy.minimum !== undefined && compareVersions(version, parseVersion(policy.minimum)) < 0) return "required";
  if (policy.recommended !== undefined && compareVersions(version, parseVersion(policy.recommended)) < 0) return "recommended";
  return "none";
}

// Versions: 1–8 parts of 1–9 digits separated by dots; missing parts are 0.
export function parseVersion(text) {
  if (typeof text !== "string") return null;
  const pieces = text.split(".");
  if (pieces.length < 1 || pieces.length > 8) return null;
  const parts = [];
  for (const p of pieces) {
    if (!/^[0-9]{1,9}$/.test(p)) return null;
    parts.push(parseInt(p, 10));
  }
  return parts;
}

export function compareVersions(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0, y = b[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

const OPERATORS = [">=", "<=", ">", "<", "="];   // two-character ones first

function parseRange(text) {
  return text.split(" ").map(piece => {
    const op = OPERATORS.find(o => piece.startsWith(o));
    return { op, version: parseVersion(piece.slice(op.length)) };
  });
}

function inRange(version, range) {
  return range.every(({ op, version: v }) => {
    const c = compareVersions(version, v);
    return op === ">=" ? c >= 0 : op === "<=" ? c <= 0 : op === ">" ? c > 0 : op === "<" ? c < 0 : c === 0;
  });
}

/** The unit's bucket (0–9999) for a flag. */
export function bucket(flagKey, unit) {
  const d = sha256(new TextEncoder().encode(`${flagKey}:${unit}`));
  return (((d[0] << 24) >>> 0) + (d[1] << 16) + (d[2] << 8) + d[3]) % 10000;
}

// SHA-256 (FIPS 180-4) of a Uint8Array, returning 32 bytes: synchronous, so evaluation needs no secure context.
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

export function sha256(bytes) {
  const length = bytes.length;
  const blocks = Math.ceil((length + 9) / 64);
  const data = new Uint8Array(blocks * 64);
  data.set(bytes);
  data[length] = 0x80;
  const view = new DataView(data.buffer);
  view.setUint32(data.length - 8, Math.floor(length / 0x20000000));   // length in bits, high word
  view.setUint32(data.length - 4, (length << 3) >>> 0);
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let block = 0; block < blocks; block++) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(block * 64 + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setUint32(i * 4, h[i]);
  return out;
}
