#!/bin/sh
# Set up, build and run every test: the normal build, then the
# AddressSanitizer + UBSan build. Exits non-zero if anything fails.
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh
jobs=$(nproc)

run() {	# run BUILD_DIR [cmake args...]
	dir=$1; shift
	cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
	cmake --build "$dir" -j "$jobs" >/dev/null
	ctest --test-dir "$dir" --output-on-failure -j "$jobs"
}

run build
run build-asan -DUSDTKIT_SANITIZE=ON -DUSDTKIT_BUILD_BENCH=OFF

# ---- cross-architecture proof: five cross builds, their
# unit tests and probe-site checks under qemu-user ----
sh scripts/cross.sh
# ---- end cross ----

# ---- VM proof: trace on each target's own kernel under
# qemu-system, one boot per scenario (needs the cross builds above) ----
sh scripts/vm.sh
# ---- end VM proof ----

# ---- fuzzing: libFuzzer harnesses, replay + bounded runs ----
sh fuzz/ci.sh

# ---- Debian packages: build, lintian, install, consume, purge (about
# 25 s once its tools are installed; USDTKIT_SKIP_DEB=1 skips it) ----
[ "${USDTKIT_SKIP_DEB:-0}" = 1 ] || sh scripts/deb.sh
