#!/bin/sh
# Sourced by scripts/cross.sh, scripts/riscv64/*.sh and tests/vm/*.sh: a
# private apt state for foreign-architecture packages and Debian source
# packages, so that nothing of the machine's own dpkg state changes.
#
# Why private (docs/ARCHES.md): `dpkg --add-architecture` makes every
# later `apt-get update` of the machine fetch four foreign indices (which
# fail while a mirror is mid-sync), and `apt-get install PKG:ARCH` is
# refused whenever the host's packages come from bookworm-security and
# are newer than the foreign ones. The state lives in the cache directory
# (USDTKIT_CACHE, default /var/cache/usdtkit), which outlives a clean
# clone: the machine that runs CI keeps what an earlier run fetched.
#
# It holds the machine's own Debian sources less the security suite (it
# has none of the packages we need, and its foreign indices are the ones
# that fail mid-sync), with deb-src added for `apt_cross source`.

USDTKIT_CACHE=${USDTKIT_CACHE:-/var/cache/usdtkit}
aptdir=$USDTKIT_CACHE/apt
# The foreign architectures the state indexes. The "updated" marker names
# them, so a state made before an architecture was added is updated once
# more and gets that architecture's indices.
# the Debian 12 architectures of the manifests that cross-build from
# Debian's packages (a "cross" key, no "sysroot" script, libraries)
# (the sourcing script sets usdtkit_top to the source tree)
apt_cross_archs=$("${usdtkit_top:?}/scripts/archinfo" table cross sysroot cross_libs debian |
	awk -F'\t' '$3 != "-" && $4 == "-" && $5 != "none" { split($6, d, " "); printf "%s ", d[1] }')
# bump the recipe when the way the state is made changes: a state made
# the old way is then made again
apt_cross_marker=$aptdir/.updated-r2-$(echo $apt_cross_archs | tr " " -)
# the machine's own architecture is indexed too (its build tools)
apt_native_arch=amd64

apt_private() {	# apt_private TOOL ARGS...: apt-get or apt-cache with the private state
	_tool=$1; shift
	"$_tool" -o Dir::State::Lists="$aptdir/lists" \
		-o Dir::Cache="$aptdir/cache" \
		-o Dir::Etc::SourceList="$aptdir/sources.list" \
		-o Dir::Etc::SourceParts="$aptdir/sources.list.d" \
		$(for _a in $apt_native_arch $apt_cross_archs; do echo "-o APT::Architectures::=$_a"; done) \
		"$@"
}

apt_cross() { apt_private apt-get -qq "$@"; }
apt_cache_cross() { apt_private apt-cache "$@"; }

# one_line_src FILE: FILE's entries less the security suite, each deb
# line followed by its deb-src
one_line_src() {
	grep -v security "$1" | awk '{ print } sub(/^deb /, "deb-src ")'
}

# apt_suite_use SUITE ARCH: from now on, a state of its own for another
# Debian suite (the VM kernels of other releases, tests/vm/fetch.sh:
# bullseye, trixie, bookworm-backports), in $USDTKIT_CACHE/apt-SUITE-ARCH:
# binary packages of one Debian architecture, from the archive the
# machine's own sources name. One architecture per state, because apt
# keeps none of a suite's lists when one architecture's index fails (a
# mirror mid-sync), and a kernel of one architecture needs no other's
# index. The machine's suite keeps the state above.
apt_suite_use() {
	apt_suite=$1
	aptdir=$USDTKIT_CACHE/apt-$apt_suite-$2
	apt_native_arch=
	apt_cross_archs=$2
	apt_cross_marker=$aptdir/.updated-s3
}

# the Debian archive of the machine's sources (deb822 or one-line)
apt_archive_uri() {
	{ cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^URIs:/ && !/security/ { print $2 }'
	  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" && $2 ~ /debian\/?$/ && !/security/ { print $2 }'
	} | grep -m1 . || echo http://deb.debian.org/debian
}

# the security archive of the machine's sources, or Debian's
apt_security_uri() {
	{ cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^URIs:/ && /security/ { print $2 }'
	  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" && /security/ { print $2 }'
	} | grep -m1 . || echo http://deb.debian.org/debian-security
}

