#!/usr/bin/env bash
# tests/clients/python_wheel_unpacked.sh WHEEL: the wheel on another Python
# than Debian bookworm's 3.11, where no pip runs: tests/clients/run.sh runs
# it in the chroots of PostgreSQL 17 (Debian trixie: Python 3.13) and 18
# (Debian forky: 3.14), which have python3 but neither python3-venv nor pip
# (bookworm's pip 23.0 does not run on 3.12 or later).  A venv made
# --without-pip, the wheel unpacked into its site-packages as an installer
# unpacks a pure-Python wheel (files and .dist-info, nothing to compile),
# then tests/clients/python_probe.py from outside the tree: import, a
# filter probed and pickled, py.typed, the version and LICENSE in the
# metadata.  PYTHON (default: python3) is the Python used: by hand, any
# other one, e.g. PYTHON=python3.9.
set -euo pipefail
python=${PYTHON:-python3}
wheel=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
top=$(pwd)
version=$(basename "$wheel" | sed 's/^pg_bloomfilter-\([^-]*\)-.*/\1/')
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$python" -m venv --without-pip "$dir/venv"
site=$("$dir/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$dir/venv/bin/python" -m zipfile -e "$wheel" "$site"
(cd "$dir" && "$dir/venv/bin/python" "$top/tests/clients/python_probe.py" "$top/clients/python" "$version")
