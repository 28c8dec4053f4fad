// pg-bloomfilter: probe a PostgreSQL bloomfilter value where the
// application runs, bit for bit as the server's bloom_contains answers.
// The format is read and checked in format.js, values hashed as the server
// hashes them in values.js (and pghash.js), and hashes probed as hash
// scheme 1 in probe.js.

import * as F from "./format.js";
import { hasherFor } from "./values.js";
import { BATCH, batchSpace, probeBatch, probeOne, probePlan } from "./probe.js";

export { BloomFilterError } from "./format.js";

export class BloomFilter {
  #p;
  #plan; // what a probe needs, laid out once (probe.js)
  #seedHi; // the seed's halves as int32 (probe.js says why)
  #seedLo;
  #space = null; // containsMany's scratch space, made on its first call
  #cache = new Map();
  #lastKind = ""; // the kind last probed, and its hasher: most probes are of one kind
  #lastFn = null;

  constructor(parsed, options) {
    this.#p = parsed;
    this.#plan = probePlan(parsed, options?.wasm !== false);
    // the data is the plan's own copy (WebAssembly's, or JavaScript's): the
    // input may change or go, and the answers do not
    parsed.data = this.#plan.data;
    this.#seedHi = parsed.seedHi | 0;
    this.#seedLo = parsed.seedLo | 0;
  }

  /**
   * A filter from its binary form (a Uint8Array, or a Buffer as
   * node-postgres returns a bytea) or its text form (a string, what
   * SELECT f returns).  options.wasm = false probes in JavaScript even
   * where WebAssembly is available (probeEngine).
   */
  static from(input, options = undefined) {
    if (options !== undefined && (options === null || typeof options !== "object"))
      throw new F.BloomFilterError(`BloomFilter.from's options are an object, as { wasm: false }, not ${options === null ? "null" : typeof options}`);
    if (typeof input === "string") return new BloomFilter(F.parseBinary(F.textToBinary(input)), options);
    if (input instanceof Uint8Array) return new BloomFilter(F.parseBinary(input), options);
    if (input instanceof ArrayBuffer) return new BloomFilter(F.parseBinary(new Uint8Array(input)), options);
    throw new F.BloomFilterError(
      `BloomFilter.from takes a Uint8Array (or Buffer) or a string, not ${input === null ? "null" : typeof input}`);
  }

  // The function that hashes value (not null), or null where the filter is
  // empty (every value answers false); throws BloomFilterError where the
  // filter cannot hold a value of its type.
  #hasher(value) {
    const kind = kindOf(value);
    if (kind === this.#lastKind) return this.#lastFn;
    let fn = this.#cache.get(kind);
    if (fn === undefined) {
      fn = hasherFor(this.#p.elem, value, kind);
      this.#cache.set(kind, fn);
    }
    this.#lastKind = kind;
    this.#lastFn = fn;
    return fn;
  }

  /** Whether the filter may hold value; false is certain.  null and undefined are never held. */
  contains(value) {
    if (value === null || value === undefined) return false;
    const fn = this.#hasher(value);
    if (fn === null) return false;
    const h = fn(value, this.#seedHi, this.#seedLo);
    return probeOne(this.#plan, h[0] | 0, h[1] | 0);
  }

  /**
   * contains(v) for every v of values (an array, typed array or other
   * iterable), in order.  The same answers, faster on a large filter: the
   * values are hashed in batches and each batch's blocks fetched from
   * memory together.  A value that cannot be probed throws, as contains
   * does.
   */
  containsMany(values) {
    // (a string and a Uint8Array are iterable, by characters and bytes, but
    // each is one value to probe, most likely passed alone: refused)
    if (values === null || values === undefined || typeof values === "string" || values instanceof Uint8Array ||
        typeof values[Symbol.iterator] !== "function")
      throw new F.BloomFilterError(
        `containsMany takes an array or another iterable of values, not ${describeList(values)}`);
    const list = Array.isArray(values) || ArrayBuffer.isView(values) ? values : Array.from(values);
    const n = list.length, out = [];
    // the scratch space, taken for this call: a call made meanwhile (from a
    // getter of the list, say) makes its own
    const space = this.#space ?? batchSpace(this.#plan);
    this.#space = null;
    const { hi, lo, held } = space, seedHi = this.#seedHi, seedLo = this.#seedLo;
    try {
      for (let at = 0; at < n; at += BATCH) {
        const count = n - at < BATCH ? n - at : BATCH;
        // a value never held (null, undefined, any value of an empty filter)
        // is probed as hash 0, and its answer then made false
        let never = 0;
        for (let i = 0; i < count; i++) {
          const value = list[at + i];
          const fn = value === null || value === undefined ? null : this.#hasher(value);
          if (fn === null) {
            hi[i] = lo[i] = 0;
            never++;
            continue;
          }
          const h = fn(value, seedHi, seedLo);
          hi[i] = h[0];
          lo[i] = h[1];
        }
        probeBatch(this.#plan, space, count);
        if (never === 0) for (let i = 0; i < count; i++) out.push(held[i] === 1);
        else
          for (let i = 0; i < count; i++) {
            const value = list[at + i];
            out.push(held[i] === 1 && value !== null && value !== undefined && this.#hasher(value) !== null);
          }
      }
    } finally {
      this.#space = space;
    }
    return out;
  }

  /** Whether the filter may hold the value whose 64-bit hash (with the filter's seed) is [hi, lo]. */
  containsHash(hi, lo) {
    return probeOne(this.#plan, hi | 0, lo | 0);
  }

  /**
   * What answers the probes: "webassembly" (wasm/probe.c, the core's C) or
   * "javascript" (probe.js: an explicit filter's search; where WebAssembly
   * is unavailable, or from(input, { wasm: false })).  The same answers.
   */
  get probeEngine() {
    return this.#plan.wasm !== null ? "webassembly" : "javascript";
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

function describeList(values) {
  if (values === null) return "null";
  if (values instanceof Uint8Array) return "a Uint8Array (one bytea value; pass an array of them)";
  if (typeof values === "string") return "a string (one value; pass an array of them)";
  return typeof values;
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
