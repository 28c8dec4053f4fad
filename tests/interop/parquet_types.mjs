// tests/interop/parquet_types.mjs: DuckDB writes and probes Parquet filters
// of the types the harness's parquet.mjs does not (copied beside it, into
// the work folder, to find its node_modules):
//   node parquet_types.mjs write KEYS TYPE OUT.parquet   one column k, one row group, a split block filter
//   node parquet_types.mjs probe OUT.parquet TYPE KEYS   1/0 per key from parquet_bloom_probe
// TYPE: SMALLINT, DATE, TIMESTAMP, TIMESTAMPTZ, FLOAT, UUID; KEYS: one per
// line, as text DuckDB casts to TYPE (tests/interop/parquet_types.py keys).
import { DuckDBInstance } from "@duckdb/node-api";
import fs from "node:fs";

const TYPES = ["SMALLINT", "DATE", "TIMESTAMP", "TIMESTAMPTZ", "FLOAT", "UUID"];
const str = (s) => `'${String(s).replaceAll("'", "''")}'`;
const [cmd, a, b, c] = process.argv.slice(2);
const inst = await DuckDBInstance.create(":memory:");
const con = await inst.connect();
await con.run("SET threads = 1");
await con.run("SET TimeZone = 'UTC'");
if (cmd === "write" && TYPES.includes(b)) {
  const n = fs.readFileSync(a, "utf8").split("\n").length;
  const limit = Math.max(2 * n, 1024);
  const src = `read_csv(${str(a)}, columns = {'k': 'VARCHAR'}, header = false, auto_detect = false,
                        delim = '\\t', quote = '', escape = '', new_line = '\\n')`;
  await con.run(`COPY (SELECT CAST(k AS ${b}) AS k FROM ${src}) TO ${str(c)}
    (FORMAT parquet, ROW_GROUP_SIZE ${limit}, DICTIONARY_SIZE_LIMIT ${limit}, BLOOM_FILTER_FALSE_POSITIVE_RATIO 0.01)`);
  const r = await con.runAndReadAll(`SELECT bloom_filter_offset, bloom_filter_length FROM parquet_metadata(${str(c)})
    WHERE path_in_schema = 'k'`);
  const rows = r.getRows();
  if (rows.length !== 1 || rows[0][0] === null) {
    console.error(`parquet_types.mjs: no Bloom filter written for ${b}`);
    process.exit(1);
  }
} else if (cmd === "probe" && TYPES.includes(b)) {
  const keys = fs.readFileSync(c, "utf8").split("\n").filter((k) => k !== "");
  const out = [];
  for (let i = 0; i < keys.length; i += 500) {
    const parts = keys.slice(i, i + 500).map((k, j) =>
      `SELECT ${i + j} AS i, bool_and(NOT bloom_filter_excludes) AS m FROM parquet_bloom_probe(${str(a)}, 'k', CAST(${str(k)} AS ${b}))`);
    const r = await con.runAndReadAll(parts.join("\nUNION ALL\n"));
    for (const [idx, m] of r.getRows()) out[Number(idx)] = m ? "1" : "0";
  }
  process.stdout.write(out.join("\n") + (out.length ? "\n" : ""));
} else {
  console.error("usage: parquet_types.mjs write KEYS TYPE OUT.parquet | probe OUT.parquet TYPE KEYS");
  process.exit(2);
}
