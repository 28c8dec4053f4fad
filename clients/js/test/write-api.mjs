// The writing API's edges, without a server: create's parameters and
// types, what add refuses (and what it skips), UUID text as uuid_in reads
// it, union's refusals, and a written filter read back.  (Bytes equal to the
// server's: write.mjs, against the vectors.)
import assert from "node:assert/strict";
import { BloomFilter, BloomFilterError, IndexFilter } from "../src/index.js";

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
  refuses(() => make("int2").add(32768), "smallint out of range");
  refuses(() => make("int2").add(-32769n), "smallint out of range");
  refuses(() => make("int4").add("2147483648"), "integer out of range");
  make("int2").add(-32768).add(32767);
  const f = make("int8");
  for (const call of [() => f.add(2 ** 53), () => f.addMany([1, -(2 ** 60)]), () => f.contains(2 ** 60), () => f.containsMany([2 ** 60])])
    refuses(call, "MAX_SAFE_INTEGER");
  f.add("9007199254740993");
  assert.ok(f.contains(9007199254740993n) && f.contains(" 9007199254740993 "));
  assert.equal(f.contains("9007199254740992"), false);
  refuses(() => f.add("1e3"), "decimal digits");
  // a probe of a value the type cannot hold is answered, not refused: never added
  const small = make("int2").add(1);
  assert.equal(small.contains(100000), false);
  assert.deepEqual(small.containsMany([1, 100000, null, 1n]), [true, false, false, true]);
  // PostgreSQL's spaces around digits are ASCII ones (isspace), not JavaScript's \s
  refuses(() => small.add("\u00a012"), "decimal digits");
  small.add("\t12 ");
  assert.ok(small.contains(12));
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
  assert.deepEqual(f.containsMany([0.1, 1e39, 1e-50]), [true, false, false]);
  // the forms carry the family, not the type: read back, the filter takes the
  // double 0.1 as the double it is, unless told its type again
  assert.equal(BloomFilter.from(f.toBytes()).contains(0.1), false);
  for (const again of [BloomFilter.from(f.toBytes(), { type: "float4" }), BloomFilter.from(f.toString(), { type: "real" })]) {
    assert.ok(again.contains(0.1));
    assert.equal(again.type, "float4");
  }
  refuses(() => BloomFilter.from(f.toBytes(), { type: "text" }), "cannot hold values of type text");
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
  refuses(() => a.union(BloomFilter.from(make("text").add("x").toBytes())), "element family");
  refuses(() => a.union("v1 classic"), "another BloomFilter");
  refuses(() => a.addMany("12"), "iterable");
  // either side empty: a copy of the other, whatever its family
  assert.deepEqual(BloomFilter.from(make("text").toBytes()).union(a).toBytes(), a.toBytes());
  // a layout name is one of the layouts, not a property every object has
  for (const layout of ["toString", "constructor", "__proto__", "valueOf", "hasOwnProperty"])
    refuses(() => make("int8", { layout }), "unknown layout");
  for (const type of ["toString", "constructor", "__proto__"]) refuses(() => make(type), "is not one this library hashes");
});

test("a union converts values only where both sides did", () => {
  const f4 = make("float4").add(1.5), read = BloomFilter.from(make("float8").add(0.1).toBytes());
  const u = f4.union(read);
  assert.equal(u.type, null);
  assert.ok(u.contains(0.1) && u.contains(1.5));
  assert.equal(f4.union(make("float4")).type, "float4");
  refuses(() => f4.union(make("float8")), "create both with the same type");
  refuses(() => make("int4").add(1).union(make("int8").add(2)), "create both with the same type");
});

