// Hash scheme 1 (core/bf_hash.h in the extension), probed: from a value's
// 64-bit hash h, x = fmix64(h), y = fmix64(h ^ 0x9E3779B97F4A7C15); classic
// and counting4 positions floor(x_i m / 2^64), x_{i+1} = x_i + y;
// blocked512 its block from x and 9-bit offsets from y's top bits, 7 per
// word, refilled with w = fmix64(w + 0xC2B2AE3D27D4EB4F); a layered filter
// holds a value one of its (blocked512) layers holds.  64-bit values are
// [hi, lo] pairs of 32-bit words, held as int32 (below).
//
// A probe of a large filter waits on memory: its block is far beyond the
// caches.  One probe at a time (probeOne) waits for each block in turn; a
// batch (probeBatch) hashes many values, then loads all their blocks in a
// loop with no branches, so that the processor has many loads under way at
// once, then tests the bits from the caches.

import * as F from "./format.js";
import { wasmProbe } from "./wasm.js";

// Every 32-bit word is held as an int32 (the bits of the uint32 the C code
// holds; see pghash.js): V8 keeps int32 values unboxed across calls it does
// not inline.  Arithmetic mod 2^32 is (a + b) | 0; a comparison of two
// words as unsigned is made on a >>> 0 and b >>> 0, locally.
const SALT_HI = 0x9e3779b9 | 0, SALT_LO = 0x7f4a7c15 | 0;
export const REFILL_HI = 0xc2b2ae3d | 0, REFILL_LO = 0x27d4eb4f | 0;
const TWO32 = 4294967296;
const imul = Math.imul; // (a shorter call: small functions are the ones V8 inlines)

// The high 32 bits of the 64-bit product of two words a and b, from their
// 16-bit halves: a b = aH bH 2^32 + (aH bL + aL bH) 2^16 + aL bL.  Each
// partial sum below stays under 2^32, so 32-bit arithmetic holds it: no
// float products, no conversions back (each a check that may deoptimize).
function mulHi(a, b) {
  const aL = a & 0xffff, aH = a >>> 16, bL = b & 0xffff, bH = b >>> 16;
  const t = (imul(aH, bL) + (imul(aL, bL) >>> 16)) | 0; // aH bL + (aL bL >> 16)
  const u = (imul(aL, bH) + (t & 0xffff)) | 0; // aL bH + the low half of t
  return (imul(aH, bH) + (t >>> 16) + (u >>> 16)) | 0;
}

// fmix64 of [hi, lo] into out[at] and out[at + 1] (an Int32Array).  Each
// multiplication by a 64-bit constant C keeps the low 64 bits of the
// product: its high word is mulHi(lo, C's low word) + lo C's high word +
// hi C's low word.
export function fmix64(hi, lo, out, at) {
  lo ^= hi >>> 1; // k ^= k >> 33
  hi = (mulHi(lo, 0xed558ccd) + imul(lo, 0xff51afd7) + imul(hi, 0xed558ccd)) | 0; // k *= 0xff51afd7ed558ccd
  lo = imul(lo, 0xed558ccd) ^ (hi >>> 1); // k ^= k >> 33
  hi = (mulHi(lo, 0x1a85ec53) + imul(lo, 0xc4ceb9fe) + imul(hi, 0x1a85ec53)) | 0; // k *= 0xc4ceb9fe1a85ec53
  out[at] = hi;
  out[at + 1] = imul(lo, 0x1a85ec53) ^ (hi >>> 1); // k ^= k >> 33
}

// x = fmix64(h) into XY[0] and XY[1], y = fmix64(h ^ 0x9E3779B97F4A7C15)
// into XY[2] and XY[3].  fmix64 has one call site, in a loop, so V8 inlines
// it once, and the whole probe fits its inlining budget.
export const XY = new Int32Array(4);
export function hashXY(hi, lo) {
  for (let at = 0; at < 4; at += 2) {
    fmix64(hi, lo, XY, at);
    hi ^= SALT_HI;
    lo ^= SALT_LO;
  }
}

