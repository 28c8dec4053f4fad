// Types of pg-bloomfilter (src/index.js).

/** The library's one error: a value that is not a filter this library reads, or a value it cannot probe. */
export declare class BloomFilterError extends Error {
  name: "BloomFilterError";
}

/** What bloom_info reports of a filter. */
export interface FilterInfo {
  layout: "classic" | "counting4" | "blocked512" | "explicit" | "layered";
  /** m: bits, counters (counting4) or hashes (explicit) */
  nbits: number;
  /** k; null for a layered filter, whose layers each have their own */
  nhashes: number | null;
  /** the value's size as the server stores it (with its 4-byte header) */
  bytes: number;
  valuesAdded: bigint;
  bitsSet: number;
  /** null for an explicit filter */
  fillRatio: number | null;
  estimatedDistinct: number;
  estimatedFpp: number;
  /** the hash operator family of the values, as "pg_catalog.integer_ops"; null while none was added */
  elementFamily: string | null;
  seed: bigint;
  hashScheme: number;
  /** a partial state's target rate, if it carries one */
  targetFpp: number | null;
}

/**
 * A value to probe.  integer_ops: number (an integer) or bigint; numeric:
 * a decimal string, number or bigint; float_ops: number; text_ops: string;
 * bytea_ops: Uint8Array (or Buffer); uuid_ops: string; date_ops: Date (its
 * local calendar date) or "YYYY-MM-DD"; timestamp_ops: Date (its local wall
 * clock) or "YYYY-MM-DD HH:MM:SS.ffffff"; timestamptz_ops: Date or the same
 * with a zone; dates and timestamps also "infinity" and "-infinity";
 * bool_ops: boolean.  null and undefined are never held.
 */
export type Probe = number | bigint | string | boolean | Date | Uint8Array | null | undefined;

/**
 * The SQL types a filter is created for (PostgreSQL's names; create also
 * takes their aliases: bigint, integer, smallint, real, double precision,
 * boolean, character varying, timestamp with(out) time zone, decimal).
 */
export type SqlType =
  | "int2" | "int4" | "int8" | "text" | "varchar" | "bytea" | "uuid" | "numeric"
  | "float4" | "float8" | "date" | "timestamp" | "timestamptz" | "bool";

export interface CreateOptions {
  /** The SQL type whose equality the filter follows (its values' hash family). */
  type: SqlType | string;
  /** The number of distinct values the filter is sized for (bloom_agg's expected_n): an integer >= 1. */
  expectedItems: number | bigint;
  /** The false-positive rate at expectedItems values (bloom_agg's fpp); 0.01 by default. */
  falsePositiveRate?: number;
  /** "classic" (the default) or "blocked" (= "blocked512": one cache line per probe). */
  layout?: "classic" | "blocked" | "blocked512";
  /** false: probe in JavaScript even where WebAssembly is available. */
  wasm?: boolean;
}

