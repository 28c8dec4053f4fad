// The writing API's edges, without a server: create's parameters and
// types, what add refuses (and what it skips), UUID text as uuid_in reads
// it, union's refusals, and a written filter read back.  (Bytes equal to the
// server's: write.mjs, against the vectors.)
import assert from "node:assert/strict";
import { BloomFilter, BloomFilterError } from "../src/index.js";

let passed = 0;
function test(name, fn) {
  try {
    fn();
  } catch (e) {
    console.log(`${name}: FAILED`);
    throw e;
  }
  passed++;
}
const refuses = (fn, fragment) =>
  assert.throws(fn, (e) => e instanceof BloomFilterError && e.message.includes(fragment), `expected an error with "${fragment}"`);
const make = (type, extra = {}) => BloomFilter.create({ type, expectedItems: 1000, ...extra });

test("create's parameters: the server's refusals", () => {
  refuses(() => BloomFilter.create(), "takes an object");
  refuses(() => make("int8", { expectedItems: 0 }), "at least 1");
  refuses(() => make("int8", { expectedItems: 1.5 }), "at least 1");
  refuses(() => make("int8", { expectedItems: "10" }), "at least 1");
  refuses(() => make("int8", { falsePositiveRate: 0 }), "between 0 and 1");
  refuses(() => make("int8", { falsePositiveRate: 1 }), "between 0 and 1");
  refuses(() => make("int8", { falsePositiveRate: NaN }), "between 0 and 1");
  refuses(() => make("int8", { falsePositiveRate: "0.01" }), "between 0 and 1");
  refuses(() => make("int8", { layout: "counting4" }), "unknown layout");
  refuses(() => make("json"), 'type "json" is not one this library hashes');
  refuses(() => make(20), "is a name");
  refuses(() => make("int8", { expectedItems: 2 ** 40, falsePositiveRate: 1e-9 }), "1 GB");
  assert.equal(make("int8", { expectedItems: 10n }).info.nbits, make("int8", { expectedItems: 10 }).info.nbits);
});

test("type names: PostgreSQL's aliases, any case; each type's family", () => {
  const pairs = [["bigint", "int8"], ["INTEGER", "int4"], [" smallint ", "int2"], ["double  precision", "float8"], ["real", "float4"],
    ["boolean", "bool"], ["character varying", "varchar"], ["timestamp with time zone", "timestamptz"], ["decimal", "numeric"]];
  for (const [alias, name] of pairs) assert.equal(make(alias).type, name);
  const f = make("text").add("x");
  assert.equal(f.info.elementFamily, "pg_catalog.text_ops");
  assert.equal(BloomFilter.from(f.toBytes()).type, null);
});

test("an empty filter has no family, as the server's; the first add sets it", () => {
  const f = make("uuid");
  assert.match(f.toString(), / n=0 elem= bits=/);
  assert.equal(f.info.elementFamily, null);
  assert.equal(f.contains("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), false);
  f.add(null).add(undefined).addMany([null, undefined]);
  assert.equal(f.info.valuesAdded, 0n); // NULLs are skipped, as bloom_agg skips them
  f.add("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
  assert.equal(f.info.elementFamily, "pg_catalog.uuid_ops");
  assert.equal(f.info.bytes, f.toBytes().length + 4);
  // a value refused on the first add leaves the filter empty
  const g = make("int4");
  refuses(() => g.add("x"), "not an integer");
  assert.match(g.toString(), / n=0 elem= /);
});

test("int2 and int4 refuse adds out of range; int8 numbers past 2^53 - 1 are refused, strings of digits taken exactly", () => {
  refuses(() => make("int2").add(32768), "out of range for type smallint");
  refuses(() => make("int2").add(-32769n), "out of range for type smallint");
  refuses(() => make("int4").add("2147483648"), "out of range for type integer");
  make("int2").add(-32768).add(32767);
  const f = make("int8");
  for (const call of [() => f.add(2 ** 53), () => f.addMany([1, -(2 ** 60)]), () => f.contains(2 ** 60), () => f.containsMany([2 ** 60])])
    refuses(call, "MAX_SAFE_INTEGER");
  f.add("9007199254740993");
  assert.ok(f.contains(9007199254740993n) && f.contains(" 9007199254740993 "));
  assert.equal(f.contains("9007199254740992"), false);
  refuses(() => f.add("1e3"), "decimal digits");
  // a probe out of an int2 filter's range is answered, not refused: absent
  assert.equal(make("int2").add(1).contains(100000), false);
});

test("float4 takes a number as PostgreSQL's float4 holds it", () => {
  const f = make("float4").add(0.1);
  assert.ok(f.contains(0.1) && f.contains(Math.fround(0.1)));
  // the same bits as a filter read, given the float4 value itself
  const read = BloomFilter.from(make("float4").toBytes()).add(Math.fround(0.1));
  assert.deepEqual(read.toBytes(), f.toBytes());
  refuses(() => make("float4").add(1e39), "overflow");
  refuses(() => make("float4").add(1e-50), "underflow");
  make("float4").add(Infinity).add(NaN).add(-0);
});

test("UUID text: exactly what uuid_in accepts", () => {
  const f = make("uuid").add("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
  for (const s of ["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}",
    "a0eebc999c0b4ef8bb6d6bb9bd380a11", "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}"])
    assert.ok(f.contains(s), s);
  for (const s of ["urn:uuid:a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", " a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
    "a0e-ebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1",
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 ", "g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", ""]) {
    refuses(() => f.contains(s), "is not a uuid");
    refuses(() => make("uuid").add(s), "is not a uuid");
  }
});

test("what a layout takes: explicit and layered refuse adds; union refuses what the server refuses", () => {
  const explicit = BloomFilter.from("v1 explicit m=0 k=0 scheme=1 seed=0 n=0 elem= hashes=");
  refuses(() => explicit.add(1), "explicit");
  refuses(() => explicit.addMany([1]), "explicit");
  const a = make("int8"), b = make("int8", { expectedItems: 2000 });
  a.add(1);
  b.add(2);
  refuses(() => a.union(b), "differ in m");
  refuses(() => a.union(make("int8", { layout: "blocked" }).add(1)), "differ in");
  refuses(() => a.union(make("text").add("x")), "element family");
  refuses(() => a.union("v1 classic"), "another BloomFilter");
  refuses(() => a.addMany("12"), "iterable");
  // either side empty: a copy of the other, whatever its family
  assert.deepEqual(make("text").union(a).toBytes(), a.toBytes());
});

test("a written filter reads back, in both forms and both engines, and an add after reading goes on", () => {
  for (const layout of ["classic", "blocked"]) {
    const f = make("int8", { layout }).addMany([1n, 2n, 3n]);
    for (const wasm of [true, false]) {
      const b = BloomFilter.from(f.toBytes(), { wasm }), t = BloomFilter.from(f.toString(), { wasm });
      assert.deepEqual(b.toBytes(), f.toBytes());
      assert.equal(t.toString(), f.toString());
      b.add(4);
      assert.ok(b.contains(4) && b.contains(1));
      assert.equal(b.info.valuesAdded, 4n);
    }
  }
  // toBytes is a copy: changing it changes nothing
  const f = make("int4").add(5), bytes = f.toBytes();
  bytes.fill(0);
  assert.ok(f.contains(5));
});

console.log(`write-api: ${passed} passed, 0 failed`);
