#!/bin/sh
# Set up, build, and trace a live program: start the demo (examples/demo.c,
# USDT probes demo:request and demo:tick) in the background, print its
# probe hits with `usdtkit trace`, stop it. Then the spec engine on real
# specs of several architectures. Run as root (BPF).
#
# Only what this needs is installed (scripts/setup.sh --demo: no cross
# compilers, qemu or valgrind) and built (the library, the CLI with its
# BPF program, the demo; no tests or benchmarks), in its own build
# directory so that scripts/test.sh's build/ keeps its tests.
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh --demo
b=${BUILD_DIR:-build-demo}
cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DUSDTKIT_BUILD_TESTS=OFF -DUSDTKIT_BUILD_BENCH=OFF >/dev/null
cmake --build "$b" -j "$(nproc)" >/dev/null
u=$b/cli/usdtkit
demo=$b/examples/demo

# -n: the demo ends by itself even if this script is killed
"$demo" -i 100 -n 3000 >/dev/null &
dpid=$!
trap 'kill $dpid 2>/dev/null || true' EXIT INT TERM
sleep 0.2
echo "--- the probes of the demo (pid $dpid):"
$u list "$demo"
echo "--- usdtkit trace --count 10 $demo:demo:request $demo:demo:tick"
$u trace --count 10 "$demo:demo:request" "$demo:demo:tick"
echo "--- the same as JSON, through the process (-p $dpid), 3 hits:"
$u trace --json --count 3 -p "$dpid" 'demo:*'
kill "$dpid"
wait "$dpid" 2>/dev/null || true

echo "--- the spec engine, any architecture on any host:"
$u parse --arch x86_64 -- '-4@-1204(%rbp,%rax,8) 8@%rdi -4@$5 -1@%ah 4@counter.0(%rip)'
$u parse --arch aarch64 -- '8@[sp, 16] -4@w1 -4@[x2, #:lo12:.LANCHOR0] 4@[x0, w2, uxtw]'
$u parse --arch riscv64 -- '-8@a1 -4@-20(s0) 4@%lo(sint)(a5) 8f@fa0'
$u parse --arch s390x -- '-4@%r2 8@160(%r15) -4@8(%r3,%r4)'