export declare class BloomFilter {
  /**
   * An empty filter sized as the server's bloom_agg(v, expectedItems,
   * falsePositiveRate, layout): the same values added give the same bytes.
   */
  static create(options: CreateOptions): BloomFilter;
  /** The SQL type a created filter holds (its canonical name); null for a filter read with from. */
  readonly type: SqlType | null;
  /**
   * Adds value, as bloom_add does (null and undefined are skipped).  A
   * created filter converts it to its type first (int2/int4 refuse values
   * out of range, float4 rounds); an int8 number past 2^53 - 1 is refused
   * (give a bigint or a string of digits).  A filter read takes adds if
   * classic, blocked512 or counting4; explicit and layered filters throw.
   */
  add(value: Probe): this;
  /** add(v) for each v of values; a value refused throws, the values before it stay added. */
  addMany(values: Iterable<Probe>): this;
  /** The binary form, bloom_send's bytes: for BloomFilter.from, bloom_recv, or a bytea parameter read as $1::bytea::bloom. */
  toBytes(): Uint8Array;
  /**
   * What node-postgres sends for the filter as a query parameter (1.12): the
   * binary form, toBytes(), sent as a binary parameter, read by the server
   * as $1::bloom and $1::bytea::bloom alike ($1::counting_bloom for a
   * counting4 filter).  Not $1::text::bloom; a bare $1 needs one of those
   * casts.
   */
  toPostgres(): Uint8Array;
  /** The text form, as SELECT f::text prints it. */
  toString(): string;
  /**
   * A new filter holding both filters' values, as the server's f | g (the
   * same shape and family, or one side empty).  It has a type if both sides
   * have the same one; two different types throw.
   */
  union(other: BloomFilter): BloomFilter;
  /**
   * From the binary form (bloom_send's bytes: a Uint8Array, Buffer or
   * ArrayBuffer) or the text form (a string).  options.wasm = false probes
   * in JavaScript even where WebAssembly is available; options.type (as
   * create's) converts values to that SQL type as a created filter does
   * (the forms carry the values' family, not their type).
   */
  static from(input: Uint8Array | ArrayBuffer | string, options?: { wasm?: boolean; type?: SqlType | string }): BloomFilter;
  /**
   * What answers the probes: "webassembly" (the extension's own C, compiled
   * in; the default where WebAssembly is available) or "javascript" (an
   * explicit filter; no WebAssembly here; or from(input, { wasm: false })).
   * The same answers either way.
   */
  readonly probeEngine: "webassembly" | "javascript";
  /**
   * Whether the filter may hold value: false is certain, true means maybe (as
   * bloom_contains answers).  Throws BloomFilterError for a value the filter
   * refuses (another family's, an int8 number past 2^53 - 1); since 1.12 an
   * empty filter of a type refuses the same values as one holding values.
   */
  contains(value: Probe): boolean;
  /**
   * contains(v) for each v of values (an array, a typed array or another
   * iterable; not one string or Uint8Array value alone, which throws), in
   * order.  The same answers; faster on a
   * filter larger than the processor's caches, whose blocks a batch fetches
   * from memory together.
   */
  containsMany(values: Iterable<Probe>): boolean[];
  /** Whether the filter may hold the value whose 64-bit hash, with the filter's seed, is [hi, lo] (uint32 halves). */
  containsHash(hi: number, lo: number): boolean;
  readonly info: FilterInfo;
}

/** What bloom_window_info reports of a window filter. */
export interface WindowInfo {
  /** slices each value is written to */
  hashes: number;
  /** the window: the current generation and generations - 1 before it */
  generations: number;
  slices: number;
  sliceBits: number;
  capacity: bigint;
  generation: bigint;
  /** microseconds per generation, or null for generations advanced by hand */
  generationLength: bigint | null;
  valuesAdded: bigint;
  valuesInWindow: bigint;
  estimatedFpp: number;
  elementFamily: string | null;
}

/** A time: a Date, or a bigint of microseconds from 2000-01-01 00:00 UTC (PostgreSQL's epoch). */
export type WindowTime = Date | bigint;

/**
 * A window filter (bloom_window's, 1.12): an age-partitioned Bloom filter
 * whose values fade after a window of generations, byte for byte the
 * server's.
 */
export declare class WindowFilter {
  /** Reads the binary or text form (BloomFilterError for another layout, or a malformed value). */
  /** options.wasm = false probes in JavaScript even where WebAssembly is available (the same answers). */
  static from(input: Uint8Array | string, options?: { type?: string; wasm?: boolean }): WindowFilter;
  /**
   * An empty one, as bloom_window(capacity, falsePositiveRate, generations
   * [, generationLength, at]) makes it (generationLength in microseconds).
   */
  static create(options: {
    type: string;
    capacity: number | bigint;
    falsePositiveRate?: number;
    generations?: number;
    generationLength?: bigint | number;
    at?: WindowTime;
    wasm?: boolean;
  }): WindowFilter;
  /** "webassembly" (the core's scan; a filter of 64 kB or more) or "javascript": what answers its probes. */
  readonly probeEngine: "webassembly" | "javascript";
  /** Whether the value may have been added within the window; false is certain. */
  contains(value: Probe): boolean;
  /**
   * Adds the value in the current generation, or (generations that are
   * times) in at's generation (a Date is exact to the millisecond, a bigint
   * of microseconds exactly); a null time adds nothing, as SQL's NULL.
   */
  add(value: Probe, at?: WindowTime | null): this;
  /** Moves on by a number of generations (1), or (generations that are times) to a time's generation. */
  advance(by?: number | WindowTime): this;
  /** Both filters' values, at the later generation. */
  union(other: WindowFilter): WindowFilter;
  toBytes(): Uint8Array;
  toPostgres(): Uint8Array;
  toString(): string;
  readonly info: WindowInfo;
}

