// Adding a value's hash to a filter's data, as the server's bf_add_hash
// does (core/bf_bits.c, bf_blocked.c, bf_counting.c): the positions a probe
// tests (probe.js), set.  classic: the k bits floor(x_i m / 2^64),
// x_{i+1} = x_i + y; counting4: the same positions' 4-bit counters, each
// incremented (a repeated position twice) and stopping at 15; blocked512:
// the k bits of one block, 9-bit offsets from y's top bits, 7 per word,
// refilled with fmix64(w + 0xC2B2AE3D27D4EB4F).  Each returns how many
// bits (counters) went from 0 to set, which a derived filter's bound counts.

import * as F from "./format.js";
import { REFILL_HI, REFILL_LO, XY, blockBase, fmix64, hashXY, reduce } from "./probe.js";

const W = new Int32Array(2);
const COUNTER_MAX = 15;

function setPositions(data, counting, m, k, xHi, xLo, yHi, yLo) {
  let changed = 0;
  for (let i = 0; i < k; i++) {
    const pos = reduce(xHi, xLo, m);
    // (pos may pass 2^31: no 32-bit operators, nor %, on it)
    if (counting) {
      const byte = Math.floor(pos / 2), shift = (pos - byte * 2) * 4;
      const c = (data[byte] >>> shift) & 15;
      if (c < COUNTER_MAX) data[byte] = (data[byte] & ~(15 << shift)) | ((c + 1) << shift);
      if (c === 0) changed++;
    } else {
      const byte = Math.floor(pos / 8), bit = 1 << (pos - byte * 8);
      if ((data[byte] & bit) === 0) {
        data[byte] |= bit;
        changed++;
      }
    }
    const nlo = (xLo + yLo) | 0;
    xHi = (xHi + yHi + ((nlo >>> 0) < (xLo >>> 0) ? 1 : 0)) | 0;
    xLo = nlo;
  }
  return changed;
}

function setInBlock(data, base, wHi, wLo, k) {
  let changed = 0;
  for (let done = 0; ; ) {
    let rHi = wHi, rLo = wLo;
    for (const end = done + 7 < k ? done + 7 : k; done < end; done++) {
      const bit = rHi >>> 23; // the top 9 bits: the bit in the block
      const at = base + (bit >>> 3), mask = 1 << (bit & 7);
      if ((data[at] & mask) === 0) {
        data[at] |= mask;
        changed++;
      }
      rHi = (rHi << 9) | (rLo >>> 23);
      rLo <<= 9;
    }
    if (done === k) return changed;
    const lo = (wLo + REFILL_LO) | 0;
    fmix64((wHi + REFILL_HI + ((lo >>> 0) < (wLo >>> 0) ? 1 : 0)) | 0, lo, W, 0);
    wHi = W[0];
    wLo = W[1];
  }
}

/**
 * Adds the value whose 64-bit hash (with the filter's seed) is [hi, lo]
 * (int32 halves) to data, the data of a classic, counting4 or blocked512
 * filter of m cells and k hashes; returns how many cells went from 0 to set.
 */
export function addHash(layout, data, m, k, hi, lo) {
  hashXY(hi, lo);
  if (layout === F.BLOCKED512) return setInBlock(data, blockBase(XY[0], XY[1], 0, m / 512), XY[2], XY[3], k);
  return setPositions(data, layout === F.COUNTING4, m, k, XY[0], XY[1], XY[2], XY[3]);
}
