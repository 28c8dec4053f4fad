// JavaScript values hashed as PostgreSQL hashes the SQL values they stand
// for.  A filter's element key names the hash operator family that hashed
// its values; a value is hashed by that family's function for its SQL type,
// and refused (BloomFilterError) where the family is not one its type
// belongs to, as the server refuses a probe of another family.  Membership
// follows SQL equality: 1 and 1n (int2, int4, int8) are one key, "1.0" and
// "1.00" (numeric) one key, -0 and 0 one key, every NaN one key.

import { BloomFilterError } from "./format.js";
import * as H from "./pghash.js";

const INTEGER_OPS = "pg_catalog.integer_ops", NUMERIC_OPS = "pg_catalog.numeric_ops", FLOAT_OPS = "pg_catalog.float_ops";
const TEXT_OPS = "pg_catalog.text_ops", BYTEA_OPS = "pg_catalog.bytea_ops", UUID_OPS = "pg_catalog.uuid_ops";
const DATE_OPS = "pg_catalog.date_ops", TIMESTAMP_OPS = "pg_catalog.timestamp_ops", TIMESTAMPTZ_OPS = "pg_catalog.timestamptz_ops";
const BOOL_OPS = "pg_catalog.bool_ops";

const INT64_MIN = -(1n << 63n), INT64_MAX = (1n << 63n) - 1n;
const utf8 = new TextEncoder();
const fail = (m) => new BloomFilterError(m);

function int8Halves(v) {
  if (v < INT64_MIN || v > INT64_MAX) throw fail(`${v} is out of range for an integer key (bigint)`);
  const u = BigInt.asUintN(64, v);
  return [Number(u >> 32n), Number(u & 0xffffffffn)];
}

const SAFE = 9007199254740991n;

// A number past 2^53 - 1 may already be another integer than the one meant
// (Number("9007199254740993") is 9007199254740992): refused, never hashed.
// An int8 that large comes as a bigint or as a string of decimal digits,
// which is read exactly (node-pg returns bigint columns as such strings).
// (spaces as PostgreSQL's isspace: ASCII only, not JavaScript's \s)
const DECIMAL = /^[ \t\n\v\f\r]*([+-]?[0-9]+)[ \t\n\v\f\r]*$/;

/** The integer a string of decimal digits (a sign, spaces around) stands for, exactly; else undefined. */
export function decimalInteger(v) {
  const m = DECIMAL.exec(v);
  return m === null ? undefined : BigInt(m[1]);
}

function hashInteger(v, sh, sl) {
  // a bigint of a safe size takes the number path: no 64-bit BigInt arithmetic
  if (typeof v === "bigint" && v >= -SAFE && v <= SAFE) v = Number(v);
  if (typeof v === "number") {
    if (!Number.isInteger(v)) throw fail(`${v} is not an integer: an integer filter holds int2, int4 or int8 values`);
    if (!Number.isSafeInteger(v))
      throw fail(
        `${v} is past Number.MAX_SAFE_INTEGER (2^53 - 1), where a number may already have been rounded: give an int8 this large as a bigint or as a string of decimal digits`,
      );
    // int4 range: the int8 hash of a value in it is its int4 hash
    if (v >= -2147483648 && v <= 2147483647) return H.hashInt4(v, sh, sl);
    const hi = Math.floor(v / 4294967296);
    return H.hashInt8(hi | 0, (v - hi * 4294967296) | 0, sh, sl);
  }
  const [hi, lo] = int8Halves(v);
  return H.hashInt8(hi, lo, sh, sl);
}

// a string of decimal digits (a sign, spaces around), read exactly; nothing else
function hashIntegerText(v, sh, sl) {
  const i = decimalInteger(v);
  if (i === undefined)
    throw fail(`"${v}" is not an integer: an integer filter takes a string only of decimal digits (a sign and spaces around allowed)`);
  return hashInteger(i, sh, sl);
}

function hashNumeric(v, sh, sl) {
  let text;
  if (typeof v === "string") text = v;
  else if (typeof v === "bigint") text = v.toString();
  else if (Number.isNaN(v)) text = "NaN";
  else if (!Number.isFinite(v)) text = v > 0 ? "Infinity" : "-Infinity";
  else text = String(v); // the shortest decimal that reads back as v (may have an exponent)
  const h = H.hashNumeric(text, sh, sl);
  if (h === undefined) throw fail(`"${text}" is not a numeric value`);
  if (h === H.NUMERIC_OUT_OF_RANGE)
    throw fail(`"${text.slice(0, 40)}" is out of range for a numeric key: numeric holds at most 16383 digits after the point, values under 10^131072, exponents under 2^30 - 1`);
  return h;
}