// floor(x m / 2^64) for x = [hi, lo] and 1 <= m < 2^53
export function reduce(hi, lo, m) {
  hi >>>= 0;
  lo >>>= 0;
  const mH = Math.floor(m / TWO32), mL = m >>> 0;
  // x m = hi mH 2^64 + (hi mL + lo mH) 2^32 + lo mL
  const aLo = imul(hi, mL) >>> 0, aHi = mulHi(hi, mL) >>> 0;
  const b = lo * mH; // < 2^53 (mH < 2^21)
  const cHi = mulHi(lo, mL) >>> 0;
  return hi * mH + aHi + Math.floor((aLo + b + cHi) / TWO32);
}

// The byte index, in a filter's data, of the block of x = [xHi, xLo] in a
// blocked512 filter (or layer) of `blocks` blocks at byte `offset`:
// floor(x blocks / 2^64) * 64.  blocks < 2^24 (a filter holds at most 2^33
// bits), so x blocks is taken in 16-bit steps of x, each product and sum
// below 2^53 and so exact in a double: s1 = floor(x blocks / 2^16) less its
// top terms, s2 = floor(x blocks / 2^32) less its top term, s3 = floor(x
// blocks / 2^48).  The index is below 2^30.
export function blockBase(xHi, xLo, offset, blocks) {
  const s1 = (xLo >>> 16) * blocks + Math.floor(((xLo & 0xffff) * blocks) / 65536);
  const s2 = (xHi & 0xffff) * blocks + Math.floor(s1 / 65536);
  const s3 = (xHi >>> 16) * blocks + Math.floor(s2 / 65536);
  return offset + Math.floor(s3 / 65536) * 64;
}

const W = new Int32Array(2);

// Whether the block at data's byte `base` has the k bits of y = [wHi, wLo]:
// 9-bit offsets from the word's top bits, 7 per word, then the word
// refilled with fmix64(w + 0xC2B2AE3D27D4EB4F).
function blockHolds(data, base, wHi, wLo, k) {
  for (let done = 0; ; ) {
    let rHi = wHi, rLo = wLo;
    for (const end = done + 7 < k ? done + 7 : k; done < end; done++) {
      const bit = rHi >>> 23; // the top 9 bits: the bit in the block
      if ((data[base + (bit >>> 3)] & (1 << (bit & 7))) === 0) return false;
      rHi = (rHi << 9) | (rLo >>> 23);
      rLo <<= 9;
    }
    if (done === k) return true;
    const lo = (wLo + REFILL_LO) | 0;
    fmix64((wHi + REFILL_HI + ((lo >>> 0) < (wLo >>> 0) ? 1 : 0)) | 0, lo, W, 0);
    wHi = W[0];
    wLo = W[1];
  }
}

// Whether a classic (bits) or counting4 (4-bit counters) filter of m
// positions has all k positions of x = [xHi, xLo], y = [yHi, yLo] set.
function positionsHeld(data, counting, m, k, xHi, xLo, yHi, yLo) {
  for (let i = 0; i < k; i++) {
    const pos = reduce(xHi, xLo, m);
    // (pos may pass 2^31: no 32-bit operators, nor %, on it)
    if (counting) {
      const byte = Math.floor(pos / 2);
      if (((data[byte] >>> ((pos - byte * 2) * 4)) & 15) === 0) return false;
    } else {
      const byte = Math.floor(pos / 8);
      if (((data[byte] >>> (pos - byte * 8)) & 1) === 0) return false;
    }
    const nlo = (xLo + yLo) | 0;
    xHi = (xHi + yHi + ((nlo >>> 0) < (xLo >>> 0) ? 1 : 0)) | 0;
    xLo = nlo;
  }
  return true;
}

// the first byte a classic or counting4 probe of x = [xHi, xLo] reads
function firstByte(counting, m, xHi, xLo) {
  return Math.floor(reduce(xHi, xLo, m) / (counting ? 2 : 8));
}

