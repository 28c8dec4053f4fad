// Filters of more than 2^32 bits, probed by the library (in WebAssembly and
// in JavaScript's 32-bit arithmetic; one hash at a time, and in batches as
// containsMany does) and by a BigInt
// reference of hash scheme 1 (core/bf_hash.h, written again from its
// comment): both must answer alike for every hash.  The vectors'
// filters are small, so only this test reaches bit positions past 2^32,
// where a 32-bit operator on a position gives a false negative.  It
// allocates about 1.3 GB at a time.  Prints "large: N passed, 0 failed".
import assert from "node:assert/strict";
import { BloomFilter } from "../src/index.js";
import { parseBinary } from "../src/format.js";
import { BATCH, batchSpace, probeBatch, probePlan } from "../src/probe.js";

const M64 = (1n << 64n) - 1n;
const SALT = 0x9e3779b97f4a7c15n, REFILL = 0xc2b2ae3d27d4eb4fn;
function fmix64(k) {
  k ^= k >> 33n;
  k = (k * 0xff51afd7ed558ccdn) & M64;
  k ^= k >> 33n;
  k = (k * 0xc4ceb9fe1a85ec53n) & M64;
  return k ^ (k >> 33n);
}
const reduce = (x, m) => (x * m) >> 64n;

// the bit positions of hash h: classic (k positions in [0, m)), or blocked512
function positions(layout, h, m, k) {
  let x = fmix64(h);
  const y = fmix64(h ^ SALT), out = [];
  if (layout === "classic") {
    for (let i = 0; i < k; i++) { out.push(reduce(x, m)); x = (x + y) & M64; }
    return out;
  }
  const base = reduce(x, m / 512n) * 512n;
  let w = y, rest = y;
  for (let i = 0; i < k; i++) {
    if (i > 0 && i % 7 === 0) rest = w = fmix64((w + REFILL) & M64);
    out.push(base + (rest >> 55n));
    rest = (rest << 9n) & M64;
  }
  return out;
}

// a splitmix64 stream: the same hashes every run
let state = 0x1234567n;
function next64() {
  state = (state + 0x9e3779b97f4a7c15n) & M64;
  let z = state;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
  return z ^ (z >> 31n);
}

const ELEM = new TextEncoder().encode("pg_catalog.integer_ops");
function filter(code, m, k, n) {
  const nbytes = Number((m + 7n) / 8n);
  const buf = new Uint8Array(36 + ELEM.length + nbytes), v = new DataView(buf.buffer);
  buf.set([0x42, 0x4c, 0x4f, 0x4d, 1, code, 1, 0]);
  v.setUint16(8, k, true); v.setUint16(10, ELEM.length, true);
  v.setBigUint64(20, m, true); v.setBigUint64(28, n, true);
  buf.set(ELEM, 36);
  return [buf, buf.subarray(36 + ELEM.length)];
}

let passed = 0;
for (const [layout, code, m, k] of [
  ["classic", 1, 5000000000n, 7], // 625 MB: a seventh of the positions past 2^32
  ["blocked512", 3, 9000000n * 512n, 10], // 576 MB: blocks up to 9,000,000, a refill
]) {
  const added = Array.from({ length: 20000 }, next64);
  const [buf, data] = filter(code, m, k, 100000n); // n: room for the ones below
  const held = (h) => positions(layout, h, m, k).every((p) => (data[Number(p >> 3n)] >> Number(p & 7n)) & 1);
  let high = 0;
  for (const h of added) for (const p of positions(layout, h, m, k)) {
    data[Number(p >> 3n)] |= 1 << Number(p & 7n);
    if (p >= 1n << 32n) high++;
  }
  assert.ok(high > 1000, `${layout}: ${high} positions past 2^32`);
  const split = (h) => [Number(h >> 32n), Number(h & 0xffffffffn)];
  // each engine: WebAssembly (the core's C, 64-bit arithmetic) and JavaScript (32-bit halves)
  for (const wasm of [true, false]) {
    const engine = wasm ? "webassembly" : "javascript";
    data.fill(0, data.length - 4096); // (as made: the ones below are set for the second half)
    for (const h of added) for (const p of positions(layout, h, m, k)) data[Number(p >> 3n)] |= 1 << Number(p & 7n);
    const f = BloomFilter.from(buf, { wasm });
    assert.equal(f.probeEngine, engine);
    for (const h of added) assert.ok(f.containsHash(...split(h)), `${layout} ${engine}: added hash ${h} not held`);
    for (let i = 0; i < 200000; i++) {
      const h = next64();
      assert.equal(f.containsHash(...split(h)), held(h), `${layout} ${engine}: hash ${h}`);
    }
    // the last 4 kB all ones, so that absent hashes whose bits fall there are held
    data.fill(0xff, data.length - 4096);
    const g = BloomFilter.from(buf, { wasm });
    const hashes = [];
    for (let i = 0; i < 200000; i++) {
      const h = next64();
      hashes.push(h);
      assert.equal(g.containsHash(...split(h)), held(h), `${layout} ${engine}: hash ${h} (ones at the end)`);
    }
    // containsMany's path (probeBatch), over the same hashes and the added ones
    const plan = probePlan(parseBinary(buf), wasm), space = batchSpace(plan);
    assert.equal(plan.wasm !== null, wasm);
    hashes.push(...added);
    for (let at = 0; at < hashes.length; at += BATCH) {
      const count = Math.min(BATCH, hashes.length - at);
      for (let i = 0; i < count; i++) [space.hi[i], space.lo[i]] = split(hashes[at + i]);
      probeBatch(plan, space, count);
      for (let i = 0; i < count; i++)
        assert.equal(space.held[i] === 1, held(hashes[at + i]), `${layout} ${engine}: hash ${hashes[at + i]} (in a batch)`);
    }
  }
  passed++;
}
console.log(`large: ${passed} passed, 0 failed`);
