#!/bin/sh
# Mode inst (a program per spec, no cookie, no address), live:
#  1. forced with --mode inst on this kernel: a PIE by path in two
#     processes at once (system-wide), a shared library by path, -c CMD
#     (its PIE and a library it dlopen()s), -p PID, -c --children, and a
#     probe of 24 sites with 24 specs; every hit and argument exact;
#  2. AUTO on a kernel without cookies or uprobe_multi (Linux 5.10), as
#     tests/fixtures/shim/no_cookie.c makes this one look: inst for a PIE or a
#     library by path and for -c, ipmap for -p and a non-PIE executable,
#     every hit exact;
#  3. the cap: a probe of 1100 specs is refused in one line naming it,
#     before any uprobe exists.
# Needs root and BPF.
# usage: cli_trace_inst.sh USDTKIT FX_CMD LIBFX_CMD FX_CMD_NOPIE FX_FORK
#        INST_MANY_24 MANY_1100 NO_COOKIE_SO
set -u
u=$1 fx=$2 lib=$3 nopie=$4 fork=$5 many=$6 many1100=$7 shim=$8
. "$(dirname "$0")/../helpers/check.sh"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
cleanup() {
	exec 3>&- 2>/dev/null
	[ -n "${tpid:-}" ] && kill -9 "$tpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
PRE=""	# LD_PRELOAD of the traces: "" (this kernel) or the shim

# trace ARGS...: trace -v in the foreground, $tmp/out and $tmp/err, $rc
trace() {
	timeout 60 env ${PRE:+LD_PRELOAD=$PRE} "$u" trace -v "$@" \
		>"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}
# --children reads a tracepoint's format from tracefs: where the machine
# has it unmounted, the trace runs in a mount namespace of its own with it
trace_ns() {
	if grep -q " /sys/kernel/tracing tracefs " /proc/mounts; then
		trace "$@"
		return
	fi
	timeout 60 env ${PRE:+LD_PRELOAD=$PRE} unshare -m --propagation private \
		sh -c 'mount -t tracefs none /sys/kernel/tracing && exec "$@"' sh \
		"$u" trace -v "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}
# bg ARGS...: trace -v in the background, until it says it is tracing
bg() {
	rm -f "$tmp/out" "$tmp/err"
	timeout 60 env ${PRE:+LD_PRELOAD=$PRE} "$u" trace -v "$@" \
		>"$tmp/out" 2>"$tmp/err" </dev/null &
	tpid=$!
	wait_for "$tmp/err" '^Tracing ' 300 $tpid || ko "trace $*: did not attach"
}
fg_wait() { wait "$tpid"; rc=$?; tpid=""; }
# hits OUT: "PID PROBE(ARGS)" per hit, sorted
hits() { sed -n 's/^ *[0-9.]* pid \([0-9]*\) tid [0-9]* \(.*\)$/\1 \2/p' "$1" | sort; }
# same WHAT WANT: the hits of $tmp/out are exactly WANT (lines)
same() {
	printf '%s\n' "$2" | sort >"$tmp/want"
	hits "$tmp/out" >"$tmp/got"
	cmp -s "$tmp/want" "$tmp/got" && ok ||
		{ ko "$1: hits differ (want, got):"; cat "$tmp/want" "$tmp/got" "$tmp/err"; }
}
# mode_is WHAT MODE N: -v named MODE for N probes, and no other mode
mode_is() {
	_n=$(grep -c "site(s), mode $2\$" "$tmp/err")
	_all=$(grep -c "site(s), mode " "$tmp/err")
	[ "$_n" -eq "$3" ] && [ "$_all" -eq "$3" ] && ok ||
		{ ko "$1: want mode $2 for $3 probes:"; cat "$tmp/err"; }
}
# start_hits PID K ARGC: fx_cmd's cmdt:start(i, argc) for i < K, guarded(K)
start_hits() {
	_i=0
	while [ $_i -lt "$2" ]; do
		echo "$1 cmdt:start(s32 $_i, s32 $3)"; _i=$((_i + 1))
	done
	echo "$1 cmdt:guarded(s32 $2)"
}
# fire_hits PID K: the library's cmdlib:fire(i), i < K
fire_hits() {
	_i=0
	while [ $_i -lt "$2" ]; do echo "$1 cmdlib:fire(s32 $_i)"; _i=$((_i + 1)); done
}
# tree_hits K: fx_fork 1 1 K's hits by who (0, 4, 1, 3, 2), as "who:n"
tree_hits() {
	for _w in 0 4 1 3 2; do
		printf '%s:%s ' $_w "$(grep -c "forkt:hit(s32 $_w)\$" "$tmp/out")"
	done
}

# ---- 1. --mode inst on this kernel ----

# a PIE by path, any process: two of them, with their own argc
bg --mode inst --count 8 "$fx:cmdt:*"
"$fx" 3 & p1=$!; wait $p1
"$fx" 3 0 & p2=$!; wait $p2
fg_wait
[ $rc -eq 0 ] && ok || { ko "inst PIE by path: exit $rc"; cat "$tmp/err"; }
mode_is "inst PIE by path" inst 2
same "inst PIE by path" "$(start_hits $p1 3 2; start_hits $p2 3 3)"

# a shared library by path
bg --mode inst --count 3 "$lib:cmdlib:fire"
FX_CMD_LIB=$lib "$fx" 3 & p1=$!; wait $p1
fg_wait
[ $rc -eq 0 ] && ok || { ko "inst library by path: exit $rc"; cat "$tmp/err"; }
mode_is "inst library by path" inst 1
same "inst library by path" "$(fire_hits $p1 3)"

# -c: CMD's PIE before its first instruction, and a library it loads
FX_CMD_LIB=$lib trace --mode inst -c "$fx 4" 'cmdt:*' "$lib:cmdlib:fire"
pid=$(sed -n 's/.*command pid \([0-9]*\) exited with status 0$/\1/p' "$tmp/err")
[ $rc -eq 0 ] && [ -n "$pid" ] && ok || { ko "inst -c: exit $rc"; cat "$tmp/err"; }
mode_is "inst -c" inst 3
same "inst -c" "$(start_hits "$pid" 4 2; fire_hits "$pid" 4)"

# -p PID: fx_fork 1 1 2 (held on its stdin): its own hits only
rm -f "$tmp/go"; mkfifo "$tmp/go"
"$fork" 1 1 2 <"$tmp/go" >"$tmp/fx.out" & wpid=$!
exec 3>"$tmp/go"
wait_for "$tmp/fx.out" '^ready$' 300 $wpid || ko "fx_fork did not start"
bg --mode inst -p $wpid forkt:hit
echo go >&3; exec 3>&-
wait $wpid
fg_wait
[ $rc -eq 0 ] && ok || { ko "inst -p: exit $rc"; cat "$tmp/err"; }
mode_is "inst -p" inst 1
same "inst -p" "$(echo "$wpid forkt:hit(s32 0)"; echo "$wpid forkt:hit(s32 0)")"

# -c --children: the whole tree (fx_fork.c: 2 hits each of who 0 4 1 3 2)
trace_ns --mode inst --children -c "$fork 1 1 2" forkt:hit
[ $rc -eq 0 ] && [ "$(tree_hits)" = "0:2 4:2 1:2 3:2 2:2 " ] && ok ||
	{ ko "inst -c --children: exit $rc, hits $(tree_hits)"; cat "$tmp/err"; }
mode_is "inst -c --children" inst 1

# one probe, 24 sites, 24 specs (many:site(1000 + i) at site i), two rounds:
# each site's own program names its own spec
rm -f "$tmp/go"; mkfifo "$tmp/go"
"$many" 2 <"$tmp/go" >/dev/null & wpid=$!
exec 3>"$tmp/go"
bg --mode inst --count 48 "$many:many:site"
echo go >&3; exec 3>&-
wait $wpid
fg_wait
[ $rc -eq 0 ] && ok || { ko "inst 24 specs: exit $rc"; cat "$tmp/err"; }
grep -q "many:site: 24 site(s), mode inst$" "$tmp/err" && ok ||
	{ ko "inst 24 specs: -v line"; cat "$tmp/err"; }
want=$(i=0; while [ $i -lt 24 ]; do
	echo "$wpid many:site(s32 $((1000 + i)))"; echo "$wpid many:site(s32 $((1000 + i)))"
	i=$((i + 1)); done)
same "inst 24 specs" "$want"

# ---- 2. AUTO on "5.10": no cookies, no uprobe_multi ----
PRE=$shim
env LD_PRELOAD=$shim "$u" features >"$tmp/f" 2>&1
grep -Eq '^bpf_cookie: +no' "$tmp/f" && grep -Eq '^uprobe_multi: +no' "$tmp/f" &&
	grep -Eq '^auto mode: +ipmap \(.*inst for a PIE or library by path and for -c\)$' \
		"$tmp/f" && ok ||
	{ ko "features under the shim"; cat "$tmp/f"; }

bg --count 4 "$fx:cmdt:*"
"$fx" 3 & p1=$!; wait $p1
fg_wait
[ $rc -eq 0 ] && ok || { ko "auto PIE by path: exit $rc"; cat "$tmp/err"; }
mode_is "auto PIE by path" inst 2
same "auto PIE by path" "$(start_hits $p1 3 2)"

bg --count 2 "$lib:cmdlib:fire"
FX_CMD_LIB=$lib "$fx" 2 & p1=$!; wait $p1
fg_wait
mode_is "auto library by path" inst 1
same "auto library by path" "$(fire_hits $p1 2)"

bg --count 3 "$nopie:cmdt:*"
"$nopie" 2 & p1=$!; wait $p1
fg_wait
mode_is "auto non-PIE by path" ipmap 2
same "auto non-PIE by path" "$(start_hits $p1 2 2)"

FX_CMD_LIB=$lib trace -c "$fx 2" 'cmdt:*' "$lib:cmdlib:fire"
pid=$(sed -n 's/.*command pid \([0-9]*\) exited with status 0$/\1/p' "$tmp/err")
[ $rc -eq 0 ] && [ -n "$pid" ] && ok || { ko "auto -c: exit $rc"; cat "$tmp/err"; }
mode_is "auto -c" inst 3
same "auto -c" "$(start_hits "$pid" 2 2; fire_hits "$pid" 2)"

rm -f "$tmp/go"; mkfifo "$tmp/go"
"$fork" 1 1 2 <"$tmp/go" >"$tmp/fx.out" & wpid=$!
exec 3>"$tmp/go"
wait_for "$tmp/fx.out" '^ready$' 300 $wpid || ko "fx_fork did not start"
bg -p $wpid forkt:hit
echo go >&3; exec 3>&-
wait $wpid
fg_wait
mode_is "auto -p" ipmap 1
same "auto -p" "$(echo "$wpid forkt:hit(s32 0)"; echo "$wpid forkt:hit(s32 0)")"

trace_ns --children -c "$fork 1 1 2" forkt:hit
[ $rc -eq 0 ] && [ "$(tree_hits)" = "0:2 4:2 1:2 3:2 2:2 " ] && ok ||
	{ ko "auto -c --children: exit $rc, hits $(tree_hits)"; cat "$tmp/err"; }
mode_is "auto -c --children" inst 1
PRE=""

# ---- 3. the cap: 1100 specs, one probe; refused before any uprobe ----
# and before any program: under a board's RLIMIT_NOFILE of 1024 the
# programs' fds ran out first (the 5.10 VMs: "Too many open
# files" instead of this line)
trace_1024() ( ulimit -n 1024 && trace "$@"; echo "$rc" > "$tmp/rc" )
trace_1024 --mode inst "$many1100:many:site"
rc=$(cat "$tmp/rc")
[ $rc -eq 1 ] && [ ! -s "$tmp/out" ] &&
	grep -q "^usdtkit trace: cannot attach: $many1100: many:site: mode inst loads a program per distinct argument spec, and this one would pass its cap of 1024: trace fewer probes, or give -p PID\$" "$tmp/err" &&
	[ "$(grep -c 'cap of' "$tmp/err")" -eq 1 ] && ok ||
	{ ko "cap: exit $rc"; cat "$tmp/err"; }

finish cli_trace_inst
