// Other systems' filters (src/makers.js) against the files their makers
// wrote (the extension's tests/unit/makers/: Spark's own classes, Guava; and
// apache/parquet-testing's bloom_filter.xxhash.bin, written by parquet-mr):
// every key answered as the maker answered, and a bloom value holding one
// (as Python's pg_bloomfilter.makers writes it: bloom_import's bytes) read
// back.  Run from the extension's top folder, or with BLOOM_TOP set.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { BloomFilterError, GuavaFilter, ParquetFilter, SparkFilter, fromBloomBytes } from "../src/index.js";
import { xxh64 } from "../src/makers.js";

const top = process.env.BLOOM_TOP ?? path.join(path.dirname(new URL(import.meta.url).pathname), "..", "..", "..");
const makers = path.join(top, "tests", "unit", "makers");
const hex = (h) => Uint8Array.from(h.match(/../g) ?? [], (x) => parseInt(x, 16));

function value(kind, key) {
  if (kind === "int8" || kind === "int4") return BigInt(key);
  const raw = hex(key.slice(1));
  if (kind === "bytea") return raw;
  if (kind === "chars") {
    let s = "";
    for (let i = 0; i < raw.length; i += 2) s += String.fromCharCode(raw[i] | (raw[i + 1] << 8));
    return s;
  }
  return new TextDecoder("utf-8", { fatal: true }).decode(raw);
}

// a bloom value holding the maker's filter, as bloom_import makes it (count unknown)
function bloomBytes(layout, scheme, k, seed, elem, bits) {
  const e = new TextEncoder().encode(elem);
  const b = new Uint8Array(36 + e.length + bits.length);
  const v = new DataView(b.buffer);
  b.set([0x42, 0x4c, 0x4f, 0x4d, 1, layout, scheme, 4]);
  v.setUint16(8, k, true);
  v.setUint16(10, e.length, true);
  v.setBigUint64(12, BigInt.asUintN(64, BigInt(seed)), true);
  v.setBigUint64(20, BigInt(8 * bits.length), true);
  b.set(e, 36);
  b.set(bits, 36 + e.length);
  return b;
}

const cases = [
  ["spark-v1-long.txt", SparkFilter, "int8"],
  ["spark-v1-string.txt", SparkFilter, "text"],
  ["spark-v2-long.txt", SparkFilter, "int8"],
  ["spark-v2-string.txt", SparkFilter, "text"],
  ["spark-v2-string.txt", SparkFilter, "bytea"],
  ["spark-v2seed-long.txt", SparkFilter, "int8"],
  ["guava-long.txt", GuavaFilter, "int8"],
  ["guava-integer.txt", GuavaFilter, "int4"],
  ["guava-utf8.txt", GuavaFilter, "text"],
  ["guava-chars.txt", GuavaFilter, "chars"],
];
let answers = 0;
const refused = (fn) => assert.throws(fn, BloomFilterError);
for (const [file, cls, kind] of cases) {
  const lines = fs.readFileSync(path.join(makers, file), "utf8").trim().split("\n");
  const data = hex(lines[0].split(" ")[4]);
  const f = cls.fromBytes(data, kind);
  assert.equal(f.count, null);
  const isSpark = cls === SparkFilter;
  const g = fromBloomBytes(bloomBytes(isSpark ? 6 : 7, isSpark ? (f.version === 1 ? 2 : 3) : 4, f.k, isSpark ? f.seed : 0,
    `${isSpark ? "spark" : "guava"}:${kind}`, f.bits));
  for (const line of lines.slice(1)) {
    const [key, answer] = line.split(" ");
    const v = value(kind, key);
    assert.equal(f.mightContain(v), answer === "1", `${file} ${kind} ${key}`);
    assert.equal(g.mightContain(v), answer === "1", `${file} ${kind} ${key} (as a bloom value)`);
    answers++;
  }
}

// parquet-mr's file: its header and bitset, or the bitset alone
const pq = fs.readFileSync(path.join(makers, "parquet-testing-bloom_filter.xxhash.bin"));
for (const f of [ParquetFilter.fromBytes(pq, "text"), ParquetFilter.fromBytes(pq.subarray(16), "text"),
  fromBloomBytes(bloomBytes(8, 5, 8, 0, "parquet:text", pq.subarray(16)))]) {
  for (const s of ["hello", "parquet", "bloom", "filter"]) assert.ok(f.mightContain(s), s);
  for (const s of ["", "a", "abc", "NOT_EXISTS", "parquet_not_present"]) assert.ok(!f.mightContain(s), s);
  answers += 9;
}

// dates of years 0 to 99 (which Date.UTC would read as 1900 to 1999): a
// one-block Parquet filter holding 0001-01-01 (INT32 -719162), its bits set
// here as the spec sets them, found from a Date and from the string
{
  const SALT = [0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31];
  const bits = new Uint8Array(32);
  const enc = new Uint8Array(4);
  new DataView(enc.buffer).setInt32(0, -719162, true);
  const x = Number(xxh64(enc) & 0xffffffffn);
  for (let i = 0; i < 8; i++) {
    const bit = Math.imul(x, SALT[i]) >>> 27;
    bits[4 * i + (bit >> 3)] |= 1 << (bit & 7);
  }
  const f = new ParquetFilter("date", bits, null);
  const early = new Date(2000, 0, 1);
  early.setFullYear(1);
  assert.ok(f.mightContain(early) && f.mightContain("0001-01-01"));
  assert.ok(!f.mightContain("0002-01-01") && !f.mightContain("1901-01-01"));
  refused(() => f.mightContain("12345-1-01"));
  refused(() => f.mightContain("yesterday"));
}

// refusals, with the library's own error
refused(() => SparkFilter.fromBytes(new Uint8Array([0]), "int8"));
refused(() => SparkFilter.fromBytes(hex("00000003000000010000000000000001"), "int8"));
refused(() => GuavaFilter.fromBytes(hex("0001000000010000000000000000"), "int8"));
refused(() => ParquetFilter.fromBytes(new Uint8Array(48), "int8"));
refused(() => ParquetFilter.fromBytes(Buffer.concat([pq, Buffer.alloc(16)]), "text"));
refused(() => SparkFilter.fromBytes(hex(fs.readFileSync(path.join(makers, "spark-v1-long.txt"), "utf8").split(" ")[4]), "uuid"));
refused(() => fromBloomBytes(new Uint8Array(40)));
console.log(`makers: ${answers} answers as their makers'`);
