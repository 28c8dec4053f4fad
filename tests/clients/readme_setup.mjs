// The data the snippets of clients/js/README.md assume, as its "Use" says:
// a table users (names) with a bloomfilter index users_name_seen, a table
// orders (customer_id int8), the application's candidates (names to check)
// and keys (int8 keys, as node-postgres returns bigint columns: strings of
// digits).  tests/clients/readme_examples.py puts this before each block it
// writes out (its imports moved to the top); examples.sh runs them.
import setupPg from "pg";

const setupClient = new setupPg.Client();
await setupClient.connect();
await setupClient.query(`
  CREATE EXTENSION IF NOT EXISTS bloomfilter;
  DROP TABLE IF EXISTS users, orders;
  CREATE TABLE users (name text);
  INSERT INTO users SELECT 'user' || g FROM generate_series(1, 10000) g;
  CREATE INDEX users_name_seen ON users USING bloomfilter (name);
  CREATE TABLE orders (id int8, customer_id int8);
  INSERT INTO orders SELECT g, (g * 7919) % 100003 FROM generate_series(1, 100000) g;`);
await setupClient.end();
const candidates = ["alice", "bob", "user1", "user42", "carol", "user10001"];
const keys = Array.from({ length: 1000 }, (_, i) => String(i * 97));
