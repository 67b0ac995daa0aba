#!/bin/sh
# trace --all: every process of the host that maps an object with the
# probe, each counted exactly: one running before the trace began, ones
# started later (their exec held until attached), a static and a dynamic
# program in a chroot (the dynamic one's libraries and loader its own),
# and a plugin that a new process dlopen()s and fires at once (its open
# held until attached). Then the keys, a filter and --serve under --all,
# the objects detached once no process maps them, and the usage errors.
# Needs root and BPF.
# usage: cli_trace_all.sh USDTKIT FX_UPG FX_BOX FX_BOX_DYN FX_PLUG LIBFX_PLUG PYTHON3
set -u
u=$1 upg=$2 box=$3 dyn=$4 plug=$5 lib=$6 py=$7
. "$(dirname "$0")/../helpers/check.sh"
tpid="" rpid="" cg=""
cleanup() {
	exec 3>&- 2>/dev/null
	for p in $tpid $rpid; do kill -9 "$p" 2>/dev/null; done
	[ -n "$cg" ] && rmdir "$cg" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

skip_no_all_hold "$u"

C=2 K=5
# the chroots: the static box alone; the dynamic one with its libraries
mkdir -p "$tmp/r1/app" "$tmp/r2/app" && cp "$box" "$tmp/r1/app/boxed" &&
	cp "$dyn" "$tmp/r2/app/boxed"
for l in $(ldd "$dyn" | grep -o '/[^ ]*'); do
	mkdir -p "$tmp/r2$(dirname "$l")" && cp -L "$l" "$tmp/r2$l"
done

# running before the trace: fx_upg waits for its command on a fifo
mkfifo "$tmp/cmd"
"$upg" <"$tmp/cmd" >"$tmp/upg.out" &
rpid=$!
exec 3>"$tmp/cmd"

: >"$tmp/err" # (no "Tracing" of the last trace, read before this one truncates it)
"$u" trace --all -v --counts upg:tick box:tick plug:fire plug:init \
	>"$tmp/out" 2>"$tmp/err" 3>&- &
tpid=$!
wait_for "$tmp/err" "^Tracing " 300 $tpid && ok || { ko "not attached"; cat "$tmp/err"; }
grep -q "^Tracing 1 probe ([0-9]* sites*) in .*; 3 waiting for a process that maps it" "$tmp/err" && ok ||
	{ ko "the Tracing line"; cat "$tmp/err"; }
echo f >&3
exec 3>&-
wait $rpid
rpid=""
for i in 1 2 3; do echo f | "$upg" >/dev/null; done
chroot "$tmp/r1" /app/boxed $C $K </dev/null >/dev/null
chroot "$tmp/r2" /app/boxed $C $K </dev/null >/dev/null
"$plug" "$lib" 3 5 >/dev/null
"$plug" "$lib" 2 5 >/dev/null
# the objects swept once no process maps them (every 2 s, 2 s grace)
sleep 5
kill -INT $tpid
wait $tpid
rc=$? tpid=""
[ $rc -eq 0 ] && ok || { ko "trace exit $rc"; cat "$tmp/err"; }
count() { awk -v p="$1" '$2 == p { print $1 }' "$tmp/out"; }
# running: 10; three started later: 30
[ "$(count upg:tick)" = 40 ] && ok || { ko "upg:tick: '$(count upg:tick)', want 40"; cat "$tmp/out"; }
# static and dynamic, in their chroots: K each and their C children's
[ "$(count box:tick)" = $((2 * K * (1 + C))) ] && ok ||
	{ ko "box:tick: '$(count box:tick)', want $((2 * K * (1 + C)))"; cat "$tmp/out" "$tmp/err"; }
# the plugin: 5 rounds of 5 fires, and its constructor once a round
[ "$(count plug:fire)" = 25 ] && ok || { ko "plug:fire: '$(count plug:fire)', want 25"; cat "$tmp/out"; }
[ "$(count plug:init)" = 5 ] && ok || { ko "plug:init: '$(count plug:init)', want 5"; cat "$tmp/out"; }
grep -q -- "--all: .* open(s) held, .* file(s) read, [1-9][0-9]* object(s) detached" "$tmp/err" && ok ||
	{ ko "nothing detached"; cat "$tmp/err"; }
grep -q "may be lost" "$tmp/err" && { ko "a loss said on a kernel that holds opens"; cat "$tmp/err"; } || ok

# a filter, a key per process and per cgroup, and --serve, all at once
# (a cgroup2 mount: on a hybrid system, /sys/fs/cgroup/unified)
cg2=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
[ -n "$cg2" ] && cg=$cg2/usdtkit-all-$$ && mkdir "$cg" 2>/dev/null || cg=""
: >"$tmp/err" # (no "Tracing" of the last trace, read before this one truncates it)
"$u" trace --all --filter 'arg0 > 7' --count-by cgroup,pid --serve 127.0.0.1:0 upg:tick \
	>"$tmp/out" 2>"$tmp/err" &
tpid=$!
wait_for "$tmp/err" "^Serving metrics on" 300 $tpid && ok || { ko "--serve: not serving"; cat "$tmp/err"; }
port=$(sed -n 's/^Serving metrics on .* (port \([0-9]*\)).*/\1/p' "$tmp/err")
for i in 1 2; do
	if [ -n "$cg" ]; then
		sh -c 'echo $$ >"$1/cgroup.procs" && echo f | exec "$2"' sh "$cg" "$upg" >/dev/null
	else
		echo f | "$upg" >/dev/null
	fi
done
body=$("$py" -c 'import sys, urllib.request as u
print(u.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode())' "$port")
kill -INT $tpid
wait $tpid
tpid=""
# ticks 8, 9, 10 of each run, a series per process, in the cgroup run in
[ "$(echo "$body" | grep -c '^usdtkit_probe_hits_by_key_total{probe="upg:tick",cgroup="[^"]*",pid="[0-9]*"} 3$')" -eq 2 ] && ok ||
	{ ko "count-by cgroup,pid: want 2 series of 3"; echo "$body"; }
if [ -n "$cg" ]; then
	[ "$(echo "$body" | grep -c "cgroup=\"/usdtkit-all-$$\"")" -eq 2 ] && ok ||
		{ ko "no cgroup label"; echo "$body"; }
fi
[ "$(echo "$body" | awk '/^usdtkit_probe_hits_total\{/ { s += $2 } END { print s }')" = 6 ] && ok ||
	{ ko "--serve: want 6 hits"; echo "$body"; }

# --interval, and --textfile with a histogram: two --all traces at once,
# each letting the other's opens go (it timed out when each held the
# other's, 2 s an open)
"$u" trace --all --counts --interval 1 upg:tick >"$tmp/iv.out" 2>"$tmp/iv.err" &
tpid=$!
"$u" trace --all --hist arg0 --textfile "$tmp/m.prom" upg:tick >/dev/null 2>"$tmp/tf.err" &
rpid=$!
wait_for "$tmp/iv.err" "^Tracing " 300 $tpid && wait_for "$tmp/tf.err" "^Tracing " 300 $rpid &&
	ok || { ko "--interval, --textfile: not attached"; cat "$tmp/iv.err" "$tmp/tf.err"; }
echo f | "$upg" >/dev/null
sleep 1.5
kill -INT $tpid $rpid
wait $tpid $rpid
tpid="" rpid=""
# the 10 hits in one interval, none in another
[ "$(awk '$2 == "upg:tick" { print $1 }' "$tmp/iv.out" | sort -n | tr '\n' ' ')" = "0 10 " ] &&
	ok || { ko "--interval: want an interval of 10 and one of 0"; cat "$tmp/iv.out"; }
grep -q '^usdtkit_probe_hits_total{probe="upg:tick"} 10$' "$tmp/m.prom" &&
	grep -q '^usdtkit_probe_arg_bucket{probe="upg:tick",arg="arg0",le="+Inf"} 10$' "$tmp/m.prom" &&
	ok || { ko "--textfile: want 10 hits in the count and the histogram"; cat "$tmp/m.prom"; }

# usage
run "--all with -p" 2 "$u" trace --all -p 1 x:y
grep -q -- "--all excludes -p" "$tmp/err" && ok || ko "--all -p: $(cat "$tmp/err")"
run "--all with a PATH target" 2 "$u" trace --all "$upg:upg:tick"
grep -q -- "--all takes PROVIDER:NAME" "$tmp/err" && ok || ko "PATH: $(cat "$tmp/err")"
finish cli_trace_all
