#!/bin/sh
# usdtkit trace -p, -c and --children on probes of a library loaded late
# (live, root, BPF): tests/fixtures/fx_plug.c dlopen()s libfx_plug.so
# LOOPS times and fires plug:fire FIRES times the moment dlopen()
# returns, plug:init in the plugin's constructor (before it returns).
# A PROVIDER:NAME that nothing has yet waits and is attached when the
# plugin is mapped, the loading thread held until then: every hit is
# counted, and the hold shows to no one (a parent's waitpid(WUNTRACED),
# the process's SIGCONT handler). Without the tracer (--no-hold, or
# another tracer has the process) the trace still attaches, and says
# once what it may lose. In a chroot with its own loader, -p and
# -c 'chroot ...' are exact too. A probe no library ever brings ends the trace
# with a line, exit 1.
# Under --children, a child that execs a program with the probe is held
# at its exec until attached, also when the program is replaced (renamed
# over, as dpkg does) between two runs: every hit of every run.
# usage: cli_trace_follow.sh USDTKIT FX_PLUG LIBFX_PLUG PYTHON3 FX_UPG1 FX_UPG2
set -u
u=$1 fx=$2 lib=$3 py=$4 upg1=$5 upg2=$6

. "$(dirname "$0")/../helpers/check.sh"
fpid="" tpid="" spid=""
cleanup() {
	exec 3>&- 2>/dev/null
	for p in $tpid $fpid $spid; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

L=10 F=20
fires=$((L * F))

# cnt OUT PROBE: PROBE's count in a --counts table
cnt() { awk -v p="$2" '$2 == p { print $1 }' "$1"; }

# want WHAT OUT PROBE N: PROBE counted N times in OUT
want() {
	[ "$(cnt "$2" "$3")" = "$4" ] && ok ||
		{ ko "$1: $3 counted '$(cnt "$2" "$3")', want $4"; cat "$2" "$tmp/err" "$tmp/fx.out"; }
}

# -c: the plugin is no library the loader maps at the start: waited for
timeout 60 "$u" trace -v --counts -c "$fx $lib $L $F" plug:fire plug:init \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
# -v's account: a hold at each of the loader's calls (startup, each
# dlopen() and dlclose()), the process read whole once for the plugin
grep -Eq "following: ([4-9][0-9]) thread\(s\) held and let go, [1-3] process read" \
	"$tmp/err" && ok || { ko "-c: -v's account of the holds"; grep following "$tmp/err"; }
[ $rc -eq 0 ] && [ "$(grep -c 'yet: waiting for a library' "$tmp/err")" -eq 2 ] &&
	grep -q '^Tracing 2 waiting for a library' "$tmp/err" && ok ||
	{ ko "-c: exit $rc"; cat "$tmp/err"; }
want "-c" "$tmp/out" plug:fire $fires
want "-c" "$tmp/out" plug:init $L

# start_fx ARGS...: fx_plug LIB L F ARGS, held on a fifo until go
start_fx() {
	rm -f "$tmp/go" "$tmp/fx.out"
	mkfifo "$tmp/go"
	"$fx" "$lib" $L $F wait "$@" <"$tmp/go" >"$tmp/fx.out" &
	fpid=$!
	exec 3>"$tmp/go"
	wait_for "$tmp/fx.out" '^ready$' 300 $fpid || ko "fx_plug $*: not ready"
}

# trace_fx PID ARGS...: trace ARGS until PID's tree exits, the plugin
# loaded once it is attached; the trace's status in $rc
trace_fx() {
	_pid=$1; shift
	# not the last trace's "Tracing" line: this one's
	rm -f "$tmp/out" "$tmp/err"
	timeout 60 "$u" trace "$@" >"$tmp/out" 2>"$tmp/err" &
	tpid=$!
	wait_for "$tmp/err" '^Tracing ' 300 $tpid || ko "trace $*: did not attach"
	echo go >&3
	exec 3>&-
	wait $tpid; rc=$?
	wait $fpid
	tpid="" fpid=""
}

# -p: the same, held: and a parent that waits as a shell does sees no
# stop, the process's SIGCONT handler runs never
start_fx parent
wait_for "$tmp/fx.out" '^child ' 300 $fpid || ko "fx_plug parent: no child"
child=$(awk '/^child /{ print $2 }' "$tmp/fx.out")
trace_fx "$child" --counts -p "$child" plug:fire plug:init
[ $rc -eq 0 ] && ok || { ko "-p: exit $rc"; cat "$tmp/err"; }
want "-p" "$tmp/out" plug:fire $fires
want "-p" "$tmp/out" plug:init $L
grep -q '^parent stops 0$' "$tmp/fx.out" && grep -q '^sigcont 0$' "$tmp/fx.out" &&
	grep -q "^done $fires\$" "$tmp/fx.out" && ok ||
	{ ko "-p: the hold showed"; cat "$tmp/fx.out"; }

# a chroot with its own loader and libc (copies: other inodes than
# ours, at paths that maps gives from our root, /box/lib/...): the
# process's loader is watched through its map_files link, by -p and at
# the exec of -c 'chroot ...' (through /proc/PID/root/<maps path> it
# was missed, and both probes waited for ever)
box=$tmp/box
mkdir -p "$box/app"
cp "$fx" "$lib" "$box/app/"
for l in $(ldd "$fx" | grep -o '/[^ ]*'); do
	mkdir -p "$box$(dirname "$l")" && cp -L "$l" "$box$l"
done
rm -f "$tmp/go" "$tmp/fx.out"
mkfifo "$tmp/go"
chroot "$box" "/app/${fx##*/}" "/app/${lib##*/}" $L $F wait <"$tmp/go" >"$tmp/fx.out" &
fpid=$!
exec 3>"$tmp/go"
wait_for "$tmp/fx.out" '^ready$' 300 $fpid || ko "fx_plug in a chroot: not ready"
trace_fx "$fpid" --counts -p "$fpid" plug:fire plug:init
[ $rc -eq 0 ] && ok || { ko "-p, chroot: exit $rc"; cat "$tmp/err"; }
want "-p, chroot" "$tmp/out" plug:fire $fires
want "-p, chroot" "$tmp/out" plug:init $L
timeout 60 "$u" trace --counts -c "chroot $box /app/${fx##*/} /app/${lib##*/} $L $F" \
	plug:fire plug:init >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ok || { ko "-c chroot: exit $rc"; cat "$tmp/err"; }
want "-c chroot" "$tmp/out" plug:fire $fires
want "-c chroot" "$tmp/out" plug:init $L

# -p PARENT --children: the child, forked before, is held too
start_fx parent
wait_for "$tmp/fx.out" '^child ' 300 $fpid || ko "fx_plug parent: no child"
trace_fx "$fpid" --counts --children -p "$fpid" plug:fire
want "--children" "$tmp/out" plug:fire $fires
grep -q '^parent stops 0$' "$tmp/fx.out" && ok ||
	{ ko "--children: the hold showed"; cat "$tmp/fx.out"; }

# mode perf (a link per site): the same, 2 loads
L=2 F=3
timeout 60 "$u" trace --mode perf --counts -c "$fx $lib $L $F" plug:fire \
	>"$tmp/out" 2>"$tmp/err"
want "--mode perf" "$tmp/out" plug:fire 6
L=10 F=20

# another tracer has the process: not held, said once, still attached
# (its first load may be lost; the other rounds come once it is)
start_fx step
"$py" -c 'import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
if libc.ptrace(0x4206, int(sys.argv[1]), None, None):	# PTRACE_SEIZE
    sys.exit("seize: errno %d" % ctypes.get_errno())
print("seized", flush=True)
time.sleep(60)' "$fpid" >"$tmp/seize" &
spid=$!
wait_for "$tmp/seize" '^seized' 300 $spid || ko "the other tracer did not seize"
rm -f "$tmp/out" "$tmp/err"
timeout 60 "$u" trace -v --counts -p "$fpid" plug:fire >"$tmp/out" 2>"$tmp/err" &
tpid=$!
wait_for "$tmp/err" '^Tracing ' 300 $tpid || ko "another tracer: did not attach"
# it lets go (or its process could not end), then the first round
kill -9 $spid; wait $spid 2>/dev/null; spid=""
echo go >&3
wait_for "$tmp/err" 'plug:fire: 1 site(s) in .*, mapped later' 300 $tpid ||
	ko "another tracer: not attached when mapped"
echo go >&3
exec 3>&-
wait $tpid; rc=$?
wait $fpid
tpid="" fpid=""
n=$(cnt "$tmp/out" plug:fire)
[ $rc -eq 0 ] && [ "$(grep -c 'cannot hold its threads' "$tmp/err")" -eq 1 ] &&
	grep -q 'a debugger has it' "$tmp/err" && [ "${n:-0}" -ge $((fires - F)) ] &&
	[ "${n:-0}" -le $fires ] && ok ||
	{ ko "another tracer: exit $rc, $n hits"; cat "$tmp/err" "$tmp/out" "$tmp/fx.out"; }

# the tracer killed while it holds a thread (the trace stopped, so no
# answer comes; within the 2 s a hold lasts unanswered): that thread
# gets its SIGSTOP for real; the trace, once it runs again, says the
# tracer is gone and wakes the process
state() { awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null; }
L=3 F=2
start_fx
rm -f "$tmp/out" "$tmp/err"
timeout 60 "$u" trace --counts -p "$fpid" plug:fire >"$tmp/out" 2>"$tmp/err" &
tpid=$!
wait_for "$tmp/err" '^Tracing ' 300 $tpid || ko "tracer killed: did not attach"
upid=$(pgrep -P $tpid -x usdtkit)
hpid=$(pgrep -P "$upid" -x usdtkit-hold)
kill -STOP "$upid"
echo go >&3
exec 3>&-
n=0
while [ "$(state $fpid)" != t ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
[ "$(state $fpid)" = t ] && ok || ko "tracer killed: the thread was not held ($(state $fpid))"
kill -9 "$hpid"
n=0
while [ "$(state $fpid)" != T ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
kill -CONT "$upid"
n=0
while kill -0 $fpid 2>/dev/null && [ "$(state $fpid)" != Z ] && [ $n -lt 100 ]; do
	sleep 0.1; n=$((n + 1))
done
[ $n -lt 100 ] || { ko "tracer killed: the process stayed stopped"; kill -CONT $fpid; }
wait $fpid
kill -INT $tpid 2>/dev/null
wait $tpid
tpid="" fpid=""
grep -q "the tracer that holds pid .* is gone" "$tmp/err" && grep -q "^done 6\$" "$tmp/fx.out" &&
	ok || { ko "tracer killed: the process was left stopped"; cat "$tmp/err" "$tmp/fx.out"; }
L=10 F=20

# --children: a shell that runs a program 20 times, the program renamed
# over by its next version after 10 (each run: upg:tick 10 times)
cp "$upg1" "$tmp/app"
rm -f "$tmp/go"; mkfifo "$tmp/go"
sh -c 'read x; i=0; while [ $i -lt 20 ]; do echo f | "$1" >/dev/null; i=$((i + 1))
	[ $i -eq 10 ] && cp "$2" "$1.new" && mv "$1.new" "$1"; done' sh "$tmp/app" "$upg2" \
	<"$tmp/go" >/dev/null &
fpid=$!
exec 3>"$tmp/go"
trace_fx "$fpid" --counts --children -p "$fpid" upg:tick
want "exec under --children" "$tmp/out" upg:tick 200

# a probe no library brings: said when the process exits, exit 1
start_fx
trace_fx "$fpid" --counts -p "$fpid" 'plug:nope*'
[ $rc -eq 1 ] && [ "$(tail -n 1 "$tmp/err")" = \
	"usdtkit trace: plug:nope*: no process mapped an object that has it" ] &&
	ok || { ko "never mapped: exit $rc"; cat "$tmp/err"; }

finish cli_trace_follow
