// Other systems' Bloom filters, read in their makers' bytes and probed
// exactly as their makers probe them (1.12): Apache Spark's BloomFilter
// (versions 1 and 2), Guava's (MURMUR128_MITZ_64) and Parquet's split block
// filter; and the bloom values that hold them (bloom_import's, or bloom_agg
// in a maker's format).  A filter's type says how a value becomes the
// bytes its maker hashed, as the server's element key does: Spark "int8"
// (putLong), "text" (putString), "bytea" (putBinary); Guava "int8", "int4",
// "text", "chars", "bytea"; Parquet "int4", "int8", "date", "timestamp",
// "timestamptz", "float4", "float8", "text", "bytea", "uuid".  Reading
// only: Python's pg_bloomfilter.makers writes them too.

import { BloomFilterError } from "./format.js";

const M64 = (1n << 64n) - 1n;
const utf8 = new TextEncoder();

// ---- the makers' hashes ----

function mixK1(k1) {
  k1 = Math.imul(k1, 0xcc9e2d51);
  k1 = (k1 << 15) | (k1 >>> 17);
  return Math.imul(k1, 0x1b873593);
}

function mixH1(h1, k1) {
  h1 ^= k1;
  h1 = (h1 << 13) | (h1 >>> 19);
  return (Math.imul(h1, 5) + 0xe6546b64) | 0;
}

function fmix32(h1, length) {
  h1 ^= length;
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h1 = Math.imul(h1, 0xc2b2ae35);
  return h1 ^ (h1 >>> 16);
}

/** Spark's Murmur3_x86_32.hashLong(v, seed): a signed int. */
function sparkHashLong(v, seed) {
  const u = BigInt.asUintN(64, v);
  let h1 = mixH1(seed | 0, mixK1(Number(u & 0xffffffffn) | 0));
  h1 = mixH1(h1, mixK1(Number(u >> 32n) | 0));
  return fmix32(h1, 8) | 0;
}

/** Spark's Murmur3_x86_32.hashUnsafeBytes(data, seed): each tail byte alone, sign-extended. */
function sparkHashBytes(data, seed) {
  const n = data.length;
  const aligned = n - (n % 4);
  let h1 = seed | 0;
  for (let i = 0; i < aligned; i += 4) {
    h1 = mixH1(h1, mixK1(data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24)));
  }
  for (let i = aligned; i < n; i++) h1 = mixH1(h1, mixK1((data[i] << 24) >> 24));
  return fmix32(h1, n) | 0;
}

const rotl64 = (x, r) => ((x << r) | (x >> (64n - r))) & M64;
const readLE = (b, at, n) => {
  let v = 0n;
  for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[at + i]);
  return v;
};

function fmix64(k) {
  k ^= k >> 33n;
  k = (k * 0xff51afd7ed558ccdn) & M64;
  k ^= k >> 33n;
  k = (k * 0xc4ceb9fe1a85ec53n) & M64;
  return k ^ (k >> 33n);
}

/** MurmurHash3 x64 128 under seed 0 (Guava's murmur3_128): [h1, h2]. */
function murmur3x128(data) {
  const C1 = 0x87c37b91114253d5n;
  const C2 = 0x4cf5ad432745937fn;
  const n = data.length;
  const blocks = Math.floor(n / 16);
  let h1 = 0n;
  let h2 = 0n;
  for (let i = 0; i < blocks; i++) {
    let k1 = readLE(data, 16 * i, 8);
    let k2 = readLE(data, 16 * i + 8, 8);
    h1 ^= (rotl64((k1 * C1) & M64, 31n) * C2) & M64;
    h1 = (((rotl64(h1, 27n) + h2) & M64) * 5n + 0x52dce729n) & M64;
    h2 ^= (rotl64((k2 * C2) & M64, 33n) * C1) & M64;
    h2 = (((rotl64(h2, 31n) + h1) & M64) * 5n + 0x38495ab5n) & M64;
  }
  const rest = n % 16;
  if (rest > 8) h2 ^= (rotl64((readLE(data, 16 * blocks + 8, rest - 8) * C2) & M64, 33n) * C1) & M64;
  if (rest > 0) h1 ^= (rotl64((readLE(data, 16 * blocks, Math.min(rest, 8)) * C1) & M64, 31n) * C2) & M64;
  h1 ^= BigInt(n);
  h2 ^= BigInt(n);
  h1 = (h1 + h2) & M64;
  h2 = (h2 + h1) & M64;
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  h1 = (h1 + h2) & M64;
  h2 = (h2 + h1) & M64;
  return [h1, h2];
}

