#!/usr/bin/env bash
# tools/chroot.sh: PostgreSQL versions other than the host's, each in a
# minimal Debian chroot that is built once and cached.
#
#   bash tools/chroot.sh prepare N       build the chroot of PostgreSQL N, or
#                                        reuse the cached one
#   bash tools/chroot.sh run N CMD ...   prepare, copy this working tree into
#                                        the chroot (/build/bloomfilter), and
#                                        the vendored Citus source beside it
#                                        (/build/shared/vendor), and run CMD
#                                        there as root
#   bash tools/chroot.sh fresh N CMD ... the same in a throwaway copy of the
#                                        chroot as it was made, before anything
#                                        was built or installed in it (an
#                                        overlay on its pristine snapshot);
#                                        the copy is gone when CMD ends
#
# Files in and out: with BLOOM_CHROOT_INPUT=DIR, DIR is copied to
# /build/input before CMD runs; with BLOOM_CHROOT_OUTPUT=DIR, what CMD left in
# /build/output is copied to DIR after it (DIR is emptied first).
#
# N is 15 (Debian bookworm: the host's, here for the package tests that need
# a system where the extension was never built), 17 (Debian trixie) or 18
# (Debian forky).  Run as root on Debian; debootstrap must be installed
# (tools/run.sh installs it).  The chroots live in $BLOOM_CHROOT_CACHE
# (default /var/cache/bloomfilter/chroots), one folder per version and a
# read-only pristine snapshot beside it; a chroot is rebuilt when its recipe
# (suite and package list) changes.  /proc, /dev, /dev/pts and /dev/shm are
# mounted into the chroot only while it is in use.  On every exit path --
# success, failure, Ctrl-C, TERM -- the processes still running inside (a
# server a test left behind) are stopped, the mounts are removed, and a
# fresh copy is deleted.
set -euo pipefail

cache=${BLOOM_CHROOT_CACHE:-/var/cache/bloomfilter/chroots}
top=$(cd "$(dirname "$0")/.." && pwd)
# debian_mirror, security_mirror
. "$top/tools/lib.sh"

usage() {
	echo "usage: $0 prepare N | run N CMD ... | fresh N CMD ..." >&2
	exit 2
}

[ $# -ge 2 ] || usage
action=$1
version=$2
shift 2

# updates: whether the suite is a stable release, with -updates and -security
updates=
case "$version" in
15) suite=bookworm updates=yes ;;
17) suite=trixie updates=yes ;;
18) suite=forky ;;
*)
	echo "chroot: no Debian suite reachable here carries PostgreSQL $version (15: bookworm, 17: trixie, 18: forky)" >&2
	exit 2
	;;
esac

dir=$cache/pg$version-$suite
pristine=$dir.pristine
packages=(postgresql-"$version" postgresql-server-dev-"$version" postgresql-contrib make gcc libc6-dev
	wamerican-huge)
# Debian packages (tools/package.sh): pg_buildext, debhelper, lintian.
packages+=(build-essential postgresql-server-dev-all debhelper lintian)
if [ "$version" != 15 ]; then
	# Citus 13.2.2 (tests/citus) supports PostgreSQL 15 to 17: its build
	# dependencies where it can run (15's runs on the host).
	[ "$version" -gt 17 ] || packages+=(perl libicu-dev liblz4-dev libzstd-dev libkrb5-dev libssl-dev
		libselinux1-dev libxslt1-dev libpam0g-dev libreadline-dev)
	# PostgreSQL's own regression suite (tests/pg_suite) is built from source:
	# 17 and later ship no generated parser files in their tarballs; curl
	# fetches the source (tools/pgsource.sh).
	packages+=(bison flex perl curl bzip2)
fi
recipe="suite=$suite updates=${updates:-no} packages=${packages[*]}"

# The mount points below $1, deepest first.
mounts_below() {
	awk -v root="$1" '$2 == root || index($2, root "/") == 1 { print $2 }' /proc/mounts | sort -r
}

