# tools/lib.sh: helpers that the scripts in tools/ share.  Source it.

# install_missing PKG...: apt-get install those of the Debian packages that
# are not installed yet.
install_missing() {
	local p missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	echo "== installing: ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# regress_counts LOG: "OK BAD", the tests pg_regress passed and failed in
# its output LOG.  Up to 15 it prints "test name ... ok"; from 16 on, TAP:
# "ok 1 - name", "not ok 2 - name".
regress_counts() {
	echo "$(grep -cE '\.\.\. ok|^ok [0-9]+ +[-+] ' "$1" || true)" \
		"$(grep -cE '\.\.\. FAILED|^not ok [0-9]+ +[-+] ' "$1" || true)"
}

# regress_failed LOG: the names of the tests that pg_regress's output LOG
# reports as failed (the formats of regress_counts), one a line, sorted.
regress_failed() {
	grep -E '\.\.\. FAILED|^not ok [0-9]+ +[-+] ' "$1" |
		sed -E 's/^not ok [0-9]+ +[-+] +//; s/ +\.\.\. FAILED.*//; s/^ *(test +)?//; s/ .*//' | sort -u
}

# counts_line NAME LOG: the last line "NAME: P passed, F failed" of LOG, or
# "NAME: 0 passed, 1 failed" when it has none (the run died before counting).
counts_line() {
	local line
	line=$(grep -E "^$1: [0-9]+ passed, [0-9]+ failed$" "$2" | tail -n 1 || true)
	echo "${line:-$1: 0 passed, 1 failed}"
}

# host_archive plain|security: the first archive of that kind the host's apt
# uses (security: its URI or line mentions "security"), or nothing.
host_archive() {
	local want=$1 m=""
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		m=$(awk -v want="$want" '/^URIs:/ { for (i = 2; i <= NF; i++)
			if (($i ~ /security/) == (want == "security")) { print $i; exit } }' \
			/etc/apt/sources.list.d/debian.sources)
	fi
	if [ -z "$m" ] && [ -f /etc/apt/sources.list ]; then
		m=$(awk -v want="$want" '$1 == "deb" && (($0 ~ /security/) == (want == "security")) {
			for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:/) { print $i; exit } }' /etc/apt/sources.list)
	fi
	echo "$m"
}

# The Debian mirror the chroots come from: the host's, or deb.debian.org.
debian_mirror() {
	local m
	m=$(host_archive plain)
	echo "${m:-http://deb.debian.org/debian}"
}

# The security archive beside mirror $1: the host's, or $1-security
# (deb.debian.org/debian -> deb.debian.org/debian-security).
security_mirror() {
	local m
	m=$(host_archive security)
	echo "${m:-${1%/}-security}"
}

# client_packages DIR [PACKAGES]: the folder of the clients' packages, as
# tools/package.sh clients writes them: PACKAGES (made absolute) if given,
# else DIR/packages, built there now (its log shown, on stderr, if the
# build fails).  Prints the folder; DIR must exist.
client_packages() {
	if [ -n "${2:-}" ]; then
		(cd "$2" && pwd)
		return
	fi
	bash tools/package.sh clients "$1/packages" >"$1/package.log" 2>&1 || {
		cat "$1/package.log" >&2
		return 1
	}
	echo "$1/packages"
}
