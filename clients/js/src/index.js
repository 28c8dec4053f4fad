// pg-bloomfilter: probe a PostgreSQL bloomfilter value where the
// application runs, bit for bit as the server's bloom_contains answers.
//
// Positions follow hash scheme 1 (core/bf_hash.h in the extension): from a
// value's 64-bit hash h, x = fmix64(h), y = fmix64(h ^ 0x9E3779B97F4A7C15);
// classic and counting4 positions floor(x_i m / 2^64), x_{i+1} = x_i + y;
// blocked512 its block from x and 9-bit offsets from y's top bits, 7 per
// word, refilled with w = fmix64(w + 0xC2B2AE3D27D4EB4F); a layered filter
// holds a value one of its (blocked512) layers holds; an explicit one holds
// the hashes themselves.  64-bit values are [hi, lo] pairs of uint32.

import * as F from "./format.js";
import { hasherFor } from "./values.js";

export { BloomFilterError } from "./format.js";

const SALT_HI = 0x9e3779b9, SALT_LO = 0x7f4a7c15;
const REFILL_HI = 0xc2b2ae3d, REFILL_LO = 0x27d4eb4f;
const TWO32 = 4294967296;

// the high 32 bits of the 64-bit product of two uint32: a b = a bH 2^16 + a bL
// with bH, bL < 2^16, each product below 2^48 and so exact in a double; no
// float remainder (%), which V8 computes by a call to fmod
function mulHi(a, b) {
  return ((a * (b >>> 16) + ((a * (b & 0xffff)) / 65536 >>> 0)) / 65536) >>> 0;
}

// fmix64 of [hi, lo] into out
function fmix64(hi, lo, out) {
  lo = (lo ^ (hi >>> 1)) >>> 0; // k ^= k >> 33
  // k *= 0xff51afd7ed558ccd
  let h = (mulHi(lo, 0xed558ccd) + Math.imul(lo, 0xff51afd7) + Math.imul(hi, 0xed558ccd)) >>> 0;
  let l = Math.imul(lo, 0xed558ccd) >>> 0;
  l = (l ^ (h >>> 1)) >>> 0;
  // k *= 0xc4ceb9fe1a85ec53
  hi = (mulHi(l, 0x1a85ec53) + Math.imul(l, 0xc4ceb9fe) + Math.imul(h, 0x1a85ec53)) >>> 0;
  lo = Math.imul(l, 0x1a85ec53) >>> 0;
  out[0] = hi;
  out[1] = (lo ^ (hi >>> 1)) >>> 0;
}

// floor(x m / 2^64) for x = [hi, lo] and 1 <= m < 2^53
function reduce(hi, lo, m) {
  const mH = Math.floor(m / TWO32), mL = m >>> 0;
  // x m = hi mH 2^64 + (hi mL + lo mH) 2^32 + lo mL
  const aLo = Math.imul(hi, mL) >>> 0, aHi = mulHi(hi, mL);
  const b = lo * mH; // < 2^53 (mH < 2^21)
  const cHi = mulHi(lo, mL);
  return hi * mH + aHi + Math.floor((aLo + b + cHi) / TWO32);
}

const X = new Uint32Array(2), Y = new Uint32Array(2), W = new Uint32Array(2);

// Whether the blocked512 filter of `blocks` blocks at data's byte `offset`
// holds the value of X and Y (fmix64 of its hash, and of its salted hash):
// its block is floor(x blocks / 2^64), then k 9-bit offsets in that block
// from y's top bits.  blocks < 2^24 (a filter holds at most 2^33 bits), so
// the block is mulHi(xHi, blocks) plus the carry of the lower products, and
// every byte index is below 2^30: small-integer arithmetic only.
function blockHolds(data, offset, blocks, k) {
  const xHi = X[0], xLo = X[1];
  const carry = (Math.imul(xHi, blocks) >>> 0) + mulHi(xLo, blocks) >= TWO32 ? 1 : 0;
  const base = offset + (mulHi(xHi, blocks) + carry) * 64;
  let wHi = Y[0], wLo = Y[1], rHi = wHi, rLo = wLo;
  for (let i = 0; i < k; i++) {
    if (i > 0 && i % 7 === 0) {
      const lo = (wLo + REFILL_LO) >>> 0;
      const hi = (wHi + REFILL_HI + (lo < wLo ? 1 : 0)) >>> 0;
      fmix64(hi, lo, W);
      wHi = rHi = W[0];
      wLo = rLo = W[1];
    }
    const bit = rHi >>> 23; // the top 9 bits: the bit in the block
    rHi = ((rHi << 9) | (rLo >>> 23)) >>> 0;
    rLo = (rLo << 9) >>> 0;
    if ((data[base + (bit >>> 3)] & (1 << (bit & 7))) === 0) return false;
  }
  return true;
}