// Whether an explicit filter (its sorted hashes, as his and los) holds [hi, lo].
function explicitHolds(his, los, hi, lo) {
  hi >>>= 0;
  lo >>>= 0;
  let a = 0, b = his.length;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (his[mid] < hi || (his[mid] === hi && los[mid] < lo)) a = mid + 1;
    else b = mid;
  }
  return a < his.length && his[a] === hi && los[a] === lo;
}

// A load's result, kept where the compiler cannot prove it unused: a load
// made only to start the block's trip into the caches must not be removed.
let loaded = 0;

/**
 * What a probe needs of a parsed filter (format.js's parseBinary), laid out
 * once: the layout, its data, and per layer (one for blocked512) the byte
 * offset and block count and k.  explicit: the sorted hashes as two
 * Uint32Arrays.  With useWasm (and WebAssembly here), wasm: the
 * WebAssembly probe (wasm.js), which then answers every probe, and data its
 * copy of the filter's data; else null, and data a copy of p's.
 */
export function probePlan(p, useWasm = true) {
  const plan = { layout: p.layout, data: p.data, m: p.m, k: p.k, offsets: null, blocks: null, ks: null, his: null, los: null, wasm: null };
  if (p.layout === F.BLOCKED512 || p.layout === F.LAYERED) {
    const layers = p.layout === F.LAYERED ? p.layers : [{ m: p.m, k: p.k, offset: 0 }];
    plan.offsets = Int32Array.from(layers, (l) => l.offset);
    plan.blocks = Int32Array.from(layers, (l) => l.m / 512);
    plan.ks = Int32Array.from(layers, (l) => l.k);
  } else if (p.layout === F.EXPLICIT) {
    const d = p.data, v = new DataView(d.buffer, d.byteOffset, d.byteLength);
    plan.his = new Uint32Array(p.m);
    plan.los = new Uint32Array(p.m);
    for (let i = 0; i < p.m; i++) { plan.los[i] = v.getUint32(i * 8, true); plan.his[i] = v.getUint32(i * 8 + 4, true); }
  }
  if (useWasm) plan.wasm = wasmProbe(p, BATCH);
  // a copy of the data, never a view of the caller's input, which the
  // caller may change or transfer (a detached buffer reads as empty)
  if (plan.wasm !== null) plan.data = plan.wasm.data;
  else plan.data = p.data.slice();
  return plan;
}

/** Whether the filter of plan holds the value whose 64-bit hash is [hi, lo] (int32 halves). */
export function probeOne(plan, hi, lo) {
  if (plan.wasm !== null) return plan.wasm.probeOne(lo, hi) === 1;
  if (plan.layout === F.EXPLICIT) return explicitHolds(plan.his, plan.los, hi, lo);
  hashXY(hi, lo);
  const data = plan.data;
  if (plan.layout === F.BLOCKED512) return blockHolds(data, blockBase(XY[0], XY[1], 0, plan.blocks[0]), XY[2], XY[3], plan.k);
  if (plan.layout === F.LAYERED) {
    const { offsets, blocks, ks } = plan;
    for (let l = 0; l < ks.length; l++)
      if (blockHolds(data, blockBase(XY[0], XY[1], offsets[l], blocks[l]), XY[2], XY[3], ks[l])) return true;
    return false;
  }
  return positionsHeld(data, plan.layout === F.COUNTING4, plan.m, plan.k, XY[0], XY[1], XY[2], XY[3]);
}

/** The batch's size: its hashes and block indexes stay in the first-level cache. */
export const BATCH = 256;

/**
 * Scratch space for probeBatch, for a plan's filter: the values' hashes
 * (hi, lo: the input), the answers (held: the output), the values never
 * held (never: the caller's, for its answers), and between them
 * each value's x and y and its block's byte index in each layer.
 */
