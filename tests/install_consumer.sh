#!/bin/sh
# Install the build tree into a scratch prefix, then build a consumer
# against it twice: with find_package(usdtkit) and with pkg-config.
# usage: install_consumer.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR
set -eu
build=$1 src=$2 work=$3
rm -rf "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
test -x "$prefix/bin/usdtkit"
"$prefix/bin/usdtkit" parse --arch x86_64 '8@16(%rsp)' | grep -q 'mem \[rsp + 16\]'

cmake -S "$src/tests/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake" >/dev/null
LD_LIBRARY_PATH=$(dirname "$(find "$prefix" -name 'libusdtkit.so' | head -1)") \
	"$work/cmake/consumer"
"$work/cmake/consumer_static"

pc=$(dirname "$(find "$prefix" -name usdtkit.pc | head -1)")
export PKG_CONFIG_PATH=$pc
cc -o "$work/consumer_pc" "$src/tests/consumer/consumer.c" $(pkg-config --cflags --libs usdtkit)
LD_LIBRARY_PATH=$(pkg-config --variable=libdir usdtkit) "$work/consumer_pc"
echo "3 passed, 0 failed"
