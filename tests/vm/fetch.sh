#!/bin/sh
# tests/vm/fetch.sh TARGET [KERNEL]: the kernel and the static busybox a
# VM of TARGET boots (docs/ARCHES.md, "Proof on each target's own
# kernel"). Prints two lines, "kernel PATH" and "busybox PATH".
#
# The manifest of TARGET (its "cross" key) lists its kernels in
# vm_kernels: the first, a bare version (6.1), is vm_kernel's, a Debian
# kernel metapackage of the machine's own suite, or a script (riscv64 has
# no Debian 12 kernel or busybox: scripts/riscv64/kernel.sh and
# busybox.sh build them from Debian's sources and print their paths, and
# vm_busybox is then set too); the others say VERSION=SUITE:METAPACKAGE
# (6.12=trixie:linux-image-arm64). KERNEL defaults to the first.
# Packages come with the private apt states of scripts/cross-apt.sh
# (never `dpkg --add-architecture`, see there; one state per other
# suite). Only the kernel image and the busybox binary (always the
# machine's suite's) are kept, in $USDTKIT_CACHE/vm/<package>_<version>/,
# so a new Debian point release is fetched once and old ones stay valid.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/cross-apt.sh
usdtkit_top=$top
. "$top/scripts/cross-apt.sh"
vmcache=$USDTKIT_CACHE/vm

# target -> Debian architecture and kernel metapackage, or scripts
ai=$top/scripts/archinfo
# --libs CROSS: Debian's own libc6, libc6-dbg, libstdc++6 and libgcc-s1
# of the target, unpacked once; prints "libs DIR"
libs=
[ "${1:-}" = --libs ] && { libs=1; shift; }
m=$("$ai" find cross "${1:-}")
kmeta=$([ -n "$m" ] && "$ai" get "$m" vm_kernel "")
if [ -z "$kmeta" ]; then
	echo "usage: $0 CROSS [KERNEL] (a manifest's cross key, with vm_kernel)" >&2
	exit 2
fi
# KERNEL: one of vm_kernels (default the first; a bare version is vm_kernel's
# from the machine's own suite; the others say SUITE:METAPACKAGE)
kernels=$("$ai" get "$m" vm_kernels "")
kernel=${2:-${kernels%% *}}
ksrc=
for k in $kernels; do
	case $k in
	"$kernel"=*) ksrc=${k#*=} ;;
	"$kernel") ksrc=default ;;
	esac
done
if [ -n "$kernel" ] && [ -z "$ksrc" ]; then
	echo "vm fetch: $1 has no kernel $kernel (manifest vm_kernels: $kernels)" >&2
	exit 2
fi
arch=$("$ai" get "$m" debian | cut -d' ' -f1)
# The "unwind" scenario's libraries (vm.sh): the cross toolchain's
# libstdc++ has no SDT notes (no libstdcxx:throw) and its libc no symbol
# table and no debug package, so __libc_start_call_main has no name: the
# guest gets Debian's, whose libc6-dbg holds that name (by build id)
if [ -n "$libs" ]; then
	dir=$vmcache/libs-$arch
	mkdir -p "$vmcache"
	(
		flock 9
		[ -f "$dir/.done" ] && exit 0
		rm -rf "$dir" "$dir.debs"
		apt_cross_fetch "$dir.debs" "libc6:$arch" "libc6-dbg:$arch" \
			"libstdc++6:$arch" "libgcc-s1:$arch" >&2 || exit 1
		for d in "$dir.debs"/*.deb; do
			dpkg -x "$d" "$dir" || exit 1
		done
		rm -rf "$dir.debs"
		touch "$dir/.done"
	) 9>"$vmcache/.lock" || exit 1
	echo "libs $dir"
	exit 0
fi
busybox_script=$("$ai" get "$m" vm_busybox "")
# the image's name in the package's /boot (ppc64el and mips ship an ELF
# vmlinux, the others a vmlinuz)
kfile=$("$ai" get "$m" vm_kernel_file vmlinuz)

# unpack PKG:ARCH's file(s) matching the tar pattern into the cache dir
# named after its version; prints that dir. Concurrent runs (ctest -j)
# serialise on a lock, and a dir is complete once .done exists. Every
# step is checked by hand: called in an && list, set -e does not apply.
unpack() {	# runs in $(...): its variables stay there
	pkg=$1 ver=$2 pattern=$3
	[ -n "$ver" ] || { echo "vm fetch: no candidate for $pkg${apt_suite:+ in Debian $apt_suite}" >&2; return 1; }
	dir=$vmcache/${pkg%%:*}_$(echo "$ver" | tr ':' '_')_$arch
	mkdir -p "$vmcache"
	(
		flock 9
		[ -f "$dir/.done" ] && exit 0
		tmp=$dir.tmp
		rm -rf "$tmp" "$dir"
		apt_cross_fetch "$tmp/deb" "$pkg=$ver" >&2 || exit 1
		dpkg-deb --fsys-tarfile "$tmp"/deb/*.deb >"$tmp/deb/tar" &&
			tar -x -C "$tmp" --wildcards -f "$tmp/deb/tar" "$pattern" ||
			exit 1
		rm -rf "$tmp/deb"
		mv "$tmp" "$dir" && touch "$dir/.done"
	) 9>"$vmcache/.lock" || return 1
	echo "$dir"
}

# resolve NAME META: "PKG VERSION" lines, newest first, of the kernel
# packages META names (linux-image-6.1.0-NN-ARCH) in every version the
# state's lists hold, or of busybox-static for META "-". From Linux 7.x
# on, Debian's linux-image-VER is itself a metapackage and the image is
# in the linux-binary-VER it depends on: that one is named instead
# (image_pkg). More than one:
# a release's security suite has a newer kernel than its point release,
# and a mirror may serve only one of them (bullseye-security's
# 5.10.0-46 answered 404 where bullseye's 5.10.0-32 did not). apt-cache
# takes seconds per call on big lists, so the answer is kept in
# $vmcache/resolved-NAME until the state's lists change.
resolve() {
	_memo=$vmcache/resolved-$1
	apt_cross_init
	mkdir -p "$vmcache"
	# shellcheck disable=SC3013 # -nt: dash's and busybox's test have it
	if [ ! -s "$_memo" ] || [ "$aptdir/lists" -nt "$_memo" ]; then
		if [ "$2" = - ]; then
			apt_cache_cross madison "busybox-static:$arch" |
				awk -v a="$arch" '{ print "busybox-static:" a, $3 }'
		else
			# each version's stanza: its Depends names the kernel
			apt_cache_cross show "$2:$arch" 2>/dev/null | awk -v a="$arch" '
				/^Depends:/ && match($0, /linux-image-[0-9][^ ,]* \(= [^)]*\)/) {
					split(substr($0, RSTART, RLENGTH), d, /[ ()=]+/)
					print d[1] ":" a, d[2]
				}' | image_pkg
		fi | sort -u -k2,2Vr > "$_memo.$$"
		[ -s "$_memo.$$" ] || { rm -f "$_memo.$$"; echo "vm fetch: $2:$arch names no package${apt_suite:+ in Debian $apt_suite}" >&2; exit 1; }
		mv "$_memo.$$" "$_memo"
	fi
	cat "$_memo"
}

# image_pkg: "PKG VERSION" lines on stdin, each kernel package replaced
# by the linux-binary-* package of the same version its Depends names,
# if any (7.x), so that the package unpacked is the one with the image
image_pkg() {
	while read -r _p _v; do
		_b=$(apt_cache_cross show "$_p=$_v" 2>/dev/null | awk '
			/^Depends:/ && match($0, /linux-binary-[0-9][^ ,:]*/) {
				print substr($0, RSTART, RLENGTH); exit
			}')
		[ -z "$_b" ] || _p=$_b:${_p#*:}
		echo "$_p $_v"
	done
}

