#!/usr/bin/env bash
# tests/clients/python_package.sh DIR [PACKAGES]: clients/python's packages
# as tools/package.sh clients writes them (into PACKAGES; without it, built
# here into DIR/packages), checked, installed and used, with no package
# index, each into a fresh venv of Debian's Python that sees none of the
# system's packages, and probed from outside the source tree
# (tests/clients/python_probe.py: a filter probed and pickled, py.typed,
# the version, the LICENSE in the installed metadata):
#   - the wheel: its files (the package, py.typed, LICENSE; no tests), its
#     METADATA (version, license, Repository URL, Requires-Python, and a
#     README with no relative link leading out of the package); its Python
#     files parse as Python 3.9 and use no run-time union of types (X | Y)
#     nor a 3.10+ name this check knows; then pip install --no-index;
#   - the sdist: its files (LICENSE, README.md, pyproject.toml, py.typed);
#     then installed as pip builds it with the setuptools and wheel that
#     Debian ships (python3-setuptools-whl, python3-wheel-whl);
#   - a checkout: the command clients/python/README.md gives, run in a copy
#     of clients/python (pip builds in the tree):
#       pip install --no-index --find-links /usr/share/python-wheels ./clients/python
# Only Debian's Python (bookworm: 3.11) is installed here; the wheel on the
# chroots' Pythons: tests/clients/python_wheel_unpacked.sh.
set -euo pipefail
# Debian's Python, where python3-venv is (not one on PATH ahead of it)
python=${PYTHON:-/usr/bin/python3}
# pip as on a fresh machine: no configuration file or variable adding an
# index or a folder of wheels
export PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_NO_INDEX
dir=$1
top=$(pwd)
src=$top/clients/python
probe=$top/tests/clients/python_probe.py
rm -rf "$dir"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
. tools/lib.sh
packages=$(client_packages "$dir" "${2:-}")
version=$("$python" -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["project"]["version"])' \
	"$src/pyproject.toml")
wheel=$packages/pg_bloomfilter-$version-py3-none-any.whl
sdist=$packages/pg_bloomfilter-$version.tar.gz
for f in "$wheel" "$sdist"; do
	[ -f "$f" ] || {
		echo "no $f: tools/package.sh clients did not write it"
		exit 1
	}
done
echo "wheel: $(basename "$wheel"), sdist: $(basename "$sdist")"

# the wheel's files and metadata, and its Python as Python 3.9 reads it
"$python" - "$wheel" "$version" "$top/LICENSE" <<'PY'
import ast, re, sys, zipfile
wheel, version, license_path = sys.argv[1:]
z = zipfile.ZipFile(wheel)
names = set(z.namelist())
info = f"pg_bloomfilter-{version}.dist-info"
for want in ["pg_bloomfilter/__init__.py", "pg_bloomfilter/py.typed", f"{info}/LICENSE", f"{info}/METADATA"]:
    assert want in names, f"the wheel has no {want}: {sorted(names)}"
assert not [n for n in names if "test" in n.split("/")[0]], f"tests in the wheel: {sorted(names)}"
assert z.read(f"{info}/LICENSE") == open(license_path, "rb").read(), "its LICENSE is not the repository's"
meta = z.read(f"{info}/METADATA").decode()
head, _, readme = meta.partition("\n\n")
for want in [f"Version: {version}", "License: PostgreSQL",
             "Project-URL: Repository, https://github.com/bloomfilter/bloomfilter",
             "Requires-Python: >=3.9", "Description-Content-Type: text/markdown"]:
    assert want in head.splitlines(), f"METADATA has no line {want!r}:\n{head}"
assert readme.startswith("# pg_bloomfilter"), "METADATA carries no README"
# links that leave the package (the README is the package's page)
bad = re.findall(r"\]\((?:\.\./|/)[^)]*\)|^\s*\[[^\]]+\]:\s*(?:\.\./|/)\S*", readme, re.M)
assert not bad, f"the packaged README links out of the package: {bad}"

# Python 3.9: the grammar (match, except*, ...), and what 3.9 parses but
# fails on when it runs
NEWER_NAMES = {"bit_count", "pairwise", "TypeAlias", "ParamSpec", "Concatenate", "TypeGuard",
               "Self", "LiteralString", "Never", "assert_never", "reveal_type", "Required",
               "NotRequired", "Unpack", "TypeVarTuple", "dataclass_transform", "override",
               "tomllib", "ExceptionGroup", "StrEnum", "UTC", "batched", "cbrt", "exp2"}
TYPE_NAMES = {"int", "str", "bytes", "float", "bool", "list", "dict", "tuple", "set",
              "frozenset", "bytearray", "memoryview", "type", "object", "complex"}
def typeish(n):
    return ((isinstance(n, ast.Constant) and n.value is None) or isinstance(n, ast.Subscript)
            or (isinstance(n, ast.Name) and (n.id in TYPE_NAMES or (n.id[:1].isupper() and not n.id.isupper())))
            or (isinstance(n, ast.Attribute) and n.attr[:1].isupper() and not n.attr.isupper())
            or (isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr) and typeish(n.left) and typeish(n.right)))
