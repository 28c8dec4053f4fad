// The sizing formulas of core/bf_sizing.c, operation for operation, so that
// a filter created here for n values at rate fpp has the m and k that
// bloom_agg(v, n, fpp, layout) gives it on the server (tests/clients/
// sizing.sql compares them over thousands of cases).  Everything is a
// double, as in the C code; m stays below 2^33, exact in a double.

import { BloomFilterError } from "./format.js";

const MAX_HASHES = 64, BLOCK_BITS = 512;
// BF_MAX_BITS: the data of a 1 GB value, in bits (format.js's MAX_BITS)
export const MAX_BITS = (0x3fffffff - 4 - 36 - 255) * 8;

/** bf_fpp: the false-positive rate of n values in m bits with k hashes. */
export function classicFpp(n, m, k) {
  const zero = Math.exp(k * n * Math.log1p(-1 / m));
  if (n <= 0) return 0;
  return (1 - zero) ** k;
}

// log Γ(x) for x >= 1 (Lanczos, g = 7): the Poisson weights below
function lgamma(x) {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** bf_blocked_fpp: the rate of a blocked512 filter (blocks' loads are Poisson). */
export function blockedFpp(n, m, k) {
  if (n <= 0) return 0;
  const lambda = (n * BLOCK_BITS) / m;
  if (lambda > 1e6) return (-Math.expm1(k * lambda * Math.log1p(-1 / BLOCK_BITS))) ** k;
  const spread = 12 * Math.sqrt(lambda) + 30;
  const lo = Math.floor(Math.max(0, lambda - spread)), hi = Math.ceil(lambda + spread);
  let sum = 0, weight = 0;
  for (let i = lo; i <= hi; i++) {
    const pmf = Math.exp(i * Math.log(lambda) - lambda - lgamma(i + 1));
    sum += pmf * (-Math.expm1(k * i * Math.log1p(-1 / BLOCK_BITS))) ** k;
    weight += pmf;
  }
  return weight > 0 ? sum / weight : 1;
}

/** bf_optimal_hashes: the integer k with the lowest classic rate. */
function optimalHashes(n, m) {
  const kReal = (m / n) * Math.LN2;
  let kLo = Math.floor(kReal), kHi = kLo + 1;
  if (kLo < 1) kLo = 1;
  if (kLo > MAX_HASHES) kLo = MAX_HASHES;
  if (kHi > MAX_HASHES) kHi = MAX_HASHES;
  // the rate is unimodal in k: the best integer is one of the neighbours
  return classicFpp(n, m, kHi) < classicFpp(n, m, kLo) ? kHi : kLo;
}

const blocked = (layout) => layout === "blocked512";

/** bf_layout_optimal_hashes: blocked512 searches around the classic optimum. */
function layoutOptimalHashes(layout, n, m) {
  const k0 = optimalHashes(n, m);
  if (!blocked(layout)) return k0;
  let best = k0, bestFpp = blockedFpp(n, m, k0);
  for (let k = Math.max(1, k0 - 4); k <= Math.min(MAX_HASHES, k0 + 4); k++) {
    const f = blockedFpp(n, m, k);
    if (f < bestFpp) {
      bestFpp = f;
      best = k;
    }
  }
  return best;
}

const layoutFpp = (layout, n, m, k) => (blocked(layout) ? blockedFpp(n, m, k) : classicFpp(n, m, k));
const bestFpp = (layout, n, m) => layoutFpp(layout, n, m, layoutOptimalHashes(layout, n, m));

function tooLarge(layout, n, fpp) {
  return new BloomFilterError(`a ${layout} filter for ${n} values at rate ${fpp} needs more than the maximum of ${MAX_BITS} bits (1 GB)`);
}

// smallest_meeting: the fewest units (of `unit` bits) from lo on whose best
// rate meets fpp: grow by 1/16 until met, then a binary search
function smallestMeeting(layout, n, fpp, lo, unit) {
  const maxUnits = Math.floor(MAX_BITS / unit);
  if (lo > maxUnits) throw tooLarge(layout, n, fpp);
  if (bestFpp(layout, n, lo * unit) > fpp) {
    let hi = lo;
    do {
      if (hi >= maxUnits) throw tooLarge(layout, n, fpp);
      lo = hi;
      hi = hi + Math.floor(hi / 16) + 1;
      if (hi > maxUnits) hi = maxUnits;
    } while (bestFpp(layout, n, hi * unit) > fpp);
    while (hi - lo > 1) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (bestFpp(layout, n, mid * unit) > fpp) lo = mid;
      else hi = mid;
    }
    lo = hi;
  }
  return lo * unit;
}

/**
 * bf_size_for_layout: { m, k } of a "classic" or "blocked512" filter for n
 * values (an integer >= 1) at rate fpp (0 < fpp < 1), as the server sizes
 * bloom_agg(v, n, fpp, layout); throws BloomFilterError past 1 GB.
 */
export function sizeFor(layout, n, fpp) {
  if (!(n >= 1)) throw new BloomFilterError("expected number of values must be at least 1");
  if (!(fpp > 0 && fpp < 1)) throw new BloomFilterError("false-positive rate must be between 0 and 1 (exclusive)");
  let mReal = Math.ceil((-n * Math.log(fpp)) / (Math.LN2 * Math.LN2));
  if (mReal < 1) mReal = 1;
  if (mReal > MAX_BITS)
    throw new BloomFilterError(`a filter for ${n} values at rate ${fpp} needs ${mReal} bits, more than the maximum of ${MAX_BITS} (1 GB)`);
  // with k an integer the real-valued optimum can miss the target by a hair
  const classicM = smallestMeeting("classic", n, fpp, mReal, 1);
  if (!blocked(layout)) return { m: classicM, k: optimalHashes(n, classicM) };
  // in blocks, from the classic size up: blocks never need fewer bits
  const m = smallestMeeting(layout, n, fpp, Math.ceil(classicM / BLOCK_BITS), BLOCK_BITS);
  return { m, k: layoutOptimalHashes(layout, n, m) };
}

// ---- window filters (core/bf_window_sizing.c, operation for operation:
// only + - * / of doubles in the same order, and powers by squaring, which
// IEEE 754 rounds alike everywhere) ----

const WINDOW_MAX_HASHES = 64, WINDOW_FIXED = 26, LN2 = 0.6931471805599453;

// base^e by squaring, e a non-negative integer below 2^53
function power(base, e) {
  let result = 1;
  while (e > 0) {
    if (e % 2 === 1) result *= base;
    base *= base;
    e = Math.floor(e / 2);
  }
  return result;
}

/** bf_window_fpp_of_fills: the rate of a window filter whose slice i (0 the newest) has fill[i] set. */
export function windowFppOfFills(fill, hashes) {
  const run = new Float64Array(hashes);
  run[0] = 1;
  let fpp = 0;
  for (let i = 0; i < fill.length; i++) {
    const f = fill[i];
    let total = 0;
    fpp += run[hashes - 1] * f;
    for (let r = 0; r < hashes; r++) total += run[r];
    for (let r = hashes - 1; r > 0; r--) run[r] = run[r - 1] * f;
    run[0] = total * (1 - f);
  }
  return fpp;
}

function fullestFills(hashes, generations, sliceBits, capacity, certain) {
  const slices = hashes + generations - 1;
  const fill = new Float64Array(slices);
  for (let age = 0; age < slices; age++) {
    const written = age + 1 < hashes ? age + 1 : hashes;
    fill[age] = age >= certain ? 1 : 1 - power(1 - 1 / sliceBits, capacity * written);
  }
  return fill;
}

/** bf_window_fpp: the rate of a window filter at its fullest. */
export function windowFpp(hashes, generations, sliceBits, capacity) {
  const slices = hashes + generations - 1;
  return windowFppOfFills(fullestFills(hashes, generations, sliceBits, capacity, slices), hashes);
}

/** bf_window_recall: the chance a value added `age` generations ago is found, at the filter's fullest. */
export function windowRecall(hashes, generations, sliceBits, capacity, age) {
  const slices = hashes + generations - 1;
  if (age < generations) return 1;
  if (age >= slices) return windowFpp(hashes, generations, sliceBits, capacity);
  return windowFppOfFills(fullestFills(hashes, generations, sliceBits, capacity, age), hashes);
}

/**
 * bf_window_size_for: { hashes, sliceBits } of a window filter for capacity
 * values a generation over `generations` at rate fpp, as bloom_window sizes it.
 */
export function windowSizeFor(capacity, fpp, generations) {
  if (!(capacity >= 1) || capacity > 2 ** 63) throw new BloomFilterError("capacity per generation must be at least 1");
  if (!(fpp > 0 && fpp < 1)) throw new BloomFilterError("false-positive rate must be between 0 and 1 (exclusive)");
  if (!Number.isInteger(generations) || generations < 1 || generations > 4096)
    throw new BloomFilterError("generations must be between 1 and 4096");
  capacity = Math.floor(capacity);
  for (let k = 1; k <= WINDOW_MAX_HASHES; k++) {
    let bits = Math.ceil((k * capacity) / LN2);
    const slices = k + generations - 1;
    bits = Math.ceil(bits / 64) * 64;
    if (bits * slices > MAX_BITS - 8 * (WINDOW_FIXED + 8 * slices))
      throw new BloomFilterError(`a window filter of ${capacity} values per generation over ${generations} generations at rate ${fpp} needs more than the maximum of ${MAX_BITS} bits (1 GB)`);
    if (windowFpp(k, generations, bits, capacity) <= fpp) return { hashes: k, sliceBits: bits };
  }
  throw new BloomFilterError(`no window filter of at most ${WINDOW_MAX_HASHES} hashes per value meets a rate of ${fpp} over ${generations} generations: ask for a higher rate or fewer generations`);
}
