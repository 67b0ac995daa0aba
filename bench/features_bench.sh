#!/bin/sh
# What asking the kernel costs, as a user runs it: the wall time of
# `usdtkit features --json` (every probe, the uprobe_optimization one
# that forks a child among them) against `bpftrace --info`, which probes
# its own list, the runs alternating; then the user_stack probe alone
# (features_probe: what it adds to every usdtkit_features()).
# Prints one line each: median, min and max in ms; the probe in us.
#
# usage: bench/features_bench.sh USDTKIT DIR [RUNS]   (root; DIR holds
#        startup_time and features_probe: build/bench; RUNS default 31)
set -u
u=$1 dir=$2 runs=${3:-31}
for p in startup_time features_probe; do
	[ -x "$dir/$p" ] || { echo "features_bench: no $dir/$p (build/bench)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
i=0
while [ $i -lt "$runs" ]; do
	# the command's output first, then startup_time's ns: the last line
	"$dir/startup_time" "$u" features --json > "$tmp/o" 2>&1 ||
		{ echo "features_bench: usdtkit features failed: $(head -n 1 "$tmp/o")" >&2; exit 1; }
	tail -n 1 "$tmp/o" >> "$tmp/u"
	if command -v bpftrace > /dev/null; then
		"$dir/startup_time" bpftrace --info > "$tmp/o" 2>&1 ||
			{ echo "features_bench: bpftrace --info failed" >&2; exit 1; }
		tail -n 1 "$tmp/o" >> "$tmp/b"
	fi
	i=$((i + 1))
done
[ -s "$tmp/b" ] || rm -f "$tmp/b"	# no bpftrace: its row says so
for t in u b; do
	[ -f "$tmp/$t" ] || { echo "bpftrace --info   - (not installed)"; continue; }
	{ [ "$(grep -c '^[0-9][0-9]*$' "$tmp/$t")" -ne "$runs" ] ||
	  grep -qv '^[0-9][0-9]*$' "$tmp/$t"; } &&
		{ echo "features_bench: a run failed: $(grep -v '^[0-9]*$' "$tmp/$t" | head -n 1)" >&2; exit 1; }
	sort -n "$tmp/$t" | awk -v tool="$([ $t = u ] && echo "usdtkit features" || echo "bpftrace --info")" '
		{ v[NR] = $1 / 1e6 }
		END { printf "%-17s median %7.2f ms, min %7.2f, max %7.2f (%d runs)\n",
			tool, v[int((NR + 1) / 2)], v[1], v[NR], NR }'
done
"$dir/features_probe" 201