export function batchSpace(plan) {
  const layers = plan.ks === null ? 1 : plan.ks.length;
  return {
    hi: new Int32Array(BATCH), lo: new Int32Array(BATCH), held: new Uint8Array(BATCH), never: new Uint8Array(BATCH),
    xHi: new Int32Array(BATCH), xLo: new Int32Array(BATCH), yHi: new Int32Array(BATCH), yLo: new Int32Array(BATCH),
    base: new Int32Array(BATCH * layers),
  };
}

/**
 * Whether the filter of plan holds each of the first `count` (<= BATCH)
 * hashes in space.hi and space.lo: space.held[i] = 1 if it may, else 0.
 * The same answers as probeOne's.
 */
export function probeBatch(plan, space, count) {
  const { hi, lo, held, xHi, xLo, yHi, yLo, base } = space;
  if (plan.wasm !== null) {
    const w = plan.wasm, hashes = w.hashes;
    for (let i = 0; i < count; i++) {
      hashes[2 * i] = lo[i];
      hashes[2 * i + 1] = hi[i];
    }
    w.probeBatch(count);
    held.set(count === BATCH ? w.held : w.held.subarray(0, count));
    return;
  }
  const data = plan.data, layout = plan.layout;
  if (layout === F.EXPLICIT) {
    for (let i = 0; i < count; i++) held[i] = explicitHolds(plan.his, plan.los, hi[i], lo[i]) ? 1 : 0;
    return;
  }
  if (layout === F.CLASSIC || layout === F.COUNTING4) {
    // (the first position loaded: an absent value is most often told by it)
    const counting = layout === F.COUNTING4, m = plan.m, k = plan.k;
    let sum = 0;
    for (let i = 0; i < count; i++) {
      hashXY(hi[i], lo[i]);
      xHi[i] = XY[0]; xLo[i] = XY[1]; yHi[i] = XY[2]; yLo[i] = XY[3];
    }
    for (let i = 0; i < count; i++) sum += data[firstByte(counting, m, xHi[i], xLo[i])];
    loaded = sum;
    for (let i = 0; i < count; i++) held[i] = positionsHeld(data, counting, m, k, xHi[i], xLo[i], yHi[i], yLo[i]) ? 1 : 0;
    return;
  }
  // blocked512 and layered: every block's byte index, then every block
  // loaded (its first and last bytes: a block may straddle two cache
  // lines), then the bits tested
  const { offsets, blocks, ks } = plan, layers = ks.length;
  if (layers === 1) {
    // (blocked512: the same, with no loop over layers)
    const k = ks[0], nblocks = blocks[0], offset = offsets[0];
    for (let i = 0; i < count; i++) {
      hashXY(hi[i], lo[i]);
      base[i] = blockBase(XY[0], XY[1], offset, nblocks);
      yHi[i] = XY[2];
      yLo[i] = XY[3];
    }
    let sum = 0;
    for (let i = 0; i < count; i++) sum += data[base[i]] + data[base[i] + 63];
    loaded = sum;
    for (let i = 0; i < count; i++) held[i] = blockHolds(data, base[i], yHi[i], yLo[i], k) ? 1 : 0;
    return;
  }
  for (let i = 0; i < count; i++) {
    hashXY(hi[i], lo[i]);
    for (let l = 0; l < layers; l++) base[l * BATCH + i] = blockBase(XY[0], XY[1], offsets[l], blocks[l]);
    yHi[i] = XY[2];
    yLo[i] = XY[3];
  }
  let sum = 0;
  for (let j = 0, end = layers * BATCH; j < end; j++) if (j % BATCH < count) sum += data[base[j]] + data[base[j] + 63];
  loaded = sum;
  for (let i = 0; i < count; i++) {
    let yes = 0;
    for (let l = 0; l < layers && yes === 0; l++) yes = blockHolds(data, base[l * BATCH + i], yHi[i], yLo[i], ks[l]) ? 1 : 0;
    held[i] = yes;
  }
}
