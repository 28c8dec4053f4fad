// The serialized form of a bloom value, read and checked: core/bf_format.h
// (the extension's one definition; its docs/format.md copies its
// table), with the server's checks (bf_check_header, bf_check_data), so that
// a value the server refuses is refused here, with the library's own error.
// The text form (core/bf_text.c) is parsed into the binary form.

export class BloomFilterError extends Error {
  constructor(message) {
    super(message);
    this.name = "BloomFilterError";
  }
}

const fail = (message) => new BloomFilterError(message);

export const CLASSIC = 1, COUNTING4 = 2, BLOCKED512 = 3, EXPLICIT = 4, LAYERED = 5, WINDOW = 9;
export const LAYOUT_NAMES = { 1: "classic", 2: "counting4", 3: "blocked512", 4: "explicit", 5: "layered" };
// a window filter (1.12, core/bf_format_window.h): read only where asked for (WindowFilter, window.js)
export const WINDOW_FIXED = 26, WINDOW_MAX_HASHES = 64, WINDOW_MAX_GENERATIONS = 4096;
export const WINDOW_MAX_SLICES = WINDOW_MAX_HASHES + WINDOW_MAX_GENERATIONS - 1;
const layoutName = (layout) => (layout === WINDOW ? "window" : LAYOUT_NAMES[layout]);
export const FLAG_DERIVED = 1, FLAG_TARGET = 2;
const HEADER_SIZE = 36, MAX_HASHES = 64, MAX_LAYERS = 64, LAYER_SIZE = 10, MAX_ELEM_LEN = 255;
const BLOCK_BITS = 512;
const MAX_PAYLOAD = 0x3fffffff - 4;
const MAX_DATA = MAX_PAYLOAD - HEADER_SIZE - MAX_ELEM_LEN;
const MAX_BITS = MAX_DATA * 8, MAX_COUNTERS = MAX_DATA * 2, MAX_EXPLICIT = Math.floor(MAX_DATA / 8);
const INT64_MAX = (1n << 63n) - 1n, UINT64_MAX = (1n << 64n) - 1n;

export function dataBytes(layout, m) {
  if (layout === COUNTING4) return Math.ceil(m / 2);
  if (layout === EXPLICIT) return m * 8;
  return Math.ceil(m / 8);
}

const extensionBytes = (flags) => (flags & FLAG_DERIVED ? 16 : flags & FLAG_TARGET ? 4 : 0);

function u64(view, at) {
  return view.getBigUint64(at, true);
}

/** A bigint field as a number, where the checks have bounded it. */
const num = (b) => Number(b);

function checkParams(layout, scheme, k, m, elemlen, window = false, seed = 0n) {
  if (layout >= 6 && layout <= 8)
    throw fail(`a ${["spark", "guava", "parquet"][layout - 6]} filter (another system's, bloom_import's): read it with fromBloomBytes`);
  if (layout === WINDOW && !window) throw fail("a window filter (bloom_window's): read it with WindowFilter.from");
  if (layout === WINDOW) {
    if (scheme !== 1) throw fail(`unknown hash scheme ${scheme} (this version knows 1)`);
    if (k < 1 || k > WINDOW_MAX_SLICES)
      throw fail(`number of slices k = ${k} of a window filter is out of range (1 to ${WINDOW_MAX_SLICES})`);
    if (m === 0n || m % BigInt(64 * k) !== 0n)
      throw fail(`number of bits m = ${m} of a window filter of ${k} slices is not a positive multiple of ${64 * k}`);
    if (m > BigInt(MAX_BITS)) throw fail(`number of bits m = ${m} exceeds the maximum of ${MAX_BITS} (1 GB)`);
    if (seed !== 0n) throw fail(`a window filter's seed is 0, not ${seed}`);
    if (elemlen > MAX_ELEM_LEN) throw fail(`element key is longer than ${MAX_ELEM_LEN} bytes`);
    return;
  }
  if (!(layout in LAYOUT_NAMES))
    throw fail(`unknown layout ${layout} (this version knows 1 = classic, 2 = counting4, 3 = blocked512, 4 = explicit, 5 = layered)`);
  if (scheme !== 1) throw fail(`unknown hash scheme ${scheme} (this version knows 1)`);
  if (layout === EXPLICIT) {
    if (k !== 0) throw fail(`an explicit filter has k = 0, not ${k}`);
    if (m > BigInt(MAX_EXPLICIT)) throw fail(`number of hashes m = ${m} exceeds the maximum of ${MAX_EXPLICIT} (1 GB)`);
  } else {
    if (layout === LAYERED) {
      if (k < 1 || k > MAX_LAYERS)
        throw fail(`number of layers k = ${k} of a layered filter is out of range (1 to ${MAX_LAYERS})`);
      if (m % 512n !== 0n || m < BigInt(k * BLOCK_BITS))
        throw fail(`number of bits m = ${m} of a layered filter of ${k} layers is not a multiple of 512 of at least 512 per layer`);
    } else if (k < 1 || k > MAX_HASHES) {
      throw fail(`number of hashes k = ${k} is out of range (1 to ${MAX_HASHES})`);
    }
    if (m < 1n) throw fail("number of bits m must be at least 1");
    const most = layout === COUNTING4 ? MAX_COUNTERS : MAX_BITS;
    if (m > BigInt(most))
      throw fail(`number of ${layout === COUNTING4 ? "counters" : "bits"} m = ${m} exceeds the maximum of ${most} (1 GB)`);
    if (layout === BLOCKED512 && m % 512n !== 0n)
      throw fail(`number of bits m = ${m} of a blocked512 filter is not a multiple of 512`);
  }
  if (elemlen > MAX_ELEM_LEN) throw fail(`element key is longer than ${MAX_ELEM_LEN} bytes`);
}

