// WindowFilter: a window filter (1.12, bloom_window's; core/bf_window.c),
// an age-partitioned Bloom filter whose values fade after a window of
// generations, read, probed, added to, advanced, joined and written here
// byte for byte as the server does.  The format is read and written by
// format.js (asked to take this layout), values hashed by values.js, sized
// by sizing.js (windowSizeFor).
//
// With G the current generation and S slices, the slice of age a is in
// slot (G - a) mod S; a value's bit in slot p is floor((x + p y mod 2^64)
// * sliceBits / 2^64), x and y as hash scheme 1 derives them (probe.js).

import * as F from "./format.js";
import { XY, hashXY, reduce } from "./probe.js";
import { windowFppOfFills, windowSizeFor } from "./sizing.js";
import { NEVER, sqlType } from "./types.js";
import { checkProbeOfEmpty, defaultFamily, hasherFor, kindOf } from "./values.js";
import { wasmWindow } from "./wasm.js";

const INT64_MAX = (1n << 63n) - 1n, INT64_MIN = -(1n << 63n);
const TWO32 = 4294967296, SMALL_SLICE = 2 ** 21;
// microseconds from 1970-01-01 to 2000-01-01 (PostgreSQL's epoch)
const EPOCH_2000_US = 946684800000000n;
// the times a timestamptz holds, in microseconds from 2000 (MIN_TIMESTAMP, END_TIMESTAMP)
const MIN_TIME = -211813488000000000n, END_TIME = 9223371331200000000n;

const fail = (message) => new F.BloomFilterError(message);

// the value's bit in slot `slot` of sliceBits bits: a bit index of the data
function bitInSlot(xHi, xLo, yHi, yLo, slot, sliceBits) {
  // x + slot y mod 2^64 in 32-bit halves: slot < 2^13, each product below
  // 2^45 and each sum below 2^53, exact in a double; >>> 0 takes one mod 2^32
  const pLo = slot * (yLo >>> 0);
  const lo = (xLo >>> 0) + (pLo >>> 0);
  const hi = (xHi + slot * (yHi >>> 0) + Math.floor(pLo / TWO32) + (lo >= TWO32 ? 1 : 0)) >>> 0;
  // floor(x sliceBits / 2^64): below 2^21 bits a slice, hi sliceBits and lo
  // sliceBits are exact in a double, and so is their sum as nested here
  // (floor((A + floor(b)) / c) = floor((A + b) / c) for an integer A);
  // otherwise probe.js's reduce
  if (sliceBits < SMALL_SLICE)
    return slot * sliceBits + Math.floor((hi * sliceBits + Math.floor(((lo >>> 0) * sliceBits) / TWO32)) / TWO32);
  return slot * sliceBits + reduce(hi | 0, lo | 0, sliceBits);
}

// the smallest filter (its data, in bytes) probed in WebAssembly: an
// instance and its memory cost a smaller one more to make than its probes
// save (140 us against 7.5), and an engine reserves address space for each
// memory (V8: about 10 GiB, some 13,000 at most a process), where an
// application may keep a small filter per key
const WASM_MIN_BYTES = 65536;

// whether the slice of age `age` (< S) of data, the newest in slot `now`, holds the value's bit
// (a function of the module, not a method: the probe's hot path, inlined)
function heldAt(data, xHi, xLo, yHi, yLo, now, S, sliceBits, age) {
  const bit = bitInSlot(xHi, xLo, yHi, yLo, now >= age ? now - age : now + S - age, sliceBits);
  return (data[Math.floor(bit / 8)] & (1 << (bit & 7))) !== 0;
}

// a time (a Date, or microseconds from 2000-01-01 UTC as a bigint) as microseconds from 2000
function micros(at) {
  let us;
  if (typeof at === "bigint") us = at;
  else if (at instanceof Date && !Number.isNaN(at.getTime())) us = BigInt(at.getTime()) * 1000n - EPOCH_2000_US;
  else throw fail(`a time is a Date or a bigint of microseconds from 2000-01-01 UTC, not ${at === null ? "null" : typeof at}`);
  if (us < MIN_TIME || us >= END_TIME) throw fail("a time out of the range of timestamptz is in no generation");
  return us;
}