/**
 * A bloomfilter index's filter, kept current through the server's
 * bloom_index_refresh(index, known): refresh() asks whether the filter
 * changed since it was fetched and fetches it only then.
 */
export declare class IndexFilter {
  /**
   * index: the index's name; db: a node-postgres Client or Pool (query(sql,
   * params) resolving to { rows }), or a function (sql, params) => rows.
   */
  constructor(
    index: string,
    db: { query(sql: string, params: unknown[]): Promise<{ rows: any[] }> } | ((sql: string, params: unknown[]) => Promise<any[]>),
    options?: { wasm?: boolean },
  );
  /** Fetches the filter if it changed since the last fetch (always the first time); true if it did. */
  refresh(): Promise<boolean>;
  /** The filter as last fetched. */
  readonly filter: BloomFilter;
  /** Its stamp (a decimal string), or null before the first refresh. */
  readonly stamp: string | null;
  /** filter.contains(value). */
  contains(value: Probe): boolean;
}

/**
 * How a value becomes the bytes another system's filter hashed (the
 * server's element key without its maker): Spark "int8" (putLong), "text"
 * (putString), "bytea" (putBinary); Guava "int8", "int4", "text", "chars"
 * (unencodedCharsFunnel), "bytea"; Parquet's plain encodings "int4", "int8",
 * "date", "timestamp", "timestamptz", "float4", "float8", "text", "bytea",
 * "uuid".
 */
export type MakerType =
  | "int8" | "int4" | "text" | "chars" | "bytea" | "date" | "timestamp" | "timestamptz"
  | "float4" | "float8" | "uuid";

/**
 * A value to probe in another system's filter: integers as number or
 * bigint; float4/float8 number; text/chars string; bytea Uint8Array; uuid
 * string; date Date (its local calendar date) or "YYYY-MM-DD"; timestamp
 * Date (its local wall clock); timestamptz Date.
 */
export type MakerValue = number | bigint | string | Date | Uint8Array;

declare abstract class MakerFilter {
  readonly type: MakerType;
  readonly k: number;
  readonly bits: Uint8Array;
  /** values added; null when unknown (read from a maker's bytes) */
  readonly count: bigint | null;
  readonly nbits: number;
  /** false: the maker's filter certainly does not hold the value; true: it may (as the maker answers). */
  mightContain(value: MakerValue): boolean;
}

/** Apache Spark's BloomFilter (versions 1 and 2), as BloomFilter.writeTo wrote it. */
export declare class SparkFilter extends MakerFilter {
  readonly version: 1 | 2;
  readonly seed: number;
  static fromBytes(bytes: Uint8Array | ArrayBuffer, type: "int8" | "text" | "bytea"): SparkFilter;
}

/** Guava's BloomFilter (MURMUR128_MITZ_64), as writeTo wrote it; type names its funnel. */
export declare class GuavaFilter extends MakerFilter {
  static fromBytes(bytes: Uint8Array | ArrayBuffer, type: "int8" | "int4" | "text" | "chars" | "bytea"): GuavaFilter;
}

/** Parquet's split block Bloom filter: a file's Thrift header and bitset, or the bitset alone. */
export declare class ParquetFilter extends MakerFilter {
  static fromBytes(bytes: Uint8Array | ArrayBuffer, type: Exclude<MakerType, "chars">, bitsetOnly?: boolean): ParquetFilter;
}

/** The other system's filter a bloom value holds (bloom_send's bytes of one bloom_import read, or bloom_agg built). */
export declare function fromBloomBytes(bytes: Uint8Array | ArrayBuffer): SparkFilter | GuavaFilter | ParquetFilter;