def union(n):
    return n is not None and any(isinstance(x, ast.BinOp) and isinstance(x.op, ast.BitOr)
                                 and typeish(x.left) and typeish(x.right) for x in ast.walk(n))
problems = []
for name in sorted(n for n in names if n.endswith(".py")):
    text = z.read(name).decode()
    try:
        tree = ast.parse(text, name, feature_version=(3, 9))
    except SyntaxError as e:
        problems.append(f"{name}:{e.lineno}: not Python 3.9: {e.msg}")
        continue
    # (a newer name inside try: ... except AttributeError/ImportError is guarded)
    guarded = set()
    for t in ast.walk(tree):
        if isinstance(t, ast.Try) and any(
                h.type is not None and any(isinstance(e, ast.Name) and e.id in
                                           ("AttributeError", "ImportError", "ModuleNotFoundError", "NameError")
                                           for e in ast.walk(h.type)) for h in t.handlers):
            guarded.update(id(x) for b in t.body for x in ast.walk(b))
    lazy = any(isinstance(n, ast.ImportFrom) and n.module == "__future__"
               and any(a.name == "annotations" for a in n.names) for n in tree.body)
    for n in ast.walk(tree):
        line = getattr(n, "lineno", "?")
        annotations = []
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = n.args
            annotations = [x.annotation for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
                           if x is not None] + [n.returns]
        elif isinstance(n, ast.AnnAssign):
            annotations = [n.annotation]
        if not lazy and any(union(x) for x in annotations):
            problems.append(f"{name}:{line}: X | Y in an annotation without 'from __future__ import annotations'")
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("isinstance", "issubclass") \
                and len(n.args) == 2 and union(n.args[1]):
            problems.append(f"{name}:{line}: {n.func.id}(x, X | Y) needs Python 3.10")
        if isinstance(n, ast.Assign) and n in tree.body and union(n.value) and typeish(n.value):
            problems.append(f"{name}:{line}: a type alias X | Y needs Python 3.10")
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "zip" \
                and any(k.arg == "strict" for k in n.keywords):
            problems.append(f"{name}:{line}: zip(strict=) needs Python 3.10")
        if isinstance(n, ast.Call) and any(k.arg in ("slots", "kw_only") for k in n.keywords):
            problems.append(f"{name}:{line}: slots= or kw_only= (dataclass) needs Python 3.10")
        newer = ((isinstance(n, ast.Attribute) and n.attr in NEWER_NAMES)
                 or (isinstance(n, ast.Name) and n.id in NEWER_NAMES)
                 or (isinstance(n, (ast.Import, ast.ImportFrom))
                     and any(a.name.split(".")[0] in NEWER_NAMES for a in n.names))
                 or (isinstance(n, ast.ImportFrom) and (n.module or "") in NEWER_NAMES))
        if newer and id(n) not in guarded:
            problems.append(f"{name}:{line}: a name newer than Python 3.9 (outside try: ... except AttributeError)")
assert not problems, "\n".join(problems)
print(f"wheel: {len(names)} files, LICENSE, py.typed, METADATA, Python 3.9's syntax: ok")
PY

# the sdist's files
tar -tzf "$sdist" | sort >"$dir/sdist.listing"
for want in LICENSE README.md pyproject.toml PKG-INFO src/pg_bloomfilter/__init__.py src/pg_bloomfilter/py.typed; do
	grep -qx "pg_bloomfilter-$version/$want" "$dir/sdist.listing" || {
		echo "the sdist has no $want:"
		cat "$dir/sdist.listing"
		exit 1
	}
done
tar -xzOf "$sdist" "pg_bloomfilter-$version/LICENSE" | cmp - "$top/LICENSE"

# install_probe NAME PIP-ARGUMENTS...: a fresh venv DIR/venv-NAME (no
# system packages), pip install PIP-ARGUMENTS into it (from DIR/NAME, where
# a checkout is copied), then the probe, from DIR
install_probe() {
	local name=$1 venv=$dir/venv-$1
	shift
	"$python" -m venv "$venv"
	mkdir -p "$dir/$name"
	(cd "$dir/$name" && "$venv/bin/pip" install -q --no-index "$@") >"$dir/pip-$name.log" 2>&1 || {
		cat "$dir/pip-$name.log"
		echo "$name: pip install $* failed"
		return 1
	}
	(cd "$dir" && "$venv/bin/python" "$probe" "$src" "$version")
}
install_probe wheel "$wheel"
install_probe sdist --find-links /usr/share/python-wheels "$sdist"
# the checkout: a copy of it (pip writes build/ into the tree)
mkdir -p "$dir/checkout/clients"
tar -C "$top/clients" --exclude=./python/build --exclude='*.egg-info' --exclude=__pycache__ -cf - ./python |
	tar -C "$dir/checkout/clients" -xf -
install_probe checkout --find-links /usr/share/python-wheels ./clients/python
