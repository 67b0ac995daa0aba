#!/bin/sh
# Instructions per argument of each parser, counted by callgrind.
#
#   bench/run_callgrind.sh [build-dir] [specs.tsv] [parse_bench options...]
#
# build-dir defaults to build-bench, specs.tsv to tests/corpus/specs.tsv
# (both relative to the repository root); further options, such as
# --arch amd64, go to parse_bench.
#
# For each parser it runs "parse_bench --once --parser P" (the corpus
# parsed exactly once, by that parser only) under valgrind's callgrind,
# collecting only inside the parser's entry point: usdtkit_args_parse or
# sb_args_parse. Loading the corpus and the benchmark's own checksum are
# left out. Instruction counts are deterministic, unlike timings.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=$root/build-bench
specs=$root/tests/corpus/specs.tsv
if [ $# -gt 0 ] && [ -d "$1" ]; then
	build=$1
	shift
fi
if [ $# -gt 0 ] && [ -f "$1" ]; then
	specs=$1
	shift
fi
bench=$build/bench/parse_bench

if [ ! -x "$bench" ]; then
	echo "run_callgrind.sh: no $bench (configure with -DUSDTKIT_BUILD_BENCH=ON and build parse_bench)" >&2
	exit 2
fi
if ! command -v valgrind >/dev/null; then
	echo "run_callgrind.sh: valgrind not found" >&2
	exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

printf '%-8s %-20s %12s %7s %10s\n' parser function instructions args instr/arg
for p in usdtkit sscanf; do
	case $p in
	usdtkit) fn=usdtkit_args_parse ;;
	sscanf) fn=sb_args_parse ;;
	esac
	if ! valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$p" \
		--toggle-collect="$fn" \
		"$bench" --once --parser "$p" "$@" "$specs" \
		>"$tmp/out.$p" 2>"$tmp/err.$p"; then
		cat "$tmp/err.$p" >&2
		exit 1
	fi
	ir=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$tmp/cg.$p")
	args=$(sed -n 's/.* args \([0-9]*\) .*/\1/p' "$tmp/out.$p")
	if [ -z "$ir" ] || [ "$ir" -eq 0 ] || [ -z "$args" ] || [ "$args" -eq 0 ]; then
		echo "run_callgrind.sh: nothing counted in $fn (inlined by LTO?)" >&2
		exit 1
	fi
	awk -v p="$p" -v f="$fn" -v ir="$ir" -v a="$args" \
		'BEGIN { printf "%-8s %-20s %12d %7d %10.1f\n", p, f, ir, a, ir / a }'
	echo "$ir" >"$tmp/ir.$p"
done
awk -v u="$(cat "$tmp/ir.usdtkit")" -v s="$(cat "$tmp/ir.sscanf")" \
	'BEGIN { printf "ratio sscanf/usdtkit: %.1fx\n", s / u }'
