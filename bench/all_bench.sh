#!/bin/sh
# What trace --all costs the host's other processes, and the processes it
# traces, beside bpftrace on a wildcard path (which holds nothing):
#   - its start (to "Tracing"), and bpftrace's (to "Attaching") on
#     usdt:DIR/*:upg:tick;
#   - an exec of a program without the probe (a copy of /bin/true):
#     every exec on the host pays this. The first is read and its answer
#     kept with the inode; later ones are not even asked;
#   - an exec of a program with the probe (fx_upg): the first is held
#     until its probes are attached (the exec-to-attach delay), later
#     ones only until the engine says it has them;
#   - a dlopen() of a library with a probe (the plugin): its open held
#     the same way;
#   - where an open is not held (before Linux 5.19, or --no-hold): the
#     first hits a library new to the trace loses, attached at its
#     loader's news while it runs on (window_load, next to HOLD_LOAD:
#     a fire every 50 us after dlopen(), 5 fresh copies of the plugin).
# Each row: hold_load's median, p90 and first round (us), ROUNDS rounds.
#
# (bpftrace's start is to its notice that the probes are attached.)
#
# usage: bench/all_bench.sh USDTKIT HOLD_LOAD FX_UPG LIBFX_PLUG [ROUNDS]   (root)
set -u
u=$1 load=$2 upg=$3 lib=$4 rounds=${5:-200}
for f in "$u" "$load" "$upg" "$lib"; do
	[ -e "$f" ] || { echo "all_bench: no $f" >&2; exit 2; }
done
dir=$(mktemp -d)
tp=
trap '[ -n "$tp" ] && kill $tp 2>/dev/null; rm -rf "$dir"' EXIT
cp /bin/true "$dir/none"
cp "$upg" "$dir/upg"
cp "$lib" "$dir/libfx_plug.so"

ms() { echo $(($(date +%s%N) / 1000000)); }
# bg WORD COMMAND...: COMMAND in the background until its stderr has
# WORD; how long that took (ms) in $took
bg() {
	_word=$1; shift
	_t0=$(ms)
	"$@" >"$dir/out" 2>"$dir/err" &
	tp=$!
	_i=0
	while [ $_i -lt 3000 ] && ! grep -q "$_word" "$dir/err"; do
		sleep 0.01; _i=$((_i + 1))
	done
	took=$(($(ms) - _t0))
	grep -q "$_word" "$dir/err" || { echo "all_bench: $*: $(cat "$dir/err")" >&2; exit 1; }
}
end_bg() { kill -INT $tp; wait $tp; tp=; }
row() { # row NAME -x PROG | LIB: hold_load's line
	_name=$1; shift
	printf '%-34s %s\n' "$_name" "$("$load" "$@" "$rounds" </dev/null | grep 'median')"
}
rows() { # rows WHO
	row "exec, no probe, $1" -x "$dir/none"
	row "exec, probe, $1" -x "$dir/upg"
	row "dlopen, probe, $1" "$dir/libfx_plug.so"
}

echo "procs on this host: $(ls /proc | grep -c '^[0-9]')"
rows untraced
bg "^Tracing" "$u" trace --all --counts upg:tick plug:fire
echo "start: usdtkit trace --all: $took ms"
rows "usdtkit --all"
end_bg
wl=$(dirname "$load")/window_load
if [ -x "$wl" ]; then
	bg "^Tracing" "$u" trace --all --no-hold --json plug:fire
	for i in 1 2 3 4 5; do
		cp "$lib" "$dir/libw$i.so"
		"$wl" "$dir/libw$i.so" 2000 50 >"$dir/w$i.txt"
	done
	end_bg
	# each run: the time (since dlopen() returned) of the first fire the
	# trace saw, "none" when it saw none of the 2000
	for i in 1 2 3 4 5; do
		pid=$(sed -n 's/^pid //p' "$dir/w$i.txt")
		k=$(python3 -c 'import json, sys
ks = [json.loads(l)["args"][0] for l in open(sys.argv[1])
      if l.startswith("{") and json.loads(l)["pid"] == int(sys.argv[2])]
print(min(ks) if ks else "")' "$dir/out" "$pid")
		if [ -n "$k" ]; then
			awk -v k="$k" '$1 == k && NF == 2 { print $2 }' "$dir/w$i.txt"
		else
			echo none
		fi
	done >"$dir/window"
	printf '%-34s %s\n' "window, not held (--no-hold)" \
		"first hit seen at $(tr '\n' ' ' <"$dir/window")us after dlopen() (5 runs)"
fi
if command -v bpftrace >/dev/null; then
	# (its "Attaching" goes to stdout; this line, to stderr, once the
	# probes are attached)
	bg "^__BPFTRACE_NOTIFY_PROBES_ATTACHED" env __BPFTRACE_NOTIFY_PROBES_ATTACHED=1 \
		bpftrace -e "usdt:$dir/*:upg:tick { @ = count(); }"
	echo "start: bpftrace usdt:DIR/*: $took ms"
	rows bpftrace
	end_bg
else
	echo "bpftrace: not installed"
fi
