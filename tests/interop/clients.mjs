// tests/interop/clients.mjs DIR COUNT: the JavaScript library
// (SparkFilter, GuavaFilter, ParquetFilter) reads each filter the makers
// wrote in DIR (tests/interop/run.sh) and answers the first COUNT keys of
// each set as the maker answered.  Prints a line per file; exits 1 on any
// disagreement.
import fs from "node:fs";
import { GuavaFilter, ParquetFilter, SparkFilter } from "../../clients/js/src/index.js";

const [dir, countArg] = process.argv.slice(2);
const count = Number(countArg);
const cases = [
  ["guava_long.bin", GuavaFilter, "int8", "int"], ["guava_integer.bin", GuavaFilter, "int4", "int"],
  ["guava_utf8.bin", GuavaFilter, "text", "txt"], ["guava_chars.bin", GuavaFilter, "chars", "txt"],
  ["spark_v1_long.bin", SparkFilter, "int8", "int"], ["spark_v1_string.bin", SparkFilter, "text", "txt"],
  ["spark_v1_binary.bin", SparkFilter, "bytea", "txt"], ["spark_v2_long.bin", SparkFilter, "int8", "int"],
  ["spark_v2_string.bin", SparkFilter, "text", "txt"], ["spark_v2_binary.bin", SparkFilter, "bytea", "txt"],
  ["duckdb_BIGINT.sbbf", ParquetFilter, "int8", "int"], ["duckdb_INTEGER.sbbf", ParquetFilter, "int4", "int"],
  ["duckdb_DOUBLE.sbbf", ParquetFilter, "float8", "int"], ["duckdb_VARCHAR.sbbf", ParquetFilter, "text", "txt"],
  ["duckdb_BLOB.sbbf", ParquetFilter, "bytea", "txt"],
  ["duckdb_SMALLINT.sbbf", ParquetFilter, "int4", "SMALLINT"], ["duckdb_DATE.sbbf", ParquetFilter, "date", "DATE"],
  ["duckdb_FLOAT.sbbf", ParquetFilter, "float4", "FLOAT"], ["duckdb_UUID.sbbf", ParquetFilter, "uuid", "UUID"],
  // (TIMESTAMP and TIMESTAMPTZ: their keys have microseconds, which a JavaScript Date does not hold)
];
const enc = new TextEncoder();
const value = (kind, line) =>
  kind === "int8" || kind === "int4" ? BigInt(line)
  : kind === "float8" || kind === "float4" ? Number(line)
  : kind === "bytea" ? enc.encode(line)
  : line; // text, chars, date ("YYYY-MM-DD"), uuid
const lines = (file) => fs.readFileSync(file, "utf8").split("\n").slice(0, count);
let status = 0;
for (const [name, cls, kind, keys] of cases) {
  const f = cls.fromBytes(fs.readFileSync(`${dir}/${name}`), kind);
  let agreed = 0;
  let total = 0;
  for (const s of ["in", "out"]) {
    const ks = lines(`${dir}/keys/${keys}_${s}.txt`);
    const as = lines(`${dir}/${name}.${s}`);
    for (let i = 0; i < ks.length && ks[i] !== "" && as[i] !== undefined && as[i] !== ""; i++) {
      total++;
      if (f.mightContain(value(kind, ks[i])) === (as[i] === "1")) agreed++;
    }
  }
  // (every key: a short file of keys or answers must not shrink the check)
  const ok = agreed === total && total === 2 * count;
  if (!ok) status = 1;
  console.log(`  ${name}: ${agreed} of ${total} keys answered as the maker${ok ? "" : " (FAILED)"}`);
}
process.exit(status);