const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;
const xround = (acc, lane) => (rotl64((acc + lane * P2) & M64, 31n) * P1) & M64;

/** XXH64 of data under seed 0 (Parquet's hash). */
export function xxh64(data) {
  const n = data.length;
  let i = 0;
  let h;
  if (n >= 32) {
    let v = [(P1 + P2) & M64, P2, 0n, (M64 + 1n - P1) & M64];
    for (; i + 32 <= n; i += 32) v = v.map((acc, j) => xround(acc, readLE(data, i + 8 * j, 8)));
    h = (rotl64(v[0], 1n) + rotl64(v[1], 7n) + rotl64(v[2], 12n) + rotl64(v[3], 18n)) & M64;
    for (const acc of v) h = (((h ^ xround(0n, acc)) * P1) & M64) + P4 & M64;
  } else {
    h = P5;
  }
  h = (h + BigInt(n)) & M64;
  for (; i + 8 <= n; i += 8) h = (rotl64(h ^ xround(0n, readLE(data, i, 8)), 27n) * P1 + P4) & M64;
  if (i + 4 <= n) {
    h = (rotl64(h ^ ((readLE(data, i, 4) * P1) & M64), 23n) * P2 + P3) & M64;
    i += 4;
  }
  for (; i < n; i++) h = (rotl64(h ^ ((BigInt(data[i]) * P5) & M64), 11n) * P1) & M64;
  h ^= h >> 33n;
  h = (h * P2) & M64;
  h ^= h >> 29n;
  h = (h * P3) & M64;
  return h ^ (h >> 32n);
}

// ---- values as their makers encode them ----

const INT32 = [-(1n << 31n), (1n << 31n) - 1n];
const INT64 = [-(1n << 63n), (1n << 63n) - 1n];

function toBigInt(value, kind) {
  if (typeof value === "bigint") return value;
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
  throw new BloomFilterError(`a ${kind} filter takes integers (number or bigint), not ${typeof value}`);
}

function le(v, n) {
  const out = new Uint8Array(n);
  let u = BigInt.asUintN(8 * n, v);
  for (let i = 0; i < n; i++, u >>= 8n) out[i] = Number(u & 0xffn);
  return out;
}

const dayMs = 86400000;

// The UTC time of a calendar date and wall clock: Date.UTC reads years 0 to
// 99 as 1900 to 1999, setUTCFullYear does not.
function utcMs(year, month, day, h, mi, s, ms) {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  d.setUTCHours(h, mi, s, ms);
  return d.getTime();
}

