#!/bin/sh
# CI fuzzing, called by scripts/test.sh: build the libFuzzer harnesses
# with clang in build-fuzz, replay every regression and seed input
# (fuzz_replay_*), then fuzz each harness for USDTKIT_FUZZ_SECONDS
# (default 40) from the seeds, two at a time (fuzz_run_*): 8 harnesses,
# about 3 minutes. Any crash or broken invariant fails the run; the input
# is left in build-fuzz/fuzz/<harness>-crash-* for fuzz/regressions/.
set -eu
cd "$(dirname "$0")/.."
secs=${USDTKIT_FUZZ_SECONDS:-40}
# real binaries from the ELF tests (built by scripts/test.sh's ctest in
# build/) seed fuzz_list too
sh fuzz/fixture_seeds.sh build/tests/elf/fixtures build-fuzz/fuzz/fixture-seeds
# The tests and the CLI are built too: what a libFuzzer user who turns
# fuzzing on gets must build (the probe-site check at -O0 among it), and
# its unit, CLI and probe-site tests pass under the fuzzing sanitizers.
CC=${USDTKIT_FUZZ_CC:-clang} cmake -S . -B build-fuzz \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo -DUSDTKIT_FUZZ=ON -DUSDTKIT_WERROR=ON \
	-DUSDTKIT_BUILD_BENCH=OFF \
	-DUSDTKIT_FUZZ_SECONDS="$secs" \
	-DUSDTKIT_FUZZ_FIXTURES="$PWD/build-fuzz/fuzz/fixture-seeds" >/dev/null
cmake --build build-fuzz -j 2 >/dev/null
ctest --test-dir build-fuzz --output-on-failure -j 2 -L "unit|cli|cross"
ctest --test-dir build-fuzz --output-on-failure -j 2 -L fuzz
