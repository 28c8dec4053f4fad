// Window filters (WindowFilter), against the server's: BLOOM_WINDOWS names
// files made by tests/clients/windows.sql (colon-separated).  For every
// case, WindowFilter.create with the case's shape and clock, then its ops
// (adds, adds at a time, advances), gives the server's bytes and text; the
// server's filter read back (binary and text) prints as it came and
// answers every probe as bloom_contains did; a union gives the server's
// bytes.  Then the API's edges.  Exits non-zero at the first difference.
import { readFileSync } from "node:fs";
import { BloomFilterError, BloomFilter, WindowFilter } from "../src/index.js";
import { windowFpp, windowRecall } from "../src/sizing.js";

const hex = (bytes) => Buffer.from(bytes).toString("hex");
// values as an application holds them (the text forms node-postgres gives, and Dates for times)
const convert = {
  int4: Number, int8: BigInt, text: String, uuid: String, numeric: String, float8: parseFloat,
  timestamptz: (t) => new Date(t),
  bytea: (t) => Uint8Array.from(t.slice(2).match(/../g) || [], (h) => parseInt(h, 16)),
};
let checked = 0;
function same(where, got, want) {
  if (got !== want) throw new Error(`${where}:\n  here   ${String(got).slice(0, 300)}\n  server ${String(want).slice(0, 300)}`);
  checked++;
}

function replay(c, ops) {
  const options = { type: c.type, capacity: c.capacity, falsePositiveRate: c.fpp, generations: c.generations };
  if (c.interval !== 0) Object.assign(options, { generationLength: BigInt(c.interval), at: new Date(c.at) });
  const f = WindowFilter.create(options);
  for (const op of ops) {
    if (op[0] === "add") f.add(convert[c.type](op[1]));
    else if (op[0] === "add_at") f.add(convert[c.type](op[1]), new Date(op[2]));
    else if (op[0] === "advance") f.advance(op[1]);
    else f.advance(new Date(op[1]));
  }
  return f;
}

for (const name of (process.env.BLOOM_WINDOWS || "").split(":").filter(Boolean)) {
  for (const line of readFileSync(name, "utf8").split("\n").filter(Boolean)) {
    const c = JSON.parse(line);
    const where = `${name}: ${c.case}`;
    const made = replay(c, c.ops);
    same(`${where} (bytes)`, hex(made.toBytes()), c.hex);
    same(`${where} (text)`, made.toString(), c.text);
    const read = WindowFilter.from(Uint8Array.from(Buffer.from(c.hex, "hex")));
    // (JavaScript's scan beside WebAssembly's, where there is WebAssembly: node --no-expose-wasm has none)
    const readJs = WindowFilter.from(Uint8Array.from(Buffer.from(c.hex, "hex")), { wasm: false });
    same(`${where} (the engines)`, `${read.probeEngine} ${readJs.probeEngine}`,
      `${typeof WebAssembly === "object" && c.hex.length / 2 >= 65536 ? "webassembly" : "javascript"} javascript`);
    same(`${where} (read, bytes back)`, hex(read.toBytes()), c.hex);
    same(`${where} (read from text, text back)`, WindowFilter.from(c.text).toString(), c.text);
    c.probes.forEach((p, i) => {
      same(`${where}: ${p} (read)`, read.contains(convert[c.type](p)), c.answers[i] === "1");
      same(`${where}: ${p} (made)`, made.contains(convert[c.type](p)), c.answers[i] === "1");
      same(`${where}: ${p} (read, in JavaScript)`, readJs.contains(convert[c.type](p)), c.answers[i] === "1");
    });
    if (c.union_ops !== null) {
      const other = replay(c, c.union_ops);
      same(`${where} (union)`, hex(made.union(other).toBytes()), c.union_hex);
      same(`${where} (union, the other way)`, hex(other.union(made).toBytes()), c.union_hex);
    }
  }
}
if (checked === 0) {
  console.log("window: no vectors (set BLOOM_WINDOWS)");
  process.exit(1);
}

