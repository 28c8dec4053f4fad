// Bad input gets the library's own error with the server's message; the
// API's edges.  Values built by hand from the format's table
// (core/bf_format.h), so that a check the parser lost fails.
import assert from "node:assert/strict";
import { BloomFilter, BloomFilterError } from "../src/index.js";
import { popcount } from "../src/format.js";

const ELEM = new TextEncoder().encode("pg_catalog.integer_ops");
const hex = (h) => Uint8Array.from(h.match(/../g), (x) => parseInt(x, 16));
import { ONE, ONE_TEXT } from "./format-seeds.mjs";

function header({ layout = 1, scheme = 1, flags = 0, k = 7, elem = ELEM, seed = 0n, m = 97n, n = 1n, version = 1 } = {}) {
  const b = new Uint8Array(36), v = new DataView(b.buffer);
  b.set([0x42, 0x4c, 0x4f, 0x4d, version, layout, scheme, flags]);
  v.setUint16(8, k, true); v.setUint16(10, elem.length, true);
  v.setBigUint64(12, seed, true); v.setBigUint64(20, m, true); v.setBigUint64(28, n, true);
  return b;
}
const cat = (...parts) => {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
};
let passed = 0;
function test(name, fn) {
  fn();
  passed++;
}
function refused(input, fragment) {
  assert.throws(() => BloomFilter.from(input), (e) => e instanceof BloomFilterError && e.message.includes(fragment),
    `expected an error with "${fragment}"`);
}

test("the server's value, both forms", () => {
  const f = BloomFilter.from(ONE), g = BloomFilter.from(ONE_TEXT);
  assert.ok(f.contains(1) && f.contains(1n) && g.contains(1));
  assert.ok(!f.contains(2) && !g.contains(2n));
  assert.deepEqual(f.info, g.info);
  assert.equal(f.info.bytes, ONE.length + 4);
  assert.ok(BloomFilter.from(ONE.buffer.slice(0)).contains(1)); // an ArrayBuffer
});

test("every truncation is refused", () => {
  for (let cut = 0; cut < ONE.length; cut++) assert.throws(() => BloomFilter.from(ONE.subarray(0, cut)), BloomFilterError);
  refused(cat(ONE, new Uint8Array(1)), "implies");
});

test("header fields", () => {
  const body = ONE.subarray(36);
  refused(cat(new TextEncoder().encode("BLOB"), ONE.subarray(4)), "bad magic");
  refused(cat(header({ version: 2 }), body), "unknown format version 2");
  refused(cat(header({ layout: 10 }), body), "unknown layout 10");
  refused(cat(header({ layout: 9 }), body), "read it with WindowFilter.from");
  refused(cat(header({ scheme: 2 }), body), "unknown hash scheme 2");
  refused(cat(header({ flags: 0x80 }), body), "unknown flags 0x80");
  refused(cat(header({ k: 0 }), body), "k = 0 is out of range");
  refused(cat(header({ k: 65 }), body), "k = 65 is out of range");
  refused(cat(header({ m: 0n }), body), "m must be at least 1");
  refused(cat(header({ m: 200n }), body), "implies");
  refused(cat(header({ m: 1n << 62n }), body), "exceeds the maximum");
  refused(cat(header({ n: 1n << 63n }), body), "values added is out of range");
  refused(cat(header({ layout: 3 }), body), "not a multiple of 512");
  refused(cat(header({ flags: 1 }), body), "implies");
});

test("data checks", () => {
  const bits = ONE.slice(36 + ELEM.length);
  const beyond = bits.slice(); beyond[beyond.length - 1] = 2;
  refused(cat(header(), ELEM, beyond), "bits beyond m = 97 are set");
  refused(cat(header({ n: 0n }), ELEM, bits), "no values were added");
  refused(cat(header({ elem: new Uint8Array(0) }), bits), "element key is empty");
  refused(cat(header({ elem: Uint8Array.of(0x61, 1) }), Uint8Array.of(0x61, 1), bits), "control character");
  refused(cat(header({ k: 1 }), ELEM, bits), "more than k = 1 times");
  const two = new Uint8Array(16); two[0] = 5; two[8] = 5;
  refused(cat(header({ layout: 4, k: 0, m: 2n, n: 2n }), ELEM, two), "strictly increasing");
  const layer = new Uint8Array(10); new DataView(layer.buffer).setBigUint64(0, 512n, true); layer[8] = 7;
  refused(cat(header({ layout: 5, k: 1, m: 1024n }), ELEM, layer, new Uint8Array(128)), "sum to 512");
});

