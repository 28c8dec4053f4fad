// PostgreSQL's extended (64-bit, seeded) hash functions, as the server runs
// them (src/common/hashfn.c's lookup3, little-endian), in 32-bit halves: a
// 64-bit value is a pair [hi, lo] of 32-bit words (int32 from hashBytes and
// hashUint32, below; the others may give them as unsigned numbers: a
// caller takes either with | 0).  Only little-endian servers are matched
// (the extension's docs/format.md, "Portability").

// Every 32-bit word here is held as an int32 (the same bits as the uint32
// the C code holds): V8 keeps int32 values unboxed across calls it does not
// inline, where a uint32 of 2^31 or more becomes an allocated number.
// Arithmetic mod 2^32 is (a + b) | 0; rotations and xors need no fixing.

const INIT = (0x9e3779b9 + 3923095) | 0;

// the result of hashBytes and hashUint32: one array, overwritten by the next
// call (no allocation per probe); read it at once
const result = new Int32Array(2);

/** lookup3's mix on a state array [a, b, c] (int32). */
function mix(s) {
  let a = s[0], b = s[1], c = s[2];
  a = (a - c) | 0; a ^= (c << 4) | (c >>> 28); c = (c + b) | 0;
  b = (b - a) | 0; b ^= (a << 6) | (a >>> 26); a = (a + c) | 0;
  c = (c - b) | 0; c ^= (b << 8) | (b >>> 24); b = (b + a) | 0;
  a = (a - c) | 0; a ^= (c << 16) | (c >>> 16); c = (c + b) | 0;
  b = (b - a) | 0; b ^= (a << 19) | (a >>> 13); a = (a + c) | 0;
  c = (c - b) | 0; c ^= (b << 4) | (b >>> 28); b = (b + a) | 0;
  s[0] = a; s[1] = b; s[2] = c;
}

/** lookup3's final of a, b, c (int32) into the result: [hi, lo] = [b, c]. */
function finalInto(a, b, c) {
  c ^= b; c = (c - ((b << 14) | (b >>> 18))) | 0;
  a ^= c; a = (a - ((c << 11) | (c >>> 21))) | 0;
  b ^= a; b = (b - ((a << 25) | (a >>> 7))) | 0;
  c ^= b; c = (c - ((b << 16) | (b >>> 16))) | 0;
  a ^= c; a = (a - ((c << 4) | (c >>> 28))) | 0;
  b ^= a; b = (b - ((a << 14) | (a >>> 18))) | 0;
  c ^= b; c = (c - ((b << 24) | (b >>> 8))) | 0;
  result[0] = b;
  result[1] = c;
}

const state = new Int32Array(3);

function seedState(len, seedHi, seedLo) {
  state[0] = state[1] = state[2] = (INIT + len) | 0;
  if ((seedHi | seedLo) !== 0) {
    state[0] = (state[0] + seedHi) | 0;
    state[1] = (state[1] + seedLo) | 0;
    mix(state);
  }
}

// the little-endian word at k[i]
function word(k, i) {
  return k[i] | (k[i + 1] << 8) | (k[i + 2] << 16) | (k[i + 3] << 24);
}

/**
 * hash_bytes_extended(k, len, seed) of k's first len bytes (all of them by
 * default), seed as [seedHi, seedLo] (uint32 or int32 halves): [hi, lo] (b,
 * then c) as int32, in the shared result array.
 */
export function hashBytes(k, seedHi, seedLo, len = k.length) {
  seedState(len, seedHi | 0, seedLo | 0);
  let i = 0;
  for (; len - i >= 12; i += 12) {
    state[0] = (state[0] + word(k, i)) | 0;
    state[1] = (state[1] + word(k, i + 4)) | 0;
    state[2] = (state[2] + word(k, i + 8)) | 0;
    mix(state);
  }
  const rest = len - i;
  if (rest > 0) {
    let a = 0, b = 0, c = 0;
    // the last 11 bytes; the lowest byte of c is reserved for the length
    switch (rest) {
      case 11: c |= k[i + 10] << 24; // falls through
      case 10: c |= k[i + 9] << 16; // falls through
      case 9: c |= k[i + 8] << 8; // falls through
      case 8: b |= k[i + 7] << 24; // falls through
      case 7: b |= k[i + 6] << 16; // falls through
      case 6: b |= k[i + 5] << 8; // falls through
      case 5: b |= k[i + 4]; // falls through
      case 4: a |= k[i + 3] << 24; // falls through
      case 3: a |= k[i + 2] << 16; // falls through
      case 2: a |= k[i + 1] << 8; // falls through
      case 1: a |= k[i];
    }
    state[0] = (state[0] + a) | 0;
    state[1] = (state[1] + b) | 0;
    state[2] = (state[2] + c) | 0;
  }
  finalInto(state[0], state[1], state[2]);
  return result;
}

/** hash_bytes_uint32_extended(k, seed): [hi, lo] as int32 (the shared result array). */
export function hashUint32(k, seedHi, seedLo) {
  if ((seedHi | seedLo) === 0) {
    // seed 0, the server's unless told otherwise: no state array
    const init = (INIT + 4) | 0;
    finalInto((init + k) | 0, init, init);
    return result;
  }
  seedState(4, seedHi | 0, seedLo | 0);
  finalInto((state[0] + k) | 0, state[1], state[2]);
  return result;
}

