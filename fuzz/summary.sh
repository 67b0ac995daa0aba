#!/bin/sh
# Totals per harness from run_long.sh's summary.tsv: runs, executions,
# wall and CPU seconds (runs without a CPU figure count their wall time,
# an upper bound), and the last cov/ft/corpus, as a Markdown table.
#   sh fuzz/summary.sh [BUILD/fuzz/logs/summary.tsv]
set -eu
export LC_ALL=C
awk -F'\t' '
function val(f, k) { return index(f, k "=") == 1 ? substr(f, length(k) + 2) + 0 : -1 }
{
	h = $2
	if (!(h in runs)) order[++n] = h
	runs[h]++
	for (i = 3; i <= NF; i++) {
		if ((v = val($i, "execs")) >= 0) ex[h] += v
		if ((v = val($i, "secs")) >= 0) w = v
		if ((v = val($i, "cpu_s")) >= 0) c = v
		if ((v = val($i, "cov")) >= 0) cov[h] = v
		if ((v = val($i, "ft")) >= 0) ft[h] = v
		if ((v = val($i, "corpus")) >= 0) corp[h] = v
		if ((v = val($i, "rc")) > 0) bad[h]++
	}
	wall[h] += w
	cpu[h] += (c >= 0 ? c : w)
	w = 0; c = -1
}
END {
	print "| harness | runs | executions | wall s | CPU s | CPU min | cov | ft | corpus | runs that stopped on a finding |"
	print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= n; i++) {
		h = order[i]
		printf "| %s | %d | %d | %d | %d | %.1f | %d | %d | %d | %d |\n", h, runs[h], ex[h],
		       wall[h], cpu[h], cpu[h] / 60, cov[h], ft[h], corp[h], bad[h]
	}
}' "${1:-build-fz/fuzz/logs/summary.tsv}"