/** [bytes, alternative bytes or null], or null where the encoding has none for the value. */
function encode(kind, value) {
  switch (kind) {
    case "int8":
    case "int4": {
      const v = toBigInt(value, kind);
      const [lo, hi] = kind === "int8" ? INT64 : INT32;
      return v < lo || v > hi ? null : [le(v, kind === "int8" ? 8 : 4), null];
    }
    case "date": {
      let days;
      if (value instanceof Date) days = utcMs(value.getFullYear(), value.getMonth(), value.getDate(), 0, 0, 0, 0) / dayMs;
      else if (typeof value === "string") {
        // "YYYY-MM-DD" (any number of year digits, a sign for years before 1 BC: ISO 8601's astronomical years)
        const m = /^([-+]?\d{4,})-(\d\d)-(\d\d)$/.exec(value);
        if (m === null) throw new BloomFilterError(`a date filter takes a Date or a "YYYY-MM-DD" string, not "${value}"`);
        days = utcMs(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 0, 0, 0, 0) / dayMs;
      } else throw new BloomFilterError("a date filter takes a Date or a \"YYYY-MM-DD\" string");
      if (!Number.isFinite(days)) throw new BloomFilterError(`a date out of a JavaScript Date's range: ${value}`);
      return [le(BigInt(days), 4), null];
    }
    case "timestamp":
    case "timestamptz": {
      if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw new BloomFilterError(`a ${kind} filter takes Date values`);
      const ms =
        kind === "timestamptz"
          ? value.getTime()
          : utcMs(value.getFullYear(), value.getMonth(), value.getDate(), value.getHours(), value.getMinutes(),
              value.getSeconds(), value.getMilliseconds());
      return [le(BigInt(ms) * 1000n, 8), null];
    }
    case "float4":
    case "float8": {
      if (typeof value !== "number") throw new BloomFilterError(`a ${kind} filter takes numbers`);
      const width = kind === "float4" ? 4 : 8;
      const out = new Uint8Array(width);
      const view = new DataView(out.buffer);
      if (Number.isNaN(value)) {
        // every NaN is one: Java's NaN, and its sign-flipped twin
        if (width === 4) view.setUint32(0, 0x7fc00000, true);
        else view.setBigUint64(0, 0x7ff8000000000000n, true);
      } else if (width === 4) {
        if (Math.fround(value) !== value) return null;
        view.setFloat32(0, value, true);
      } else {
        view.setFloat64(0, value, true);
      }
      if (value === 0 || Number.isNaN(value)) {
        const alt = out.slice();
        alt[width - 1] ^= 0x80;
        return [out, alt];
      }
      return [out, null];
    }
    case "text":
      if (typeof value !== "string") throw new BloomFilterError("a text filter takes strings");
      return [utf8.encode(value), null];
    case "chars": {
      if (typeof value !== "string") throw new BloomFilterError("a chars filter takes strings");
      const out = new Uint8Array(2 * value.length);
      for (let i = 0; i < value.length; i++) {
        const c = value.charCodeAt(i);
        out[2 * i] = c & 0xff;
        out[2 * i + 1] = c >> 8;
      }
      return [out, null];
    }
    case "bytea":
      if (!(value instanceof Uint8Array)) throw new BloomFilterError("a bytea filter takes a Uint8Array");
      return [value, null];
    case "uuid": {
      const hex = typeof value === "string" ? value.replace(/-/g, "") : "";
      if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new BloomFilterError("a uuid filter takes UUID strings");
      const out = new Uint8Array(16);
      for (let i = 0; i < 16; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
      return [out, null];
    }
  }
  throw new BloomFilterError(`unknown type ${kind}`);
}

// ---- the filters ----

const bigEndianBit = (bits, i) => (bits[Number((i / 64n) * 8n + 7n - (i % 64n) / 8n)] >> Number(i % 8n)) & 1;
const s32 = (x) => BigInt(x | 0);
const MAX_BITS = 8589932224n;

class MakerFilter {
  constructor(maker, types, type, k, bits, count) {
    if (!types.includes(type)) throw new BloomFilterError(`a ${maker} filter has no type ${type} (it has ${types.join(", ")})`);
    this.type = type;
    this.k = k;
    this.bits = bits;
    /** values added, or null when unknown (read from a maker's bytes) */
    this.count = count;
  }

  get nbits() {
    return 8 * this.bits.length;
  }

  /** false: the maker's filter certainly does not hold the value; true: it may. */
  mightContain(value) {
    const enc = encode(this.type, value);
    if (enc === null) return false;
    return this.test(enc[0]) || (enc[1] !== null && this.test(enc[1]));
  }
}

export class SparkFilter extends MakerFilter {
  constructor(type, k, bits, count, version, seed) {
    super("Spark", ["int8", "text", "bytea"], type, k, bits, count);
    this.version = version;
    this.seed = seed;
  }

  /** A filter Spark's writeTo wrote (either version); type: "int8", "text" or "bytea". */
  static fromBytes(bytes, type) {
    const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    if (b.length < 4) throw new BloomFilterError(`a Spark filter takes at least 4 bytes, not ${b.length}`);
    const version = view.getInt32(0);
    if (version !== 1 && version !== 2) throw new BloomFilterError(`Spark filter version ${version} is not known (1 and 2 are)`);
    const head = version === 1 ? 12 : 16;
    if (b.length < head) throw new BloomFilterError(`a Spark version ${version} filter takes at least ${head} bytes`);
    const k = view.getInt32(4);
    const seed = version === 2 ? view.getInt32(8) : 0;
    const words = view.getInt32(head - 4);
    if (k < 1 || k > 1024) throw new BloomFilterError(`a Spark filter's number of hash functions, ${k}, is not between 1 and 1024`);
    if (words < 1 || 64n * BigInt(words) > MAX_BITS) throw new BloomFilterError(`a Spark filter's word count, ${words}, is out of range`);
    if (b.length !== head + 8 * words) throw new BloomFilterError(`a Spark filter of ${words} words takes ${head + 8 * words} bytes, not ${b.length}`);
    return new SparkFilter(type, k, b.slice(head), null, version, seed);
  }

  test(enc) {
    let h1;
    let h2;
    if (this.type === "int8") {
      const v = BigInt.asIntN(64, readLE(enc, 0, 8));
      h1 = sparkHashLong(v, this.seed);
      h2 = sparkHashLong(v, h1);
    } else {
      h1 = sparkHashBytes(enc, this.seed);
      h2 = sparkHashBytes(enc, h1);
    }
    const m = BigInt(this.nbits);
    if (this.version === 1) {
      for (let i = 1; i <= this.k; i++) {
        const c = BigInt((h1 + Math.imul(i, h2)) | 0);
        if (!bigEndianBit(this.bits, (c < 0n ? -c - 1n : c) % m)) return false;
      }
      return true;
    }
    let c = (s32(h1) * 0x7fffffffn) & M64;
    for (let i = 0; i < this.k; i++) {
      c = (c + (s32(h2) & M64)) & M64;
      const s = BigInt.asIntN(64, c);
      if (!bigEndianBit(this.bits, (s < 0n ? -s - 1n : s) % m)) return false;
    }
    return true;
  }
}

export class GuavaFilter extends MakerFilter {
  constructor(type, k, bits, count) {
    super("Guava", ["int8", "int4", "text", "chars", "bytea"], type, k, bits, count);
  }

  /** A filter Guava's writeTo wrote; type names its funnel. */
  static fromBytes(bytes, type) {
    const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    if (b.length < 6) throw new BloomFilterError(`a Guava filter takes at least 6 bytes, not ${b.length}`);
    if (b[0] !== 1) throw new BloomFilterError(`Guava strategy ${(b[0] << 24) >> 24} is not taken (1, MURMUR128_MITZ_64, is)`);
    if (b[1] === 0) throw new BloomFilterError("a Guava filter's number of hash functions is 0");
    const words = new DataView(b.buffer, b.byteOffset, b.byteLength).getInt32(2);
    if (words < 1 || 64n * BigInt(words) > MAX_BITS) throw new BloomFilterError(`a Guava filter's word count, ${words}, is out of range`);
    if (b.length !== 6 + 8 * words) throw new BloomFilterError(`a Guava filter of ${words} words takes ${6 + 8 * words} bytes, not ${b.length}`);
    return new GuavaFilter(type, b[1], b.slice(6), null);
  }

  test(enc) {
    const [h1, h2] = murmur3x128(enc);
    const m = BigInt(this.nbits);
    let c = h1;
    for (let i = 0; i < this.k; i++) {
      if (!bigEndianBit(this.bits, (c & 0x7fffffffffffffffn) % m)) return false;
      c = (c + h2) & M64;
    }
    return true;
  }
}

const SALT = [0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31];

export class ParquetFilter extends MakerFilter {
  constructor(type, bits, count) {
    super("Parquet", ["int4", "int8", "date", "timestamp", "timestamptz", "float4", "float8", "text", "bytea", "uuid"],
      type, 8, bits, count);
  }

  /**
   * A Parquet file's filter: its Thrift header and bitset, or (bitsetOnly, or
   * bytes that do not start as a header does and are a multiple of 32 long)
   * the bitset alone.
   */
  static fromBytes(bytes, type, bitsetOnly = false) {
    const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    return new ParquetFilter(type, readParquet(b, bitsetOnly), null);
  }

  test(enc) {
    const h = xxh64(enc);
    const nblocks = BigInt(this.bits.length / 32);
    const block = Number(((h >> 32n) * nblocks) >> 32n) * 32;
    const x = Number(h & 0xffffffffn);
    for (let i = 0; i < 8; i++) {
      const bit = Math.imul(x, SALT[i]) >>> 27;
      if (!((this.bits[block + 4 * i + (bit >> 3)] >> (bit & 7)) & 1)) return false;
    }
    return true;
  }
}

// ---- Parquet's Thrift header (as core/bf_parquet.c reads it) ----

const MIN_BYTES = 32;
const MAX_BYTES = 128 * 1024 * 1024;
const sizeOk = (n) => n >= MIN_BYTES && n <= MAX_BYTES && n % 32 === 0;

function readParquet(b, bitsetOnly) {
  if (!bitsetOnly) {
    try {
      return readHeaded(b);
    } catch (e) {
      // a bare bitset only if it cannot be a header with bytes too many or too few
      if (b.length % 32 !== 0 || b.length === 0 || b[0] === 0x15) throw e;
    }
  }
  if (!sizeOk(b.length)) {
    throw new BloomFilterError(`a Parquet bitset of ${b.length} bytes: it must be a multiple of 32 bytes, from 32 to ${MAX_BYTES}`);
  }
  return b.slice();
}

function readHeaded(b) {
  let pos = 0;
  const bad = () => new BloomFilterError("the Parquet Bloom filter header is malformed or truncated");
  const byte = () => {
    if (pos >= b.length) throw bad();
    return b[pos++];
  };
  const varint = () => {
    let v = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const c = byte();
      v |= BigInt(c & 0x7f) << shift;
      if (!(c & 0x80)) {
        if (v > M64) throw bad();
        return v;
      }
    }
    throw bad();
  };
  const unzigzag = (z) => Number((z >> 1n) ^ -(z & 1n));
  const skip = (t, depth) => {
    if (depth > 16) throw bad();
    if (t === 1 || t === 2) return;
    if (t === 3) byte();
    else if (t >= 4 && t <= 6) varint();
    else if (t === 7 || t === 8) {
      const n = t === 7 ? 8 : Number(varint());
      if (n > b.length - pos) throw bad();
      pos += n;
    } else if (t === 9 || t === 10) {
      const h = byte();
      let n = h >> 4;
      if (n === 15) n = Number(varint());
      if (n > b.length - pos) throw bad();
      for (let i = 0; i < n; i++) ((h & 15) === 1 || (h & 15) === 2 ? byte() : skip(h & 15, depth + 1));
    } else if (t === 11) {
      const n = Number(varint());
      if (n === 0) return;
      if (n > b.length - pos) throw bad();
      const kv = byte();
      for (let i = 0; i < n; i++) {
        for (const et of [kv >> 4, kv & 15]) (et === 1 || et === 2 ? byte() : skip(et, depth + 1));
      }
    } else if (t === 12) {
      for (;;) {
        const h = byte();
        if (h === 0) return;
        if (!(h >> 4)) varint();
        skip(h & 15, depth + 1);
      }
    } else throw bad();
  };
  const field = (last) => {
    const h = byte();
    if (h === 0) return [null, 0];
    const id = h >> 4 ? last + (h >> 4) : unzigzag(varint());
    if (id < -32768 || id > 32767) throw bad();
    return [id, h & 15];
  };
  const names = { 2: ["algorithm", "BLOCK"], 3: ["hash", "XXHASH"], 4: ["compression", "UNCOMPRESSED"] };
  const seen = {};
  let last = 0;
  for (;;) {
    if (pos >= 64) throw bad();
    const [id, t] = field(last);
    if (id === null) break;
    last = id;
    if (id >= 1 && id <= 4 && id in seen) throw new BloomFilterError(`the Parquet Bloom filter header has field ${id} twice`);
    if (id === 1) {
      if (t !== 5) throw bad();
      seen[1] = unzigzag(varint());
    } else if (id in names) {
      if (t !== 12) throw bad();
      let fields = 0;
      let ok = true;
      let ulast = 0;
      for (;;) {
        const [uid, ut] = field(ulast);
        if (uid === null) break;
        ulast = uid;
        fields++;
        ok = ok && uid === 1 && ut === 12;
        skip(ut, 1);
      }
      if (!ok || fields !== 1) throw new BloomFilterError(`the Parquet Bloom filter's ${names[id][0]} is not ${names[id][1]}, the only one Parquet defines`);
      seen[id] = true;
    } else skip(t, 1);
  }
  for (const id of [1, 2, 3, 4]) {
    if (!(id in seen)) throw new BloomFilterError(`the Parquet Bloom filter header lacks its ${id === 1 ? "numBytes" : names[id][0]}`);
  }
  if (!sizeOk(seen[1])) throw new BloomFilterError(`the Parquet Bloom filter header's numBytes ${seen[1]} is not a multiple of 32 bytes from 32 to ${MAX_BYTES}`);
  if (seen[1] !== b.length - pos) throw new BloomFilterError(`the Parquet Bloom filter header says ${seen[1]} bytes, and ${b.length - pos} follow it`);
  return b.slice(pos);
}