# apt_suite_sources: the one-suite state's sources.list. A release's
# security suite too, as a machine of that release has it: a kernel
# security update removes the point release's kernel from the main pool
# (seen with Debian 13's 6.12.117 once 6.12.118 came in trixie-security,
# while trixie's own index still named 6.12.117); backports has none.
apt_suite_sources() {
	_k="deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]"
	echo "$_k $(apt_archive_uri) $apt_suite main" > "$aptdir/sources.list"
	case $apt_suite in
	*-*) ;;
	*) echo "$_k $(apt_security_uri) $apt_suite-security main" \
		>> "$aptdir/sources.list" ;;
	esac
}

# apt_suite_update: an old suite's mirror may answer 404 or be mid-sync:
# a few tries, then a failure that names the suite
# a few tries, then a failure that names the suite. The security suite
# is a help, not a need: when only its indices fail (its mirror's
# Release and Packages disagree mid-sync), the suite's own lists serve.
apt_suite_update() {
	_log=$aptdir/update.log
	for _try in 1 2 3 4; do
		apt_cross update >"$_log" 2>&1 && return 0
		cat "$_log" >&2
		if ! grep '^E: Failed to fetch' "$_log" | grep -qv -- "-security/" &&
		   grep -q '^E: Failed to fetch' "$_log"; then
			echo "cross-apt: Debian $apt_suite-security: incomplete" \
				"package lists (mirror sync?): using $apt_suite's alone" >&2
			return 0
		fi
		echo "cross-apt: Debian $apt_suite: apt update failed (try $_try of 4)" >&2
		[ "$_try" = 4 ] || sleep $((_try * 15))
	done
	echo "cross-apt: Debian $apt_suite: no package lists from $(apt_archive_uri)" >&2
	return 1
}

# apt_cross_init: make the state and update it once (a lock keeps two
# scripts that run at once from updating it together).
apt_cross_init() {
	mkdir -p "$aptdir"
	(
		flock 9
		[ -f "$apt_cross_marker" ] && exit 0
		mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial" \
			"$aptdir/sources.list.d"
		if [ -n "${apt_suite:-}" ]; then
			apt_suite_sources
			apt_suite_update || exit 1
			touch "$apt_cross_marker"
			exit 0
		fi
		# one-line format (a debootstrapped or installer-made machine's
		# sources.list): the same, a deb-src after each deb line
		[ -f /etc/apt/sources.list ] &&
			one_line_src /etc/apt/sources.list > "$aptdir/sources.list"
		# deb822: drop the security stanza, add deb-src to the rest
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			awk 'BEGIN { RS = ""; ORS = "\n\n" } !/security/' "$f" |
				sed 's/^Types: deb$/Types: deb deb-src/' \
				> "$aptdir/sources.list.d/${f##*/}"
		done
		for f in /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			one_line_src "$f" > "$aptdir/sources.list.d/${f##*/}"
		done
		# a foreign index missing on the mirror is no error here: the
		# download that needed it fails and says so
		apt_cross update >&2 || echo "cross-apt: apt update reported errors" >&2
		touch "$apt_cross_marker"
	) 9>"$aptdir/.lock"
}

# apt_cross_missing DIR PKG[:ARCH]...: the first package with no .deb in DIR
apt_cross_missing() {
	local dir=$1 p n; shift
	for p in "$@"; do	# PKG[:ARCH][=VERSION]
		n=${p%%=*}
		ls "$dir/${n%%:*}_"*.deb >/dev/null 2>&1 || { echo "$p"; return; }
	done
}

# apt_cross_fetch DIR PKG[:ARCH]...: download the packages into DIR
# (cached by apt in the state); fails naming the first one missing. A
# state updated once, long ago, names versions the archive has since
# replaced (a point release: 404), so a failed download updates the
# state once more and tries again.
apt_cross_fetch() {
	local dir=$1 miss try; shift
	apt_cross_init
	mkdir -p "$dir"
	for try in 1 2; do
		(cd "$dir" && apt_cross download "$@" 2>&1 | grep -v unsandboxed >&2) || true
		miss=$(apt_cross_missing "$dir" "$@")
		[ -z "$miss" ] && return 0
		[ $try = 1 ] || break
		echo "cross-apt: $miss: updating the package lists once more" >&2
		rm -f "$apt_cross_marker"
		apt_cross_init
	done
	echo "cross-apt: cannot download $miss" >&2
	return 1
}