// a filter of 64 kB or more probes in WebAssembly (where there is some):
// the same bytes and answers as JavaScript's, through adds, moves, times
// and a union (the vectors above hold JavaScript's to the server's)
{
  const options = { type: "int8", capacity: 20000, falsePositiveRate: 0.01, generations: 6 };
  const w = WindowFilter.create(options), j = WindowFilter.create({ ...options, wasm: false });
  same("a large filter's engines", `${w.probeEngine} ${j.probeEngine}`,
    `${typeof WebAssembly === "object" ? "webassembly" : "javascript"} javascript`);
  for (let g = 0; g < 9; g++) {
    for (let i = 0; i < 20000; i++) {
      w.add(BigInt(g * 1000000 + i));
      j.add(BigInt(g * 1000000 + i));
    }
    w.advance(1);
    j.advance(1);
  }
  same("a large filter's bytes, both engines", hex(w.toBytes()), hex(j.toBytes()));
  let held = 0, differ = 0;
  for (let i = -100000; i < 9000000; i += 37) {
    const a = w.contains(BigInt(i)), b = j.contains(BigInt(i));
    if (a !== b) differ++;
    if (a) held++;
  }
  same("a large filter's answers, both engines", differ, 0);
  same("... some of them yes, most no", held > 1000 && held < 200000, true);
  const u = w.union(j), uj = j.union(w);
  same("a large filter's union: the engine follows the first", `${u.probeEngine} ${uj.probeEngine}`,
    `${w.probeEngine} javascript`);
  for (let i = 0; i < 100000; i += 7) if (u.contains(BigInt(i)) !== uj.contains(BigInt(i))) differ++;
  same("... and the same answers", differ, 0);
}

// the API's edges: what the server refuses is refused here, with the library's error
function refuses(what, fn) {
  try {
    fn();
  } catch (e) {
    if (e instanceof BloomFilterError) {
      checked++;
      return;
    }
    throw e;
  }
  throw new Error(`${what}: accepted`);
}
const f = WindowFilter.create({ type: "int8", capacity: 100, falsePositiveRate: 0.01, generations: 3 });
refuses("BloomFilter.from of a window filter", () => BloomFilter.from(f.toBytes()));
refuses("WindowFilter.from of a classic filter", () =>
  WindowFilter.from(BloomFilter.create({ type: "int8", expectedItems: 10 }).toBytes()));
refuses("advance(-1)", () => f.advance(-1));
refuses("add at a time to a filter advanced by hand", () => f.add(1n, new Date()));
refuses("advance to a time of a filter advanced by hand", () => f.advance(new Date()));
refuses("a generation length of 0", () =>
  WindowFilter.create({ type: "int8", capacity: 1, generations: 2, generationLength: 0n }));
refuses("4097 generations", () => WindowFilter.create({ type: "int8", capacity: 1, generations: 4097 }));
refuses("a rate of 1e-18 over 4096 generations", () =>
  WindowFilter.create({ type: "int8", capacity: 10, falsePositiveRate: 1e-18, generations: 4096 }));
refuses("a union of other shapes", () =>
  f.union(WindowFilter.create({ type: "int8", capacity: 100, falsePositiveRate: 0.01, generations: 4 })));
refuses("a text value in an int8 filter", () => f.add(1n).add("x"));
const text = f.toString();
refuses("a generation written -0", () => WindowFilter.from(text.replace(/:0:0 counts=/, ":-0:0 counts=")));
refuses("counts past n", () => WindowFilter.from(text.replace(/counts=1,/, "counts=2,")));
// (a review found these) a filter read from a Buffer has bytes of its own
const buf = Buffer.from(f.toBytes()), before = Buffer.from(buf);
const a = WindowFilter.from(buf), b = WindowFilter.from(buf);
a.add(424242n);
same("the Buffer read is left as it was", Buffer.compare(buf, before), 0);
same("a second filter of the same Buffer holds no add of the first", b.contains(424242n), false);
// a null time adds nothing (SQL's NULL); times and lengths past timestamptz's range are refused
const clocked = WindowFilter.create({ type: "int8", capacity: 10, generations: 3, generationLength: 3600000000n, at: 0n });
same("a null time adds nothing", clocked.add(7n, null).contains(7n), false);
refuses("a time past timestamptz's range", () => clocked.add(1n, 1n << 63n));
refuses("'infinity'", () => clocked.advance((1n << 63n) - 1n));
refuses("a length past int64", () =>
  WindowFilter.create({ type: "int8", capacity: 10, generations: 3, generationLength: 1n << 64n, at: 0n }));
refuses("a fractional length", () => WindowFilter.create({ type: "int8", capacity: 10, generations: 3, generationLength: 1.5 }));
refuses("advance past an int", () => clocked.advance(2 ** 31));
same("the refusals left it as it was", clocked.info.generation, 0n);
// the recall and the rate as the core computes them
same("recall within the window", windowRecall(9, 10, 259712, 20000, 9), 1);
same("recall past every slice is the rate", windowRecall(9, 10, 259712, 20000, 30), windowFpp(9, 10, 259712, 20000));
console.log(`window: ${checked} checks, every one as the server's`);