test("the text form is canonical", () => {
  for (const [bad, fragment] of [
    [ONE_TEXT.replace("v1", "v2"), "unknown format version"],
    [ONE_TEXT.replace("classic", "classy"), "unknown layout"],
    [ONE_TEXT.replace("m=97", "m=097"), "leading zeros"],
    [ONE_TEXT.replace("k=7 ", "k=7  "), 'expected "scheme="'],
    [ONE_TEXT.slice(0, -1), "base64 characters"],
    [ONE_TEXT.replace("AA==", "AB=="), "non-zero base64 padding bits"],
    [ONE_TEXT.replace("elem=pg_catalog", "elem=pg%5Fcatalog"), "must not be escaped"],
    [ONE_TEXT.replace("n=1 ", "n=9223372036854775808 "), "out of range"],
    [ONE_TEXT.replace("m=97", "m=" + "9".repeat(100000)), "out of range"],
    [ONE_TEXT.replace("m=97", "m=" + "0".repeat(100000) + "97"), "leading zeros"],
    ["", 'starts with "v1 "'],
  ]) refused(bad, fragment);
});

test("inputs of the wrong kind", () => {
  for (const bad of [null, undefined, 42, {}, [1, 2]])
    assert.throws(() => BloomFilter.from(bad), BloomFilterError);
});

test("probing follows SQL equality, and refuses other families", () => {
  const f = BloomFilter.from(ONE);
  assert.ok(f.contains(1) && f.contains(1n));
  assert.equal(f.contains(null), false);
  assert.equal(f.contains(undefined), false);
  assert.throws(() => f.contains(1n << 63n), /out of range/);
  assert.throws(() => f.contains(1.5), /not an integer/);
  for (const v of [true, new Date(0), new Uint8Array(1), {}])
    assert.throws(() => f.contains(v), (e) => e instanceof BloomFilterError && e.message.includes("integer_ops"));
});

test("int8 past 2^53 - 1: a number is refused, a bigint or a string of digits is read exactly", () => {
  const f = BloomFilter.from(ONE);
  // Number("9007199254740993") is 9007199254740992: hashing it would answer for another key
  for (const v of [2 ** 53, -(2 ** 53), Number("9007199254740993"), 2 ** 80])
    assert.throws(() => f.contains(v), (e) => e instanceof BloomFilterError && /MAX_SAFE_INTEGER/.test(e.message));
  assert.throws(() => f.containsMany([1, 2 ** 53]), /MAX_SAFE_INTEGER/);
  assert.ok(f.contains(Number.MAX_SAFE_INTEGER) === f.contains(9007199254740991n));
  // strings of decimal digits, as node-pg returns bigint columns: exactly the bigint's answer
  assert.ok(f.contains("1") && f.contains(" +1 ") && f.contains("01") && f.contains("-0") === f.contains(0));
  assert.equal(f.contains("2"), false);
  for (const s of ["9007199254740993", "-9223372036854775808", "9223372036854775807"])
    assert.equal(f.contains(s), f.contains(BigInt(s)));
  assert.deepEqual(f.containsMany(["1", "2", 1n]), [true, false, true]);
  for (const s of ["1.0", "1e3", "", " ", "0x1", "1_000", "one"])
    assert.throws(() => f.contains(s), (e) => e instanceof BloomFilterError && /not an integer/.test(e.message));
  assert.throws(() => f.contains("9223372036854775808"), /out of range/);
});

test("a nondeterministic collation is refused", () => {
  const elem = new TextEncoder().encode("pg_catalog.text_ops@public.ci");
  const f = BloomFilter.from(cat(header({ elem }), elem, new Uint8Array(13)));
  assert.throws(() => f.contains("a"), /nondeterministic collation/);
});

