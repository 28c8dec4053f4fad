// pg-bloomfilter: probe a PostgreSQL bloomfilter value where the
// application runs, bit for bit as the server's bloom_contains answers,
// and write filters byte for byte as bloom_agg writes them.  The package's
// entry: BloomFilter (filter.js), IndexFilter (refresh.js),
// BloomFilterError (format.js), and other systems' filters (makers.js:
// SparkFilter, GuavaFilter, ParquetFilter, fromBloomBytes).  No module of src/ imports this one, and
// none imports another in a cycle (tests/clients/import_cycles.mjs).

export { BloomFilterError } from "./format.js";
export { BloomFilter } from "./filter.js";
export { IndexFilter } from "./refresh.js";
export { WindowFilter } from "./window.js";
export { GuavaFilter, ParquetFilter, SparkFilter, fromBloomBytes } from "./makers.js";
