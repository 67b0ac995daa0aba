#!/bin/sh
# What a user stack costs on one probe (bench/stack_load.c's sload:hit,
# 11 frames deep), unwound with the call frame information (`usdtkit
# trace --count-by ustack`), walked by frame pointers (`--stack-fp`, the
# kernel's walk) and by bpftrace 0.17 (`@[ustack]`, `@[ustack(perf)]`:
# frame pointers), side by side in one run (bench/README.md, "Stacks"):
#
#  hit    per hit: (median traced loop - median untraced loop) / M, and
#         the tracer's programs' median run_time_ns / run_cnt, on the
#         workload built -fomit-frame-pointer (nofp) and
#         -fno-omit-frame-pointer (fp); with the frames of the hottest
#         stack each tool printed, since a cost means nothing without
#         its depth. Every repetition runs every row in turn.
#  mem    the rows each object makes (cfi_rows: rows x 16 bytes is what
#         it holds in unw_rows), and what each tracer holds attached to
#         the held workload: the memlock of its maps (bpftool map show,
#         the unwinder's and stack trace maps apart) and its VmRSS.
#  start  the time to build the tables (cfi_rows, median of R reads) and
#         the whole start of each tracer on a held process, fork to its
#         line saying it is attached (startup_time --line), on the
#         workload and on a python3.11 (libstdc++-free but 64k rows).
#
# Prints lines of "key: values" (below); exits 1 if a tracer fails.
#
# usage: bench/stack_bench.sh [--hits M (200000)] [--reps N (5)]
#                             [--parts "hit mem start"] [--builds "nofp fp"]
#                             [--rows "counts ustack16 ..."] USDTKIT DIR
#        DIR holds stack_load_nofp, stack_load_fp, cfi_rows and
#        startup_time (build/bench). Root. Env BPFTRACE (default
#        bpftrace; without it its rows print "-").
set -u
m=200000 reps=5 parts="hit mem start" builds="nofp fp" only=""
while :; do
	case ${1-} in
	--hits) m=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--parts) parts=$2; shift 2 ;;
	--builds) builds=$2; shift 2 ;;
	--rows) only=$2; shift 2 ;;
	*) break ;;
	esac
done
if [ $# -ne 2 ]; then
	echo "usage: stack_bench.sh [--hits M] [--reps N] [--parts LIST] USDTKIT DIR" >&2
	exit 2
fi
u=$1 dir=$2 bt=${BPFTRACE:-bpftrace}
for f in stack_load_nofp stack_load_fp cfi_rows startup_time; do
	[ -x "$dir/$f" ] || { echo "stack_bench: no $f in $dir" >&2; exit 2; }
done
have_bt=1
command -v "$bt" > /dev/null || have_bt=0
here=$(cd "$(dirname "$0")" && pwd)
. "$here/kstats.sh"
sysctl -q -w kernel.bpf_stats_enabled=1
libdir=$(dirname "$(ldd "$dir/stack_load_nofp" | awk '$1 ~ /^libc\.so/ { print $3 }')")
mkdir "$tmp/r"

# the rows: NAME TOOL, and each tool's program or options
rows=${only:-counts ustack16 ustack127 fp16 fp127 bt bt_perf}
tool_of() { case $1 in bt*) echo bpftrace ;; *) echo usdtkit ;; esac; }
usdtkit_opts() {
	case $1 in
	counts) echo "--counts" ;;
	ustack16) echo "--count-by ustack --json" ;;
	ustack127) echo "--count-by ustack --stack-depth 127 --json" ;;
	fp16) echo "--count-by ustack --stack-fp --json" ;;
	fp127) echo "--count-by ustack --stack-fp --stack-depth 127 --json" ;;
	esac
}
bt_prog() {
	case $1 in
	bt) echo "@[ustack] = count();" ;;
	bt_perf) echo "@[ustack(perf)] = count();" ;;
	esac
}

# start_tracer ROW LOAD PID: its tracer in the background ($tpid),
# stdout in $tmp/t.out, stderr in $tmp/t.err
start_tracer() {
	if [ "$(tool_of "$1")" = usdtkit ]; then
		# shellcheck disable=SC2046 # the options are words, no globs
		"$u" trace -p "$3" $(usdtkit_opts "$1") "$2:sload:hit" \
			> "$tmp/t.out" 2> "$tmp/t.err" &
	else
		__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 "$bt" -p "$3" \
			-e "usdt:$2:sload:hit { $(bt_prog "$1") }" \
			> "$tmp/t.out" 2> "$tmp/t.err" &
	fi
	tpid=$!
}

