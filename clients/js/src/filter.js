// The BloomFilter class: a bloom value read, probed and written where the
// application runs, bit for bit as the server's bloom_contains answers and
// byte for byte as bloom_agg writes.  The format is read, checked and
// written in format.js, values hashed as the server hashes them in
// values.js (and pghash.js), hashes probed as hash scheme 1 in probe.js and
// added in write.js; filters are sized in sizing.js.  index.js, the
// package's entry, exports it with IndexFilter (refresh.js, which imports
// this module: nothing here imports refresh.js or index.js).

import * as F from "./format.js";
import { checkProbeOfEmpty, defaultFamily, hasherFor, kindOf } from "./values.js";
import { BATCH, batchSpace, probeBatch, probeOne, probePlan } from "./probe.js";
import { blockedFpp, sizeFor } from "./sizing.js";
import { NEVER, sqlType } from "./types.js";
import { addHash } from "./write.js";

const INT64_MAX = (1n << 63n) - 1n;
const LAYOUTS = { classic: F.CLASSIC, blocked: F.BLOCKED512, blocked512: F.BLOCKED512 };

export class BloomFilter {
  #p;
  #type = null; // the SQL type a created filter holds (types.js), or null (a filter read)
  #plan; // what a probe needs, laid out once (probe.js)
  #seedHi; // the seed's halves as int32 (probe.js says why)
  #seedLo;
  #space = null; // containsMany's scratch space, made on its first call
  #cache = new Map();
  #lastKind = ""; // the kind last probed, and its hasher: most probes are of one kind
  #lastFn = null;

  constructor(parsed, options, type = null) {
    this.#p = parsed;
    this.#type = type;
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
   * where WebAssembly is available (probeEngine); options.type (as
   * create's) converts values to that SQL type, as a created filter does
   * (the forms do not carry it: a float4 filter written here and read back
   * takes 0.1 as float4 again only so).
   */
  static from(input, options = undefined) {
    if (options !== undefined && (options === null || typeof options !== "object"))
      throw new F.BloomFilterError(`BloomFilter.from's options are an object, as { wasm: false }, not ${options === null ? "null" : typeof options}`);
    let parsed;
    if (typeof input === "string") parsed = F.parseBinary(F.textToBinary(input));
    else if (input instanceof Uint8Array) parsed = F.parseBinary(input);
    else if (input instanceof ArrayBuffer) parsed = F.parseBinary(new Uint8Array(input));
    else
      throw new F.BloomFilterError(
        `BloomFilter.from takes a Uint8Array (or Buffer) or a string, not ${input === null ? "null" : typeof input}`);
    // the forms name the values' family, not their type: options.type converts values to it again
    const type = options?.type === undefined ? null : sqlType(options.type);
    if (type !== null && parsed.elemlen !== 0 && parsed.elem !== type.family)
      throw new F.BloomFilterError(`a filter of "${parsed.elem}" values cannot hold values of type ${type.name} (${type.family})`);
    return new BloomFilter(parsed, options, type);
  }

  /**
   * An empty filter for options.expectedItems values of SQL type
   * options.type (a name as "int8", "text", "uuid": the type whose equality
   * it follows) at false-positive rate options.falsePositiveRate (0.01 by
   * default), in layout options.layout: "classic" (the default) or
   * "blocked" ("blocked512").  The same m and k as the server's
   * bloom_agg(v, expectedItems, falsePositiveRate, layout), so that the
   * same values give the same bytes.
   */
  static create(options) {
    if (options === null || typeof options !== "object")
      throw new F.BloomFilterError("BloomFilter.create takes an object, as { type: \"int8\", expectedItems: 1000000 }");
    const { type, expectedItems, falsePositiveRate = 0.01, layout = "classic", wasm } = options;
    const t = sqlType(type);
    const code = typeof layout === "string" && Object.hasOwn(LAYOUTS, layout) ? LAYOUTS[layout] : undefined;
    if (code === undefined) throw new F.BloomFilterError(`unknown layout "${layout}" (a filter is created "classic" or "blocked")`);
    const n = typeof expectedItems === "bigint" ? Number(expectedItems) : expectedItems;
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1)
      throw new F.BloomFilterError(`expectedItems must be an integer of at least 1, not ${String(expectedItems)}`);
    if (typeof falsePositiveRate !== "number") throw new F.BloomFilterError("falsePositiveRate must be a number between 0 and 1 (exclusive)");
    const { m, k } = sizeFor(F.LAYOUT_NAMES[code], n, falsePositiveRate);
    const size = F.payloadSize(code, k, BigInt(m), 0, 0);
    const parsed = {
      layout: code, scheme: 1, flags: 0, k, seed: 0n, seedHi: 0, seedLo: 0, m, n: 0n, bound: 0, est: 0, estExact: 0n,
      target: 0, elem: "", elemlen: 0, layers: [], data: new Uint8Array(F.dataBytes(code, m)), size,
    };
    return new BloomFilter(parsed, wasm === false ? { wasm: false } : undefined, t);
  }

  /** The SQL type this filter was created for (create's type, by its canonical name), or null for a filter read. */
  get type() {
    return this.#type === null ? null : this.#type.name;
  }

  /**
   * Adds value (as bloom_add does; null and undefined are skipped, as
   * bloom_agg skips NULL).  A filter read takes adds where its layout
   * allows it: classic, blocked512 and counting4; explicit and layered
   * filters throw.  Returns the filter.
   */
  add(value) {
    if (value === null || value === undefined) return this;
    this.#addOne(value, this.#writable());
    return this;
  }

  /**
   * add(v) for every v of values (an array, typed array or other iterable).
   * A value that cannot be added throws; the values before it stay added.
   * Returns the filter.
   */
  addMany(values) {
    const list = listOf(values, "addMany");
    const data = this.#writable();
    for (const value of list) if (value !== null && value !== undefined) this.#addOne(value, data);
    return this;
  }

  // the data adds write into, after checking the layout takes adds
  #writable() {
    const p = this.#p;
    if (p.layout === F.EXPLICIT)
      throw new F.BloomFilterError("an explicit filter (a set of hashes) takes adds on the server: bloom_add(f, value)");
    if (p.layout === F.LAYERED)
      throw new F.BloomFilterError("a layered filter is a bloomfilter index's, which the index keeps: add rows to the table");
    return this.#plan.data;
  }

