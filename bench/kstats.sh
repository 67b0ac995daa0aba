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
