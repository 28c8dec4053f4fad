// The application's side of a bloom join, with node-postgres: the
// application holds a set of keys (from a file, another service, another
// database), writes a filter of them and sends it as one bytea parameter;
// the server drops every row the filter rules out, and the application
// checks the few rows that come back against its exact set.  The filter's
// bytes are the server's own: bloom_agg of the same keys gives them.
//
//   npm install pg ./pg-bloomfilter-1.12.0.tgz
//   PGDATABASE=... node filter-parameter.cjs
const assert = require("node:assert/strict");
const { Client } = require("pg");
const { BloomFilter } = require("pg-bloomfilter");

async function main() {
  const client = new Client();
  await client.connect();
  await client.query("CREATE EXTENSION IF NOT EXISTS bloomfilter");
  await client.query("DROP TABLE IF EXISTS example_orders");
  await client.query("CREATE TABLE example_orders AS SELECT g AS id, (g * 7919) % 1000003 AS customer_id FROM generate_series(1, 200000) g");

  // the application's keys: int8 as node-postgres returns bigint columns, strings of digits
  const keys = Array.from({ length: 20000 }, (_, i) => String(i * 50));
  const wanted = new Set(keys);
  const filter = BloomFilter.create({ type: "int8", expectedItems: keys.length, falsePositiveRate: 0.01 }).addMany(keys);
  const bytes = Buffer.from(filter.toBytes());

  // byte for byte what the server writes for the same keys
  const { rows: server } = await client.query(
    "SELECT bloom_send(bloom_agg(k, $2, 0.01, 'classic')) AS f FROM unnest($1::int8[]) k", [keys, keys.length]);
  assert.deepEqual(server[0].f, bytes);

  // the server drops the rows the filter rules out; the application keeps the
  // exact matches.  The filter is the parameter itself (1.12: node-postgres
  // sends toPostgres(), its bytes, as a binary parameter)
  const { rows } = await client.query(
    "SELECT id, customer_id FROM example_orders WHERE (SELECT $1::bytea::bloom) @> customer_id", [filter]);
  // the same rows whether the server reads it as $1::bloom, $1::bytea::bloom,
  // or from its bytes as any driver sends a bytea
  for (const [sql, param] of [["$1::bloom", filter], ["$1::bytea::bloom", filter], ["$1::bytea::bloom", bytes]]) {
    const { rows: again } = await client.query(`SELECT count(*)::int AS n FROM example_orders WHERE (SELECT ${sql}) @> customer_id`, [param]);
    assert.equal(again[0].n, rows.length, `${sql} with ${param === bytes ? "a Buffer" : "the filter"}`);
  }
  const matched = rows.filter((r) => wanted.has(String(r.customer_id)));
  const { rows: exact } = await client.query(
    "SELECT count(*)::int AS n FROM example_orders WHERE customer_id = ANY($1::int8[])", [keys]);
  assert.equal(matched.length, exact[0].n); // no row lost
  console.log(`${bytes.length} bytes sent for ${keys.length} keys; ${rows.length} rows came back, ${matched.length} matched exactly`);
  await client.query("DROP TABLE example_orders");
  await client.end();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
