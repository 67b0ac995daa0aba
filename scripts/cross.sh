#!/bin/sh
# Cross-architecture proof (docs/ARCHES.md): cross-build usdtkit
# for each Debian cross target (cmake/toolchains/) and run its "cross"
# tests under qemu-user: the unit tests and the probe-site check.
#
# Every target builds the whole of usdtkit: the ELF core, the attach
# layer, the BPF programs in the target's byte order, and one static CLI
# with `trace` (build-cross/TARGET/cli/usdtkit). The target's libelf,
# libbpf, zlib and zstd come with a private apt state (scripts/cross-apt.sh:
# no foreign architecture is added to this machine's dpkg) and are
# unpacked with dpkg -x into build-cross/sysroot-ARCH, which the toolchain
# file hands to pkg-config, the linker and qemu. riscv64 is no Debian 12
# architecture: scripts/riscv64/sysroot.sh cross-builds the same
# libraries from Debian 12's source packages (cached).
#
# usage: scripts/cross.sh [TARGET...]   (default: all six)
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc)
targets=${*:-"aarch64 armhf riscv64 s390x i686 ppc64el"}

debarch() {	# toolchain name -> Debian architecture ("" if none)
	case $1 in
	aarch64) echo arm64 ;;
	armhf) echo armhf ;;
	s390x) echo s390x ;;
	ppc64el) echo ppc64el ;;
	i686) echo i386 ;;
	*) echo "" ;;
	esac
}

. scripts/cross-apt.sh

# The target's packages: libelf (ELF core), libbpf (attach layer), and
# what they need to link.
pkgs="libelf1 libelf-dev zlib1g zlib1g-dev libzstd1 libzstd-dev libbpf1 libbpf-dev"

# sysroot DEBARCH: unpack the target's packages once; prints its path.
sysroot() {
	root=$PWD/build-cross/sysroot-$1
	if [ ! -f "$root/.done" ]; then
		rm -rf "$root" "$root.debs"
		# shellcheck disable=SC2046
		apt_cross_fetch "$root.debs" $(for p in $pkgs; do echo "$p:$1"; done) || return 1
		for d in "$root.debs"/*.deb; do
			dpkg -x "$d" "$root"
		done
		rm -rf "$root.debs"
		touch "$root/.done"
	fi
	echo "$root"
}

for t in $targets; do
	dir=build-cross/$t
	set -- -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/$t.cmake \
		-DUSDTKIT_BUILD_BENCH=OFF
	# the attach layer, `trace` and its BPF program in the target's
	# byte order; one static CLI for a board (docs/ARCHES.md)
	set -- "$@" -DUSDTKIT_WITH_BPF=ON -DUSDTKIT_BPF_PROGRAMS=ON \
		-DUSDTKIT_STATIC_CLI=ON
	a=$(debarch "$t")
	if [ -n "$a" ]; then
		root=$(sysroot "$a")
	else
		# riscv64 is no Debian 12 architecture: its libraries are
		# built from Debian's sources (cached)
		root=$(sh scripts/$t/sysroot.sh)
	fi
	set -- "$@" -DUSDTKIT_CROSS_SYSROOT="$root"
	if [ -x build/cli/usdtkit ] && [ -d build/tests/elf ]; then
		# compare `usdtkit list` with the native build's (scripts/test.sh)
		set -- "$@" -DUSDTKIT_HOST_CLI="$PWD/build/cli/usdtkit" \
			-DUSDTKIT_HOST_ELF_DIR="$PWD/build/tests/elf"
	fi
	echo "cross: $t"
	cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
	cmake --build "$dir" -j "$jobs" >/dev/null
	ctest --test-dir "$dir" -L cross --output-on-failure -j "$jobs"
done
