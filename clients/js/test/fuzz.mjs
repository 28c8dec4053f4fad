// Fuzz the parsers: mutated and random inputs, for a time, must load or
// throw BloomFilterError, and a filter that loads must answer probes with no
// other error, containsMany as contains does, WebAssembly as JavaScript.  Seeds: the small filters of
// BLOOM_VECTORS's first file, if given.  node test/fuzz.mjs SECONDS -> "fuzz_js: ok (N inputs)".
import { readFileSync } from "node:fs";
import { BloomFilter, BloomFilterError } from "../src/index.js";
import { ONE, ONE_TEXT } from "./format-seeds.mjs";

const seconds = Number(process.argv[2] || 60);
const binary = [ONE], text = [ONE_TEXT];
const first = (process.env.BLOOM_VECTORS || "").split(":")[0];
if (first)
  for (const line of readFileSync(first, "utf8").split("\n").filter(Boolean))
    for (const f of JSON.parse(line).filters)
      if (f.hex.length < 20000) { binary.push(Uint8Array.from(Buffer.from(f.hex, "hex"))); text.push(f.text); }

let state = 20261125;
const rand = (n) => { state = (Math.imul(state, 1103515245) + 12345) >>> 0; return state % n; };

function mutate(data) {
  let b = Array.from(data);
  for (let r = 0, times = 1 + rand(4); r < times; r++) {
    const op = rand(6);
    if (op === 0 && b.length) b[rand(b.length)] = rand(256);
    else if (op === 1 && b.length) b[rand(b.length)] ^= 1 << rand(8);
    else if (op === 2 && b.length) b.length = rand(b.length);
    else if (op === 3) b.splice(rand(b.length + 1), 0, ...Array.from({ length: 1 + rand(8) }, () => rand(256)));
    else if (op === 4 && b.length >= 36) {
      const at = [4, 5, 6, 7, 8, 10, 12, 20, 28][rand(9)];
      const size = at < 8 ? 1 : at < 12 ? 2 : 8;
      const edge = [0, 1, 2, 255, 64, 65, 512][rand(7)];
      for (let i = 0; i < size; i++) b[at + i] = i === 0 ? edge : rand(2) ? 255 : 0;
    } else b = Array.from({ length: rand(80) }, () => rand(256));
  }
  return Uint8Array.from(b);
}

const decoder = new TextDecoder();
const end = Date.now() + seconds * 1000;
let runs = 0;
while (Date.now() < end) {
  let input;
  if (rand(2)) input = mutate(binary[rand(binary.length)]);
  else input = decoder.decode(mutate(new TextEncoder().encode(text[rand(text.length)])));
  let f;
  try {
    f = BloomFilter.from(input);
  } catch (e) {
    if (!(e instanceof BloomFilterError)) {
      console.log(`fuzz_js: FAILED: ${e} on input ${String(input).slice(0, 300)}`);
      process.exit(1);
    }
    runs++;
    continue;
  }
  try {
    f.info;
    // the same filter probed in JavaScript: the same answers as WebAssembly's
    const js = BloomFilter.from(input, { wasm: false });
    for (const v of [BigInt(rand(1 << 30)) * 8589934593n, "x", new Uint8Array(1), 1.5]) {
      let one, other;
      try { one = f.contains(v); } catch (e) { if (!(e instanceof BloomFilterError)) throw e; }
      try { other = js.contains(v); } catch (e) { if (!(e instanceof BloomFilterError)) throw e; }
      if (one !== other) throw new Error(`${f.probeEngine} said ${one}, javascript ${other}`);
      // the batch path reads the same blocks: the same answer, or the same error
      let many;
      try { many = f.containsMany([v, v]); } catch (e) { if (!(e instanceof BloomFilterError)) throw e; }
      if ((one === undefined) !== (many === undefined) || (one !== undefined && (many[0] !== one || many[1] !== one)))
        throw new Error(`contains said ${one}, containsMany ${many}`);
    }
  } catch (e) {
    console.log(`fuzz_js: FAILED: ${e} probing ${String(input).slice(0, 300)}`);
    process.exit(1);
  }
  runs++;
}
console.log(`fuzz_js: ok (${runs} inputs)`);