/** The other system's filter a bloom value holds (bloom_send's bytes of bloom_import's or bloom_agg's). */
export function fromBloomBytes(bytes) {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (b.length < 36 || String.fromCharCode(...b.slice(0, 4)) !== "BLOM") throw new BloomFilterError("not a bloom value");
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const [version, layout, scheme, flags] = [b[4], b[5], b[6], b[7]];
  const k = view.getUint16(8, true);
  const elemlen = view.getUint16(10, true);
  const seed = view.getBigUint64(12, true);
  const m = view.getBigUint64(20, true);
  const n = view.getBigUint64(28, true);
  if (version !== 1 || layout < 6 || layout > 8) {
    throw new BloomFilterError(`not another system's filter (layout ${layout}): read it with BloomFilter`);
  }
  if (m % 64n !== 0n || BigInt(b.length) !== 36n + BigInt(elemlen) + m / 8n || (flags & ~4) !== 0 || ((flags & 4) && n !== 0n)) {
    throw new BloomFilterError("a malformed bloom value");
  }
  const elem = String.fromCharCode(...b.slice(36, 36 + elemlen));
  const colon = elem.indexOf(":");
  const maker = elem.slice(0, colon);
  const type = elem.slice(colon + 1);
  const bits = b.slice(36 + elemlen);
  const count = flags & 4 ? null : n;
  if (layout === 6 && maker === "spark" && (scheme === 2 || scheme === 3)) {
    return new SparkFilter(type, k, bits, count, scheme === 2 ? 1 : 2, Number(BigInt.asIntN(64, seed)));
  }
  if (layout === 7 && maker === "guava" && scheme === 4 && seed === 0n) return new GuavaFilter(type, k, bits, count);
  if (layout === 8 && maker === "parquet" && scheme === 5 && k === 8 && seed === 0n && m % 256n === 0n) {
    return new ParquetFilter(type, bits, count);
  }
  throw new BloomFilterError(`a malformed bloom value of layout ${layout}`);
}
