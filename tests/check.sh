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

# finish [NAME]: the closing line, and the exit status
finish() {
	echo "${1:+$1: }$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