function checkFlags(layout, flags) {
  if (flags & ~3) throw fail(`unknown flags 0x${flags.toString(16).padStart(2, "0")} (this build knows 0x01, 0x02)`);
  if (flags & FLAG_DERIVED && layout !== CLASSIC && layout !== BLOCKED512)
    throw fail(`${layoutName(layout)} filters cannot be derived`);
  if (flags & FLAG_TARGET && (flags & FLAG_DERIVED || (layout !== EXPLICIT && layout !== CLASSIC)))
    throw fail("only an explicit or classic filter that is not derived has a target");
}

export function payloadSize(layout, k, m, flags, elemlen) {
  const table = layout === LAYERED ? k * LAYER_SIZE : layout === WINDOW ? WINDOW_FIXED + 8 * k : 0;
  const total = HEADER_SIZE + extensionBytes(flags) + elemlen + table + dataBytes(layout, num(m));
  if (total > MAX_PAYLOAD) throw fail(`filter of ${total} bytes exceeds the 1 GB limit`);
  return total;
}

const POPCOUNT = new Uint8Array(256);
for (let i = 1; i < 256; i++) POPCOUNT[i] = (i & 1) + POPCOUNT[i >> 1];

export function popcount(bytes, from = 0, to = bytes.length) {
  let n = 0, i = from;
  // byte by byte to a 4-byte boundary of the buffer, then 32-bit words
  // (a 12 MB filter loads in a third of the time), then the last bytes
  while (i < to && ((bytes.byteOffset + i) & 3) !== 0) n += POPCOUNT[bytes[i++]];
  const words = (to - i) >> 2;
  if (words > 0) {
    const w = new Int32Array(bytes.buffer, bytes.byteOffset + i, words);
    for (let j = 0; j < words; j++) {
      let v = w[j];
      v = v - ((v >>> 1) & 0x55555555);
      v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
      n += Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
    }
    i += words * 4;
  }
  while (i < to) n += POPCOUNT[bytes[i++]];
  return n;
}

export function countersSet(bytes) {
  let n = 0;
  for (let i = 0; i < bytes.length; i++) n += ((bytes[i] & 15) !== 0) + ((bytes[i] >> 4) !== 0);
  return n;
}

// (fatal: an element key must be valid UTF-8, as the format says since 1.12)
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }); // (a BOM is kept: the key's bytes stay its bytes)

/**
 * Bytes shown in a message as the server shows an element key that is not
 * text (bloom_elem_for_message): printable ASCII as it is (but \), every
 * other byte as \xNN, so that a message never carries bytes that are not
 * text, nor a replacement character standing for them.
 */