test("an empty filter holds nothing", () => {
  const empty = BloomFilter.from(cat(header({ elem: new Uint8Array(0), n: 0n }), new Uint8Array(13)));
  for (const v of [1, 1n, "a", 1.5, new Date(), new Uint8Array(0), true, 2 ** 80]) assert.equal(empty.contains(v), false);
  assert.throws(() => empty.contains({}), BloomFilterError);
  assert.equal(empty.info.elementFamily, null);
});

test("containsMany answers as contains does, for any iterable", () => {
  const f = BloomFilter.from(ONE);
  assert.deepEqual(f.containsMany([1, 2, 1n, null, undefined, -1]), [true, false, true, false, false, false]);
  assert.deepEqual(f.containsMany([]), []);
  assert.deepEqual(f.containsMany(Int32Array.of(1, 2)), [true, false]);
  assert.deepEqual(f.containsMany(BigInt64Array.of(2n, 1n)), [false, true]);
  assert.deepEqual(f.containsMany(new Set([2, 1])), [false, true]);
  assert.deepEqual(f.containsMany((function* () { yield 1; yield null; yield 3; })()), [true, false, false]);
  // more than one batch, with a value that is never held here and there
  const many = Array.from({ length: 1000 }, (_, i) => (i % 7 === 3 ? null : i % 2 === 0 ? 1 : 2));
  assert.deepEqual(f.containsMany(many), many.map((v) => f.contains(v)));
  // a getter that calls containsMany while the outer call is under way
  const tricky = Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? 1 : 2));
  Object.defineProperty(tricky, 10, { get: () => (f.containsMany([2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2]), 1) });
  assert.deepEqual(f.containsMany(tricky), tricky.map((v) => f.contains(v)));
  for (const bad of [null, undefined, 42, {}, "12", new Uint8Array(2)])
    assert.throws(() => f.containsMany(bad), (e) => e instanceof BloomFilterError && e.message.includes("containsMany takes"));
  assert.throws(() => f.containsMany([1, true]), (e) => e instanceof BloomFilterError && e.message.includes("integer_ops"));
  const empty = BloomFilter.from(cat(header({ elem: new Uint8Array(0), n: 0n }), new Uint8Array(13)));
  assert.deepEqual(empty.containsMany([1, "a", null]), [false, false, false]);
  assert.throws(() => empty.containsMany([{}]), BloomFilterError);
});

test("popcount counts every bit, at every alignment (32-bit words in the middle)", () => {
  const bits = (b) => { let n = 0; for (let x = b; x; x &= x - 1) n++; return n; };
  let state = 7;
  const rand = (n) => { state = (Math.imul(state, 1103515245) + 12345) >>> 0; return state % n; };
  for (let t = 0; t < 3000; t++) {
    const len = rand(80), buf = Uint8Array.from({ length: len + 8 }, () => rand(256));
    const view = buf.subarray(rand(4), rand(4) + len);
    const from = rand(view.length + 1), to = from + rand(view.length - from + 1);
    let want = 0;
    for (let i = from; i < to; i++) want += bits(view[i]);
    assert.equal(popcount(view, from, to), want, `bytes ${from} to ${to} of ${view.length} at offset ${view.byteOffset}`);
  }
  assert.equal(popcount(new Uint8Array(1000).fill(0xff)), 8000);
});

test("options: { wasm: false } probes in JavaScript, with the same answers; options are an object", () => {
  const w = BloomFilter.from(ONE), j = BloomFilter.from(ONE, { wasm: false });
  assert.equal(j.probeEngine, "javascript");
  assert.ok(["webassembly", "javascript"].includes(w.probeEngine));
  for (let v = -50; v < 50; v++) assert.equal(w.contains(v), j.contains(v));
  assert.deepEqual(w.containsMany([1, 2, 3]), j.containsMany([1, 2, 3]));
  for (const bad of [null, 1, "wasm"])
    assert.throws(() => BloomFilter.from(ONE, bad), (e) => e instanceof BloomFilterError && e.message.includes("options"));
});

