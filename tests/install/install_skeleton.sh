#!/bin/sh
# Skeleton-only applications against an installed usdtkit: a program that
# attaches only through SEC("usdtkit/...") and skel__attach() calls no
# usdtkit_* function. Built with pkg-config (shared and static library)
# and with find_package (usdtkit::usdtkit, usdtkit::usdtkit_static), each
# must keep libusdtkit (the constructor that registers the libbpf section
# handler), attach, and see its own probe fire. A control built the naive
# way (-lusdtkit under the compiler's --as-needed) shows the failure the
# package has to prevent. Needs root (BPF).
# usage: install_skeleton.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR
# env: BPF_CC (clang -target bpfel -D__TARGET_ARCH_... -I<asm dir>), BPFTOOL
set -eu
build=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

pc=$(dirname "$(find "$prefix" -name usdtkit.pc | head -1)")
export PKG_CONFIG_PATH=$pc
libdir=$(pkg-config --variable=libdir usdtkit)
# attach.h is libbpf's API: libbpf is a public requirement
if pkg-config --print-requires usdtkit | grep -q '^libbpf'; then ok; else bad "libbpf not in Requires:"; fi

# the skeleton, from the installed BPF header
$BPF_CC -g -O2 -Wall -Werror -I"$prefix/include" \
	-c "$src/tests/install/consumer/skel.bpf.c" -o "$work/skel.bpf.o"
"$BPFTOOL" gen skeleton "$work/skel.bpf.o" name skel > "$work/skel.skel.h"

needs_usdtkit() { readelf -d "$1" | grep -q 'NEEDED.*libusdtkit'; }
# run PROGRAM: it attaches, fires its probe and checks the hits
run() {
	name=$1
	shift
	if out=$(LD_LIBRARY_PATH=$libdir "$@" 2>&1); then
		ok
	else
		bad "$name: $out"
	fi
}

cc_skel="cc -Wall -Werror -I$work $src/tests/install/consumer/consumer_skel.c"

# control: the naive link loses the library under --as-needed, and
# libbpf cannot open the object; if this toolchain keeps it anyway the
# test below proves nothing, so say so
$cc_skel -o "$work/naive" -Wl,--as-needed $(pkg-config --cflags usdtkit) \
	-L"$libdir" -lusdtkit -lbpf
if needs_usdtkit "$work/naive"; then
	bad "control: -lusdtkit under --as-needed kept libusdtkit (nothing tested)"
elif out=$(LD_LIBRARY_PATH=$libdir "$work/naive" 2>&1); then
	bad "control: a program without libusdtkit attached: $out"
else
	ok
fi

# pkg-config, shared library
$cc_skel -o "$work/pc_shared" -Wl,--as-needed $(pkg-config --cflags --libs usdtkit)
if needs_usdtkit "$work/pc_shared"; then ok; else bad "pkg-config: libusdtkit.so not NEEDED"; fi
run pc_shared "$work/pc_shared"

# pkg-config, static library (the archive named instead of -lusdtkit)
$cc_skel -o "$work/pc_static" -Wl,--as-needed $(pkg-config --cflags usdtkit) \
	$(pkg-config --static --libs usdtkit | sed 's/-lusdtkit\b/-l:libusdtkit.a/')
if needs_usdtkit "$work/pc_static"; then bad "pkg-config --static: libusdtkit.so linked"; else ok; fi
run pc_static "$work/pc_static"

# find_package: usdtkit::usdtkit and usdtkit::usdtkit_static
cmake -S "$src/tests/install/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
	-DSKEL_DIR="$work" -DCMAKE_EXE_LINKER_FLAGS=-Wl,--as-needed >/dev/null
cmake --build "$work/cmake" >/dev/null
if needs_usdtkit "$work/cmake/consumer_skel"; then ok; else bad "usdtkit::usdtkit: libusdtkit.so not NEEDED"; fi
run cmake_shared "$work/cmake/consumer_skel"
run cmake_static "$work/cmake/consumer_skel_static"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
