#!/bin/sh
# A C++ caller of the three public headers (tests/install/cxx/consumer.cpp),
# built with g++ and clang++ at -std=c++17 and -std=c++20, -Wall -Wextra
# -Werror, linked to this build's libusdtkit.so, then run: each counts
# fx_tlib's hits for real (AUTO; one of them also in PERF).
# usage: cxx_consumer.sh SOURCE_DIR BUILD_DIR SCRATCH_DIR FX_TLIB
set -eu
src=$1 build=$2 work=$3 fx=$4
rm -rf "$work"
mkdir -p "$work"
fails=0 runs=0
for cxx in g++ clang++; do
	for std in 17 20; do
		bin=$work/consumer-$cxx-$std
		if ! "$cxx" -std=c++$std -Wall -Wextra -Werror -O2 \
			-I"$src/include" -I"$build/include" \
			-o "$bin" "$src/tests/install/cxx/consumer.cpp" \
			-L"$build" -lusdtkit -Wl,-rpath,"$build"; then
			echo "cxx_consumer: FAIL: $cxx -std=c++$std does not build"
			fails=$((fails + 1))
			continue
		fi
		modes=auto
		[ "$cxx$std" = g++17 ] && modes="auto perf"
		for m in $modes; do
			runs=$((runs + 1))
			if ! "$bin" "$fx" "$m" >"$bin.$m.log" 2>&1; then
				echo "cxx_consumer: FAIL: $cxx -std=c++$std, $m:"
				cat "$bin.$m.log"
				fails=$((fails + 1))
			else
				grep '^consumer: C++' "$bin.$m.log" |
					sed "s/^consumer:/cxx_consumer: $cxx:/"
			fi
		done
	done
done
echo "cxx_consumer: $runs runs of 4 builds, $fails failed"
[ "$fails" = 0 ]
