#!/bin/sh
# Cross-architecture proof (issue 5, docs/ARCHES.md): cross-build usdtkit
# for each Debian cross target (cmake/toolchains/) and run its "cross"
# tests under qemu-user: the unit tests and the probe-site check.
#
# The ELF core needs the target's libelf. Debian 12 has it for arm64,
# armhf, s390x and i386, but `apt-get install libelf-dev:ARCH` needs
# `dpkg --add-architecture` (after which every `apt-get update` of this
# machine also fetches, and may fail on, four foreign indices) and pulls
# libc6-dev:ARCH, which apt refuses whenever the host's packages are newer
# (security updates) than the foreign ones. So the target's libelf,
# libbpf, zlib and zstd are fetched with a private apt state
# (build-cross/apt: lists of those four architectures, the machine's
# sources less security) and unpacked with dpkg -x into
# build-cross/sysroot-ARCH, which the toolchain file hands to pkg-config,
# the linker and qemu. The attach layer (libbpf + a BPF skeleton) is
# built for aarch64 only: Debian 12's bpftool cannot make a skeleton of
# a big-endian (s390x) BPF object, and bpf_tracing.h has no 32-bit arm
# or i386 target. riscv64 is no Debian 12 architecture: it builds the
# parse layer only (no dependency), all its tests need.
#
# usage: scripts/cross.sh [TARGET...]   (default: all five)
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc)
targets=${*:-"aarch64 armhf riscv64 s390x i686"}

debarch() {	# toolchain name -> Debian architecture ("" if none)
	case $1 in
	aarch64) echo arm64 ;;
	armhf) echo armhf ;;
	s390x) echo s390x ;;
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
	case $t in
	riscv64)	# no libbpf for riscv64 in Debian 12
		set -- "$@" -DUSDTKIT_WITH_BPF=OFF ;;
	*)	# the attach layer, `trace` and its BPF program in the
		# target's byte order
		set -- "$@" -DUSDTKIT_WITH_BPF=ON -DUSDTKIT_BPF_PROGRAMS=ON ;;
	esac
	# one static file for a board (docs/ARCHES.md)
	set -- "$@" -DUSDTKIT_STATIC_CLI=ON
	a=$(debarch "$t")
	if [ -n "$a" ]; then
		root=$(sysroot "$a")
		set -- "$@" -DUSDTKIT_CROSS_SYSROOT="$root"
	else
		echo "cross: $t: parse layer only (no Debian 12 libelf for $t)"
		set -- "$@" -DUSDTKIT_WITH_ELF=OFF
	fi
	if [ -n "$a" ] && [ -x build/cli/usdtkit ] && [ -d build/tests/elf ]; then
		# compare `usdtkit list` with the native build's (scripts/test.sh)
		set -- "$@" -DUSDTKIT_HOST_CLI="$PWD/build/cli/usdtkit" \
			-DUSDTKIT_HOST_ELF_DIR="$PWD/build/tests/elf"
	fi
	echo "cross: $t"
	cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
	cmake --build "$dir" -j "$jobs" >/dev/null
	ctest --test-dir "$dir" -L cross --output-on-failure -j "$jobs"
done
