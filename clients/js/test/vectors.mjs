// The server's answers, given back bit for bit: BLOOM_VECTORS names files
// made by tests/clients/vectors.sql (colon-separated).  Every answer of every
// filter must be bloom_contains's (by contains and by containsMany, probed
// in WebAssembly and again in JavaScript), every
// added value held, and info as bloom_info reports it.  Prints "vectors: N answers checked" and exits
// non-zero at the first difference.
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { BloomFilter } from "../src/index.js";

const convert = {
  int2: Number, int4: Number, int8: BigInt, text: String, varchar: String,
  bytea: (t) => Uint8Array.from(t.match(/../g) || [], (h) => parseInt(h, 16)),
  uuid: String, numeric: String, float4: (t) => Math.fround(parseFloat(t)), float8: parseFloat,
  date: String, timestamp: String, timestamptz: String, bool: (t) => t === "true",
};

function near(a, b) {
  if (a === null || b === null) return a === b;
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
}

function checkInfo(mine, info, where) {
  const same = [
    ["layout", "layout"], ["nbits", "nbits"], ["nhashes", "nhashes"], ["bytes", "bytes"], ["bitsSet", "bits_set"],
    ["elementFamily", "element_family"], ["hashScheme", "hash_scheme"]];
  for (const [a, b] of same) if (mine[a] !== info[b]) throw new Error(`${where}: info.${a} ${mine[a]} != ${info[b]}`);
  if (mine.valuesAdded !== BigInt(info.values_added)) throw new Error(`${where}: valuesAdded`);
  // (JSON.parse reads a bigint as the nearest double: compare there)
  if (Number(mine.seed) !== info.seed) throw new Error(`${where}: seed ${mine.seed} != ${info.seed}`);
  for (const [a, b] of [["fillRatio", "fill_ratio"], ["estimatedDistinct", "estimated_distinct"], ["estimatedFpp", "estimated_fpp"]])
    if (!near(mine[a], info[b])) throw new Error(`${where}: info.${a} ${mine[a]} != ${info[b]}`);
}

let checked = 0;
for (const name of (process.env.BLOOM_VECTORS || "").split(":").filter(Boolean)) {
  const lines = createInterface({ input: createReadStream(name), crlfDelay: Infinity });
  for await (const line of lines) {
    const c = JSON.parse(line);
    const values = c.values.map(convert[c.type]);
    for (const f of c.filters) for (const engine of ["webassembly", "javascript"]) {
      const where = `${name}: ${c.type} ${f.name} (${engine})`;
      const options = { wasm: engine === "webassembly" };
      const bin = BloomFilter.from(Uint8Array.from(Buffer.from(f.hex, "hex")), options);
      const txt = BloomFilter.from(f.text, options);
      // (an explicit filter is searched in JavaScript; every other layout
      // probed in WebAssembly unless told not to)
      const expected = bin.info.layout === "explicit" ? "javascript" : engine;
      if (bin.probeEngine !== expected || txt.probeEngine !== expected)
        throw new Error(`${where}: probed by ${bin.probeEngine}`);
      if (JSON.stringify(bin.info, (k, v) => (typeof v === "bigint" ? v.toString() : v)) !==
          JSON.stringify(txt.info, (k, v) => (typeof v === "bigint" ? v.toString() : v)))
        throw new Error(`${where}: the text form reads otherwise than the binary form`);
      if (f.info) checkInfo(bin.info, f.info, where);
      // containsMany over all of them, and over the first 3,000 with null
      // between every two (batches of other contents): the same answers
      const many = bin.containsMany(values);
      const spaced = txt.containsMany(values.slice(0, 3000).flatMap((v) => [v, null]));
      if (many.length !== values.length || spaced.length !== 2 * Math.min(values.length, 3000))
        throw new Error(`${where}: containsMany gave ${many.length} and ${spaced.length} answers`);
      for (let i = 0; i < values.length; i++) {
        const want = f.answers[i] === "1";
        const got = bin.contains(values[i]);
        if (got !== want) throw new Error(`${where}: ${c.values[i]}: server ${want}, here ${got}`);
        if (many[i] !== want) throw new Error(`${where}: ${c.values[i]}: server ${want}, containsMany ${many[i]}`);
        if (i < 3000 && (spaced[2 * i] !== want || spaced[2 * i + 1] !== false))
          throw new Error(`${where}: ${c.values[i]}: server ${want}, containsMany with nulls ${spaced[2 * i]}, ${spaced[2 * i + 1]}`);
        if (i < c.added && f.name !== "empty" && f.name !== "classic_wide" && !got) throw new Error(`${where}: added ${c.values[i]} not held`);
        checked++;
      }
    }
  }
}
if (checked === 0) { console.log("vectors: none (set BLOOM_VECTORS)"); process.exit(1); }
console.log(`vectors: ${checked} answers checked`);