# frames ROW: "FRAMES STACK" of the hottest stack in $tmp/t.out (usdtkit's
# JSON, bpftrace's map), STACK its function names, innermost first
frames() {
	case $1 in
	none | counts) echo "- -" ;;
	bt*) awk '/^@\[$/ { n = 0; s = ""; next }
		/^\]: / { if ($2 > best) { best = $2; bn = n; bs = s }; next }
		NF { n++; f = $1 ~ /^[0-9a-f]+$/ && NF > 1 ? $2 : $1
			sub(/\+.*/, "", f); s = s (s == "" ? "" : "<") f }
		END { print bn + 0, (bs == "" ? "-" : bs) }' "$tmp/t.out" ;;
	*) sed -n 's/^.*"top":\[{[^]]*"frames":\[\([^]]*\)\].*/\1/p' "$tmp/t.out" |
		awk -F'","' '{ s = ""; for (i = 1; i <= NF; i++) { f = $i
			sub(/^"/, "", f); sub(/[+ ].*/, "", f); sub(/@.*/, "", f)
			s = s (i > 1 ? "<" : "") f }
			print NF, s }' ;;
	esac
}

# one BUILD ROW: one run; appends "LOOP_NS KERNEL_NS FRAMES STACK" to
# $tmp/r/BUILD.ROW (ROW none: no tracer)
one() {
	load=$dir/stack_load_$1
	# t.err too: tracer_ready would take the last run's line for this one's
	rm -f "$tmp/go" "$tmp/load.out" "$tmp/t.out" "$tmp/t.err"; mkfifo "$tmp/go"
	"$load" "$m" < "$tmp/go" > "$tmp/load.out" &
	wpid=$!
	exec 3> "$tmp/go"
	tool=none
	if [ "$2" != none ]; then
		tool=$(tool_of "$2")
		start_tracer "$2" "$load" "$wpid"
	fi
	traced_run "$tool"
	if [ "$res" = fail ] || [ "$res" = rejected ]; then
		echo "stack_bench: $1 $2 failed:" >&2; cat "$tmp/t.err" >&2
		exit 1
	fi
	# the tracer ends (and prints) while the workload still runs, so
	# that bpftrace names its frames
	if [ -n "$tpid" ]; then
		kill -INT "$tpid"; wait "$tpid"; tpid=""
	fi
	echo go >&3
	exec 3>&-
	wait "$wpid" 2> /dev/null; wpid=""
	echo "$res" | awk '{ printf "%s %.1f ", $1, $3 ? $2 / $3 : 0 }' >> "$tmp/r/$1.$2"
	frames "$2" >> "$tmp/r/$1.$2"
}

# med FILE COLUMN: the median of a column
med() {
	awk -v c="$2" '{ print $c }' "$1" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
			else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

part_hit() {
	echo "hit: M $m, medians of $reps runs; wall = (traced - untraced) / M"
	for b in $builds; do
		i=0
		while [ $i -lt "$reps" ]; do
			i=$((i + 1))
			one $b none
			for r in $rows; do
				[ "$(tool_of $r)" = bpftrace ] && [ $have_bt = 0 ] && continue
				one $b "$r"
			done
		done
		base=$(med "$tmp/r/$b.none" 1)
		echo "hit $b untraced: loop $(echo "$base $m" |
			awk '{ printf "%.1f", $1 / $2 }') ns/hit"
		for r in $rows; do
			if [ ! -s "$tmp/r/$b.$r" ]; then
				echo "hit $b $r: - (no $bt)"
				continue
			fi
			echo "$(med "$tmp/r/$b.$r" 1) $base $m $(med "$tmp/r/$b.$r" 2) \
				$(sort "$tmp/r/$b.$r" -k3 | awk '{ print $3 }' | uniq | tr '\n' '/')" |
				awk -v b=$b -v r="$r" '{ sub(/\/$/, "", $5); printf "hit %s %s: wall " \
					"%.1f ns/hit, kernel %.1f ns, frames %s\n", b, r,
					($1 - $2) / $3, $4, $5 }'
			tail -n 1 "$tmp/r/$b.$r" | awk -v b=$b -v r="$r" \
				'{ printf "stack %s %s: %s\n", b, r, $4 }'
		done
	done
}

# maps_named PID: "NAME MEMLOCK" of each BPF map PID holds, by bpftool
maps_named() {
	for f in /proc/"$1"/fd/*; do
		case $(readlink "$f" 2>/dev/null) in
		*bpf-map*) awk '$1 == "map_id:" { print $2 }' /proc/"$1"/fdinfo/"${f##*/}" ;;
		esac
	done | while read -r id; do
		bpftool map show id "$id" | awk 'NR == 1 { n = $4 }
			/memlock/ { for (i = 1; i < NF; i++) if ($i == "memlock")
				{ v = $(i + 1); sub(/B$/, "", v) } }
			END { print n, v + 0 }'
	done
}