test("the caller's bytes may change or be transferred after from: neither engine's answers move", () => {
  for (const wasm of [true, false]) {
    const buf = ONE.slice(), f = BloomFilter.from(buf, { wasm });
    const before = [f.contains(1), f.contains(2), f.info.bitsSet];
    buf.fill(0); // (what a reused or transferred buffer would read as)
    assert.deepEqual([f.contains(1), f.contains(2), f.info.bitsSet], before, f.probeEngine);
    assert.deepEqual(before, [true, false, 5]);
    const moved = ONE.slice(), g = BloomFilter.from(moved.buffer, { wasm });
    structuredClone(moved.buffer, { transfer: [moved.buffer] }); // detaches it
    assert.equal(moved.byteLength, 0);
    assert.ok(g.contains(1), g.probeEngine);
  }
});

test("an element key is valid UTF-8 (1.12), in both forms; messages show a key's bytes escaped", () => {
  const bits = ONE.slice(36 + ELEM.length);
  const key = (...bytes) => Uint8Array.from(bytes.flatMap((b) => (typeof b === "string" ? [...new TextEncoder().encode(b)] : [b])));
  const pct = (k) => Array.from(k, (c) => (/[A-Za-z0-9_.@$-]/.test(String.fromCharCode(c)) && c < 0x80 ? String.fromCharCode(c) : "%" + c.toString(16).toUpperCase().padStart(2, "0"))).join("");
  const text = (k) => ONE_TEXT.replace("elem=pg_catalog.integer_ops", "elem=" + pct(k));
  const invalid = [
    [key("pg_c", 0xff, "talog.integer_ops"), "pg_c\\xFFtalog.integer_ops"], // the key: \xFF, escaped
    [key("pg_catalog.integer_ops", 0xc3), "pg_catalog.integer_ops\\xC3"], // truncated
    [key("pg_catalog.", 0xc0, 0x80, "x"), "pg_catalog.\\xC0\\x80x"], // overlong NUL
    [key("s", 0xed, 0xa0, 0x80, ".x"), "s\\xED\\xA0\\x80.x"], // a surrogate
    [key("s", 0xf4, 0x90, 0x80, 0x80, ".x"), "s\\xF4\\x90\\x80\\x80.x"], // past U+10FFFF
    [key('"q"\\', 0xff), '"q"\\x5C\\xFF'], // as the server shows it: " kept, \ escaped
  ];
  for (const [k, shown] of invalid) {
    for (const input of [cat(header({ elem: k }), k, bits), text(k)]) {
      let message = null;
      try {
        BloomFilter.from(input);
      } catch (e) {
        assert.ok(e instanceof BloomFilterError, String(e));
        message = e.message;
      }
      assert.equal(message, `element key "${shown}" is not valid UTF-8`, typeof input);
      assert.ok(!/[\u0080-\uffff]/.test(message), `no raw byte or replacement character: ${message}`);
    }
  }
  // the no-control-characters rule still holds, checked first
  refused(cat(header({ elem: key("a", 0x01, 0xff) }), key("a", 0x01, 0xff), bits), "control character");
  // a valid non-ASCII key (a schema named données) is read, and written back as it came
  for (const k of [key("données.integer_ops"), key(0xef, 0xbb, 0xbf, "s.x")]) {
    const bin = cat(header({ elem: k }), k, bits);
    for (const f of [BloomFilter.from(bin), BloomFilter.from(text(k))]) {
      assert.equal(f.info.elementFamily, new TextDecoder("utf-8", { ignoreBOM: true }).decode(k));
      assert.deepEqual(f.toBytes(), bin);
      assert.equal(f.toString(), text(k));
    }
  }
  assert.match(text(key("données.integer_ops")), / elem=donn%C3%A9es\.integer_ops /);
  // text the parser refuses before decoding: the byte shown escaped, never raw
  refused(ONE_TEXT.replace("elem=pg_catalog", "elem=pg_cätalog"), "element key holds an unescaped byte \\xC3");
});

console.log(`format: ${passed} passed, 0 failed`);
