// bench/windows_clients.mjs: the JavaScript library's window filter against
// its blocked filter, side by side in one run: 1,000,000 values at 1 % (a
// window of 10 generations of 100,000, and a blocked filter of 1,000,000),
// then adds of the values and probes of 1,000,000 values none of which was
// added, each filter's time the median of ROUNDS (5) rounds, the order
// rotated.  Prints each, and the window's time over blocked's.
//   node bench/windows_clients.mjs [ROUNDS]
import { BloomFilter, WindowFilter } from "../clients/js/src/index.js";

const rounds = Number(process.argv[2] || 5);
const N = 1_000_000, PER = 100_000;
const added = Array.from({ length: N }, (_, i) => BigInt(i + 1));
const absent = Array.from({ length: N }, (_, i) => BigInt(-(i + 1)));
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const times = { windowAdd: [], blockedAdd: [], windowProbe: [], blockedProbe: [], blockedProbeMany: [] };
let sink = 0;
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? ["window", "blocked"] : ["blocked", "window"];
  for (const which of order) {
    let t = performance.now();
    if (which === "window") {
      const w = WindowFilter.create({ type: "int8", capacity: PER, falsePositiveRate: 0.01, generations: 10 });
      for (let g = 0; g < 10; g++) {
        if (g > 0) w.advance(1);
        for (let i = g * PER; i < (g + 1) * PER; i++) w.add(added[i]);
      }
      times.windowAdd.push(performance.now() - t);
      t = performance.now();
      for (const v of absent) sink += w.contains(v);
      times.windowProbe.push(performance.now() - t);
    } else {
      const b = BloomFilter.create({ type: "int8", expectedItems: N, falsePositiveRate: 0.01, layout: "blocked" });
      for (const v of added) b.add(v);
      times.blockedAdd.push(performance.now() - t);
      t = performance.now();
      for (const v of absent) sink += b.contains(v);
      times.blockedProbe.push(performance.now() - t);
      t = performance.now();
      sink += b.containsMany(absent).filter(Boolean).length;
      times.blockedProbeMany.push(performance.now() - t);
    }
  }
}
const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
console.log(`rounds ${rounds}; ${N} adds, ${N} probes of values never added (found ${sink / rounds} times a round)`);
console.log(`add:   window ${m.windowAdd.toFixed(0)} ms, blocked ${m.blockedAdd.toFixed(0)} ms: window takes ${(m.windowAdd / m.blockedAdd).toFixed(2)}x`);
console.log(`probe: window ${m.windowProbe.toFixed(0)} ms, blocked ${m.blockedProbe.toFixed(0)} ms (contains): window takes ${(m.windowProbe / m.blockedProbe).toFixed(2)}x; blocked's containsMany ${m.blockedProbeMany.toFixed(0)} ms`);