export function escapeBytes(bytes) {
  let out = "";
  for (const c of bytes)
    out += c >= 0x20 && c < 0x7f && c !== 0x5c ? String.fromCharCode(c) : "\\x" + c.toString(16).toUpperCase().padStart(2, "0");
  return out;
}

/**
 * An element key's text: the family's name (schema.opfamily, plus
 * @schema.collation), no control characters, valid UTF-8 (the server
 * checks it against the database's encoding).  Throws BloomFilterError.
 */
function elemText(bytes) {
  for (const c of bytes) if (c < 0x20 || c === 0x7f) throw fail("element key holds a control character");
  try {
    return utf8.decode(bytes);
  } catch {
    throw fail(`element key "${escapeBytes(bytes)}" is not valid UTF-8`);
  }
}

/** bf_check_header, then bf_check_data; window: whether a window filter is taken (bf_check_header_all). */
export function parseBinary(buf, window = false) {
  const len = buf.length;
  if (len < HEADER_SIZE) throw fail(`value is truncated: ${len} bytes, the header alone needs ${HEADER_SIZE}`);
  if (buf[0] !== 0x42 || buf[1] !== 0x4c || buf[2] !== 0x4f || buf[3] !== 0x4d) throw fail("bad magic number: not a bloom value");
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const version = buf[4], layout = buf[5], scheme = buf[6], flags = buf[7];
  const k = view.getUint16(8, true), elemlen = view.getUint16(10, true);
  const seed = u64(view, 12), m = u64(view, 20), n = u64(view, 28);
  if (version !== 1) throw fail(`unknown format version ${version} (this build reads version 1)`);
  if (flags & ~3) checkFlags(layout, flags);
  if (n > INT64_MAX) throw fail("number of values added is out of range");
  checkParams(layout, scheme, k, m, elemlen, window, seed);
  checkFlags(layout, flags);
  const expected = payloadSize(layout, k, m, flags, elemlen);
  if (len !== expected)
    throw fail(`value has ${len} bytes, but its header (m = ${m}, element key of ${elemlen} bytes) implies ${expected}`);
  let bound = 0n, est = 0n, target = 0;
  if (flags & FLAG_DERIVED) { bound = u64(view, HEADER_SIZE); est = u64(view, HEADER_SIZE + 8); }
  if (flags & FLAG_TARGET) {
    target = view.getUint32(HEADER_SIZE, true);
    if (target < 1 || target >= 1e9) throw fail(`target rate of ${target} parts per billion is out of range (1 to 999999999)`);
  }
  if (bound > m) throw fail(`bound ${bound} exceeds m = ${m}`);
  if (est > INT64_MAX) throw fail("estimated distinct count is out of range");
  const elemAt = HEADER_SIZE + extensionBytes(flags);
  const elemBytes = buf.subarray(elemAt, elemAt + elemlen);
  const elem = elemText(elemBytes);
  let after = elemAt + elemlen;
  const layers = [];
  if (layout === LAYERED) {
    let total = 0n, offset = 0;
    for (let i = 0; i < k; i++) {
      const lm = u64(view, after + i * LAYER_SIZE), lk = view.getUint16(after + i * LAYER_SIZE + 8, true);
      if (lm < 512n || lm % 512n !== 0n || lm > m) throw fail(`layer ${i} has m = ${lm} bits, not a multiple of 512 within the filter's`);
      if (lk < 1 || lk > MAX_HASHES) throw fail(`layer ${i} has k = ${lk}, out of range (1 to ${MAX_HASHES})`);
      layers.push({ m: num(lm), k: lk, offset });
      offset += num(lm) / 8;
      total += lm;
    }
    if (total !== m) throw fail(`the layers' bits sum to ${total}, not to m = ${m}`);
    after += k * LAYER_SIZE;
  }
  let win = null;
  if (layout === WINDOW) {
    win = readWindow(view, after, k, n);
    after += WINDOW_FIXED + 8 * k;
  }
  const p = {
    layout, scheme, flags, k, seed, seedHi: Number(seed >> 32n), seedLo: Number(seed & 0xffffffffn), m: num(m), n, bound: num(bound), est: num(est), estExact: est, target,
    elem, elemlen, layers, window: win, data: buf.subarray(after), size: len,
  };
  checkData(p);
  return p;
}

