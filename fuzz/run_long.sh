#!/bin/sh
# Fuzz every harness (or the ones named) for SECONDS each, two at a time,
# at the lowest priority, growing the working corpus in BUILD/fuzz/corpus.
#   sh fuzz/run_long.sh [-b BUILD] [-j JOBS] SECONDS [HARNESS...]
# BUILD (default build-fz) is configured with clang and USDTKIT_FUZZ=ON if
# needed; FIXTURES (default build/tests/elf/fixtures) has ELF test fixtures that
# seed fuzz_list. Crashes land as BUILD/fuzz/<harness>-crash-*, logs in
# BUILD/fuzz/logs/; a line per harness (executions, cov, ft, corpus, wall
# and CPU seconds) is printed and appended to BUILD/fuzz/logs/summary.tsv.
# -timeout is 60 s: at nice 19 on a busy shared machine a 1 ms input was
# once starved for 14 s and reported as a timeout.
set -eu
export LC_ALL=C	# logs hold raw input bytes
cd "$(dirname "$0")/.."
build=build-fz
jobs=2
while [ $# -gt 0 ]; do
	case $1 in
	-b) build=$2; shift 2 ;;
	-j) jobs=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "usage: $0 [-b BUILD] [-j JOBS] SECONDS [HARNESS...]" >&2; exit 2; }
secs=$1; shift
# a spec harness per architecture folder (arch/arches), then the others
all="$(scripts/archinfo dirs | sed 's/^/fuzz_/' | tr '\n' ' ')fuzz_notes fuzz_list fuzz_roundtrip"
[ $# -gt 0 ] && all="$*"

if [ ! -x "$build/fuzz/fuzz_roundtrip" ]; then
	CC=clang cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DUSDTKIT_FUZZ=ON -DUSDTKIT_BUILD_TESTS=OFF -DUSDTKIT_BUILD_CLI=OFF \
		-DUSDTKIT_BUILD_BENCH=OFF >/dev/null
fi
cmake --build "$build" -j 2 >/dev/null
fz=$build/fuzz
mkdir -p "$fz/logs"
# the ELF test fixtures, when a build has made them (FIXTURES=DIR)
sh fuzz/fixture_seeds.sh "${FIXTURES:-build/tests/elf/fixtures}" "$fz/fixture-seeds"

# the dictionary of a harness: fuzz_<dir> has its folder's (manifest key
# fuzz_dict), the round trip the one the build concatenated from them
dict_of() {
	case $1 in
	fuzz_notes|fuzz_list) echo fuzz/dict/elf.dict ;;
	fuzz_roundtrip) echo "$fz/all.dict" ;;
	*)
		d=${1#fuzz_}
		t=$(scripts/archinfo table | awk -F'\t' -v d="$d" '$2 == d { print $1; exit }')
		[ -n "$t" ] || { echo "run_long.sh: no folder arch/$d in arch/arches" >&2; return 1; }
		echo "arch/$d/$(scripts/archinfo get "$t" fuzz_dict)" ;;
	esac
}

run_one() {	# run_one HARNESS
	h=$1
	mkdir -p "$fz/corpus/$h"
	log=$fz/logs/$h.log
	start=$(date +%s)
	rc=0
	dict=$(dict_of "$h") || return 0
	extra=
	[ "$h" = fuzz_list ] && extra=$fz/fixture-seeds
	/usr/bin/time -f '%U %S' -o "$fz/logs/$h.time" \
	nice -n 19 "$fz/$h" -max_total_time="$secs" -timeout=60 -rss_limit_mb=2048 \
		-print_final_stats=1 -dict="$dict" \
		-artifact_prefix="$fz/$h-" "$fz/corpus/$h" "$fz/regressions/$h" \
		"$fz/seeds/$h" $extra >"$log" 2>&1 || rc=$?
	end=$(date +%s)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	last=$(grep -aE '^#[0-9]+.*cov:' "$log" | tail -1)
	cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
	cpu=$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { printf "%.0f", $1 + $2 }' "$fz/logs/$h.time")
	printf '%s\t%s\texecs=%s\tcov=%s\tft=%s\tcorpus=%s\tsecs=%s\tcpu_s=%s\trc=%s\n' \
		"$(date -u +%FT%TZ)" "$h" "${execs:-?}" "${cov:-?}" "${ft:-?}" \
		"${corp:-?}" $((end - start)) "${cpu:-?}" "$rc" | tee -a "$fz/logs/summary.tsv"
	return 0
}

# two at a time: the machine is shared
for h in $all; do echo "$h"; done | {
	n=0
	while read -r h; do
		run_one "$h" &
		n=$((n + 1))
		if [ "$n" -ge "$jobs" ]; then
			wait
			n=0
		fi
	done
	wait
}
