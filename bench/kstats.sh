# shellcheck shell=sh
# Sourced by the benches that read what the kernel holds for a tracer
# (trace_bench.sh, cold_bench.sh, stack_mem.sh): a temporary directory
# in $tmp, tracer_ready, kmaps, traced_run and kstats below, and at
# exit the workload ($wpid) and tracer ($tpid) killed, fd 3 closed,
# kernel.bpf_stats_enabled as it was, $tmp removed.
tmp=$(mktemp -d)
stats0=$(sysctl -n kernel.bpf_stats_enabled)
wpid="" tpid=""
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	exec 3>&- 2>/dev/null
	for p in $tpid $wpid; do kill -9 "$p" 2>/dev/null; done
	sysctl -q -w kernel.bpf_stats_enabled="$stats0"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# kstats PID: "RUN_TIME_NS RUN_CNT VERIFIED_INSNS" summed over PID's BPF
# programs but tracepoint ones (type 5: --children's, run on forks and
# exits anywhere, not on hits); verified_insns is what the verifier
# processed to load each (fdinfo has it since Linux 5.16, else 0)
kstats() {
	for f in /proc/"$1"/fd/*; do
		case $(readlink "$f" 2>/dev/null) in
		*bpf-prog*) cat /proc/"$1"/fdinfo/"${f##*/}" 2>/dev/null ;;
		esac
	done | awk '$1 == "prog_type:" { tp = $2 == 5 }
		$1 == "run_time_ns:" && !tp { t += $2 } $1 == "run_cnt:" && !tp { c += $2 }
		$1 == "verified_insns:" && !tp { v += $2 }
		END { print t + 0, c + 0, v + 0 }'
}

# tracer_ready TOOL: wait (60 s at most) for the line of the tracer
# $tpid in $tmp/t.err saying it is attached: usdtkit's "Tracing ...",
# bpftrace's __BPFTRACE_NOTIFY_PROBES_ATTACHED (started with that
# variable set). 1 if it ended or never said it, its status in $trc and
# $tpid then "".
tracer_ready() {
	case $1 in
	usdtkit) _ready='^Tracing ' ;;
	*) _ready='^__BPFTRACE_NOTIFY_PROBES_ATTACHED$' ;;
	esac
	_w=0
	until grep -q "$_ready" "$tmp/t.err" 2>/dev/null; do
		if ! kill -0 "$tpid" 2>/dev/null || [ $_w -ge 600 ]; then
			wait "$tpid"; trc=$?
			tpid=""
			return 1
		fi
		sleep 0.1; _w=$((_w + 1))
	done
}

# kmaps PID: "BYTES MAPS STACK_BYTES STACK_MAPS", the memlock of PID's
# BPF maps, and of its stack trace maps (type 7) apart
kmaps() {
	for f in /proc/"$1"/fd/*; do
		case $(readlink "$f" 2>/dev/null) in
		*bpf-map*) cat /proc/"$1"/fdinfo/"${f##*/}" 2>/dev/null ;;
		esac
	done | awk '$1 == "map_type:" { n++; st = $2 == 7; ns += st }
		$1 == "memlock:" { all += $2; if (st) s += $2 }
		END { print all + 0, n + 0, s + 0, ns + 0 }'
}

# traced_run TOOL: one run of a workload held on fd 3 (a fifo; its pid
# in $wpid, its line of loop time due in $tmp/load.out) under the tracer
# the bench started ($tpid, its stderr in $tmp/t.err; TOOL usdtkit or
# bpftrace, or none for no tracer): waits for the tracer's line saying it
# is attached (usdtkit's "Tracing ...", bpftrace's
# __BPFTRACE_NOTIFY_PROBES_ATTACHED), lets the workload run, and reads
# the tracer's programs while both still run. Leaves in $res
# "LOOP_NS RUN_TIME_NS RUN_CNT INSNS", or "fail" (the tracer ended or
# never attached), or "rejected" (usdtkit exit 2: options this build does
# not take); $tpid is "" once the tracer has ended.
traced_run() {
	res=""
	if [ "$1" != none ] && ! tracer_ready "$1"; then
		res=fail
		[ "$1" = usdtkit ] && [ "$trc" -eq 2 ] && res=rejected
		return
	fi
	echo go >&3
	w=0
	until [ -s "$tmp/load.out" ] || [ $w -ge 6000 ]; do
		sleep 0.05; w=$((w + 1))
	done
	st="0 0 0"
	[ -n "$tpid" ] && st=$(kstats "$tpid")
	res="$(head -n 1 "$tmp/load.out") $st"
}
