#!/bin/sh
# Cross-architecture proof (docs/ARCHES.md): cross-build usdtkit
# for each Debian cross target (the "cross" keys of arch/*/manifest.ini)
# and run its "cross"
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
# usage: scripts/cross.sh [CROSS...]   (default: every manifest's cross)
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc)
ai=scripts/archinfo
targets=${*:-$($ai table cross | awk -F'\t' '$3 != "-" { print $3 }')}

# cross name -> the manifest's target
target_of() {
	t=$($ai find cross "$1")
	[ -n "$t" ] || { echo "cross: no manifest has cross = $1" >&2; exit 2; }
	echo "$t"
}

usdtkit_top=$PWD
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
	# warnings are errors in CI (scripts/test.sh runs this), as natively
	set -- -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/debian-cross.cmake \
		-DUSDTKIT_CROSS_NAME="$t" -DUSDTKIT_BUILD_BENCH=OFF -DUSDTKIT_WERROR=ON
	# the attach layer, `trace` and its BPF program in the target's
	# byte order; one static CLI for a board (docs/ARCHES.md)
	set -- "$@" -DUSDTKIT_WITH_BPF=ON -DUSDTKIT_BPF_PROGRAMS=ON \
		-DUSDTKIT_STATIC_CLI=ON
	m=$(target_of "$t")
	script=$($ai get "$m" sysroot "")
	if [ "$($ai get "$m" cross_libs -)" = none ]; then
		# no Debian 12 libelf or libbpf for the target (ppc64,
		# mips64): the spec engine, its unit tests and the probe-site
		# check only
		set -- "$@" -DUSDTKIT_WITH_ELF=OFF -DUSDTKIT_WITH_BPF=OFF \
			-DUSDTKIT_BPF_PROGRAMS=OFF -DUSDTKIT_STATIC_CLI=OFF
		root=
	elif [ -n "$script" ]; then
		# no Debian 12 architecture (riscv64): the manifest names a
		# script that builds the libraries from Debian's sources (cached)
		root=$(sh "$script")
	else
		root=$(sysroot "$($ai get "$m" debian | cut -d' ' -f1)")
	fi
	set -- "$@" -DUSDTKIT_CROSS_SYSROOT="$root"
	if [ -x build/cli/usdtkit ] && [ -d build/tests/elf/fixtures ]; then
		# compare `usdtkit list` with the native build's (scripts/test.sh)
		set -- "$@" -DUSDTKIT_HOST_CLI="$PWD/build/cli/usdtkit" \
			-DUSDTKIT_HOST_ELF_DIR="$PWD/build/tests/elf/fixtures"
	fi
	echo "cross: $t"
	# a build dir configured with another toolchain file starts afresh
	if [ -f "$dir/CMakeCache.txt" ] &&
	   ! grep -qs "toolchains/debian-cross.cmake" "$dir"/CMakeFiles/*/CMakeSystem.cmake; then
		rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
	fi
	cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
	cmake --build "$dir" -j "$jobs" >/dev/null
	ctest --test-dir "$dir" -L cross --output-on-failure -j "$jobs"
done