export class BloomFilter {
  #p;
  #hashes; // explicit: the sorted hashes, as [hi, lo] in two Uint32Arrays
  #cache = new Map();
  #lastKind = ""; // the kind last probed, and its hasher: most probes are of one kind
  #lastFn = null;

  constructor(parsed) {
    this.#p = parsed;
    if (parsed.layout === F.EXPLICIT) {
      const d = parsed.data, v = new DataView(d.buffer, d.byteOffset, d.byteLength);
      const his = new Uint32Array(parsed.m), los = new Uint32Array(parsed.m);
      for (let i = 0; i < parsed.m; i++) { los[i] = v.getUint32(i * 8, true); his[i] = v.getUint32(i * 8 + 4, true); }
      this.#hashes = [his, los];
    }
  }

  /**
   * A filter from its binary form (a Uint8Array, or a Buffer as
   * node-postgres returns a bytea) or its text form (a string, what
   * SELECT f returns).
   */
  static from(input) {
    if (typeof input === "string") return new BloomFilter(F.parseBinary(F.textToBinary(input)));
    if (input instanceof Uint8Array) return new BloomFilter(F.parseBinary(input));
    if (input instanceof ArrayBuffer) return new BloomFilter(F.parseBinary(new Uint8Array(input)));
    throw new F.BloomFilterError(
      `BloomFilter.from takes a Uint8Array (or Buffer) or a string, not ${input === null ? "null" : typeof input}`);
  }

  /** Whether the filter may hold value; false is certain.  null and undefined are never held. */
  contains(value) {
    if (value === null || value === undefined) return false;
    const p = this.#p;
    const kind = kindOf(value);
    let fn = this.#lastFn;
    if (kind !== this.#lastKind) {
      fn = this.#cache.get(kind);
      if (fn === undefined) {
        fn = hasherFor(p.elem, value, kind);
        if (fn === null) return false; // an empty filter
        this.#cache.set(kind, fn);
      }
      this.#lastKind = kind;
      this.#lastFn = fn;
    }
    const h = fn(value, p.seedHi, p.seedLo);
    return this.containsHash(h[0], h[1]);
  }

  /** Whether the filter may hold the value whose 64-bit hash (with the filter's seed) is [hi, lo]. */
  containsHash(hi, lo) {
    const p = this.#p;
    if (p.layout === F.EXPLICIT) {
      const [his, los] = this.#hashes;
      let a = 0, b = his.length;
      while (a < b) {
        const mid = (a + b) >>> 1;
        if (his[mid] < hi || (his[mid] === hi && los[mid] < lo)) a = mid + 1;
        else b = mid;
      }
      return a < his.length && his[a] === hi && los[a] === lo;
    }
    fmix64(hi, lo, X);
    const yLo = (lo ^ SALT_LO) >>> 0, yHi = (hi ^ SALT_HI) >>> 0;
    fmix64(yHi, yLo, Y);
    const data = p.data;
    if (p.layout === F.BLOCKED512) return blockHolds(data, 0, p.m / 512, p.k);
    if (p.layout === F.LAYERED) {
      for (const l of p.layers) if (blockHolds(data, l.offset, l.m / 512, l.k)) return true;
      return false;
    }
    let xHi = X[0], xLo = X[1];
    const m = p.m, counting = p.layout === F.COUNTING4;
    for (let i = 0; i < p.k; i++) {
      const pos = reduce(xHi, xLo, m);
      // (pos may pass 2^31: no 32-bit operators, nor %, on it)
      if (counting) {
        const byte = Math.floor(pos / 2);
        if (((data[byte] >>> ((pos - byte * 2) * 4)) & 15) === 0) return false;
      } else {
        const byte = Math.floor(pos / 8);
        if (((data[byte] >>> (pos - byte * 8)) & 1) === 0) return false;
      }
      const nlo = (xLo + Y[1]) >>> 0;
      xHi = (xHi + Y[0] + (nlo < xLo ? 1 : 0)) >>> 0;
      xLo = nlo;
    }
    return true;
  }