// a window filter's table (bf_window_table_check): its hashes, capacity,
// generation, interval and counts, the counts summing to at most n
function readWindow(view, at, k, n) {
  const hashes = view.getUint16(at, true);
  if (hashes < 1 || hashes > WINDOW_MAX_HASHES || hashes > k)
    throw fail(`a window filter's hashes = ${hashes} is out of range (1 to ${WINDOW_MAX_HASHES}, at most its ${k} slices)`);
  if (k - hashes + 1 > WINDOW_MAX_GENERATIONS)
    throw fail(`a window filter of ${k} slices and ${hashes} hashes spans ${k - hashes + 1} generations, more than ${WINDOW_MAX_GENERATIONS}`);
  const capacity = u64(view, at + 2), generation = view.getBigInt64(at + 10, true), interval = view.getBigInt64(at + 18, true);
  if (capacity < 1n || capacity > INT64_MAX) throw fail(`a window filter's capacity ${capacity} is out of range`);
  if (interval < 0n) throw fail(`a window filter's interval ${interval} is negative`);
  const counts = new BigUint64Array(k);
  let left = n;
  for (let slot = 0; slot < k; slot++) {
    counts[slot] = u64(view, at + WINDOW_FIXED + 8 * slot);
    if (counts[slot] > INT64_MAX) throw fail(`a window filter's count ${counts[slot]} is out of range`);
    // (n stops at 2^63-1, each count on its own: past that, their sum is not bounded by n)
    if (counts[slot] > left && n !== INT64_MAX) throw fail(`a window filter's counts of values per generation sum to more than its n = ${n}`);
    left = counts[slot] > left ? 0n : left - counts[slot];
  }
  return { hashes, capacity, generation, interval, counts };
}

// bf_window_check: each slice no fuller than the values its generations added
function checkWindowData(p) {
  const w = p.window, S = p.k, bytes = p.m / S / 8;
  checkElemAndAdded(p);
  const now = Number(((w.generation % BigInt(S)) + BigInt(S)) % BigInt(S));
  for (let age = 0; age < S; age++) {
    const slot = (now + S - age) % S;
    let wrote = 0n;
    for (let j = 0; j < w.hashes && j <= age; j++) wrote += w.counts[(now + S - (age - j)) % S];
    const set = BigInt(popcount(p.data, slot * bytes, (slot + 1) * bytes));
    if (set > wrote)
      throw fail(`slice ${slot} of a window filter has ${set} bits set, more than the ${wrote} values added in the generations that wrote it`);
  }
}

function checkElemAndAdded(p) {
  if (p.n === 0n && p.elemlen !== 0) throw fail("element key is set but no values were added");
  if (p.n !== 0n && p.elemlen === 0) throw fail("values were added but the element key is empty");
}

function checkData(p) {
  const d = p.data;
  if (p.layout === WINDOW) return checkWindowData(p);
  if (p.layout === EXPLICIT) {
    if (p.n < BigInt(p.m)) throw fail(`${p.m} hashes are held, more than the ${p.n} values added`);
    checkElemAndAdded(p);
    const v = new DataView(d.buffer, d.byteOffset, d.byteLength);
    for (let i = 1; i < p.m; i++)
      if (v.getBigUint64((i - 1) * 8, true) >= v.getBigUint64(i * 8, true))
        throw fail(`hashes are not in strictly increasing order (at hash ${i})`);
    return;
  }
  if (p.layout === COUNTING4) {
    if (p.m % 2 !== 0 && d[d.length - 1] >> 4 !== 0) throw fail(`counters beyond m = ${p.m} are set`);
    if (p.elemlen === 0 && (p.n !== 0n || countersSet(d) !== 0)) throw fail("values were added but the element key is empty");
    return;
  }
  const occupied = BigInt(popcount(d));
  if (p.layout !== LAYERED && p.m % 8 !== 0 && d[d.length - 1] >> (p.m % 8) !== 0) throw fail(`bits beyond m = ${p.m} are set`);
  checkElemAndAdded(p);
  if (p.layout === LAYERED) {
    const most = BigInt(Math.max(...p.layers.map((l) => l.k)));
    if (occupied > p.n * most)
      throw fail(`${occupied} bits are set, more than the largest k of a layer (${most}) times the ${p.n} values added`);
    return;
  }
  if (occupied > p.n * BigInt(p.k)) throw fail(`${occupied} bits are set, more than k = ${p.k} times the ${p.n} values added`);
  if (p.flags & FLAG_DERIVED && occupied > BigInt(p.bound)) throw fail(`${occupied} bits are set, more than the bound ${p.bound}`);
}