# Stop every process whose root directory is $1, then unmount what is
# mounted below it.  Safe to call more than once.
release() {
	local root=$1 pid pids=() m i
	[ -d "$root" ] || return 0
	for pid in /proc/[0-9]*; do
		[ "$(readlink "$pid/root" 2>/dev/null)" = "$root" ] && pids+=("${pid#/proc/}")
	done
	if [ ${#pids[@]} -gt 0 ]; then
		kill -TERM "${pids[@]}" 2>/dev/null || true
		for i in $(seq 1 50); do
			kill -0 "${pids[@]}" 2>/dev/null || break
			sleep 0.2
		done
		kill -KILL "${pids[@]}" 2>/dev/null || true
	fi
	for m in $(mounts_below "$root"); do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
}

# Remove a chroot folder; refuses while anything is still mounted below it,
# so that a bind-mounted /dev is never deleted through.
remove_tree() {
	local root=$1
	release "$root"
	if [ -n "$(mounts_below "$root")" ]; then
		echo "chroot: $root still has mounts; not removing it" >&2
		return 1
	fi
	rm -rf --one-file-system "$root"
}

mount_into() {
	local root=$1
	mount -t proc proc "$root/proc"
	mount --bind /dev "$root/dev"
	mount --bind /dev/pts "$root/dev/pts"
	mkdir -p "$root/dev/shm"
	mount --bind /dev/shm "$root/dev/shm"
}

# in_chroot ROOT CMD ...: CMD as root inside ROOT with a clean environment.
in_chroot() {
	local root=$1
	shift
	chroot "$root" /usr/bin/env -i \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" DEBIAN_FRONTEND=noninteractive \
		CI="${CI:-}" FUZZ_SECONDS="${FUZZ_SECONDS:-}" LOAD_SECONDS="${LOAD_SECONDS:-}" \
		"$@" 9>&-
}

build_chroot() {
	local new=$dir.new mirror
	mirror=$(debian_mirror)
	remove_tree "$new"
	echo "== chroot: debootstrap $suite (PostgreSQL $version) from $mirror into $new"
	# The sid script serves every suite from bookworm on (forky has none of
	# its own in bookworm's debootstrap).
	if ! debootstrap --variant=minbase "$suite" "$new" "$mirror" \
		/usr/share/debootstrap/scripts/sid >"$cache/debootstrap-$version.log" 2>&1 9>&-; then
		tail -n 30 "$cache/debootstrap-$version.log" >&2
		echo "chroot: debootstrap of $suite failed (log: $cache/debootstrap-$version.log)" >&2
		return 1
	fi
	# No service starts inside the chroot, and no default cluster is made:
	# the tests make their own with pg_virtualenv.
	printf '#!/bin/sh\nexit 101\n' >"$new/usr/sbin/policy-rc.d"
	chmod 755 "$new/usr/sbin/policy-rc.d"
	mkdir -p "$new/etc/postgresql-common"
	echo "create_main_cluster = false" >"$new/etc/postgresql-common/createcluster.conf"
	# A testing suite's Release file may be past its Valid-Until date.
	echo 'Acquire::Check-Valid-Until "false";' >"$new/etc/apt/apt.conf.d/99bloomfilter"
	# A stable release's point and security updates, as its users have them
	# (bookworm's main suite alone carries 15.18 where its users run 15.20).
	if [ -n "$updates" ]; then
		printf 'deb %s %s-updates main\ndeb %s %s-security main\n' "$mirror" "$suite" \
			"$(security_mirror "$mirror")" "$suite" >"$new/etc/apt/sources.list.d/bloomfilter-updates.list"
	fi
	cp /etc/resolv.conf "$new/etc/resolv.conf" 2>/dev/null || true
	echo "== chroot: installing ${packages[*]}"
	in_use=$new
	mount_into "$new"
	in_chroot "$new" apt-get update -qq
	in_chroot "$new" apt-get install -y -qq --no-install-recommends \
		-o Dpkg::Options::=--force-confold "${packages[@]}" >/dev/null
	in_chroot "$new" apt-get clean
	release "$new"
	in_use=
	echo "$recipe" >"$new/.bloomfilter-recipe"
	# the snapshot that `fresh` starts from: nothing built or installed yet
	remove_tree "$pristine"
	cp -a "$new" "$pristine.new"
	mv "$pristine.new" "$pristine"
	remove_tree "$dir"
	mv "$new" "$dir"
}

prepare() {
	mkdir -p "$cache"
	# Held until this script ends; what runs inside does not inherit it.
	exec 9>"$cache/.lock-$version"
	flock 9
	if [ -f "$dir/.bloomfilter-recipe" ] && [ "$(cat "$dir/.bloomfilter-recipe")" = "$recipe" ] &&
		[ -f "$pristine/.bloomfilter-recipe" ]; then
		echo "== chroot: reusing $dir ($(in_chroot "$dir" /usr/lib/postgresql/"$version"/bin/pg_config --version))"
	else
		build_chroot
		echo "== chroot: ready: $dir ($(in_chroot "$dir" /usr/lib/postgresql/"$version"/bin/pg_config --version))"
	fi
}

# Copy the working tree as git sees it (tracked files and untracked ones it
# does not ignore; no build products) to $1.
copy_tree() {
	local dest=$1
	rm -rf --one-file-system "$dest"
	mkdir -p "$dest"
	if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$top" && git ls-files -z -co --exclude-standard |
			xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
			tar --null -T - -cf -) | tar -C "$dest" -xf -
	else
		tar -C "$top" --exclude=.git -cf - . | tar -C "$dest" -xf -
	fi
	chmod -R a+rX "$dest"
}

# fresh_root: mount a throwaway overlay of the pristine snapshot on
# $scratch/root (its changes go to $scratch/upper).
fresh_root() {
	remove_tree "$scratch"
	mkdir -p "$scratch"/{upper,work,root}
	in_use=$scratch/root
	mount -t overlay overlay -o "lowerdir=$pristine,upperdir=$scratch/upper,workdir=$scratch/work" \
		"$scratch/root"
}

# run_in ROOT CMD ...: copy the tree (and BLOOM_CHROOT_INPUT) into ROOT, run
# CMD there in /build/bloomfilter, and copy /build/output out.
run_in() {
	local root=$1 rc=0
	shift
	copy_tree "$root/build/bloomfilter"
	# the vendored sources the tests use (Citus), where the checkout has them
	rm -rf --one-file-system "$root/build/shared" "$root/build/input" "$root/build/output"
	if compgen -G "$top/../shared/vendor/citus-*.tar.gz" >/dev/null; then
		mkdir -p "$root/build/shared/vendor"
		cp "$top"/../shared/vendor/citus-*.tar.gz "$root/build/shared/vendor/"
	fi
	mkdir -p "$root/build/input" "$root/build/output"
	if [ -n "${BLOOM_CHROOT_INPUT:-}" ]; then
		cp -a "$BLOOM_CHROOT_INPUT"/. "$root/build/input/"
	fi
	chmod -R a+rX "$root/build/input"
	mount_into "$root"
	# In the background, so that a signal to this script is handled at once
	# (the EXIT trap then stops what runs inside) instead of after CMD ends;
	# in a subshell that closes the lock first, so that if this script is
	# killed outright the next run can take the lock and clean up.
	(
		exec 9>&-
		in_chroot "$root" /bin/bash -c 'cd /build/bloomfilter && exec "$@"' bash "$@"
	) &
	wait $! || rc=$?
	if [ -n "${BLOOM_CHROOT_OUTPUT:-}" ]; then
		mkdir -p "$BLOOM_CHROOT_OUTPUT"
		find "$BLOOM_CHROOT_OUTPUT" -mindepth 1 -delete
		cp -a "$root/build/output"/. "$BLOOM_CHROOT_OUTPUT"/
	fi
	return "$rc"
}

# The chroot whose mounts and processes must go when this script ends, and
# a throwaway copy to remove.
in_use=
scratch=
cleanup() {
	[ -z "$in_use" ] || release "$in_use"
	[ -z "$scratch" ] || remove_tree "$scratch"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

case "$action" in
prepare)
	[ $# -eq 0 ] || usage
	prepare
	;;
run)
	[ $# -ge 1 ] || usage
	prepare
	release "$dir" # what a killed earlier run left running or mounted
	in_use=$dir
	run_in "$dir" "$@"
	;;
fresh)
	[ $# -ge 1 ] || usage
	prepare
	scratch=$cache/scratch-pg$version
	fresh_root
	run_in "$scratch/root" "$@"
	;;
*) usage ;;
esac
