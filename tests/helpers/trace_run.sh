# Sourced by the live trace tests (after setting $u, the CLI): their
# counters and scratch directory ($tmp), run_traced, and finish.
. "$(dirname "$0")/../helpers/check.sh"
trap 'exec 3>&- 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM

# run_traced PROG ROUNDS OUT ERR TRACE_ARGS...: start PROG waiting on a
# fifo, trace it, let it fire once the probes are attached (-v says so
# for each: $probes of them, default 1, or the trace has ended). The
# trace's exit status is returned and left in $rc.
run_traced() {
	_prog=$1 _rounds=$2 _out=$3 _err=$4; shift 4
	rm -f "$tmp/go"; mkfifo "$tmp/go"
	"$_prog" "$_rounds" <"$tmp/go" >/dev/null &
	ppid_=$!
	exec 3>"$tmp/go"
	# an argument @PID is the workload's pid
	for _a in "$@"; do
		shift
		[ "$_a" = @PID ] && _a=$ppid_
		set -- "$@" "$_a"
	done
	timeout 120 "$u" trace -v "$@" >"$_out" 2>"$_err" &
	tpid=$!
	_w=0
	until [ "$(grep -c "site(s)" "$_err" 2>/dev/null)" -ge "${probes:-1}" ] ||
		! kill -0 $tpid 2>/dev/null || [ $_w -ge 300 ]; do
		sleep 0.1; _w=$((_w + 1))
	done
	sleep 0.2
	echo go >&3
	exec 3>&-
	wait $tpid; rc=$?
	wait $ppid_ 2>/dev/null
	return $rc
}