  #addOne(value, data) {
    const p = this.#p;
    if (this.#type !== null) value = this.#type.convert(value, true);
    // the first value names the family (the created type's, or the value's
    // own type's), once it has hashed: a value refused leaves the filter empty
    const family = p.elemlen !== 0 ? null : this.#type !== null ? this.#type.family : defaultFamily(value, kindOf(value));
    const fn = family === null ? this.#hasher(value) : hasherFor(family, value, kindOf(value));
    const h = fn(value, this.#seedHi, this.#seedLo);
    if (family !== null) this.#setFamily(family);
    this.#added(addHash(p.layout, data, p.m, p.k, h[0] | 0, h[1] | 0));
  }

  #setFamily(family) {
    const p = this.#p;
    p.elem = family;
    p.elemlen = new TextEncoder().encode(family).length;
    p.size = F.payloadSize(p.layout, p.k, BigInt(p.m), p.flags, p.elemlen);
    this.#cache.clear();
    this.#lastKind = "";
    this.#lastFn = null;
  }

  // n + 1 (saturating, as bloom_add_counts); a derived filter's bound grows
  // by the bits newly set, and its estimate by 1 if any was (bloom_set_hash)
  #added(changed) {
    const p = this.#p;
    if (p.n < INT64_MAX) p.n += 1n;
    if (p.flags & F.FLAG_DERIVED) {
      p.bound = Math.min(p.bound + changed, p.m);
      if (changed > 0) {
        p.estExact += 1n;
        p.est = Number(p.estExact);
      }
    }
  }

  /** The binary form, as bloom_send gives it: what BloomFilter.from, bloom_recv and $1::bytea::bloom read. */
  toBytes() {
    return F.toBinary(this.#p);
  }

  /**
   * The value node-postgres sends for this filter as a query parameter (it
   * calls toPostgres on an object parameter): the binary form, toBytes(),
   * which it sends as a binary parameter.  The server reads it as
   * $1::bloom (bloom_recv, for a counting4 filter $1::counting_bloom) and
   * as $1::bytea::bloom alike.
   */
  toPostgres() {
    return this.toBytes();
  }

  /** The text form, as SELECT f::text prints it. */
  toString() {
    return F.toText(this.#p);
  }

  /**
   * A new filter holding the values of both, as the server's f | g: the
   * same layout, m, k, seed and family (or one side empty); the bits ORed
   * (counters added, stopping at 15), n the sum.  Where a side is derived
   * (an intersection's result), the bound and estimate as the server's.
   */
  union(other) {
    if (!(other instanceof BloomFilter)) throw new F.BloomFilterError("union takes another BloomFilter");
    const a = this.#p, b = other.#p;
    checkCompatible(a, b);
    // the union converts values only where both sides did: a filter read
    // holds values as its family hashes them (a float8 among float_ops,
    // say), which a float4 conversion of the probes would miss
    const ta = this.#type, tb = other.#type;
    if (ta !== null && tb !== null && ta.name !== tb.name)
      throw new F.BloomFilterError(`cannot combine a filter of type ${ta.name} with one of type ${tb.name}: create both with the same type`);
    const type = ta !== null && tb !== null ? ta : null;
    if (b.elemlen === 0) return new BloomFilter(F.parseBinary(F.toBinary(a)), undefined, type);
    if (a.elemlen === 0) return new BloomFilter(F.parseBinary(F.toBinary(b)), undefined, type);
    for (const p of [a, b])
      if (p.layout === F.EXPLICIT || p.layout === F.LAYERED)
        throw new F.BloomFilterError(`the union of ${F.LAYOUT_NAMES[p.layout]} filters is computed on the server: f | g`);
    return new BloomFilter(F.parseBinary(unionBytes(a, b, this.#occupied(0, a.data.length), other.#occupied(0, b.data.length))), undefined, type);
  }

  // The function that hashes value (not null) for a filter that has an
  // element key (an empty one's probes: checkProbeOfEmpty); throws
  // BloomFilterError where the filter cannot hold a value of its type.
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

  /**
   * Whether the filter may hold value; false is certain.  null and undefined
   * are never held.  An empty filter answers false, after refusing what a
   * filter of its type refuses (a created filter, or one read with a type:
   * an empty int8 filter refuses 2 ** 53 and "abc" as a full one does).
   */
  contains(value) {
    if (value === null || value === undefined) return false;
    if (this.#type !== null && (value = this.#type.convert(value, false)) === NEVER) return false;
    if (this.#p.elemlen === 0) {
      checkProbeOfEmpty(this.#type === null ? null : this.#type.family, value, kindOf(value), this.#seedHi, this.#seedLo);
      return false;
    }
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
    const list = listOf(values, "containsMany");
    // an empty filter answers false to every value, and refuses what contains refuses
    if (this.#p.elemlen === 0) return Array.from(list, (value) => this.contains(value));
    const n = list.length, out = [];
    // the scratch space, taken for this call: a call made meanwhile (from a
    // getter of the list, say) makes its own
    const space = this.#space ?? batchSpace(this.#plan);
    this.#space = null;
    const { hi, lo, held } = space, seedHi = this.#seedHi, seedLo = this.#seedLo;
    try {
      for (let at = 0; at < n; at += BATCH) {
        const count = n - at < BATCH ? n - at : BATCH;
        // a value never held (null, undefined, a value the type cannot
        // hold) is probed as hash 0, and its answer then made false
        let never = 0;
        for (let i = 0; i < count; i++) {
          let value = list[at + i];
          // (a value the type cannot hold is never held: probed as null)
          if (this.#type !== null && value !== null && value !== undefined && (value = this.#type.convert(value, false)) === NEVER)
            value = null;
          const fn = value === null || value === undefined ? null : this.#hasher(value);
          space.never[i] = fn === null ? 1 : 0;
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
        else for (let i = 0; i < count; i++) out.push(held[i] === 1 && space.never[i] === 0);
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

// values as an array (or typed array) to walk by index; a string and a
// Uint8Array are iterable, by characters and bytes, but each is one value,
// most likely passed alone: refused
function listOf(values, what) {
  if (values === null || values === undefined || typeof values === "string" || values instanceof Uint8Array ||
      typeof values[Symbol.iterator] !== "function")
    throw new F.BloomFilterError(`${what} takes an array or another iterable of values, not ${describeList(values)}`);
  return Array.isArray(values) || ArrayBuffer.isView(values) ? values : Array.from(values);
}

// bloom_check_compatible: what two filters must share to be combined
function checkCompatible(a, b) {
  const diff = [];
  if (a.layout === F.LAYERED && b.layout === F.LAYERED) {
    const same = a.layers.length === b.layers.length && a.layers.every((l, i) => l.m === b.layers[i].m && l.k === b.layers[i].k);
    if (!same) diff.push("layers (their number, m and k)");
  } else {
    if (a.layout === F.EXPLICIT || b.layout === F.EXPLICIT) {
      if (a.layout === F.COUNTING4 || b.layout === F.COUNTING4) diff.push(`layout: ${F.LAYOUT_NAMES[a.layout]} and ${F.LAYOUT_NAMES[b.layout]}`);
    } else if (a.m !== b.m) diff.push(`m: ${a.m} and ${b.m}`);
    if (a.k !== b.k && a.layout !== F.EXPLICIT && b.layout !== F.EXPLICIT) diff.push(`k: ${a.k} and ${b.k}`);
    if (a.layout !== b.layout && a.layout !== F.EXPLICIT && b.layout !== F.EXPLICIT)
      diff.push(`layout: ${F.LAYOUT_NAMES[a.layout]} and ${F.LAYOUT_NAMES[b.layout]}`);
  }
  if (a.scheme !== b.scheme) diff.push(`hash scheme: ${a.scheme} and ${b.scheme}`);
  if (a.seed !== b.seed) diff.push(`seed: ${BigInt.asIntN(64, a.seed)} and ${BigInt.asIntN(64, b.seed)}`);
  if (a.elemlen !== 0 && b.elemlen !== 0 && a.elem !== b.elem) diff.push(`element family: ${a.elem} and ${b.elem}`);
  if (diff.length > 0) throw new F.BloomFilterError(`cannot combine bloom filters that differ in ${diff.join("; ")}`);
}

// rint: to the nearest integer, halves to even
function rint(x) {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

// the binary form of a | b (bloom_union_in_place), both holding values, of
// a bit layout or both counting4; xa and xb: the cells each has set
function unionBytes(a, b, xa, xb) {
  const derived = ((a.flags | b.flags) & F.FLAG_DERIVED) !== 0;
  const n = a.n + b.n > INT64_MAX ? INT64_MAX : a.n + b.n;
  const data = a.data.slice();
  if (a.layout === F.COUNTING4) {
    for (let i = 0; i < data.length; i++) {
      const lo = Math.min((data[i] & 15) + (b.data[i] & 15), 15), hi = Math.min((data[i] >> 4) + (b.data[i] >> 4), 15);
      data[i] = (hi << 4) | lo;
    }
  } else {
    for (let i = 0; i < data.length; i++) data[i] |= b.data[i];
  }
  const out = { ...a, n, data };
  if (derived) {
    // a value outside the union passes if its bits are among those of
    // either side that matter; the union's own fill estimates its values
    const ca = estimateOf(a, xa), cb = estimateOf(b, xb);
    const ea = a.flags & F.FLAG_DERIVED ? a.bound : xa, eb = b.flags & F.FLAG_DERIVED ? b.bound : xb;
    const fillEst = estimateDistinct(a.m, a.k, F.popcount(data));
    const est = Math.min(Math.max(fillEst, Math.max(ca, cb)), ca + cb);
    out.flags = F.FLAG_DERIVED;
    out.bound = Math.min(ea + eb, a.m);
    out.estExact = BigInt(rint(Math.max(0, Math.min(est, Number(n)))));
  }
  return F.toBinary(out);
}

// bloom_estimate_distinct of a bit filter with `occupied` bits set
function estimateOf(p, occupied) {
  const est = p.flags & F.FLAG_DERIVED ? Number(p.estExact) : estimateDistinct(p.m, p.k, occupied);
  return Math.min(est, Number(p.n));
}

function describeList(values) {
  if (values === null) return "null";
  if (values instanceof Uint8Array) return "a Uint8Array (one bytea value; pass an array of them)";
  if (typeof values === "string") return "a string (one value; pass an array of them)";
  return typeof values;
}