function hashFloat(v, sh, sl) {
  return H.hashFloat8(v, sh, sl);
}

// UTF-8 of the text probed, written into one buffer (no allocation per probe)
let scratch = new Uint8Array(256);
const SURROGATE = /[\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function hashText(v, sh, sl) {
  if (v.includes("\u0000")) throw fail("text cannot hold the character NUL (0x00), as in PostgreSQL");
  if (SURROGATE.test(v) && LONE_SURROGATE.test(v)) throw fail("text holds a lone surrogate, which UTF-8 cannot encode");
  if (v.length * 3 > scratch.length) scratch = new Uint8Array(v.length * 3);
  const { written } = utf8.encodeInto(v, scratch);
  return H.hashBytes(scratch, sh, sl, written);
}

function hashBytea(v, sh, sl) {
  return H.hashBytes(v, sh, sl);
}

// uuid_in's rules (string_to_uuid): an optional "{", 32 hex digits of
// either case, a "-" allowed after any group of four but the last, "}" if
// and only if "{" opened, and nothing else (no spaces, no "urn:uuid:")
// (a hex digit's value from its character code, else -1: no slice, no
// regular expression, per digit; probes of many UUIDs spend their time here)
function hexDigit(code) {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

function uuidBytes(v) {
  const bytes = new Uint8Array(16);
  let at = 0;
  const braces = v[0] === "{";
  if (braces) at++;
  for (let i = 0; i < 16; i++) {
    // (charCodeAt past the end is NaN: not a digit)
    const hi = hexDigit(v.charCodeAt(at)), lo = hexDigit(v.charCodeAt(at + 1));
    if (hi < 0 || lo < 0) return null;
    bytes[i] = (hi << 4) | lo;
    at += 2;
    if (v[at] === "-" && i % 2 === 1 && i < 15) at++;
  }
  if (braces) {
    if (v[at] !== "}") return null;
    at++;
  }
  return at === v.length ? bytes : null;
}

function hashUuid(v, sh, sl) {
  const bytes = uuidBytes(v);
  if (bytes === null) throw fail(`"${v}" is not a uuid (invalid input syntax for type uuid)`);
  return H.hashBytes(bytes, sh, sl);
}

const PG_EPOCH_MS = Date.UTC(2000, 0, 1);

// days from 2000-01-01 of the calendar date y-m-d (proleptic Gregorian,
// year 0 = 1 BC), by integer arithmetic: PostgreSQL's dates reach years
// JavaScript's Date does not (H. Hinnant's days_from_civil)
function daysOf(y, m, d) {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468 - 10957;
}

// PostgreSQL's limits: dates from 4713-11-24 BC (Julian day 0) to
// 5874897-12-31, timestamps from 4713-11-24 BC to 294276-12-31 (UTC for
// timestamptz), as days and microseconds from 2000-01-01
const DATE_MIN = -2451545, DATE_END = 2147483494 - 2451545;
const TIMESTAMP_MIN = -211813488000000000n, TIMESTAMP_END = 9223371331200000000n;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// days from 2000-01-01 of a calendar date the server accepts; else throws
function calendarDays(y, m, d, text, what) {
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (m < 1 || m > 12 || d < 1 || d > MONTH_DAYS[m - 1] + (m === 2 && leap ? 1 : 0))
    throw fail(`"${text}" is not a ${what}: date/time field value out of range`);
  return daysOf(y, m, d);
}

function parseDateText(v) {
  const m = /^(\d{4,7})-(\d{2})-(\d{2})( BC)?$/.exec(v);
  if (m === null) throw fail(`"${v}" is not a date (YYYY-MM-DD, or 'infinity' or '-infinity')`);
  let y = parseInt(m[1], 10);
  if (m[4]) y = 1 - y; // 1 BC is year 0
  const days = calendarDays(y, parseInt(m[2], 10), parseInt(m[3], 10), v, "date");
  if (days < DATE_MIN || days >= DATE_END) throw fail(`"${v}" is out of range for type date`);
  return days;
}

function hashDate(v, sh, sl) {
  let days;
  if (v === "infinity") days = 0x7fffffff;
  else if (v === "-infinity") days = -0x80000000;
  else if (typeof v === "string") days = parseDateText(v);
  else {
    // a Date: its calendar date where the application runs, as node-postgres reads a date
    if (Number.isNaN(v.getTime())) throw fail("an invalid Date is not a date");
    days = daysOf(v.getFullYear(), v.getMonth() + 1, v.getDate());
    if (days < DATE_MIN) throw fail(`${v.toISOString()} is out of range for type date`);
  }
  return H.hashInt4(days, sh, sl);
}

// microseconds from 2000-01-01 00:00 (UTC for timestamptz) of a timestamp's text
function parseTimestampText(v, withZone) {
  const m = /^(\d{4,6})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(Z|[+-]\d{2}(?::?\d{2})?(?::\d{2})?)?( BC)?$/.exec(v);
  if (m === null) throw fail(`"${v}" is not a ${withZone ? "timestamptz" : "timestamp"} (ISO 8601 with up to 6 fractional digits, or 'infinity' or '-infinity')`);
  if (withZone !== (m[8] !== undefined))
    throw fail(withZone ? `"${v}" has no time zone; this filter holds timestamptz values` : `"${v}" has a time zone; this filter holds timestamps without one`);
  let y = parseInt(m[1], 10);
  if (m[9]) y = 1 - y;
  const what = withZone ? "timestamptz" : "timestamp";
  const days = calendarDays(y, parseInt(m[2], 10), parseInt(m[3], 10), v, what);
  const [hh, mi, ss] = [m[4], m[5], m[6]].map((x) => parseInt(x, 10));
  // (24:00:00 is the next midnight, and second 60 the next minute, as PostgreSQL reads them)
  if (mi > 59 || ss > 60 || hh > 24 || (hh === 24 && (mi > 0 || ss > 0 || /[1-9]/.test(m[7] || ""))))
    throw fail(`"${v}" is not a ${what}: date/time field value out of range`);
  const micros = parseInt((m[7] || "").padEnd(6, "0"), 10);
  let offset = 0;
  if (m[8] && m[8] !== "Z") {
    const z = /^([+-])(\d{2}):?(\d{2})?(?::(\d{2}))?$/.exec(m[8]);
    offset = parseInt(z[2], 10) * 3600 + parseInt(z[3] || "0", 10) * 60 + parseInt(z[4] || "0", 10);
    if (z[1] === "-") offset = -offset;
  }
  // the seconds in a Number (exact: under 2^43 for any date the server
  // takes), the microseconds in a BigInt (they pass 2^53)
  const seconds = days * 86400 + hh * 3600 + mi * 60 + ss - offset;
  return BigInt(seconds) * 1000000n + BigInt(micros);
}

function hashTimestampLike(v, sh, sl, withZone) {
  let us;
  if (v === "infinity") us = INT64_MAX;
  else if (v === "-infinity") us = INT64_MIN;
  else if (typeof v === "string") us = parseTimestampText(v, withZone);
  else if (Number.isNaN(v.getTime())) throw fail(`an invalid Date is not a ${withZone ? "timestamptz" : "timestamp"}`);
  else if (withZone) us = BigInt(v.getTime() - PG_EPOCH_MS) * 1000n; // an instant
  else {
    // a timestamp without time zone: the Date's wall-clock time where the application runs (node-postgres's reading)
    const days = BigInt(daysOf(v.getFullYear(), v.getMonth() + 1, v.getDate()));
    const ms = BigInt(((v.getHours() * 60 + v.getMinutes()) * 60 + v.getSeconds()) * 1000 + v.getMilliseconds());
    us = days * 86400000000n + ms * 1000n;
  }
  if (typeof v !== "string" || (v !== "infinity" && v !== "-infinity"))
    if (us < TIMESTAMP_MIN || us >= TIMESTAMP_END) throw fail(`"${v}" is out of range for type ${withZone ? "timestamptz" : "timestamp"}`);
  const [hi, lo] = int8Halves(us);
  return H.hashInt8(hi, lo, sh, sl);
}

const hashTimestamp = (v, sh, sl) => hashTimestampLike(v, sh, sl, false);
const hashTimestamptz = (v, sh, sl) => hashTimestampLike(v, sh, sl, true);

function hashBool(v, sh, sl) {
  return H.hashInt4(v ? 1 : 0, sh, sl);
}

// per family, the kinds of value it takes (kindOf in filter.js)
const BY_FAMILY = {
  [INTEGER_OPS]: { number: hashInteger, bigint: hashInteger, string: hashIntegerText },
  [NUMERIC_OPS]: { number: hashNumeric, bigint: hashNumeric, string: hashNumeric },
  [FLOAT_OPS]: { number: hashFloat },
  [TEXT_OPS]: { string: hashText },
  [BYTEA_OPS]: { bytes: hashBytea },
  [UUID_OPS]: { string: hashUuid },
  [DATE_OPS]: { date: hashDate, string: hashDate },
  [TIMESTAMP_OPS]: { date: hashTimestamp, string: hashTimestamp },
  [TIMESTAMPTZ_OPS]: { date: hashTimestamptz, string: hashTimestamptz },
  [BOOL_OPS]: { boolean: hashBool },
};

// the kinds a filter can hold, for an empty filter (no element key yet)
const DEFAULT_FAMILY = { number: INTEGER_OPS, bigint: INTEGER_OPS, string: TEXT_OPS, boolean: BOOL_OPS, bytes: BYTEA_OPS, date: TIMESTAMPTZ_OPS };

/**
 * The family a value takes in a filter that holds none yet (a filter read
 * before any value was added): its kind's default (an integral number,
 * bigint or string of digits: integer; another number: float8; string: text;
 * boolean; Uint8Array: bytea; Date: timestamptz), as the server's
 * bloom_add takes the family of the value's SQL type.  Throws for a kind no
 * family takes.
 */
export function defaultFamily(value, kind) {
  if (kind === "number" && !Number.isInteger(value)) return FLOAT_OPS;
  const family = DEFAULT_FAMILY[kind];
  if (family === undefined) throw fail(`a value of type ${describe(value)} cannot be added`);
  return family;
}

/**
 * A probe of an empty filter (no element key: nothing was added), which
 * holds nothing: throws where a filter holding values would, else returns
 * (and the answer is false).  With `family` (a created filter's type's, or
 * from's options.type), value is hashed as that family hashes it, so that
 * an empty int8 filter refuses 2 ** 53 and "abc" as it does once it holds
 * a value.  Without one (a filter read, untyped: it names no family yet),
 * only a value no family takes is refused: 2 ** 53 may be a float8.
 */
export function checkProbeOfEmpty(family, value, kind, sh, sl) {
  if (family === null) {
    if (DEFAULT_FAMILY[kind] === undefined) throw fail(`a value of type ${describe(value)} cannot be probed`);
    return;
  }
  hasherFor(family, value, kind)(value, sh, sl);
}

/** The function that hashes values of this kind for a filter of element key elem. */
export function hasherFor(elem, value, kind) {
  if (elem.includes("@"))
    throw fail(`the filter's values were hashed under a nondeterministic collation ("${elem}"): by ICU sort keys, which this library does not compute`);
  if (elem === "") {
    // no value was added (the format sees that every bit and counter is 0): any value answers false
    if (DEFAULT_FAMILY[kind] === undefined) throw fail(`a value of type ${describe(value)} cannot be probed`);
    return null;
  }
  const family = elem;
  const table = BY_FAMILY[family];
  if (table === undefined) throw fail(`the filter holds values of operator family "${family}", which this library does not hash`);
  const fn = table[kind];
  if (fn === undefined)
    throw fail(`a value of type ${describe(value)} cannot be probed in a filter of "${family}" values (the server refuses a value of another type's family too)`);
  return fn;
}

function describe(value) {
  if (value instanceof Date) return "Date";
  if (value instanceof Uint8Array) return "Uint8Array";
  return typeof value;
}

/** The kind of a value, as the hashers of a family are keyed: "number", "bigint", "string", "boolean", "date", "bytes" or "other". */
export function kindOf(value) {
  switch (typeof value) {
    case "number": return "number";
    case "bigint": return "bigint";
    case "string": return "string";
    case "boolean": return "boolean";
    default:
      if (value instanceof Date) return "date";
      if (value instanceof Uint8Array) return "bytes";
      return "other";
  }
}
