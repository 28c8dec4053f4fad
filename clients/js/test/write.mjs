// Filters written here, byte for byte the server's: BLOOM_VECTORS names
// files made by tests/clients/vectors.sql (colon-separated), BLOOM_SIZING
// one made by tests/clients/sizing.sql.  For every type and both layouts,
// BloomFilter.create with bloom_agg's parameters, then the added values,
// gives bloom_send's bytes and the text form (added all at once, one by
// one in reverse order, and in two halves joined by union); every filter
// the server wrote comes back from toBytes and toString as it was sent;
// a derived filter takes an add and a union as the server's does; and
// create sizes every case of BLOOM_SIZING as the server does.  Exits
// non-zero at the first difference.
import { createReadStream, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { BloomFilter } from "../src/index.js";
import { sizeFor } from "../src/sizing.js";

// the values' text forms as an application holds them: int8 alternately
// as a bigint and as a string of digits (node-pg's), float4 as the double
// its text reads as (the filter rounds it to single precision)
const convert = {
  int2: Number, int4: Number, int8: (t, i) => (i % 2 ? BigInt(t) : t), text: String, varchar: String,
  bytea: (t) => Uint8Array.from(t.match(/../g) || [], (h) => parseInt(h, 16)),
  uuid: String, numeric: String, float4: parseFloat, float8: parseFloat,
  date: String, timestamp: String, timestamptz: String, bool: (t) => t === "true",
};

const hex = (bytes) => Buffer.from(bytes).toString("hex");
let checked = 0;

function expectSame(where, got, want) {
  if (got !== want) throw new Error(`${where}:\n  here   ${got.slice(0, 200)}\n  server ${want.slice(0, 200)}`);
  checked++;
}

for (const name of (process.env.BLOOM_VECTORS || "").split(":").filter(Boolean)) {
  const lines = createInterface({ input: createReadStream(name), crlfDelay: Infinity });
  for await (const line of lines) {
    const c = JSON.parse(line);
    const values = c.values.map((t, i) => convert[c.type](t, i));
    const added = values.slice(0, c.added);
    const byName = Object.fromEntries(c.filters.map((f) => [f.name, f]));
    for (const layout of ["classic", "blocked512"]) {
      const want = byName[layout];
      const make = () => BloomFilter.create({ type: c.type, expectedItems: c.added, falsePositiveRate: 0.01, layout });
      const where = `${name}: ${c.type} ${layout}`;
      const all = make().addMany(added);
      expectSame(`${where} (addMany)`, hex(all.toBytes()), want.hex);
      expectSame(`${where} (text)`, all.toString(), want.text);
      const one = make();
      for (let i = added.length - 1; i >= 0; i--) one.add(added[i]);
      expectSame(`${where} (add, in reverse)`, hex(one.toBytes()), want.hex);
      const half = added.length >> 1;
      const joined = make().addMany(added.slice(0, half)).union(make().addMany(added.slice(half)));
      expectSame(`${where} (two halves' union)`, hex(joined.toBytes()), want.hex);
      expectSame(`${where} (union with an empty filter)`, hex(make().union(all).toBytes()), want.hex);
      // every added value held, by the filter written (probed in WebAssembly)
      if (all.containsMany(added).some((held) => !held)) throw new Error(`${where}: an added value is not held`);
    }
    // every filter the server wrote, sent back as it came
    for (const f of c.filters) {
      const read = BloomFilter.from(Uint8Array.from(Buffer.from(f.hex, "hex")));
      expectSame(`${name}: ${c.type} ${f.name} (toBytes)`, hex(read.toBytes()), f.hex);
      expectSame(`${name}: ${c.type} ${f.name} (toString)`, read.toString(), f.text);
    }
    // a derived filter takes an add (its bound and estimate grow) and a union as the server's
    // (a filter read has no type: a float4 value comes as the double it is)
    const absent = c.type === "float4" ? Math.fround(values[c.added]) : values[c.added];
    const derived = () => BloomFilter.from(Uint8Array.from(Buffer.from(byName.derived.hex, "hex")));
    const wide = BloomFilter.from(byName.classic_wide.text);
    expectSame(`${name}: ${c.type} derived, one value added`, hex(derived().add(absent).toBytes()), byName.derived_added.hex);
    expectSame(`${name}: ${c.type} derived | classic`, hex(derived().union(wide).toBytes()), byName.derived_union.hex);
    // a counting filter read, its values added again: every counter up by its count (stopping at 15), n doubled
    const counting = BloomFilter.from(byName.counting4.text).addMany(c.type === "float4" ? added.map(Math.fround) : added);
    const twice = BloomFilter.from(byName.counting4.text);
    if (counting.info.valuesAdded !== 2n * BigInt(c.added)) throw new Error(`${c.type} counting4: n ${counting.info.valuesAdded}`);
    expectSame(`${name}: ${c.type} counting4 added twice`, hex(counting.toBytes()), hex(twice.union(twice).toBytes()));
  }
}

let sized = 0;
let created = 0;
if (process.env.BLOOM_SIZING) {
  for (const line of readFileSync(process.env.BLOOM_SIZING, "utf8").split("\n").filter(Boolean)) {
    const c = JSON.parse(line);
    // create's sizing, without allocating the filters (some are hundreds of
    // megabytes); create itself for the cases of up to 100,000 values
    const { m, k } = sizeFor(c.layout, c.n, c.fpp);
    if (m !== c.m || k !== c.k)
      throw new Error(`sizing n=${c.n} fpp=${c.fpp} ${c.layout}: here m=${m} k=${k}, server m=${c.m} k=${c.k}`);
    if (c.n <= 100000) {
      const { nbits, nhashes } = BloomFilter.create({ type: "int8", expectedItems: c.n, falsePositiveRate: c.fpp, layout: c.layout }).info;
      if (nbits !== c.m || nhashes !== c.k)
        throw new Error(`create n=${c.n} fpp=${c.fpp} ${c.layout}: here m=${nbits} k=${nhashes}, server m=${c.m} k=${c.k}`);
      created++;
    }
    sized++;
  }
}
if (checked === 0) { console.log("write: no vectors (set BLOOM_VECTORS)"); process.exit(1); }
console.log(`write: ${checked} filters byte for byte the server's, ${sized} sizes (${created} of them by create)`);
