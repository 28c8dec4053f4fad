#!/usr/bin/env bash
# tests/packages/installed.sh N: the Debian package postgresql-N-bloomfilter
# as a user gets it.  Runs as root inside a fresh copy of N's chroot, where
# the extension was never built (tools/chroot.sh fresh), with the packages
# tools/package.sh built in /build/input: the current version's .deb, and the
# previous release's in /build/input/previous/.
#
#   1. nothing of the extension is on the system yet;
#   2. the package installs (dpkg -i) and owns the library, the control file
#      and every SQL script, and installs the manual's pages (docs/, beside
#      the README in /usr/share/doc, compressed or not);
#   3. the autopkgtest (debian/tests/installcheck: pg_buildext installcheck,
#      the whole pg_regress suite on a throwaway cluster) passes against the
#      installed files, and nothing was compiled for it;
#   4. upgrade: with the previous release's package installed, a database
#      stores filters (bloom and counting_bloom values, classic and blocked
#      layouts) and their answers; the current package is installed over it;
#      the filters answer the same before and after ALTER EXTENSION
#      bloomfilter UPDATE, which brings the database to the current version;
#   5. the package removes cleanly: none of its files is left.
#
# Prints a line per step, then "installedN: N passed, N failed".
set -uo pipefail
version=$1
name=installed$version
input=/build/input
pkg=postgresql-$version-bloomfilter
pkglibdir=/usr/lib/postgresql/$version/lib
sharedir=/usr/share/postgresql/$version/extension
. tests/packages/steps.sh

current_deb=$(ls "$input"/"$pkg"_*.deb 2>/dev/null | head -n 1)
previous_deb=$(ls "$input"/previous/"$pkg"_*.deb 2>/dev/null | head -n 1)
if [ -z "$current_deb" ] || [ -z "$previous_deb" ]; then
	echo "$name: the packages are missing from $input"
	echo "$name: 0 passed, 1 failed"
	exit 1
fi
current_version=$(dpkg-deb -f "$current_deb" Version)
previous_version=$(dpkg-deb -f "$previous_deb" Version)
control_version=$(sed -n "s/^default_version = '\(.*\)'/\1/p" bloomfilter.control)

# Whether any file of the extension is installed on the system.
any_installed() {
	compgen -G "$pkglibdir/bloomfilter*" >/dev/null || compgen -G "$sharedir/bloomfilter*" >/dev/null
}

# Whether anything was compiled in the source tree.  (find -quit, not
# find | grep -q: under pipefail a find cut off by grep's early exit fails
# the pipeline, which would read as "nothing compiled".)
compiled_here() {
	[ -n "$(find /build/bloomfilter \( -name '*.o' -o -name '*.so' \) -print -quit)" ]
}

never_built() {
	! any_installed && ! compiled_here
}

installs() {
	dpkg -i "$current_deb" >/dev/null || return 1
	[ "$(dpkg-query -W -f '${Version}' "$pkg")" = "$current_version" ] || return 1
	local f
	for f in "$pkglibdir/bloomfilter.so" "$sharedir/bloomfilter.control" bloomfilter--*.sql; do
		case "$f" in /*) ;; *) f=$sharedir/$f ;; esac
		dpkg -S "$f" 2>/dev/null | grep -q "^$pkg: " || {
			echo "not installed by $pkg: $f"
			return 1
		}
	done
	for f in README.md docs/*.md; do
		f=/usr/share/doc/$pkg/$f
		[ -e "$f" ] || [ -e "$f.gz" ] || {
			echo "not installed by $pkg: $f"
			return 1
		}
	done
}

# The autopkgtest, run as autopkgtest runs it: from the source tree, as root.
autopkgtest_installcheck() {
	local log rc=0
	log=$(mktemp)
	debian/tests/installcheck >"$log" 2>&1 || rc=$?
	grep -E "tests passed|failed \(ignoring|tests? failed|^not ok|^ok " "$log" | tail -n 20
	if [ "$rc" != 0 ]; then
		tail -n 60 "$log"
		cat regression.diffs 2>/dev/null | head -n 80
	fi
	rm -f "$log"
	[ "$rc" = 0 ] && ! compiled_here
}

upgrades() {
	dpkg -r "$pkg" >/dev/null && dpkg -i "$previous_deb" >/dev/null || return 1
	[ "$(dpkg-query -W -f '${Version}' "$pkg")" = "$previous_version" ] || return 1
	pg_virtualenv -v "$version" -t bash tests/packages/upgrade.sh "$current_deb" "$control_version"
}

removes() {
	dpkg -r "$pkg" >/dev/null || return 1
	if any_installed; then
		ls -l "$pkglibdir"/bloomfilter* "$sharedir"/bloomfilter* 2>/dev/null
		return 1
	fi
	! dpkg-query -W -f '${db:Status-Status}' "$pkg" 2>/dev/null | grep -q '^installed'
}

echo "== $pkg: $previous_version and $current_version, on $(. /etc/os-release && echo "$PRETTY_NAME")"
step "the extension was never built or installed here" never_built
step "dpkg -i $pkg $current_version: it owns the library, the control file and the SQL scripts, and installs the README and docs/" installs
step "autopkgtest (debian/tests/installcheck: pg_buildext installcheck) against the installed files" \
	autopkgtest_installcheck
step "upgrade from $previous_version: stored filters answer the same, ALTER EXTENSION UPDATE reaches $control_version" upgrades
step "dpkg -r leaves none of its files" removes
steps_end
