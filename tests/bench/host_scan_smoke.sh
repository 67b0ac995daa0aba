#!/bin/sh
# bench/host_scan.sh runs once, tiny (10 processes more, 1 run, 1 peer
# call; root): its rows, and the 5 copies of the fixture among the
# processes listed. The times are never checked here (bench/README.md).
# usage: host_scan_smoke.sh HOST_SCAN USDTKIT FX_SEMA
set -u
bench=$1 u=$2 fx=$3

. "$(dirname "$0")/../helpers/check.sh"

run "bench" 0 sh "$bench" "$u" "$fx" 10 1 1
row=$(grep '^usdtkit list --all ' "$tmp/out")
listed=$(echo "$row" | sed -n 's/.*), \([0-9]*\) processes with probes of \([0-9]*\) read.*/\1/p')
[ "${listed:-0}" -ge 5 ] && ok || { ko "row list --all: '$row'"; cat "$tmp/out" "$tmp/err"; }
grep -q '^bpftrace -l usdt:\* -p PID ' "$tmp/out" && ok || { ko "row bpftrace"; cat "$tmp/out"; }
grep -q '^usdtkit trace --all  *[0-9]* ms median (runs' "$tmp/out" && ok ||
	{ ko "row trace --all"; cat "$tmp/out" "$tmp/err"; }

finish host_scan_smoke
