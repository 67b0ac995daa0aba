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

apt_private() {	# apt_private TOOL ARGS...: apt-get or apt-cache with the private state
	_tool=$1; shift
	"$_tool" -o Dir::State::Lists="$aptdir/lists" \
		-o Dir::Cache="$aptdir/cache" \
		-o Dir::Etc::SourceList="$aptdir/sources.list" \
		-o Dir::Etc::SourceParts="$aptdir/sources.list.d" \
		-o APT::Architectures::=amd64 \
		$(for _a in $apt_cross_archs; do echo "-o APT::Architectures::=$_a"; done) \
		"$@"
}

apt_cross() { apt_private apt-get -qq "$@"; }
apt_cache_cross() { apt_private apt-cache "$@"; }

# one_line_src FILE: FILE's entries less the security suite, each deb
# line followed by its deb-src
one_line_src() {
	grep -v security "$1" | awk '{ print } sub(/^deb /, "deb-src ")'
}

# apt_suite_use SUITE: from now on, a state of its own for another Debian
# suite (the VM kernels of other releases, tests/vm/fetch.sh: bullseye,
# trixie, bookworm-backports), in $USDTKIT_CACHE/apt-SUITE: binary
# packages of every architecture whose manifest takes a kernel from SUITE
# (vm_kernels), from the archive the machine's own sources name. The
# machine's suite keeps the state above.
apt_suite_use() {
	apt_suite=$1
	aptdir=$USDTKIT_CACHE/apt-$apt_suite
	apt_cross_archs=$("$usdtkit_top/scripts/archinfo" table vm_kernels debian |
		awk -F'\t' -v s="$apt_suite" 'index($3, "=" s ":") { split($4, d, " "); printf "%s ", d[1] }')
	apt_cross_marker=$aptdir/.updated-$(echo $apt_cross_archs | tr ' ' -)
}

# the Debian archive of the machine's sources (deb822 or one-line)
apt_archive_uri() {
	{ cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^URIs:/ && !/security/ { print $2 }'
	  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" && $2 ~ /debian\/?$/ && !/security/ { print $2 }'
	} | grep -m1 . || echo http://deb.debian.org/debian
}

# apt_suite_sources: the one-suite state's sources.list
apt_suite_sources() {
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
		"$(apt_archive_uri) $apt_suite main" > "$aptdir/sources.list"
}

# apt_suite_update: an old suite's mirror may answer 404 or be mid-sync:
# a few tries, then a failure that names the suite
apt_suite_update() {
	for _try in 1 2 3 4; do
		apt_cross update >&2 && return 0
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

# apt_cross_fetch DIR PKG[:ARCH]...: download the packages into DIR
# (cached by apt in the state); fails naming the first one missing.
apt_cross_fetch() {
	local dir=$1 n p; shift
	apt_cross_init
	mkdir -p "$dir"
	(cd "$dir" && apt_cross download "$@" 2>&1 | grep -v unsandboxed >&2) || true
	for p in "$@"; do
		n=${p%%:*}
		ls "$dir/${n}_"*.deb >/dev/null 2>&1 || {
			echo "cross-apt: cannot download $p" >&2
			return 1
		}
	done
}
