// A bloomfilter index's filter kept current in the application, with
// node-postgres: IndexFilter.refresh() asks the server whether the filter
// changed since it was fetched (bloom_index_refresh) and fetches it only
// then.  A "false" from the copy is certain as of the last refresh.
//
//   npm install pg ./pg-bloomfilter-1.12.0.tgz
//   PGDATABASE=... node index-refresh.cjs
const assert = require("node:assert/strict");
const { Client } = require("pg");
const { IndexFilter } = require("pg-bloomfilter");

async function main() {
  const client = new Client(); // the PG* environment variables
  await client.connect();
  await client.query("CREATE EXTENSION IF NOT EXISTS bloomfilter");
  await client.query("DROP TABLE IF EXISTS example_users");
  await client.query("CREATE TABLE example_users (name text)");
  await client.query("INSERT INTO example_users SELECT 'user' || g FROM generate_series(1, 100000) g");
  await client.query("CREATE INDEX example_users_seen ON example_users USING bloomfilter (name)");

  const seen = new IndexFilter("example_users_seen", client);
  assert.equal(await seen.refresh(), true); // the first call fetches
  assert.equal(seen.contains("user42"), true);
  const free = ["alice", "bob", "carol"].filter((name) => !seen.contains(name)); // certainly not taken: no round trip
  console.log(`${free.length} of 3 names certainly free, ${seen.filter.info.bytes} bytes fetched`);

  // nothing changed: one short round trip, no filter sent
  assert.equal(await seen.refresh(), false);

  // keys added on the server: the next refresh fetches them
  await client.query("INSERT INTO example_users SELECT 'late' || g FROM generate_series(1, 1000) g");
  const before = seen.filter;
  const missed = Array.from({ length: 1000 }, (_, g) => `late${g + 1}`).filter((n) => !before.contains(n)).length;
  assert.equal(await seen.refresh(), true);
  const held = Array.from({ length: 1000 }, (_, g) => `late${g + 1}`).filter((n) => seen.contains(n)).length;
  assert.equal(held, 1000);
  console.log(`after 1,000 inserts: the old copy called ${missed} of them absent, the refreshed one 0`);
  assert.equal(await seen.refresh(), false);
  await client.query("DROP TABLE example_users");
  await client.end();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
