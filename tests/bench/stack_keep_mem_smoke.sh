#!/bin/sh
# bench/stack_keep_mem.sh runs once, tiny (10 processes, 1 run; root,
# BPF): its two rows, and --count-by pid keeps no process. The memory
# and the processes kept under ustack are never checked here (a process
# may exit before a loaded machine's tracer reads its maps): the bench's
# numbers live in bench/README.md, cli_trace_stack_exit checks the keep.
# usage: stack_keep_mem_smoke.sh STACK_KEEP_MEM USDTKIT FX_STACK
set -u
bench=$1 u=$2 fx=$3

. "$(dirname "$0")/../helpers/check.sh"

run "bench" 0 sh "$bench" "$u" "$fx" 10 1 5
num='-\{0,1\}[0-9][0-9.]*'
grep -q "^ustack 10 processes: RSS +$num KiB median (runs: $num), kept $num median$" \
	"$tmp/out" && ok || { ko "row ustack:"; cat "$tmp/out"; }
grep -q "^pid    10 processes: RSS +$num KiB median (runs: $num), kept 0 median$" \
	"$tmp/out" && ok || { ko "row pid:"; cat "$tmp/out"; }

finish stack_keep_mem_smoke
