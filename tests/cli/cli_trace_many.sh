#!/bin/sh
# usdtkit trace past every fixed capacity: the CLI sizes its maps from
# the targets (over the program's floor of 32 specs and 128 IPs), so a
# probe with thousands of sites,
# each with its own constant (its own spec), is traced whole; every hit
# is seen once with its site's value. Also: a glob that matches a probe
# which cannot be attached fails the trace unless --best-effort.
# usage: cli_trace_many.sh USDTKIT TESTS_BUILD_DIR   (root, BPF)
set -u
u=$1 d=$2
. "$(dirname "$0")/../helpers/trace_run.sh"

# many MODE N: every site of many_N fires once; the values are 1000..
many() {
	mode=$1 n=$2
	if run_traced "$d/many_$n" 1 "$tmp/$mode.json" "$tmp/$mode.err" --json \
		--mode "$mode" --count "$n" "$d/many_$n:many:site"; then ok; else
		ko "$mode $n sites: exit $rc"; cat "$tmp/$mode.err"; return; fi
	if python3 - "$tmp/$mode.json" "$n" <<'PY'; then ok; else ko "$mode $n sites: values"; fi
import json, sys
n = int(sys.argv[2])
vals = sorted(json.loads(l)["args"][0] for l in open(sys.argv[1]))
assert vals == list(range(1000, 1000 + n)), (len(vals), vals[:3], vals[-3:])
PY
}
# The kernel releases perf-event uprobes one at a time (~0.1 s each),
# in usdtkit's background reaper; meanwhile new perf events wait for the
# same lock. So each perf-mode run starts and ends with no reaper left:
# the runs stay exact, and later tests are not slowed by ours.
wait_reapers() {
	_r=0
	while pgrep -x usdtkit-reaper >/dev/null && [ $_r -lt 2400 ]; do
		sleep 0.1; _r=$((_r + 1))
	done
}
many multi 5000
wait_reapers
many perf 40
wait_reapers
many ipmap 140
wait_reapers

# a glob matching a probe BPF cannot read (fx_fp.c): refused whole...
if run_traced "$d/fx_mixed" 1 "$tmp/fp.out" "$tmp/fp.err" --count 1 \
	"$d/fx_mixed:*:*"; then ko "fx_mixed:*:* without --best-effort: exit 0"; else
	[ "$rc" -eq 1 ] && ok || ko "fx_mixed:*:*: exit $rc, want 1"; fi
grep -q "1 of 3 probes could not be attached" "$tmp/fp.err" && ok ||
	{ ko "no count of the failed probes:"; cat "$tmp/fp.err"; }
# ...or skipped with --best-effort, the rest traced
if probes=2 run_traced "$d/fx_mixed" 1 "$tmp/be.out" "$tmp/be.err" --best-effort \
	--count 7 "$d/fx_mixed:*:*"; then ok; else ko "--best-effort: exit $rc"; cat "$tmp/be.err"; fi
grep -q "skipping fpprov:unreadable" "$tmp/be.err" && ok || { ko "--best-effort: no skip line"; cat "$tmp/be.err"; }
# one line per failure, naming the file, the probe and the reason
for f in fp be; do
	[ "$(grep -c fpprov:unreadable "$tmp/$f.err")" -eq 1 ] &&
	grep -q "fx_mixed: fpprov:unreadable: argument 0 .*BPF cannot read it" "$tmp/$f.err" &&
		ok || { ko "$f: not one line with file, probe and reason"; cat "$tmp/$f.err"; }
done
[ "$(wc -l <"$tmp/be.out")" -eq 7 ] && ok || { ko "--best-effort: hits"; cat "$tmp/be.out"; }

finish