part_mem() {
	ld=$(ldd "$dir/stack_load_nofp" | awk '$1 ~ /^\/.*ld-linux/ { print $1 }')
	"$dir/cfi_rows" -r "$reps" "$libdir/libstdc++.so.6" "$libdir/libc.so.6" \
		/usr/bin/python3.11 "$ld" "$dir/stack_load_nofp" |
		sed 's/^/rows /'
	load=$dir/stack_load_nofp
	rm -f "$tmp/go"; mkfifo "$tmp/go"
	"$load" 1 < "$tmp/go" > /dev/null &
	wpid=$!
	exec 3> "$tmp/go"
	for r in counts ustack16 fp16 ustack127 fp127 bt bt_perf; do
		[ "$(tool_of $r)" = bpftrace ] && [ $have_bt = 0 ] && continue
		rm -f "$tmp/t.err"
		start_tracer "$r" "$load" "$wpid"
		if ! tracer_ready "$(tool_of $r)"; then
			echo "stack_bench: mem $r failed:" >&2; cat "$tmp/t.err" >&2
			exit 1
		fi
		rss=$(awk '$1 == "VmRSS:" { print $2 }' /proc/"$tpid"/status)
		maps_named "$tpid" | awk -v r="$r" -v rss="$rss" '{ n++; all += $2 }
			$1 ~ /^unw_/ { unw += $2; d = d sprintf(" %s %.2f", $1, $2 / 1048576) }
			$1 ~ /stack/ { st += $2 }
			END { printf "mem %s: %d maps, %.2f MiB memlock; unwinder %.2f MiB" \
				"%s; named *stack* %.2f MiB; tracer VmRSS %.1f MiB\n", r, n,
				all / 1048576, unw / 1048576, d, st / 1048576, rss / 1024 }'
		kill -INT "$tpid"; wait "$tpid"; tpid=""
	done
	echo go >&3; echo go >&3
	exec 3>&-
	wait "$wpid" 2> /dev/null; wpid=""
}

# start_one TARGET PATH PROBE ROW: the ns from fork to attached
start_one() {
	case $4 in
	bt*) __BPFTRACE_NOTIFY_PROBES_ATTACHED=1 "$dir/startup_time" --line \
		__BPFTRACE_NOTIFY_PROBES_ATTACHED "$bt" -p "$wpid" \
		-e "usdt:$2:$3 { $(bt_prog "$4") }" ;;
	# shellcheck disable=SC2046 # the options are words, no globs
	*) "$dir/startup_time" --line Tracing "$u" trace -p "$wpid" \
		$(usdtkit_opts "$4") "$2:$3" ;;
	esac
}

part_start() {
	"$dir/cfi_rows" -r "$reps" "$libdir/libstdc++.so.6" /usr/bin/python3.11 |
		awk '{ p = $1; for (i = 2; i < NF; i++) if ($i == "read_ms") t = $(i + 1)
			sub(/^.*\(/, ""); print "tables " p ": " t " ms median (" $0 }'
	for t in load python; do
		if [ $t = load ]; then
			path=$dir/stack_load_nofp probe=sload:hit
			rm -f "$tmp/go"; mkfifo "$tmp/go"
			"$path" 1 < "$tmp/go" > /dev/null &
			wpid=$!
			exec 3> "$tmp/go"
		else
			path=/usr/bin/python3.11 probe=python:function__entry
			[ -x $path ] || { echo "start python: - (no $path)"; continue; }
			$path -c 'import time; time.sleep(3600)' &
			wpid=$!
			sleep 1
		fi
		rm -f "$tmp/s."*
		i=0
		while [ $i -lt "$reps" ]; do
			i=$((i + 1))
			for r in counts ustack16 fp16 bt; do
				[ "$(tool_of $r)" = bpftrace ] && [ $have_bt = 0 ] && continue
				if ! start_one $t $path $probe $r >> "$tmp/s.$r" 2> "$tmp/t.err"; then
					echo "stack_bench: start $t $r failed:" >&2; cat "$tmp/t.err" >&2
					exit 1
				fi
			done
		done
		for r in counts ustack16 fp16 bt; do
			[ -s "$tmp/s.$r" ] || { echo "start $t $r: -"; continue; }
			echo "start $t $r: $(med "$tmp/s.$r" 1 | awk '{ printf "%.1f", $1 / 1e6 }')" \
				"ms median ($(sort -g "$tmp/s.$r" | awk '{ printf "%s%.1f", (NR > 1 ? " " : ""), $1 / 1e6 }'))"
		done
		if [ $t = load ]; then
			echo go >&3; echo go >&3
			exec 3>&-
		else
			kill "$wpid"
		fi
		wait "$wpid" 2> /dev/null; wpid=""
	done
}

for p in $parts; do
	case $p in
	hit) part_hit ;;
	mem) part_mem ;;
	start) part_start ;;
	*) echo "stack_bench: no part $p" >&2; exit 2 ;;
	esac
done