// ---- the text form ----

const PLAIN = new Set(Array.from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.@$-", (c) => c.charCodeAt(0)));
const B64 = new Int16Array(256).fill(-1);
Array.from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/").forEach((c, i) => (B64[c.charCodeAt(0)] = i));
const HEX = new Int16Array(256).fill(-1);
Array.from("0123456789ABCDEF").forEach((c, i) => (HEX[c.charCodeAt(0)] = i));
const encoder = new TextEncoder();
const ascii = new TextDecoder("latin1");

class Cursor {
  constructor(s) { this.s = s; this.p = 0; }
  take(lit) {
    for (let i = 0; i < lit.length; i++) if (this.s[this.p + i] !== lit.charCodeAt(i)) return false;
    this.p += lit.length;
    return true;
  }
  peek(lit) {
    const p = this.p;
    const ok = this.take(lit);
    this.p = p;
    return ok;
  }
  digits() {
    const start = this.p;
    while (this.p < this.s.length && this.s[this.p] >= 0x30 && this.s[this.p] <= 0x39) this.p++;
    return ascii.decode(this.s.subarray(start, this.p));
  }
  number(name) {
    if (!this.take(name + "=")) throw fail(`expected "${name}="`);
    const d = this.digits();
    if (d === "") throw fail(`${name} must be an unsigned decimal number`);
    if (d.replace(/^0+/, "").length > 20 || BigInt(d) > UINT64_MAX) throw fail(`value of ${name} is out of range`);
    if (d[0] === "0" && d.length > 1) throw fail(`${name} has leading zeros`);
    if (!this.take(" ")) throw fail(`expected a single space after ${name}`);
    return BigInt(d);
  }
}

function takeTarget(c) {
  if (!c.take("target=0.")) throw fail('expected "target=0." and the rate\'s digits');
  const d = c.digits();
  if (d.length > 9) throw fail("target has more than 9 digits after the point (parts per billion)");
  if (d === "" || d.endsWith("0")) throw fail("target must be a decimal fraction without trailing zeros, as 0.01");
  if (!c.take(" ")) throw fail("expected a single space after target");
  return parseInt(d.padEnd(9, "0"), 10);
}

function takeElem(c) {
  if (!c.take("elem=")) throw fail('expected "elem="');
  const out = [];
  const s = c.s;
  while (c.p < s.length && s[c.p] !== 0x20) {
    if (out.length >= MAX_ELEM_LEN) throw fail(`element key is longer than ${MAX_ELEM_LEN} bytes`);
    let ch = s[c.p];
    if (ch === 0x25) {
      const hi = c.p + 1 < s.length ? HEX[s[c.p + 1]] : -1, lo = c.p + 2 < s.length ? HEX[s[c.p + 2]] : -1;
      if (hi < 0 || lo < 0) throw fail("bad percent escape in element key (use %XX, upper-case hex)");
      ch = hi * 16 + lo;
      if (PLAIN.has(ch) || ch < 0x20 || ch === 0x7f)
        throw fail("element key escapes a byte that must not be escaped, or a control character");
      c.p += 3;
    } else if (PLAIN.has(ch)) {
      c.p++;
    } else {
      throw fail(`element key holds an unescaped ${ch >= 0x21 && ch < 0x7f ? `'${String.fromCharCode(ch)}'` : `byte \\x${ch.toString(16).toUpperCase().padStart(2, "0")}`}`);
    }
    out.push(ch);
  }
  if (!c.take(" ")) throw fail("expected a space after the element key");
  return Uint8Array.from(out);
}

function takeLayers(c, nlayers, m) {
  if (nlayers < 1n || nlayers > BigInt(MAX_LAYERS))
    throw fail(`number of layers k = ${nlayers} of a layered filter is out of range (1 to ${MAX_LAYERS})`);
  if (!c.take("layers=")) throw fail('expected "layers=" after the element key');
  const out = [];
  let total = 0n;
  for (let i = 0; i < Number(nlayers); i++) {
    const parts = [];
    for (const name of ["m", "k"]) {
      const d = c.digits();
      if (d === "" || (d[0] === "0" && d.length > 1)) throw fail(`layer ${i}'s ${name} must be an unsigned decimal without leading zeros`);
      if (d.replace(/^0+/, "").length > 20 || BigInt(d) > UINT64_MAX) throw fail(`a layer's ${name} is out of range`);
      parts.push(BigInt(d));
      if (name === "m" && !c.take(":")) throw fail('expected ":" between a layer\'s m and k');
    }
    const [lm, lk] = parts;
    if (lm < 512n || lm % 512n !== 0n || lm > m || lm > BigInt(MAX_BITS))
      throw fail(`layer ${i} has m = ${lm} bits, not a multiple of 512 within the filter's`);
    if (lk < 1n || lk > BigInt(MAX_HASHES)) throw fail(`layer ${i} has k = ${lk}, out of range (1 to ${MAX_HASHES})`);
    out.push([lm, Number(lk)]);
    total += lm;
    if (i + 1 < Number(nlayers) && !c.take(",")) throw fail(`expected ${nlayers} layers, separated by ","`);
  }
  if (total !== m) throw fail(`the layers' bits sum to ${total}, not to m = ${m}`);
  if (!c.take(" ")) throw fail("expected a space after the layers");
  return out;
}

function takeData(c, label, nbytes, out) {
  if (!c.take(label)) throw fail(`expected "${label}"`);
  const name = label.slice(0, -1);
  const s = c.s, at = c.p;
  const need = Math.ceil(nbytes / 3) * 4;
  if (s.length - at !== need) throw fail(`${name} has ${s.length - at} base64 characters, m requires exactly ${need}`);
  const full = Math.floor(nbytes / 3), rest = nbytes % 3;
  let o = 0;
  for (let q = 0, i = at; q < full; q++, i += 4) {
    const a = B64[s[i]], b = B64[s[i + 1]], d = B64[s[i + 2]], e = B64[s[i + 3]];
    if ((a | b | d | e) < 0) throw fail(`${name} holds a character that is not base64`);
    const v = (a << 18) | (b << 12) | (d << 6) | e;
    out[o++] = v >>> 16; out[o++] = (v >>> 8) & 255; out[o++] = v & 255;
  }
  if (rest > 0) {
    const i = at + full * 4;
    const a = B64[s[i]], b = B64[s[i + 1]], d = rest === 2 ? B64[s[i + 2]] : 0;
    if (a < 0 || b < 0 || (rest === 2 && s[i + 2] !== 0x3d && d < 0) || (s[i + 3] !== 0x3d && B64[s[i + 3]] < 0))
      throw fail(`${name} holds a character that is not base64`);
    if ((rest === 1 && s[i + 2] !== 0x3d) || d < 0 || s[i + 3] !== 0x3d)
      throw fail(`${name} has wrong base64 padding for ${nbytes} bytes of data`);
    const v = (a << 18) | (b << 12) | (d << 6);
    if ((rest === 1 && (v & 0xffff) !== 0) || (rest === 2 && (v & 0xff) !== 0)) throw fail(`${name} has non-zero base64 padding bits`);
    out[o++] = v >>> 16;
    if (rest === 2) out[o++] = (v >>> 8) & 255;
  }
}

// a window filter's "window=h:c:g:i counts=c,c,... " (bf_text_window_take)
function takeWindow(c, k, n) {
  if (k < 1n || k > BigInt(WINDOW_MAX_SLICES))
    throw fail(`number of slices k = ${k} of a window filter is out of range (1 to ${WINDOW_MAX_SLICES})`);
  if (!c.take("window=")) throw fail('expected "window=" after the element key');
  const field = (what, negativeOk, max, sep) => {
    const negative = negativeOk && c.take("-");
    const d = c.digits();
    if (d === "" || (d[0] === "0" && d.length > 1) || (negative && /^0+$/.test(d)))
      throw fail(`a window filter's ${what} must be a decimal without leading zeros`);
    if (d.length > 20 || BigInt(d) > max + (negative ? 1n : 0n)) throw fail(`a window filter's ${what} is out of range`);
    if (sep !== null && !c.take(sep)) throw fail(`expected "${sep}" after a window filter's ${what}`);
    return negative ? -BigInt(d) : BigInt(d);
  };
  const hashes = field("hashes", false, BigInt(WINDOW_MAX_HASHES), ":");
  const capacity = field("capacity", false, INT64_MAX, ":");
  const generation = field("generation", true, INT64_MAX, ":");
  const interval = field("interval", false, INT64_MAX, null);
  if (hashes < 1n || hashes > k || k - hashes + 1n > BigInt(WINDOW_MAX_GENERATIONS) || capacity < 1n)
    throw fail(`a window filter of ${k} slices cannot have hashes = ${hashes} and capacity = ${capacity}`);
  if (!c.take(" counts=")) throw fail('expected " counts=" after the window');
  const counts = new BigUint64Array(Number(k));
  let left = n;
  for (let slot = 0; slot < Number(k); slot++) {
    if (slot > 0 && !c.take(",")) throw fail(`expected ${k} counts, separated by ","`);
    counts[slot] = field("count", false, INT64_MAX, null);
    if (counts[slot] > left && n !== INT64_MAX) throw fail(`a window filter's counts of values per generation sum to more than its n = ${n}`);
    left = counts[slot] > left ? 0n : left - counts[slot];
  }
  if (!c.take(" ")) throw fail("expected a space after the counts");
  return { hashes: Number(hashes), capacity, generation, interval, counts };
}

/** bf_text_parse: the canonical text form to the binary form (window: whether a window filter is taken). */
export function textToBinary(text, window = false) {
  const s = encoder.encode(text);
  const c = new Cursor(s);
  if (!c.take("v")) throw fail('a bloom value starts with "v1 "');
  if (!c.take("1 ")) throw fail('unknown format version (this build reads "v1")');
  let layout = 0;
  for (const [word, l] of [["classic ", CLASSIC], ["counting4 ", COUNTING4], ["blocked512 ", BLOCKED512], ["explicit ", EXPLICIT], ["layered ", LAYERED], ["window ", WINDOW]])
    if (c.take(word)) { layout = l; break; }
  if (layout === 0) throw fail('unknown layout (this build reads "classic", "counting4", "blocked512", "explicit" and "layered")');
  const m = c.number("m"), k = c.number("k");
  let scheme = c.number("scheme");
  const seed = c.number("seed"), n = c.number("n");
  let flags = 0, bound = 0n, est = 0n, target = 0;
  if (c.peek("bound=")) { bound = c.number("bound"); est = c.number("est"); flags = FLAG_DERIVED; }
  if (c.peek("target=")) { target = takeTarget(c); flags |= FLAG_TARGET; }
  const elem = takeElem(c);
  const layers = layout === LAYERED ? takeLayers(c, k, m) : [];
  const win = layout === WINDOW ? takeWindow(c, k, n) : null;
  if (n > INT64_MAX) throw fail(`number of values added n = ${n} is out of range (0 to ${INT64_MAX})`);
  if (layout !== WINDOW && k > BigInt(MAX_HASHES)) throw fail(`number of hashes k = ${k} is out of range (1 to ${MAX_HASHES})`);
  scheme = scheme > 255n ? 0 : Number(scheme);
  checkParams(layout, scheme, Number(k), m, elem.length, window, seed);
  checkFlags(layout, flags);
  if (bound > m) throw fail(`bound ${bound} exceeds m = ${m}`);
  if (est > INT64_MAX) throw fail("estimated distinct count is out of range");
  const size = payloadSize(layout, Number(k), m, flags, elem.length);
  const buf = new Uint8Array(size);
  const at = writeHeader(buf, { layout, scheme, flags, k: Number(k), seed, m, n, bound, est, target, elem, layers, window: win });
  takeData(c, dataLabel(layout) + "=", dataBytes(layout, Number(m)), buf.subarray(at));
  return buf;
}

const dataLabel = (layout) => (layout === COUNTING4 ? "counters" : layout === EXPLICIT ? "hashes" : "bits");

/**
 * Writes the header of the binary form into buf (at least its size:
 * payloadSize), then the extension fields, the element key (h.elem, bytes)
 * and a layered filter's layers (h.layers, [m, k] pairs of bigint and
 * number); returns the offset where the data goes.  seed, m, n, bound and
 * est are bigints; the caller has checked them (checkParams, checkFlags).
 */
export function writeHeader(buf, h) {
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  buf.set([0x42, 0x4c, 0x4f, 0x4d, 1, h.layout, h.scheme, h.flags]);
  v.setUint16(8, h.k, true);
  v.setUint16(10, h.elem.length, true);
  v.setBigUint64(12, h.seed, true);
  v.setBigUint64(20, h.m, true);
  v.setBigUint64(28, h.n, true);
  let at = HEADER_SIZE;
  if (h.flags & FLAG_DERIVED) { v.setBigUint64(at, h.bound, true); v.setBigUint64(at + 8, h.est, true); at += 16; }
  else if (h.flags & FLAG_TARGET) { v.setUint32(at, h.target, true); at += 4; }
  buf.set(h.elem, at);
  at += h.elem.length;
  for (const [lm, lk] of h.layers) { v.setBigUint64(at, lm, true); v.setUint16(at + 8, lk, true); at += LAYER_SIZE; }
  if (h.window) {
    const w = h.window;
    v.setUint16(at, w.hashes, true);
    v.setBigUint64(at + 2, w.capacity, true);
    v.setBigInt64(at + 10, w.generation, true);
    v.setBigInt64(at + 18, w.interval, true);
    at += WINDOW_FIXED;
    for (const count of w.counts) { v.setBigUint64(at, count, true); at += 8; }
  }
  return at;
}

/**
 * The binary form (bloom_send's bytes) of a parsed filter p (parseBinary's
 * fields, p.data its data), as it is now.
 */
export function toBinary(p) {
  const elem = encoder.encode(p.elem);
  const buf = new Uint8Array(payloadSize(p.layout, p.k, BigInt(p.m), p.flags, elem.length));
  const layers = p.layers.map((l) => [BigInt(l.m), l.k]);
  const at = writeHeader(buf, { ...p, m: BigInt(p.m), bound: BigInt(p.bound), est: p.estExact, elem, layers });
  buf.set(p.data, at);
  return buf;
}

// standard base64 with padding, as bf_text_write writes the data (a 12 MB
// filter: Buffer's encoder where there is one, else btoa over chunks whose
// length is a multiple of 3, so that no padding falls inside)
function base64(d) {
  if (typeof Buffer === "function") return Buffer.from(d.buffer, d.byteOffset, d.length).toString("base64");
  const out = [];
  for (let i = 0; i < d.length; i += 3 * 8192) out.push(btoa(String.fromCharCode.apply(null, d.subarray(i, i + 3 * 8192))));
  return out.join("");
}

/** bf_text_write: the canonical text form (what SELECT f::text prints) of a parsed filter p. */
export function toText(p) {
  let text = `v1 ${layoutName(p.layout)} m=${p.m} k=${p.k} scheme=${p.scheme} seed=${p.seed} n=${p.n} `;
  if (p.flags & FLAG_DERIVED) text += `bound=${p.bound} est=${p.estExact} `;
  if (p.flags & FLAG_TARGET) text += `target=0.${String(p.target).padStart(9, "0").replace(/(?<=.)0+$/, "")} `;
  let elem = "";
  for (const c of encoder.encode(p.elem))
    elem += PLAIN.has(c) ? String.fromCharCode(c) : "%" + c.toString(16).toUpperCase().padStart(2, "0");
  let table = p.layout === LAYERED ? " layers=" + p.layers.map((l) => `${l.m}:${l.k}`).join(",") : "";
  if (p.layout === WINDOW) {
    const w = p.window;
    table = ` window=${w.hashes}:${w.capacity}:${w.generation}:${w.interval} counts=${Array.from(w.counts).join(",")}`;
  }
  return `${text}elem=${elem}${table} ${dataLabel(p.layout)}=${base64(p.data)}`;
}
