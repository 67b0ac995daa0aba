#!/bin/sh
# Set up, build, and show the spec engine on real specs from Debian
# binaries of several architectures.
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
u=build/cli/usdtkit
$u parse --arch x86_64 -- '-4@-1204(%rbp,%rax,8) 8@%rdi -4@$5 -1@%ah 4@counter.0(%rip)'
$u parse --arch i386 -- '-8@%eax -4@40+sym@GOTOFF(%ebx) 8f@%xmm0'
$u parse --arch aarch64 -- '8@[sp, 16] -4@w1 -4@[x2, #:lo12:.LANCHOR0] 4@[x0, w2, uxtw]'
$u parse --arch arm -- '-8@r0 4@[r0, r3, lsl #2] 4@#counter'
$u parse --arch riscv64 -- '-8@a1 -4@-20(s0) 4@%lo(sint)(a5) 8f@fa0'
$u parse --arch s390x -- '-4@%r2 8@160(%r15) -4@8(%r3,%r4)'
echo "--- every spec of the corpus, as JSON (first 3 lines):"
awk -F'\t' '$1=="amd64" {print $5}' ../shared/corpus/specs.tsv | $u parse --json --arch x86_64 | head -3
