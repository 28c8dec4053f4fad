"""tests/clients/python_probe.py SOURCE VERSION: run by the python of an
environment where pg_bloomfilter was installed, from a folder outside the
source tree SOURCE: the package imported is the installed one, not SOURCE's;
it probes a filter, and a filter pickles; PEP 561's py.typed lies beside it;
its distribution is VERSION (and __version__ says so) and carries the
PostgreSQL License.  Python 3.9 or later, the standard library alone."""

import os
import pickle
import sys
from importlib import metadata

import pg_bloomfilter
from pg_bloomfilter import BloomFilter, BloomFilterError

source, version = sys.argv[1], sys.argv[2]
where = os.path.realpath(pg_bloomfilter.__file__)
assert not where.startswith(os.path.realpath(source) + os.sep), f"imported from the source tree: {where}"

f = BloomFilter.from_text(
    "v1 classic m=97 k=7 scheme=1 seed=0 n=1 elem=pg_catalog.integer_ops bits=CACAAAAEAEAAAAIAAA==")
assert 1 in f and 2 not in f
assert 1 in pickle.loads(pickle.dumps(f))
try:
    BloomFilter.from_text("v9 nothing")
    raise AssertionError("a bad filter was read")
except BloomFilterError:
    pass

assert os.path.isfile(os.path.join(os.path.dirname(where), "py.typed")), "no py.typed"
dist = metadata.distribution("pg_bloomfilter")
assert dist.version == version, f"installed {dist.version}, expected {version}"
assert pg_bloomfilter.__version__ == version, \
    f"pg_bloomfilter.__version__ is {pg_bloomfilter.__version__}, the package {version}"
license_text = dist.read_text("LICENSE")
assert license_text and license_text.startswith("PostgreSQL License"), "no LICENSE in the installed metadata"
print(f"Python {sys.version.split()[0]}: pg_bloomfilter {dist.version} imported from {where}, with py.typed and LICENSE")