/**
 * hashint8extended of the int64 [hi, lo] (two's complement halves): int2,
 * int4 and int8 hash alike (integer_ops).
 */
export function hashInt8(hi, lo, seedHi, seedLo) {
  return hashUint32(lo ^ (hi < 0 || hi > 0x7fffffff ? ~hi : hi), seedHi, seedLo);
}

/** hashint4extended of an int32 (date_ops; bool_ops hashes its char so). */
export function hashInt4(v, seedHi, seedLo) {
  return hashUint32(v | 0, seedHi, seedLo);
}

const f64 = new Float64Array(1);
const f64bytes = new Uint8Array(f64.buffer);
const NAN8 = new Uint8Array([0, 0, 0, 0, 0, 0, 0xf8, 0x7f]);
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** hashfloat8extended (float_ops: a float4 is widened to float8 first). */
export function hashFloat8(v, seedHi, seedLo) {
  if (v === 0) return [seedHi, seedLo]; // -0 too
  if (Number.isNaN(v)) return hashBytes(NAN8, seedHi, seedLo);
  f64[0] = v;
  const bytes = littleEndian ? f64bytes : f64bytes.slice().reverse();
  return hashBytes(bytes, seedHi, seedLo);
}

/** What numericGroups and hashNumeric give for a value numeric cannot hold. */
export const NUMERIC_OUT_OF_RANGE = "out of range";

/**
 * A decimal string as PostgreSQL's numeric: { weight, groups } in base 10000
 * (leading and trailing zero groups kept; the hash strips them); undefined
 * when it is not one, NUMERIC_OUT_OF_RANGE when numeric_in refuses it for
 * its size: a written exponent of INT_MAX / 2 or more in size, more than
 * 16383 digits after the point (trailing zeros counted), a value other than
 * zero of 10^131072 or more.  (Checked before the digits are written out:
 * "1e999999999" would take a gigabyte.)
 */
export function numericGroups(text) {
  // (spaces as PostgreSQL's isspace: ASCII only)
  const m = /^[ \t\n\v\f\r]*([+-])?(?:([0-9]+)(?:\.([0-9]*))?|\.([0-9]+))(?:[eE]([+-]?[0-9]+))?[ \t\n\v\f\r]*$/.exec(text);
  if (m === null) return undefined;
  let intPart = m[2] !== undefined ? m[2] : "";
  let frac = m[2] !== undefined ? (m[3] || "") : m[4];
  const exp = m[5] !== undefined ? Number(m[5]) : 0;
  if (!(Math.abs(exp) < 1073741823)) return NUMERIC_OUT_OF_RANGE;
  if (frac.length - exp > 16383) return NUMERIC_OUT_OF_RANGE;
  let digits = intPart + frac;
  const first = digits.search(/[1-9]/);
  if (first < 0) return { weight: 0, groups: [] }; // zero, whatever its exponent
  if (intPart.length - 1 - first + exp > 131071) return NUMERIC_OUT_OF_RANGE;
  // move the point by the exponent
  let point = intPart.length + exp; // digits before the point
  if (point < 0) { digits = "0".repeat(-point) + digits; point = 0; }
  if (point > digits.length) digits += "0".repeat(point - digits.length);
  intPart = digits.slice(0, point);
  frac = digits.slice(point);
  const padLeft = (4 - (intPart.length % 4)) % 4;
  const padRight = (4 - (frac.length % 4)) % 4;
  const all = "0".repeat(padLeft) + intPart + frac + "0".repeat(padRight);
  const groups = [];
  for (let i = 0; i < all.length; i += 4) groups.push(parseInt(all.slice(i, i + 4), 10));
  return { weight: (intPart.length + padLeft) / 4 - 1, groups };
}

/** hash_numeric_extended of a decimal string, or of "NaN", "Infinity", "-Infinity". */
export function hashNumeric(text, seedHi, seedLo) {
  const t = text.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, "");
  if (/^(?:nan|[+-]?inf(?:inity)?)$/i.test(t)) return [seedHi, seedLo];
  const n = numericGroups(t);
  if (n === undefined || n === NUMERIC_OUT_OF_RANGE) return n;
  let { weight, groups } = n;
  let start = 0;
  while (start < groups.length && groups[start] === 0) { start++; weight--; }
  if (start === groups.length) {
    // seed - 1
    const lo = (seedLo - 1) >>> 0;
    const hi = seedLo === 0 ? (seedHi - 1) >>> 0 : seedHi;
    return [hi, lo];
  }
  let end = groups.length;
  while (groups[end - 1] === 0) end--;
  const bytes = new Uint8Array((end - start) * 2);
  for (let i = start, o = 0; i < end; i++, o += 2) {
    bytes[o] = groups[i] & 0xff;
    bytes[o + 1] = groups[i] >>> 8;
  }
  const [hi, lo] = hashBytes(bytes, seedHi, seedLo);
  // XOR with the weight, an int widened to 64 bits
  return [(hi ^ (weight < 0 ? 0xffffffff : 0)) >>> 0, (lo ^ weight) >>> 0];
}
