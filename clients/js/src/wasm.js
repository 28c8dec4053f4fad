// The WebAssembly probe (../wasm/probe.c: the core's own hash scheme 1, in
// C, compiled to 2.7 kB of WebAssembly and shipped in probe_wasm.js): the
// same answers as probe.js's JavaScript, computed with native 64-bit
// arithmetic where JavaScript emulates it with 32-bit halves.  One module,
// compiled once on first use; one instance per filter, whose memory holds a
// copy of the filter's data.  Where WebAssembly is not available (a page
// whose Content-Security-Policy forbids it, an engine without it) or its
// memory cannot grow to the filter's size, probe.js probes in JavaScript.

import * as F from "./format.js";
import { PROBE_WASM } from "./probe_wasm.js";

let compiled; // the WebAssembly.Module; null where it cannot be made; undefined until tried

function probeModule() {
  if (compiled === undefined) {
    compiled = null;
    try {
      if (typeof WebAssembly === "object" && typeof atob === "function") {
        const text = atob(PROBE_WASM), bytes = new Uint8Array(text.length);
        for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
        // (synchronous: 2.7 kB is below the 4 kB Chrome compiles so on a page's main thread)
        compiled = new WebAssembly.Module(bytes);
      }
    } catch {
      compiled = null; // a CompileError or EvalError (CSP): JavaScript probes
    }
  }
  return compiled;
}

const TWO32 = 4294967296;
// WebAssembly reads memory little-endian; the batch's hashes are written
// through an Int32Array, in the host's order
const littleEndian = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/**
 * A new instance of the module whose memory holds a copy of `bytes` at `at`
 * (above the module's own, 64-byte aligned: a blocked512 block is one cache
 * line): its exports, at, and the view of the copy.  null where WebAssembly
 * is unavailable, its memory cannot grow to hold them, or the host is
 * big-endian.
 */
function instanceHolding(bytes) {
  if (!littleEndian) return null;
  const module = probeModule();
  if (module === null) return null;
  let ex, at;
  try {
    ex = new WebAssembly.Instance(module, {}).exports;
    at = (ex.__heap_base.value + 63) & ~63;
    const need = at + bytes.length, have = ex.memory.buffer.byteLength;
    if (need > have) ex.memory.grow(Math.ceil((need - have) / 65536));
  } catch {
    return null; // a RangeError: no memory of that size here
  }
  // (a view made after the last grow, which detaches the one before)
  const data = new Uint8Array(ex.memory.buffer, at, bytes.length);
  data.set(bytes);
  return { ex, at, data };
}

/**
 * The WebAssembly probe of a parsed filter (format.js's parseBinary) whose
 * layout it probes (classic, counting4, blocked512, layered; not explicit),
 * for a batch of `batch` hashes: the instance's functions, views of its
 * batch's hashes ([lo, hi] int32 pairs) and answers, and its copy of the
 * filter's data.  null where WebAssembly is unavailable, its memory cannot
 * hold the filter, or the host is big-endian.
 */
export function wasmProbe(p, batch) {
  if (p.layout === F.EXPLICIT) return null;
  const inst = instanceHolding(p.data);
  if (inst === null || inst.ex.bf_batch() !== batch) return null;
  const { ex, at, data } = inst, buffer = ex.memory.buffer;
  const layers = p.layout === F.LAYERED ? p.layers : p.layout === F.BLOCKED512 ? [{ m: p.m, k: p.k, offset: 0 }] : [];
  const mHi = Math.floor(p.m / TWO32);
  ex.bf_set_filter(p.layout, at, p.m - mHi * TWO32, mHi, p.k, layers.length);
  layers.forEach((l, i) => ex.bf_set_layer(i, l.offset, l.m / 512, l.k));
  return {
    probeOne: ex.bf_probe_one, // (lo, hi) => 1 or 0
    probeBatch: ex.bf_probe_batch, // (n): hashes' first n pairs => held's first n bytes
    hashes: new Int32Array(buffer, ex.bf_hashes(), 2 * batch),
    held: new Uint8Array(buffer, ex.bf_held(), batch),
    data,
  };
}

/**
 * The WebAssembly probe of a window filter (parsed, its slices' bits
 * sliceBits): the core's scan (core/bf_window_scan.h) on a copy of its data
 * in the instance's memory, which the caller then reads and writes in
 * place of its own (the memory never grows again: the view stays valid).
 * null where WebAssembly is unavailable, its memory cannot hold the
 * filter, or the host is big-endian.
 */
export function wasmWindow(p, sliceBits) {
  if (p.layout !== F.WINDOW) return null;
  const inst = instanceHolding(p.data);
  if (inst === null) return null;
  const { ex, at, data } = inst;
  const hi = Math.floor(sliceBits / TWO32);
  ex.bf_set_window(at, sliceBits - hi * TWO32, hi, p.k, p.window.hashes);
  return { probe: ex.bf_window_probe, data }; // probe: (lo, hi, now) => 1 or 0
}
