#!/bin/sh
# Sourced by scripts/riscv64/*.sh: what the riscv64 builds share.
#
# riscv64 is no Debian 12 architecture (a port in 12, official from 13),
# so bookworm has no riscv64 binary package of libelf, libbpf, zlib,
# zstd, busybox or a kernel. We build them from bookworm's own source
# packages with Debian's cross compiler (gcc-riscv64-linux-gnu), fetched
# with the private apt state of scripts/cross-apt.sh (never a
# binary from outside Debian's archive, nothing from the next release).
#
# Every result is cached in $USDTKIT_CACHE/riscv64/<name>-<key>, where the
# key hashes the source versions and the recipe (rv_key), so that a later
# run with the same versions costs an apt lookup and nothing else. A
# result is built in a temporary directory next to it and renamed into
# place when complete: rename is atomic, so a directory with that name
# is always whole, and a killed build leaves only a temporary directory
# that the next run (holding the lock) removes.
#
# Stdout is reserved for the result path the script prints; progress goes
# to stderr, one line per step, and the tools' output to log files.

: "${rv_top:?set rv_top to the repository root before sourcing}"
usdtkit_top=$rv_top
. "$rv_top/scripts/cross-apt.sh"

# (used by the scripts that source this file)
# shellcheck disable=SC2034
rv_cache=$USDTKIT_CACHE/riscv64 rv_triplet=riscv64-linux-gnu rv_jobs=$(nproc)

rv_say() {
	echo "riscv64: $*" >&2
}

rv_die() {
	echo "riscv64: error: $*" >&2
	exit 1
}

# rv_run LOG CMD...: run CMD with its output appended to LOG; on failure
# show the end of the log, which is where make and configure say why.
# (No `local` in POSIX sh: the helpers' own variables start with _rv.)
rv_run() {
	_rv_log=$1
	shift
	if ! "$@" >>"$_rv_log" 2>&1; then
		echo "riscv64: failed: $*" >&2
		tail -n 30 "$_rv_log" >&2
		rv_die "full log: $_rv_log"
	fi
}

# rv_step LOG WHAT CMD...: rv_run, timed, in one line of progress.
rv_step() {
	_rv_what=$2
	_rv_t0=$(date +%s)
	_rv_steplog=$1
	shift 2
	rv_run "$_rv_steplog" "$@"
	rv_say "$_rv_what ($(($(date +%s) - _rv_t0)) s)"
}

# rv_dscs SRCPKG...: the .dsc file name of each source package, as the
# private apt state resolves it now (the newest version among bookworm
# and bookworm-updates). Its name carries the version, so it is both the
# cache key's input and what rv_unpack unpacks.
rv_dscs() {
	apt_cross_init
	apt_cross source --print-uris "$@" 2>/dev/null |
		sed -n "s/^'[^']*' \([^ ]*\.dsc\) .*/\1/p"
}

# rv_key WORD...: a short stable hash of the words (versions, recipe).
rv_key() {
	printf '%s\n' "$@" | sha256sum | cut -c1-16
}

# rv_unpack SRCPKG DSC DIR LOG: download the source package into
# $rv_cache/src and unpack it into DIR with dpkg-source, which also
# applies Debian's patches. The files are kept: apt skips those already
# there whose checksums match the index, so a rebuild downloads nothing
# and an interrupted download is completed. (dpkg-source warns that it
# cannot verify the .dsc's signature without debian-keyring; apt has
# checked every file against the Sources index, which the archive's
# InRelease signs, and dpkg-source the tarballs against the .dsc.)
rv_unpack() {
	_rv_src=$1 _rv_dsc=$2 _rv_dir=$3 _rv_ulog=$4
	mkdir -p "$rv_cache/src"
	(
		# two scripts fetching at once must not write the same file
		flock 8
		cd "$rv_cache/src" && apt_cross source --download-only "$_rv_src"
	) 8>"$rv_cache/src/.lock" >>"$_rv_ulog" 2>&1 ||
		rv_die "cannot download the source of $_rv_src (log: $_rv_ulog)"
	[ -f "$rv_cache/src/$_rv_dsc" ] ||
		rv_die "apt fetched another version of $_rv_src than $_rv_dsc (log: $_rv_ulog)"
	rv_run "$_rv_ulog" dpkg-source -x "$rv_cache/src/$_rv_dsc" "$_rv_dir"
}

# rv_begin NAME KEY [FILE]: if $rv_cache/NAME-KEY exists, print it (or
# FILE in it) and exit.
# Otherwise take NAME's lock (held until the script exits: a second run
# waits here, then finds the result), make a fresh temporary directory
# $rv_tmp and log directory $rv_log, and set $rv_out, the final path.
rv_begin() {
	rv_out=$rv_cache/$1-$2
	rv_print=$rv_out${3:+/$3}
	if [ -e "$rv_out" ]; then
		echo "$rv_print"
		exit 0
	fi
	mkdir -p "$rv_cache"
	exec 9>"$rv_cache/.$1.lock"
	flock 9
	if [ -e "$rv_out" ]; then	# built while we waited
		echo "$rv_print"
		exit 0
	fi
	# what a killed run left; nobody else uses it, we hold the lock
	rm -rf "$rv_cache/.tmp-$1-"*
	rv_tmp=$(mktemp -d "$rv_cache/.tmp-$1-$2.XXXXXX")
	trap 'rm -rf "$rv_tmp"' EXIT
	trap 'exit 130' INT TERM HUP
	rv_log=$rv_cache/log/$1-$2
	rm -rf "$rv_log"
	mkdir -p "$rv_log"
}

# rv_commit DIR: rename DIR (inside $rv_tmp) to $rv_out and print it
# (or the FILE given to rv_begin).
rv_commit() {
	mv "$1" "$rv_out"
	echo "$rv_print"
}
