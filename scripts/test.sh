#!/bin/sh
# Set up, build and run every test: the normal build, then the
# AddressSanitizer + UBSan build. Exits non-zero if anything fails.
set -eu
cd "$(dirname "$0")/.."
t_start=$(date +%s)
jobs=$(nproc)

# timed NAME CMD...: run CMD, then say how long it took, so that CI's log
# shows where its time goes. Every stage is said again at the end, the
# failed one too: CI keeps only the log's tail.
stages="" cur="" cross_pid=""
timed() {
	_name=$1; shift
	_t0=$(date +%s)
	cur="$_name (failed after its start at $(( _t0 - t_start )) s)"
	"$@"
	cur=""
	stage "$_name" "$(( $(date +%s) - _t0 ))"
}
stage() {	# stage NAME SECONDS
	stages="$stages $1 $2 s;"
	echo "test: $1: $2 s (at $(( $(date +%s) - t_start )) s)"
}
trap '[ -z "$cross_pid" ] || kill "$cross_pid" 2>/dev/null
echo "test: stages:$stages${cur:+ $cur;} $(( $(date +%s) - t_start )) s in all"' EXIT

timed setup sh scripts/setup.sh

run() {	# run BUILD_DIR [cmake args...]
	dir=$1; shift
	# CI builds warning-free: warnings are errors here, not by default
	cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUSDTKIT_WERROR=ON \
		"$@" >/dev/null
	cmake --build "$dir" -j "$jobs" >/dev/null
	ctest --test-dir "$dir" --output-on-failure -j "$jobs"
}

timed gcc run build
timed asan run build-asan -DUSDTKIT_SANITIZE=ON -DUSDTKIT_BUILD_BENCH=OFF \
	-DUSDTKIT_CHURN_N=2000

# The same tree with clang, warnings as errors: every target builds, and
# the unit, CLI and install tests and the whole BPF suite pass (attach,
# trace, the trace library under valgrind, children, metrics, upgrades,
# the installed examples): a C application built with clang is the second
# user the design names, and clang leaves what gcc zeroes uninitialised.
clang_suite() {
	CC=clang cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DUSDTKIT_WERROR=ON -DUSDTKIT_BUILD_BENCH=OFF -DUSDTKIT_CHURN_N=2000 >/dev/null
	cmake --build build-clang -j "$jobs" >/dev/null
	ctest --test-dir build-clang --output-on-failure -j "$jobs" -L "unit|cli|install|bpf"
}
timed clang clang_suite

# The attach and trace tests (label opt, tests/CMakeLists.txt) at the
# optimisation levels callers build with, under both compilers: -O0, and
# -O3 with link-time optimisation. Only what those tests need is built.
# They are BPF tests, run one at a time, which leaves a core free: the
# cross builds below run beside them (compilers and qemu-user, no BPF).
opt_suite() {	# opt_suite CC O0|O3-lto
	case $2 in
	O0) flags="-DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG=-O0" ;;
	*) flags="-DCMAKE_BUILD_TYPE=Release -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=ON" ;;
	esac
	# shellcheck disable=SC2086
	CC=$1 cmake -S . -B "build-$1-$2" $flags -DUSDTKIT_WERROR=ON \
		-DUSDTKIT_BUILD_BENCH=OFF >/dev/null
	cmake --build "build-$1-$2" -j "$jobs" --target opt_tests >/dev/null
	ctest --test-dir "build-$1-$2" --output-on-failure -j "$jobs" -L opt
}
# Cross-architecture proof: a cross build per manifest with a "cross"
# key, its unit tests and probe-site checks under qemu-user; its log is
# shown when it fails, not interleaved with the opt tests'.
mkdir -p build-cross
t_cross=$(date +%s)
sh scripts/cross.sh > build-cross/cross.log 2>&1 &
cross_pid=$!
# Two of the four combinations by default, each compiler at the level
# the main stages do not reach (gcc and clang at -O2 run above): the
# four took 852 s of a CI run; USDTKIT_OPT_ALL=1 runs all of them.
combos="gcc:O3-lto clang:O0"
[ "${USDTKIT_OPT_ALL:-0}" = 1 ] && combos="gcc:O0 gcc:O3-lto clang:O0 clang:O3-lto"
for c in $combos; do
	timed "${c%%:*}-${c#*:}" opt_suite "${c%%:*}" "${c#*:}"
done
cur="cross (failed, beside the opt builds since $(( t_cross - t_start )) s)"
if ! wait "$cross_pid"; then
	cat build-cross/cross.log
	exit 1
fi
cross_pid=""
cur=""
grep -E '^(cross|[0-9]+% tests passed)' build-cross/cross.log || :
stage "cross (beside the opt builds)" "$(( $(date +%s) - t_cross ))"

# VM proof: trace on each target's own kernel under qemu-system, one
# boot per kernel that runs every scenario (a cell), two cells at a time
# (needs the cross builds above): every target's first kernel, and
# - the kernels around the first that boards run: 5.10 (no BPF cookies:
#   AUTO picks inst or ipmap, perf is refused) and 6.12 (uprobe_multi;
#   riscv64's first kernel is 6.12 already), on x86_64, aarch64 and
#   armhf. s390x and ppc64el have a 6.12 too, left out here because
#   Debian's mirror lacks their kernel packages now (docs/ARCHES.md, "The
#   matrix"); i686 has none (Debian 13 has no i386 kernel); mips64el's
#   (bookworm-backports' 6.12.95) oopses in the kernel's rseq code under
#   load (docs/ARCHES.md): run by hand;
# - the newest kernel, Linux 7.3 from Debian's trixie-backports (7.x
#   ships its image in linux-binary-*, tests/vm/fetch.sh): one cell, the
#   cheapest (x86_64: its 7.3 runs the nop10 scenario too, the proof
#   that usdtkit attaches at an optimized nop10); aarch64's 7.3 is run by
#   hand (docs/ARCHES.md, "Linux 7.3").
# Not here: riscv64's 6.1. Debian 12 has no riscv64 kernel, so
# scripts/riscv64/kernel.sh builds one from Debian's linux source: on a
# fresh machine (CI's) that cell took 1,120 s of the VM stage's 1,232 s,
# the largest single cost of a CI run over its 50 minutes. riscv64 is
# proven on its first kernel (6.12, every scenario, --mode perf among
# them), and the kernels before uprobe_multi on x86_64, aarch64 and
# armhf's 5.10; `sh scripts/vm.sh riscv64:6.1` runs it by hand.
# `sh scripts/vm.sh all` boots every target on every kernel of its
# manifest (docs/ARCHES.md).
timed vm sh scripts/vm.sh first x86_64:5.10 x86_64:6.12 aarch64:5.10 \
	aarch64:6.12 armhf:5.10 armhf:6.12 x86_64:7.3

# Fuzzing: the libFuzzer harnesses, replay and bounded runs.
timed fuzz sh fuzz/ci.sh

# ---- Debian packages: build, lintian, install, consume, purge (about
# 25 s once its tools are installed; USDTKIT_SKIP_DEB=1 skips it) ----
[ "${USDTKIT_SKIP_DEB:-0}" = 1 ] || timed deb sh scripts/deb.sh
