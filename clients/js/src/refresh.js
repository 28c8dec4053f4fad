// A bloomfilter index's filter, kept current where the application runs:
// the server's bloom_index_refresh(index, known) sends the filter with a
// stamp of its bytes, or only the stamp when the copy's stamp is still the
// index's, so that a check costs one short round trip and the filter
// crosses the network only when it changed.

import { BloomFilterError } from "./format.js";
import { BloomFilter } from "./filter.js";

const SQL = "SELECT stamp::text AS stamp, bloom_send(filter) AS filter FROM bloom_index_refresh($1::regclass, $2::bigint)";

// bytea as drivers return it: a Buffer or Uint8Array (node-postgres), or
// the text form "\x0a1b..." (a driver that parses no types)
function bytesOf(v) {
  if (v instanceof Uint8Array) return v;
  if (typeof v === "string" && v.startsWith("\\x")) return Uint8Array.from(v.slice(2).match(/../g) ?? [], (h) => parseInt(h, 16));
  throw new BloomFilterError(`bloom_index_refresh returned a filter as ${typeof v}, not bytes`);
}

export class IndexFilter {
  #index;
  #query;
  #stamp = null;
  #filter = null;
  #options;
  #last = Promise.resolve(); // the refresh under way: each waits for the one before

  /**
   * The filter of bloomfilter index `index` (its name, as regclass reads
   * it), fetched through `db`: a node-postgres Client or Pool (anything
   * whose query(sql, params) resolves to { rows }), or a function
   * (sql, params) => rows (an array of objects), for another driver.
   * Nothing is fetched until refresh().  options: BloomFilter.from's.
   */
  constructor(index, db, options = undefined) {
    if (typeof index !== "string") throw new BloomFilterError("IndexFilter takes the index's name as a string");
    if (typeof db === "function") this.#query = db;
    else if (db !== null && typeof db === "object" && typeof db.query === "function")
      this.#query = async (sql, params) => (await db.query(sql, params)).rows;
    else throw new BloomFilterError("IndexFilter takes a node-postgres Client or Pool, or a function (sql, params) => rows");
    this.#index = index;
    this.#options = options;
  }

  /**
   * Asks the server whether the index's filter changed since this copy was
   * fetched, and fetches it only then (the first call always fetches).
   * Resolves to true if a new filter was fetched.  Calls made while one is
   * under way run after it, in order.
   */
  refresh() {
    // one at a time: a slower, older answer must not replace a newer filter
    const next = this.#last.then(() => this.#refreshOnce());
    this.#last = next.catch(() => {});
    return next;
  }

  async #refreshOnce() {
    const rows = await this.#query(SQL, [this.#index, this.#stamp]);
    if (!Array.isArray(rows) || rows.length !== 1) throw new BloomFilterError("bloom_index_refresh returned no row");
    const { stamp, filter } = rows[0];
    if (filter === null || filter === undefined) {
      if (this.#filter === null) throw new BloomFilterError("bloom_index_refresh sent no filter on the first call");
      return false;
    }
    this.#filter = BloomFilter.from(bytesOf(filter), this.#options);
    this.#stamp = String(stamp);
    return true;
  }

  /** The filter as last fetched (refresh() first). */
  get filter() {
    if (this.#filter === null) throw new BloomFilterError("no filter yet: await refresh() first");
    return this.#filter;
  }

  /** The stamp of the filter as last fetched (a decimal string), or null. */
  get stamp() {
    return this.#stamp;
  }

  /** filter.contains(value): false is certain as of the last refresh. */
  contains(value) {
    return this.filter.contains(value);
  }
}