  /** What bloom_info reports (the same names). */
  get info() {
    const p = this.#p;
    const occupied = this.#occupied(0, p.data.length);
    const layered = p.layout === F.LAYERED;
    return {
      layout: F.LAYOUT_NAMES[p.layout],
      nbits: p.m,
      nhashes: layered ? null : p.k,
      bytes: p.size + 4,
      valuesAdded: p.n,
      bitsSet: occupied,
      fillRatio: p.layout === F.EXPLICIT ? null : occupied / p.m,
      estimatedDistinct: this.#estimateDistinct(occupied),
      estimatedFpp: this.#currentFpp(occupied),
      elementFamily: p.elem === "" ? null : p.elem,
      seed: BigInt.asIntN(64, p.seed),
      hashScheme: p.scheme,
      targetFpp: p.flags & F.FLAG_TARGET ? p.target / 1e9 : null,
    };
  }

  #occupied(from, to) {
    const p = this.#p;
    if (p.layout === F.EXPLICIT) return p.m;
    if (p.layout === F.COUNTING4) return F.countersSet(p.data.subarray(from, to));
    return F.popcount(p.data, from, to);
  }

  #layered() {
    let distinct = 0, clear = 1;
    for (const l of this.#p.layers) {
      const est = estimateDistinct(l.m, l.k, this.#occupied(l.offset, l.offset + l.m / 8));
      distinct += est;
      clear *= 1 - blockedFpp(est, l.m, l.k);
    }
    return [distinct, 1 - clear];
  }

  #estimateDistinct(occupied) {
    const p = this.#p, n = Number(p.n);
    if (p.layout === F.EXPLICIT) return p.m;
    if (p.layout === F.LAYERED) return Math.min(this.#layered()[0], n);
    const est = p.flags & F.FLAG_DERIVED ? p.est : estimateDistinct(p.m, p.k, occupied);
    return Math.min(est, n);
  }

  #currentFpp(occupied) {
    const p = this.#p;
    if (p.layout === F.EXPLICIT) return 0;
    if (p.layout === F.LAYERED) return this.#layered()[1];
    if (p.layout === F.BLOCKED512 && !(p.flags & F.FLAG_DERIVED)) return blockedFpp(this.#estimateDistinct(occupied), p.m, p.k);
    return ((p.flags & F.FLAG_DERIVED ? p.bound : occupied) / p.m) ** p.k;
  }
}

function estimateDistinct(m, k, occupied) {
  if (occupied >= m) return Infinity;
  return -(m / k) * Math.log1p(-occupied / m);
}

// log Γ(x) for x >= 1 (Lanczos, g = 7): bf_blocked_fpp's Poisson weights
function lgamma(x) {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

function blockedFpp(n, m, k) {
  if (n <= 0) return 0;
  const lambda = (n * 512) / m;
  if (lambda > 1e6) return (-Math.expm1(k * lambda * Math.log1p(-1 / 512))) ** k;
  const spread = 12 * Math.sqrt(lambda) + 30;
  const lo = Math.floor(Math.max(0, lambda - spread)), hi = Math.ceil(lambda + spread);
  let sum = 0, weight = 0;
  for (let i = lo; i <= hi; i++) {
    const pmf = Math.exp(i * Math.log(lambda) - lambda - lgamma(i + 1));
    sum += pmf * (-Math.expm1(k * i * Math.log1p(-1 / 512))) ** k;
    weight += pmf;
  }
  return weight > 0 ? sum / weight : 1;
}

function kindOf(value) {
  switch (typeof value) {
    case "number": return "number";
    case "bigint": return "bigint";
    case "string": return "string";
    case "boolean": return "boolean";
    default:
      if (value instanceof Date) return "date";
      if (value instanceof Uint8Array) return "bytes";
      return "other";
  }
}
