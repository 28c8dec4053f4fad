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

export declare class BloomFilter {
  /**
   * From the binary form (bloom_send's bytes: a Uint8Array, Buffer or
   * ArrayBuffer) or the text form (a string).  options.wasm = false probes
   * in JavaScript even where WebAssembly is available.
   */
  static from(input: Uint8Array | ArrayBuffer | string, options?: { wasm?: boolean }): BloomFilter;
  /**
   * What answers the probes: "webassembly" (the extension's own C, compiled
   * in; the default where WebAssembly is available) or "javascript" (an
   * explicit filter; no WebAssembly here; or from(input, { wasm: false })).
   * The same answers either way.
   */
  readonly probeEngine: "webassembly" | "javascript";
  /** Whether the filter may hold value: false is certain, true means maybe (as bloom_contains answers). */
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
