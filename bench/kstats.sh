# shellcheck shell=sh
# Sourced by the benches that read the kernel's per-program run time
# (trace_bench.sh, cold_bench.sh): a temporary directory in $tmp, and at
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