// floor(t / len) for bigints
function floorDiv(t, len) {
  const q = t / len;
  return t % len < 0n ? q - 1n : q;
}

export class WindowFilter {
  #p;
  #type;
  // the shape, as Numbers, kept (it changes only when the filter moves on):
  // slices, hashes, sliceBits, and now, G mod S (the newest slice's slot)
  #S;
  #k;
  #sliceBits;
  #now;
  // adds not yet in the counts and n (bigints, whose arithmetic costs an
  // allocation an add): each slot's, and n's; flushed before they are read
  #pending;
  #pendingN = 0;
  // the last kind of value hashed, and its hasher (most adds and probes are of one kind)
  #lastKind = "";
  #lastFn = null;
  // the WebAssembly probe ((lo, hi, now) => 1 or 0), whose memory holds the
  // data this filter reads and writes (parsed.data is its view), or null
  #wasmProbe = null;
  #useWasm; // (false: { wasm: false }; a union's result follows it)

  constructor(parsed, type = null, useWasm = true) {
    this.#p = parsed;
    this.#type = type;
    this.#S = parsed.k;
    this.#k = parsed.window.hashes;
    this.#sliceBits = parsed.m / parsed.k;
    this.#pending = new Float64Array(parsed.k);
    this.#setNow();
    this.#useWasm = useWasm;
    const wasm = useWasm && parsed.data.length >= WASM_MIN_BYTES ? wasmWindow(parsed, this.#sliceBits) : null;
    if (wasm !== null) {
      parsed.data = wasm.data;
      this.#wasmProbe = wasm.probe;
    }
  }

  #setNow() {
    const S = BigInt(this.#S);
    this.#now = Number(((this.#p.window.generation % S) + S) % S);
  }

  // the pending adds into the counts and n (each stopping at 2^63-1)
  #flush() {
    const p = this.#p, counts = p.window.counts;
    if (this.#pendingN === 0) return;
    for (let slot = 0; slot < this.#S; slot++) {
      if (this.#pending[slot] === 0) continue;
      const c = counts[slot] + BigInt(this.#pending[slot]);
      counts[slot] = c > INT64_MAX ? INT64_MAX : c;
      this.#pending[slot] = 0;
    }
    const n = p.n + BigInt(this.#pendingN);
    p.n = n > INT64_MAX ? INT64_MAX : n;
    this.#pendingN = 0;
  }

  /**
   * A window filter from its binary form (a Uint8Array or Buffer) or its
   * text form (a string); options.type as BloomFilter.from's.
   */
  static from(input, options = undefined) {
    let parsed;
    // (a copy of the input, a Buffer's too, whose slice() is a view: adds change the filter's own bytes)
    if (typeof input === "string") parsed = F.parseBinary(F.textToBinary(input, true), true);
    else if (input instanceof Uint8Array) parsed = F.parseBinary(new Uint8Array(input), true);
    else throw fail(`WindowFilter.from takes a Uint8Array (or Buffer) or a string, not ${input === null ? "null" : typeof input}`);
    if (parsed.layout !== F.WINDOW) throw fail(`a ${F.LAYOUT_NAMES[parsed.layout]} filter is not a window filter: read it with BloomFilter.from`);
    parsed.data = new Uint8Array(parsed.data);
    const type = options?.type === undefined ? null : sqlType(options.type);
    if (type !== null && parsed.elemlen !== 0 && parsed.elem !== type.family)
      throw fail(`a filter of "${parsed.elem}" values cannot hold values of type ${type.name} (${type.family})`);
    return new WindowFilter(parsed, type, options?.wasm !== false);
  }

  /**
   * An empty window filter, as the server's bloom_window: options.type (an
   * SQL type's name), options.capacity values a generation,
   * options.falsePositiveRate (0.01), options.generations (10); with
   * options.generationLength (microseconds, a bigint or a number) its
   * generations are times, its current one holding options.at (a Date, or
   * microseconds from 2000-01-01 UTC; now by default).
   */
  static create(options) {
    if (options === null || typeof options !== "object")
      throw fail('WindowFilter.create takes an object, as { type: "text", capacity: 10000, generations: 24 }');
    const { type, capacity, falsePositiveRate = 0.01, generations = 10, generationLength, at, wasm } = options;
    const t = sqlType(type);
    const cap = typeof capacity === "bigint" ? Number(capacity) : capacity;
    if (typeof cap !== "number" || !Number.isSafeInteger(cap) || cap < 1)
      throw fail(`capacity must be an integer of at least 1, not ${String(capacity)}`);
    const { hashes, sliceBits } = windowSizeFor(cap, falsePositiveRate, generations);
    let interval = 0n, generation = 0n;
    if (generationLength !== undefined) {
      if (typeof generationLength !== "bigint" && !Number.isSafeInteger(generationLength))
        throw fail("a generation length is a whole number of microseconds (a bigint or an integer)");
      interval = BigInt(generationLength);
      if (interval <= 0n || interval > INT64_MAX) throw fail("a generation length must be a positive interval (at most 2^63-1 microseconds)");
      generation = floorDiv(micros(at === undefined ? new Date() : at), interval);
    }
    const k = hashes + generations - 1, m = sliceBits * k;
    const parsed = {
      layout: F.WINDOW, scheme: 1, flags: 0, k, seed: 0n, seedHi: 0, seedLo: 0, m, n: 0n, bound: 0, est: 0, estExact: 0n,
      target: 0, elem: "", elemlen: 0, layers: [], data: new Uint8Array(m / 8),
      window: { hashes, capacity: BigInt(cap), generation, interval, counts: new BigUint64Array(k) },
      size: F.payloadSize(F.WINDOW, k, BigInt(m), 0, 0),
    };
    return new WindowFilter(parsed, t, wasm !== false);
  }

  /**
   * What answers the probes: "webassembly" (wasm/probe.c, the core's own
   * scan) or "javascript" (a filter under 64 kB, where WebAssembly is
   * unavailable, or with options.wasm = false).  The same answers.
   */
  get probeEngine() {
    return this.#wasmProbe !== null ? "webassembly" : "javascript";
  }

  #shape() {
    return { S: this.#S, hashes: this.#k, generations: this.#S - this.#k + 1, sliceBits: this.#sliceBits, now: this.#now };
  }

  /** Its shape and clock, as bloom_window_info reports them (generationLength in microseconds, or null). */
  get info() {
    this.#flush();
    const p = this.#p, w = p.window, s = this.#shape();
    let inWindow = 0n;
    for (let age = 0; age < s.generations; age++) inWindow += w.counts[(s.now + s.S - age) % s.S];
    const fill = new Float64Array(s.S);
    for (let age = 0; age < s.S; age++) {
      const slot = (s.now + s.S - age) % s.S, bytes = s.sliceBits / 8;
      fill[age] = F.popcount(p.data, slot * bytes, (slot + 1) * bytes) / s.sliceBits;
    }
    return {
      hashes: w.hashes, generations: s.generations, slices: s.S, sliceBits: s.sliceBits, capacity: w.capacity,
      generation: w.generation, generationLength: w.interval === 0n ? null : w.interval,
      valuesAdded: p.n, valuesInWindow: inWindow > INT64_MAX ? INT64_MAX : inWindow,
      estimatedFpp: windowFppOfFills(fill, w.hashes), elementFamily: p.elemlen === 0 ? null : p.elem,
    };
  }

  // the value's 64-bit hash ([hi, lo] as the family hashes it), or null where no filter of it holds it
  #hash(value, adding) {
    const p = this.#p;
    if (this.#type !== null && (value = this.#type.convert(value, adding)) === NEVER) return null;
    const kind = kindOf(value);
    if (p.elemlen === 0 && !adding) {
      checkProbeOfEmpty(this.#type === null ? null : this.#type.family, value, kind, 0, 0);
      return null;
    }
    let fn;
    if (p.elemlen !== 0 && kind === this.#lastKind) fn = this.#lastFn;
    else {
      const family = p.elemlen !== 0 ? p.elem : this.#type !== null ? this.#type.family : defaultFamily(value, kind);
      fn = hasherFor(family, value, kind);
      const h = fn(value, 0, 0);
      if (p.elemlen === 0) {
        p.elem = family;
        p.elemlen = new TextEncoder().encode(family).length;
        p.size = F.payloadSize(F.WINDOW, p.k, BigInt(p.m), 0, p.elemlen);
      }
      this.#lastKind = kind;
      this.#lastFn = fn;
      return h;
    }
    return fn(value, 0, 0);
  }

  /** Whether value may have been added within the window (false is certain). */
  contains(value) {
    if (value === null || value === undefined) return false;
    const h = this.#hash(value, false);
    if (h === null) return false;
    if (this.#wasmProbe !== null) return this.#wasmProbe(h[1] | 0, h[0] | 0, this.#now) === 1;
    hashXY(h[0] | 0, h[1] | 0);
    const xHi = XY[0], xLo = XY[1], yHi = XY[2], yLo = XY[3];
    const S = this.#S, k = this.#k, now = this.#now, sliceBits = this.#sliceBits, d = this.#p.data;
    // a run of k set slices by age (bf_window_contains' skip scan); a
    // candidate and the next, k further, read side by side (no branch
    // between their loads, which then wait on memory together)
    let end = k - 1;
    while (end < S) {
      const next = end + k;
      const held = heldAt(d, xHi, xLo, yHi, yLo, now, S, sliceBits, end);
      const heldNext = next < S && heldAt(d, xHi, xLo, yHi, yLo, now, S, sliceBits, next);
      if (!held) {
        if (!heldNext) {
          end = next + k;
          continue;
        }
        end = next;
      }
      let run = 1, a;
      for (a = end; a > 0 && run < k && heldAt(d, xHi, xLo, yHi, yLo, now, S, sliceBits, a - 1); a--) run++;
      for (a = end + 1; run < k && a < S && heldAt(d, xHi, xLo, yHi, yLo, now, S, sliceBits, a); a++) run++;
      if (run >= k) return true;
      end = a + k;
    }
    return false;
  }

  /**
   * Adds value in the current generation, or (a filter whose generations
   * are times) in the generation holding `at` (a Date, exact to the
   * millisecond, or a bigint of microseconds from 2000-01-01 UTC, exact),
   * moving the filter on to it if later; a value older than every slice
   * adds nothing.  A null or undefined value, and a null time (SQL's NULL,
   * as the server's bloom_add(f, v, at) and bloom_window_agg skip it), add
   * nothing.  Returns the filter.
   */
  add(value, at = undefined) {
    if (value === null || value === undefined || at === null) return this;
    const w = this.#p.window, S = this.#S;
    let age = 0, h;
    if (at !== undefined) {
      if (w.interval === 0n) throw fail("this window filter's generations are not times: add(value) adds to its current generation");
      const r = floorDiv(micros(at), w.interval);
      if (r < w.generation && w.generation - r >= BigInt(S)) return this; // older than every slice
      // (hashed first: a value refused leaves the filter as it was)
      if ((h = this.#hash(value, true)) === null) return this;
      if (r > w.generation) this.#advanceTo(r);
      age = Number(w.generation - r);
    } else if ((h = this.#hash(value, true)) === null) return this;
    hashXY(h[0] | 0, h[1] | 0);
    const xHi = XY[0], xLo = XY[1], yHi = XY[2], yLo = XY[3], d = this.#p.data;
    // the slot of generation r = G - age, then the slices created before it
    const first = this.#now >= age ? this.#now - age : this.#now + S - age;
    for (let j = 0; j < this.#k && age + j < S; j++) {
      const bit = bitInSlot(xHi, xLo, yHi, yLo, first >= j ? first - j : first + S - j, this.#sliceBits);
      d[Math.floor(bit / 8)] |= 1 << (bit & 7);
    }
    this.#pending[first]++;
    this.#pendingN++;
    return this;
  }

  #advanceTo(to) {
    this.#flush();
    const p = this.#p, w = p.window, s = this.#shape();
    let steps = to - w.generation;
    if (steps > BigInt(s.S)) steps = BigInt(s.S);
    const bytes = s.sliceBits / 8;
    for (let t = 1; t <= Number(steps); t++) {
      const slot = (s.now + t) % s.S;
      p.data.fill(0, slot * bytes, (slot + 1) * bytes);
      w.counts[slot] = 0n;
    }
    w.generation = to;
    this.#setNow();
  }

  /**
   * Moves the filter on: by `by` generations (a non-negative integer, 1 by
   * default), or (a filter whose generations are times) to the generation
   * holding a time (a Date, or microseconds from 2000-01-01 UTC), if later.
   * Returns the filter.
   */
  advance(by = 1) {
    const w = this.#p.window;
    if (by instanceof Date || typeof by === "bigint") {
      if (w.interval === 0n) throw fail("this window filter's generations are not times: advance(n) moves it on");
      const to = floorDiv(micros(by), w.interval);
      if (to > w.generation) this.#advanceTo(to);
      return this;
    }
    if (!Number.isSafeInteger(by) || by < 0 || by > 2147483647)
      throw fail(`a window filter advances by 0 to 2147483647 generations (an int), not ${by}`);
    const to = w.generation + BigInt(by);
    if (to > INT64_MAX || to < INT64_MIN) throw fail("generation number out of range");
    this.#advanceTo(to);
    return this;
  }

  /** A new filter holding both filters' values, at the later generation (the server's f | g). */
  union(other) {
    if (!(other instanceof WindowFilter)) throw fail("union takes another WindowFilter");
    this.#flush();
    other.#flush();
    // (the two copies are probed by no one: JavaScript's, no instances; the result follows this one)
    const useWasm = this.#useWasm;
    const a = WindowFilter.from(this.toBytes(), { wasm: false }), b = WindowFilter.from(other.toBytes(), { wasm: false });
    const pa = a.#p, pb = b.#p, wa = pa.window, wb = pb.window;
    const diff = [];
    if (pa.k - wa.hashes !== pb.k - wb.hashes) diff.push(`generations: ${pa.k - wa.hashes + 1} and ${pb.k - wb.hashes + 1}`);
    if (wa.capacity !== wb.capacity || wa.hashes !== wb.hashes || pa.m !== pb.m)
      diff.push(`capacity or rate (${wa.capacity} values, ${wa.hashes} hashes and ${wb.capacity} values, ${wb.hashes} hashes)`);
    if (wa.interval !== wb.interval) diff.push(`generation length: ${wa.interval} and ${wb.interval} microseconds`);
    if (pa.elemlen !== 0 && pb.elemlen !== 0 && pa.elem !== pb.elem) diff.push(`element family: ${pa.elem} and ${pb.elem}`);
    if (diff.length > 0) throw fail(`cannot combine bloom filters that differ in ${diff.join("; ")}`);
    if (wa.generation < wb.generation) a.#advanceTo(wb.generation);
    if (wb.generation < wa.generation) b.#advanceTo(wa.generation);
    const type = this.#type !== null && other.#type !== null && this.#type.name === other.#type.name ? this.#type : null;
    if (pb.elemlen === 0) return new WindowFilter(pa, type, useWasm);
    if (pa.elemlen === 0) return new WindowFilter(pb, type, useWasm);
    for (let i = 0; i < pa.data.length; i++) pa.data[i] |= pb.data[i];
    for (let slot = 0; slot < pa.k; slot++) {
      const sum = wa.counts[slot] + wb.counts[slot];
      wa.counts[slot] = sum > INT64_MAX ? INT64_MAX : sum;
    }
    pa.n = pa.n + pb.n > INT64_MAX ? INT64_MAX : pa.n + pb.n;
    return new WindowFilter(pa, type, useWasm);
  }

  /** The binary form, as bloom_send gives it. */
  toBytes() {
    this.#flush();
    return F.toBinary(this.#p);
  }

  /** What node-postgres sends for it as a parameter: the binary form. */
  toPostgres() {
    return this.toBytes();
  }

  /** The text form, as SELECT f::text prints it. */
  toString() {
    this.#flush();
    return F.toText(this.#p);
  }
}
