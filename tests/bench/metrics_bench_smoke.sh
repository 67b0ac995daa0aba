#!/bin/sh
# bench/metrics_bench.py runs small (root, BPF): its three lines, with the
# series and probes it was asked for and a scrape of some bytes. Its
# times and memory are not checked.
# usage: metrics_bench_smoke.sh METRICS_BENCH USDTKIT
set -u
bench=$1 u=$2

. "$(dirname "$0")/../helpers/check.sh"

run "bench" 0 /usr/bin/python3 "$bench" --series 300 --scrapes 3 --probes 20 "$u"
num='[0-9][0-9.]*'
grep -q "^scrape: 300 count-by series, $num bytes, tracer CPU -*$num ms per scrape, client wall $num ms per scrape (3 scrapes)$" \
	"$tmp/out" && ok || { ko "scrape line:"; cat "$tmp/out"; }
for what in "no --serve" "--serve"; do
	grep -q "^rss: $what: Tracing 20 probes (20 sites) in .* VmRSS $num KiB, VmHWM $num KiB" \
		"$tmp/out" && ok || { ko "rss line ($what):"; cat "$tmp/out"; }
done
grep -q "^rss: --serve: .*, scrape $num bytes$" "$tmp/out" && ok || ko "rss: no scrape size"

finish metrics_bench_smoke
