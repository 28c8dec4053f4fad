#!/usr/bin/env bash
# tools/package.sh: the packages of this tree.
#
#   bash tools/package.sh N [OUTDIR]    the Debian package
#                                       postgresql-N-bloomfilter (debian/),
#                                       built in N's chroot (tools/chroot.sh:
#                                       15 bookworm, 17 trixie, 18 forky) as
#                                       a build daemon builds it: the source
#                                       package first (.dsc, the upstream
#                                       tarball without debian/,
#                                       debian.tar.xz), then the binary
#                                       package from that source package with
#                                       pg_buildext and dpkg-buildpackage;
#                                       then checked with lintian there,
#                                       source and binary.  Into OUTDIR
#                                       (default: packages/): the .debs, the
#                                       source package, lintian's report
#   bash tools/package.sh clients [OUTDIR]
#                                       the client libraries' packages, built
#                                       on this machine with no network, into
#                                       OUTDIR (default: packages/):
#                                       pg-bloomfilter-VERSION.tgz (npm pack
#                                       of clients/js; its CommonJS entry,
#                                       cjs/, checked against src/ first where
#                                       esbuild is installed) and
#                                       pg_bloomfilter-VERSION.tar.gz (sdist)
#                                       and pg_bloomfilter-VERSION-py3-none-any.whl
#                                       (built from that sdist) of
#                                       clients/python, with Debian's
#                                       python3-build, python3-setuptools and
#                                       python3-wheel (no build isolation).
#                                       VERSION: META.json's, which both
#                                       clients must carry.
#
# Inside the chroot (what the host part of N runs there):
#   bash tools/package.sh --inside N    build /build/bloomfilter, and, if
#                                       /build/input/previous.tar exists
#                                       (another version's source), that too,
#                                       with this tree's debian/ and the
#                                       version in /build/input/previous.version;
#                                       the .debs and lintian's report go to
#                                       /build/output
#
# A build that fails, or a lintian error, fails the script; lintian's
# warnings are reported.  On a Debian machine that has the build
# dependencies the same build is, in a checkout:
#   PG_SUPPORTED_VERSIONS=N pg_buildext updatecontrol && dpkg-buildpackage -us -uc -b
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

usage() {
	echo "usage: $0 N [OUTDIR] | clients [OUTDIR] | --inside N" >&2
	exit 2
}

