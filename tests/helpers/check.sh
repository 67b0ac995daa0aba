# Sourced by the shell tests: counters, a scratch directory ($tmp,
# removed at exit), ok/ko, run, and finish. A test that needs more at
# exit sets its own trap after sourcing this (and removes $tmp there).
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

# run WHAT WANT-RC ARGS...: stdout in $tmp/out, stderr in $tmp/err, the
# status in $rc; a status other than WANT-RC fails, showing stderr
run() {
	what=$1 want=$2; shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq "$want" ]; then ok; else
		ko "$what: exit $rc, want $want"; cat "$tmp/err"; fi
}

# wait_for FILE PATTERN TENTHS [PID]: until FILE has PATTERN (0), or PID
# has exited or TENTHS tenths of a second have passed (1)
wait_for() {
	_n=0
	until grep -q "$2" "$1" 2>/dev/null; do
		[ "$_n" -ge "$3" ] && return 1
		[ -n "${4:-}" ] && ! kill -0 "$4" 2>/dev/null && return 1
		sleep 0.1; _n=$((_n + 1))
	done
}

# running PID: PID runs (a zombie, exited but not yet waited for, does not)
running() {
	_s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) && [ "${_s%% *}" != Z ]
}

# interrupt PID...: SIGINT to each, sent again every second to one still
# running, for up to 30 s each. bpftrace 0.17 once ran on in CI after the
# first (its maps printed at timeout(1)'s SIGTERM 120 s later); the
# cause was not found, a second SIGINT is harmless. For bpftrace only:
# a tracer whose second SIGINT means "quit now" would lose its report.
interrupt() {
	kill -INT "$@" 2>/dev/null
	for _p; do
		_n=0
		while running "$_p" && [ "$_n" -lt 300 ]; do
			sleep 0.1; _n=$((_n + 1))
			[ $((_n % 10)) -eq 0 ] && kill -INT "$_p" 2>/dev/null
		done
	done
	return 0
}

# finish [NAME]: the closing line, and the exit status
finish() {
	echo "${1:+$1: }$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}

# skip_no_all_hold USDTKIT: exit 77 (a skip, said) where trace --all can
# hold no exec on this kernel or with these privileges
skip_no_all_hold() {
	"$1" trace --all --counts -d 0.1 x:y >"$tmp/out" 2>"$tmp/err" && return 0
	grep -q "cannot hold" "$tmp/err" || return 0
	echo "SKIP: $(grep "cannot hold" "$tmp/err")"
	exit 77
}
