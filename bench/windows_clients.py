"""bench/windows_clients.py: the Python library's window filter against its
blocked filter, side by side in one run: 100,000 values at 1 % (a window of
10 generations of 10,000, and a blocked filter of 100,000), adds of the
values and probes of 100,000 values none of which was added, each filter's
time the median of ROUNDS (5) rounds, the order rotated.  Prints each, and
the window's time over blocked's.

    PYTHONPATH=clients/python/src python3 bench/windows_clients.py [ROUNDS]
"""

import statistics
import sys
import time

from pg_bloomfilter import BloomFilter, WindowFilter

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
N, PER = 100_000, 10_000
added = list(range(1, N + 1))
absent = [-v for v in added]
times = {"window add": [], "blocked add": [], "window probe": [], "blocked probe": []}
for r in range(rounds):
    for which in (("window", "blocked") if r % 2 == 0 else ("blocked", "window")):
        t = time.perf_counter()
        if which == "window":
            f = WindowFilter.create("int8", PER, 0.01, 10)
            for g in range(10):
                if g:
                    f.advance(1)
                for v in added[g * PER : (g + 1) * PER]:
                    f.add(v)
        else:
            f = BloomFilter.create("int8", N, 0.01, "blocked")
            for v in added:
                f.add(v)
        times[f"{which} add"].append(time.perf_counter() - t)
        t = time.perf_counter()
        found = sum(f.contains(v) for v in absent)
        times[f"{which} probe"].append(time.perf_counter() - t)
m = {k: statistics.median(v) * 1000 for k, v in times.items()}
print(f"rounds {rounds}; {N} adds, {N} probes of values never added (one at a time)")
print(f"add:   window {m['window add']:.0f} ms, blocked {m['blocked add']:.0f} ms: window takes {m['window add'] / m['blocked add']:.2f}x")
print(f"probe: window {m['window probe']:.0f} ms, blocked {m['blocked probe']:.0f} ms: window takes {m['window probe'] / m['blocked probe']:.2f}x")
