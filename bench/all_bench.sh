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
#     the same way.
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