test("text and Dates the server refuses are refused", () => {
  const d = make("date"), t = make("timestamp"), tz = make("timestamptz");
  for (const bad of ["2000-02-30", "2000-13-01", "1900-02-29", "5874898-01-01", "4714-11-23 BC"])
    assert.throws(() => d.add(bad), BloomFilterError, bad);
  for (const bad of ["2000-01-01 24:00:01", "2000-01-01 23:60:00", "294277-01-01 00:00:00", "2000-01-01 00:00:00.1234567"])
    assert.throws(() => t.add(bad), BloomFilterError, bad);
  for (const f of [d, t, tz]) assert.throws(() => f.add(new Date(NaN)), BloomFilterError);
  // what the server reads: 24:00:00 is the next midnight, second 60 the next minute
  t.add("2000-01-01 24:00:00").add("2000-01-01 23:59:60");
  assert.ok(t.contains("2000-01-02 00:00:00"));
  d.add("4714-11-24 BC").add("5874897-12-31").add("2000-02-29");
  const n = make("numeric");
  for (const bad of ["1_000", "\u0661\u0662", "\u00a01", "1e"]) refuses(() => n.add(bad), "is not a numeric value");
  // numeric's bounds, each as PostgreSQL 15's numeric_in answered it (a value
  // past them is refused at once, not written out digit by digit)
  for (const held of ["1e131071", "9999e131068", "10000e131067", "00001e131071", "0e-16383", "1e-16383", "0e999999"])
    assert.equal(n.contains(held), false, held);
  for (const bad of ["1e131072", "0.0001e131076", "0e-16384", "1e-16384", "0.5e-16383", "1.0000e-16380",
    "0.00000e-16380", "0e1073741823", "1e-99999999999", "1e999999999"]) {
    refuses(() => n.contains(bad), "out of range for a numeric key");
    refuses(() => n.add(bad), "out of range for a numeric key");
  }
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
  // toPostgres (what node-postgres sends for a filter parameter) is the binary form
  const g = make("int8", { layout: "blocked" }).add(7);
  assert.deepEqual(g.toPostgres(), g.toBytes());
  assert.ok(g.toPostgres() instanceof Uint8Array);
  // toBytes is a copy: changing it changes nothing
  const f = make("int4").add(5), bytes = f.toBytes();
  bytes.fill(0);
  assert.ok(f.contains(5));
});

test("an empty filter refuses what the same filter refuses once it holds a value (1.12)", () => {
  // (before 1.12, an empty int8 filter answered false to 2 ** 53 and "abc",
  // which the filter refused after its first add)
  const refusals = [[2 ** 53, "MAX_SAFE_INTEGER"], ["abc", "not an integer"], [1.5, "not an integer"],
    [2n ** 64n, "out of range"], [true, "cannot be probed"], [{}, "cannot be probed"]];
  const empty = make("int8"), full = make("int8").add(1);
  const readTyped = BloomFilter.from(empty.toBytes(), { type: "bigint" });
  for (const f of [empty, full, readTyped, BloomFilter.from(empty.toString(), { type: "int8", wasm: false })]) {
    for (const [value, fragment] of refusals) {
      refuses(() => f.contains(value), fragment);
      refuses(() => f.containsMany([1, value]), fragment);
    }
    assert.deepEqual(f.containsMany([5, "5", 5n, null, " -7 "]), [false, false, false, false, false]);
    assert.equal(f.contains(2 ** 53 - 1), false);
  }
  // a value the type cannot hold is answered false, empty or not (never added)
  for (const f of [make("int2"), make("int2").add(1)]) assert.deepEqual([f.contains(40000), ...f.containsMany([40000])], [false, false]);
  // a filter read without a type names no family while empty: any value some
  // type holds answers false (2 ** 53 may be a float8, "abc" a text)
  const untyped = BloomFilter.from(empty.toBytes());
  assert.deepEqual(untyped.containsMany([2 ** 53, "abc", 1.5, 2n ** 64n, true]), [false, false, false, false, false]);
  refuses(() => untyped.contains({}), "cannot be probed");
  refuses(() => untyped.containsMany([{}]), "cannot be probed");
});

// IndexFilter: refreshes made while one is under way run after it, so that
// a slower, older answer never replaces a newer filter
{
  const older = make("int8").add(1), newer = make("int8").add(1).add(2);
  let releaseFirst;
  const answers = [
    new Promise((resolve) => (releaseFirst = () => resolve([{ stamp: "1", filter: Buffer.from(older.toBytes()) }]))),
    Promise.resolve([{ stamp: "2", filter: Buffer.from(newer.toBytes()) }]),
    Promise.resolve([{ stamp: "2", filter: null }]),
  ];
  const asked = [];
  const seen = new IndexFilter("idx", (sql, params) => {
    asked.push(params[1]);
    return answers.shift();
  });
  const first = seen.refresh(), second = seen.refresh();
  releaseFirst();
  assert.deepEqual(await Promise.all([first, second]), [true, true]);
  assert.equal(seen.stamp, "2");
  assert.ok(seen.contains(2));
  assert.equal(await seen.refresh(), false);
  assert.deepEqual(asked, [null, "1", "2"]); // each asked with the stamp of the copy before it
  assert.throws(() => new IndexFilter("idx", {}), BloomFilterError);
  passed++;
}

console.log(`write-api: ${passed} passed, 0 failed`);
