#!/bin/sh
# Install the build tree into a scratch prefix, then build a consumer
# against it twice: with find_package(usdtkit) and with pkg-config; check
# the generated headers; then install a build without the attach layer.
# usage: install_consumer.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR
set -eu
build=$1 src=$2 work=$3
rm -rf "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
test -x "$prefix/bin/usdtkit"
"$prefix/bin/usdtkit" parse --arch x86_64 '8@16(%rsp)' | grep -q 'mem \[rsp + 16\]'

cmake -S "$src/tests/install/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake" >/dev/null
LD_LIBRARY_PATH=$(dirname "$(find "$prefix" -name 'libusdtkit.so' | head -1)") \
	"$work/cmake/consumer"
"$work/cmake/consumer_static"

pc=$(dirname "$(find "$prefix" -name usdtkit.pc | head -1)")
export PKG_CONFIG_PATH=$pc
cc -o "$work/consumer_pc" "$src/tests/install/consumer/consumer.c" $(pkg-config --cflags --libs usdtkit)
LD_LIBRARY_PATH=$(pkg-config --variable=libdir usdtkit) "$work/consumer_pc"

# generated headers: the version of project(VERSION), and config.h saying
# what this build has (the attach headers installed only with it)
inc=$prefix/include/usdtkit
ver=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
grep -q "^#define USDTKIT_VERSION \"$ver\"" "$inc/version.h"
bpf=$(sed -n 's/^USDTKIT_WITH_BPF:BOOL=//p' "$build/CMakeCache.txt")
case $bpf in ON|on|1|TRUE|true) bpf=1 ;; *) bpf=0 ;; esac
grep -q "^#define USDTKIT_HAVE_BPF $bpf\$" "$inc/config.h"
if [ "$bpf" = 1 ]; then test -f "$inc/attach.h"; else test ! -e "$inc/attach.h"; fi

# a library-only build without the attach layer: config.h says so, its
# headers are not installed, and the consumer builds against what is
cmake -S "$src" -B "$work/nobpf" -DUSDTKIT_WITH_BPF=OFF -DUSDTKIT_BUILD_TESTS=OFF \
	-DUSDTKIT_BUILD_CLI=OFF -DUSDTKIT_BUILD_BENCH=OFF >/dev/null
cmake --build "$work/nobpf" -j2 --target usdtkit usdtkit_static >/dev/null
cmake --install "$work/nobpf" --prefix "$work/nobpf-prefix" >/dev/null
inc=$work/nobpf-prefix/include/usdtkit
grep -q '^#define USDTKIT_HAVE_BPF 0$' "$inc/config.h"
grep -q '^#define USDTKIT_HAVE_ELF 1$' "$inc/config.h"
for h in attach.h usdtkit.bpf.h bpf_spec.h; do test ! -e "$inc/$h"; done
pc=$(dirname "$(find "$work/nobpf-prefix" -name usdtkit.pc | head -1)")
! PKG_CONFIG_PATH=$pc pkg-config --print-requires usdtkit | grep -q libbpf
cc -o "$work/consumer_nobpf" "$src/tests/install/consumer/consumer.c" \
	$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs usdtkit)
LD_LIBRARY_PATH=$(PKG_CONFIG_PATH=$pc pkg-config --variable=libdir usdtkit) \
	"$work/consumer_nobpf"
echo "5 passed, 0 failed"