# image_pattern PKG: where the package keeps the image (tar pattern):
# linux-image-* in /boot, 7.x's linux-binary-* in /usr/lib/modules/VER
image_pattern() {
	case $1 in
	linux-binary-*) echo "./usr/lib/modules/*/$kfile" ;;
	*) echo "./boot/$kfile-*" ;;
	esac
}

# try NAME PATTERN: unpack the first of resolve's lines (on stdin) that
# downloads; prints its dir
try() {
	while read -r _p _v; do
		_pat=$2
		[ "$_pat" != kernel ] || _pat=$(image_pattern "$_p")
		unpack "$_p" "$_v" "$_pat" && return 0
		echo "vm fetch: $1: $_p $_v not downloadable, trying an older one" >&2
	done
	return 1
}

# fetch NAME META PATTERN: the newest package that downloads; prints
# its dir. PATTERN "kernel": the image, wherever its package keeps it. When none does (the lists name versions the archive has
# replaced), the lists are updated and resolved once more.
fetch() {
	mkdir -p "$vmcache"
	resolve "$1" "$2" > "$vmcache/.try-$1.$$" || return 1
	if try "$1" "$3" < "$vmcache/.try-$1.$$"; then
		rm -f "$vmcache/.try-$1.$$"
		return 0
	fi
	echo "vm fetch: $1: updating the package lists and resolving again" >&2
	rm -f "$vmcache/resolved-$1" "$apt_cross_marker"
	resolve "$1" "$2" > "$vmcache/.try-$1.$$" || return 1
	try "$1" "$3" < "$vmcache/.try-$1.$$"
	_rc=$?
	rm -f "$vmcache/.try-$1.$$"
	return $_rc
}

# busybox: the machine's suite (or the manifest's script)
if [ -n "$busybox_script" ]; then
	busybox=$(sh "$top/$busybox_script")
else
	busybox=$(fetch "busybox-$arch" - './bin/busybox')/bin/busybox
fi
# the kernel: a script's (riscv64's 6.1), the machine's suite, or another
case $kmeta:$ksrc in
*/*:default | */*:)
	echo "kernel $(sh "$top/$kmeta")"
	echo "busybox $busybox"
	exit 0 ;;
*:default | *:)
	name=$arch meta=$kmeta ;;
*)
	suite=${ksrc%%:*} meta=${ksrc#*:}
	name=$suite-$arch
	apt_suite_use "$suite" "$arch" ;;
esac
kdir=$(fetch "$name" "$meta" kernel)
echo "kernel $(ls "$kdir"/boot/"$kfile"-* "$kdir"/usr/lib/modules/*/"$kfile" 2>/dev/null)"
echo "busybox $busybox"
