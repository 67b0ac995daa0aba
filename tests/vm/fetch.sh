#!/bin/sh
# tests/vm/fetch.sh TARGET: the kernel and the static busybox a VM of
# TARGET boots (docs/ARCHES.md, "Proof on each target's own kernel").
# Prints two lines, "kernel PATH" and "busybox PATH".
#
# The four Debian 12 targets take Debian's own kernel and busybox-static
# packages, downloaded with the private apt state of scripts/cross-apt.sh
# (never `dpkg --add-architecture`, see there). Only the kernel image and
# the busybox binary are kept, in $USDTKIT_CACHE/vm/<package>_<version>/,
# so a new Debian point release is fetched once and old ones stay valid.
# The manifest of TARGET (its "cross" key) gives vm_kernel: a Debian
# kernel metapackage, or a script (riscv64 has no Debian 12 kernel or
# busybox: scripts/riscv64/kernel.sh and busybox.sh build them from
# Debian's sources and print their paths), with vm_busybox then too.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/cross-apt.sh
usdtkit_top=$top
. "$top/scripts/cross-apt.sh"
vmcache=$USDTKIT_CACHE/vm

# target -> Debian architecture and kernel metapackage, or scripts
ai=$top/scripts/archinfo
m=$("$ai" find cross "${1:-}")
kmeta=$([ -n "$m" ] && "$ai" get "$m" vm_kernel "")
if [ -z "$kmeta" ]; then
	echo "usage: $0 CROSS (a manifest's cross key, with vm_kernel)" >&2
	exit 2
fi
case $kmeta in
*/*)
	echo "kernel $(sh "$top/$kmeta")"
	echo "busybox $(sh "$top/$("$ai" get "$m" vm_busybox)")"
	exit 0 ;;
esac
arch=$("$ai" get "$m" debian | cut -d' ' -f1)
# the image's name in the package's /boot (ppc64el and mips ship an ELF
# vmlinux, the others a vmlinuz)
kfile=$("$ai" get "$m" vm_kernel_file vmlinuz)

# candidate version of PKG:ARCH in the private apt state
version() {
	apt_cache_cross policy "$1" | awk '/Candidate:/ { print $2 }'
}

# unpack PKG:ARCH's file(s) matching the tar pattern into the cache dir
# named after its version; prints that dir. Concurrent runs (ctest -j)
# serialise on a lock, and a dir is complete once .done exists.
unpack() {	# runs in $(...): its variables stay there
	pkg=$1 ver=$2 pattern=$3
	[ -n "$ver" ] || { echo "vm fetch: no candidate for $pkg" >&2; return 1; }
	dir=$vmcache/${pkg%%:*}_$(echo "$ver" | tr ':' '_')_$arch
	mkdir -p "$vmcache"
	(
		flock 9
		[ -f "$dir/.done" ] && exit 0
		tmp=$dir.tmp
		rm -rf "$tmp" "$dir"
		apt_cross_fetch "$tmp/deb" "$pkg" >&2
		dpkg-deb --fsys-tarfile "$tmp"/deb/*.deb |
			tar -x -C "$tmp" --wildcards "$pattern"
		rm -rf "$tmp/deb"
		mv "$tmp" "$dir"
		touch "$dir/.done"
	) 9>"$vmcache/.lock"
	echo "$dir"
}

# resolve: the kernel package the metapackage names (linux-image-6.1.0-
# NN-ARCH) and the candidate versions of it and busybox-static. apt-cache
# takes seconds per call on the five-architecture lists, so the answer
# is kept until the private lists change (an `apt_cross update`).
apt_cross_init
mkdir -p "$vmcache"
memo=$vmcache/resolved-$arch
# shellcheck disable=SC3013 # -nt: dash's and busybox's test have it
if [ ! -s "$memo" ] || [ "$aptdir/lists" -nt "$memo" ]; then
	kpkg=$(apt_cache_cross depends "$kmeta:$arch" |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	[ -n "$kpkg" ] || { echo "vm fetch: $kmeta:$arch names no kernel" >&2; exit 1; }
	echo "$kpkg $(version "$kpkg") $(version "busybox-static:$arch")" > "$memo.$$"
	mv "$memo.$$" "$memo"
fi
read -r kpkg kver bver < "$memo"
kdir=$(unpack "$kpkg" "$kver" "./boot/$kfile-*")
bdir=$(unpack "busybox-static:$arch" "$bver" './bin/busybox')
echo "kernel $(ls "$kdir"/boot/"$kfile"-*)"
echo "busybox $bdir/bin/busybox"
