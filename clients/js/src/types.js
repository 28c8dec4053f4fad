// The SQL types a filter can be created for (BloomFilter.create's type),
// with the hash operator family whose equality the server's filter of that
// type follows (its element key), and what happens to a value on its way
// to the type, as the server converts it: int2 and int4 refuse integers
// outside their range, float4 rounds to single precision.

import { BloomFilterError } from "./format.js";
import { decimalInteger } from "./values.js";

const fail = (m) => new BloomFilterError(m);

/** What convert gives for a probe of a value the type cannot hold: never added, so never held. */
export const NEVER = Symbol("never held");

// the integer a number, bigint or string of decimal digits stands for, or
// undefined (left to the hasher, which says why it refuses it)
function integerOf(v) {
  if (typeof v === "number") return Number.isSafeInteger(v) ? BigInt(v) : undefined;
  if (typeof v === "bigint") return v;
  if (typeof v === "string") return decimalInteger(v);
  return undefined;
}

// (a value out of range: an add refuses it, as the server's input does; a
// probe answers false, since no such value was ever added)
function ranged(name, lo, hi) {
  return (v, adding) => {
    const i = integerOf(v);
    if (i !== undefined && (i < lo || i > hi)) {
      if (adding) throw fail(`${name} out of range: ${i}`);
      return NEVER;
    }
    return v;
  };
}

function toFloat4(v, adding) {
  if (typeof v !== "number") return v;
  const f = Math.fround(v);
  const bad = Number.isFinite(v) && !Number.isFinite(f) ? "overflow" : v !== 0 && f === 0 ? "underflow" : null;
  if (bad === null) return f;
  if (adding) throw fail(`${v} as real: value out of range: ${bad}`);
  return NEVER;
}

const same = (v) => v;

const TYPES = {
  int2: ["pg_catalog.integer_ops", ranged("smallint", -32768n, 32767n)],
  int4: ["pg_catalog.integer_ops", ranged("integer", -2147483648n, 2147483647n)],
  int8: ["pg_catalog.integer_ops", same],
  text: ["pg_catalog.text_ops", same],
  varchar: ["pg_catalog.text_ops", same],
  bytea: ["pg_catalog.bytea_ops", same],
  uuid: ["pg_catalog.uuid_ops", same],
  numeric: ["pg_catalog.numeric_ops", same],
  float4: ["pg_catalog.float_ops", toFloat4],
  float8: ["pg_catalog.float_ops", same],
  date: ["pg_catalog.date_ops", same],
  timestamp: ["pg_catalog.timestamp_ops", same],
  timestamptz: ["pg_catalog.timestamptz_ops", same],
  bool: ["pg_catalog.bool_ops", same],
};

// PostgreSQL's other names of those types
const ALIASES = {
  smallint: "int2", integer: "int4", int: "int4", bigint: "int8", "character varying": "varchar",
  decimal: "numeric", real: "float4", "double precision": "float8", boolean: "bool",
  "timestamp without time zone": "timestamp", "timestamp with time zone": "timestamptz",
};

/**
 * { name, family, convert } of a type name (PostgreSQL's, or one of its
 * aliases; case and surrounding spaces ignored): convert(value, adding)
 * is the value as the type holds it; for a value the type cannot hold, it
 * throws if adding (as the server's input fails), else gives NEVER.
 */
export function sqlType(type) {
  if (typeof type !== "string") throw fail(`a filter's type is a name, as "int8" or "text", not ${typeof type}`);
  const key = type.trim().toLowerCase().replace(/\s+/g, " ");
  const name = Object.hasOwn(ALIASES, key) ? ALIASES[key] : key;
  const entry = Object.hasOwn(TYPES, name) ? TYPES[name] : undefined;
  if (entry === undefined)
    throw fail(`type "${type}" is not one this library hashes (${Object.keys(TYPES).join(", ")})`);
  return { name, family: entry[0], convert: entry[1] };
}