# build_in SRC N: build the source package of the tree SRC (which has
# debian/), then N's binary package from that source package, as a build
# daemon does: the .dsc, its tarballs and the .debs land beside SRC.
build_in() {
	local src=$1 version=$2 parent full upstream
	parent=$(dirname "$src")
	full=$(dpkg-parsechangelog -l "$src/debian/changelog" -SVersion)
	upstream=${full%-*}
	(
		cd "$src"
		# debian/control lists the packages of debian/pgversions this system
		# has: here N's alone
		PG_SUPPORTED_VERSIONS=$version pg_buildext updatecontrol
		grep -q "^Package: postgresql-$version-bloomfilter$" debian/control
	)
	# the upstream tarball: the tree without debian/ (format 3.0 (quilt))
	tar -C "$src" --exclude=./debian --sort=name --owner=0 --group=0 \
		--transform "s,^\.,bloomfilter-$upstream," -cJf "$parent/bloomfilter_$upstream.orig.tar.xz" .
	(cd "$parent" && dpkg-source -b "$(basename "$src")")
	rm -rf "$parent/from-dsc"
	(cd "$parent" && dpkg-source -x "bloomfilter_$full.dsc" from-dsc)
	# (compiled on every core: dh passes make a -j only when asked)
	(cd "$parent/from-dsc" && DEB_BUILD_OPTIONS="parallel=$(nproc) ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc -b)
}

inside() {
	local version=$1 work=/build/pkg out=/build/output
	rm -rf "$work"
	mkdir -p "$work/current/bloomfilter" "$out"
	tar -C /build/bloomfilter --exclude=./packages -cf - . | tar -C "$work/current/bloomfilter" -xf -
	echo "== package: building postgresql-$version-bloomfilter $(dpkg-parsechangelog -l "$work/current/bloomfilter/debian/changelog" -SVersion)"
	build_in "$work/current/bloomfilter" "$version" >"$out/build-$version.log" 2>&1 || {
		tail -n 40 "$out/build-$version.log"
		echo "package: the build failed (log above)"
		return 1
	}
	echo "== package: lintian"
	# the exit status says whether it found errors; the tags are counted below
	lintian --info --display-info "$work"/current/*.dsc "$work"/current/*.changes >"$out/lintian-$version.txt" 2>&1 || true
	cat "$out/lintian-$version.txt"
	cp "$work"/current/*.deb "$work"/current/*.dsc "$work"/current/*.tar.xz "$out/"
	if [ -f /build/input/previous.tar ]; then
		local previous
		previous=$(cat /build/input/previous.version)
		mkdir -p "$work/previous/bloomfilter"
		tar -C "$work/previous/bloomfilter" -xf /build/input/previous.tar
		rm -rf "$work/previous/bloomfilter/debian"
		cp -a "$work/current/bloomfilter/debian" "$work/previous/bloomfilter/"
		# its own changelog entry, and no newer one
		cat >"$work/previous/bloomfilter/debian/changelog" <<EOF
bloomfilter ($previous) unstable; urgency=medium

  * Version ${previous%-*}, packaged with the packaging of the current version
    to test upgrades from it.

 -- The bloomfilter developers <bloomfilter@example.org>  Mon, 23 Nov 2026 21:00:00 +0000
EOF
		echo "== package: building postgresql-$version-bloomfilter $previous"
		build_in "$work/previous/bloomfilter" "$version" >"$out/build-$version-previous.log" 2>&1 || {
			tail -n 40 "$out/build-$version-previous.log"
			echo "package: the build of $previous failed (log above)"
			return 1
		}
		mkdir -p "$out/previous"
		cp "$work"/previous/*.deb "$out/previous/"
	fi
	ls -l "$out"/*.deb
	if grep -q '^E: ' "$out/lintian-$version.txt"; then
		echo "package: lintian reports errors"
		return 1
	fi
	echo "package: lintian: $(grep -c '^E: ' "$out/lintian-$version.txt" || true) errors," \
		"$(grep -c '^W: ' "$out/lintian-$version.txt" || true) warnings"
}

# clients OUT: the npm tarball of clients/js and the sdist and wheel of
# clients/python, in OUT.
clients() {
	local out=$1 python=${PYTHON:-/usr/bin/python3} version js_version py_version stage
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	version=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' "$top/META.json")
	js_version=$(node -p 'require(process.argv[1]).version' "$top/clients/js/package.json")
	py_version=$("$python" -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["project"]["version"])' \
		"$top/clients/python/pyproject.toml")
	if [ "$js_version" != "$version" ] || [ "$py_version" != "$version" ]; then
		echo "package: clients/js/package.json has $js_version, clients/python/pyproject.toml $py_version;" \
			"META.json has $version: the clients carry the extension's version" >&2
		return 1
	fi
	# the packages' LICENSE: the repository's
	for license in "$top/clients/js/LICENSE" "$top/clients/python/LICENSE"; do
		cmp -s "$top/LICENSE" "$license" || {
			echo "package: $license differs from LICENSE: cp LICENSE ${license#"$top"/}" >&2
			return 1
		}
	done
	stage=$(mktemp -d)
	# (the script ends with this function: the staging folder goes then,
	# whatever happens)
	# shellcheck disable=SC2064
	trap "rm -rf '$stage'" EXIT
	# JavaScript: the CommonJS entry is committed (cjs/build.sh); a stale one
	# is not packed
	if command -v esbuild >/dev/null; then
		bash "$top/clients/js/cjs/build.sh" "$stage/cjs" >&2
		for f in index.cjs index.d.cts; do
			cmp -s "$stage/cjs/$f" "$top/clients/js/cjs/$f" || {
				echo "package: clients/js/cjs/$f is not what src/ builds: run bash clients/js/cjs/build.sh" >&2
				return 1
			}
		done
	else
		echo "package: esbuild is missing: clients/js/cjs/ packed unchecked against src/" >&2
	fi
	rm -f "$out/pg-bloomfilter-$version.tgz"
	(cd "$top/clients/js" && npm pack --silent --pack-destination "$out" >/dev/null)
	# Python: from a copy of the source (the build writes into it), the
	# sdist, then the wheel from the sdist (so the sdist is known to build)
	mkdir "$stage/python"
	tar -C "$top/clients/python" --exclude=./build --exclude='*.egg-info' --exclude=__pycache__ -cf - . |
		tar -C "$stage/python" -xf -
	rm -f "$out/pg_bloomfilter-$version.tar.gz" "$out/pg_bloomfilter-$version-py3-none-any.whl"
	(cd "$stage/python" && "$python" -m build --no-isolation --outdir "$out" . >"$stage/build.log" 2>&1) || {
		cat "$stage/build.log"
		echo "package: the Python build failed (log above)" >&2
		return 1
	}
	ls -l "$out/pg-bloomfilter-$version.tgz" "$out/pg_bloomfilter-$version.tar.gz" \
		"$out/pg_bloomfilter-$version-py3-none-any.whl"
}

[ $# -ge 1 ] || usage
if [ "$1" = clients ]; then
	[ $# -le 2 ] || usage
	clients "${2:-$top/packages}"
	exit
fi
if [ "$1" = --inside ]; then
	[ $# -eq 2 ] || usage
	inside "$2"
	exit
fi
version=$1
out=${2:-$top/packages}
mkdir -p "$out"
out=$(cd "$out" && pwd)
BLOOM_CHROOT_OUTPUT=$out bash "$top/tools/chroot.sh" run "$version" bash tools/package.sh --inside "$version"
