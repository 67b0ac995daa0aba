#!/bin/sh
# examples/trace (count_by.c, <usdtkit/trace.h> alone) against an
# installed usdtkit and nothing else: install the build into a scratch
# prefix, copy the example out of the source tree, build it with gcc and
# clang through find_package(usdtkit), warning-free, and with the
# pkg-config line its CMakeLists.txt shows (shared, and static with
# --static), then run each build for real and check every count:
#   - gcc: /usr/bin/python3.11 with a script calling known functions a
#     known number of times (the default python:function__entry, keyed by
#     str(arg1)), as -c and as -p; skipped, saying why, without that
#     python or its probe
#   - clang: -c on fx_tlib: tl:name by str(arg0), a probe in its library,
#     a glob of two probes
#   - pkg-config, shared: -p on fx_tlib, ended by that process's exit
#   - pkg-config, static: PATH:PROVIDER:NAME of any process, ended by SIGINT
# and a bad target and a bad KEY (exit 1 and 2, one line). Needs root (BPF).
# usage: install_trace_example.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR FX_TLIB
#   FX_TLIB: tests/fixtures/fx_tlib of the build (tests/fixtures/fx_tlib.c)
set -eu
build=$1 src=$2 work=$3 fx=$4
py=/usr/bin/python3.11
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
cp -R "$src/examples/trace" "$work/src"
pass=0 fail=0 bgpid=""
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
. "$(dirname "$0")/install_common.sh"
# (|| :: dash exits with the trap's status, and the process may be gone)
trap 'for p in $bgpid; do kill -9 "$p" 2>/dev/null || :; done' EXIT
# only the prefix: never the source tree's headers or cmake files, nor the
# build tree's generated headers, library, usdtkit.pc or CMake package
reaches_tree() { grep -nE "$src/(include|cmake)|$build/(include|gen|libusdtkit|usdtkit)" "$@"; }

# ---- CMake: find_package(usdtkit), usdtkit::usdtkit ----
for cc in gcc clang; do
	b=$work/build-$cc
	cmake_example "$cc" "$work/src" "$b" "$prefix" || continue
	if reaches_tree "$b.log" "$b/CMakeCache.txt"; then
		bad "$cc: reached into the tree"; else ok; fi
done

# ---- pkg-config: the line examples/trace/CMakeLists.txt shows ----
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
libdir=$(pkg-config --variable=libdir usdtkit)
pcflags="$(pkg-config --cflags usdtkit) $(pkg-config --libs usdtkit)"
pcstatic="$(pkg-config --cflags usdtkit) $(pkg-config --static --libs usdtkit |
	sed 's/-lusdtkit\b/-l:libusdtkit.a/')"
if echo "$pcflags $pcstatic" | reaches_tree; then bad "usdtkit.pc reaches into the tree"; else ok; fi
# shellcheck disable=SC2016,SC2046,SC2086
if grep -q 'cc -o count_by $(pkg-config --cflags usdtkit) count_by.c $(pkg-config --libs usdtkit)' \
	"$work/src/CMakeLists.txt" &&
   cc -Wall -Wextra -Werror -o "$work/pc_shared" $(pkg-config --cflags usdtkit) \
	"$work/src/count_by.c" $(pkg-config --libs usdtkit) 2>"$work/pc.log" &&
   cc -Wall -Wextra -Werror -o "$work/pc_static" "$work/src/count_by.c" $pcstatic \
	2>>"$work/pc.log"; then ok; else bad "pkg-config builds:"; cat "$work/pc.log"; fi
# the shared build finds libusdtkit.so.0 through LD_LIBRARY_PATH only
# (the .pc sets no rpath); the static one carries the library
if readelf -d "$work/pc_shared" | grep -q 'NEEDED.*\[libusdtkit\.so\.0\]' &&
   ! readelf -d "$work/pc_shared" | grep -qE 'R(UN)?PATH' &&
   ! readelf -d "$work/pc_static" | grep -q 'NEEDED.*libusdtkit'; then ok; else
	bad "pkg-config: libusdtkit linked the wrong way"; fi
export LD_LIBRARY_PATH="$libdir"

# ---- runs ----
# counts OUT: stdout's "COUNT  KEY" rows as "KEY COUNT", sorted
counts() { awk '{ k = $2; for (i = 3; i <= NF; i++) k = k " " $i; print k, $1 }' "$1" | sort; }
# expect NAME OUT WANT: the counts of OUT are exactly WANT's lines
expect() {
	printf '%s\n' "$3" | sort >"$work/$1.want"
	counts "$2" >"$work/$1.got"
	if cmp -s "$work/$1.want" "$work/$1.got"; then ok; else
		bad "$1: counts (< want, > got):"
		diff "$work/$1.want" "$work/$1.got" | head -20
	fi
}
# started NAME ERR PID: count_by said it is counting (attached), within 60 s
started() {
	_n=0
	until grep -qs '^count_by: counting ' "$2"; do
		if [ $_n -ge 600 ] || ! kill -0 "$3" 2>/dev/null; then
			bad "$1: count_by did not start:"; cat "$2"; return 1
		fi
		sleep 0.1; _n=$((_n + 1))
	done
}
# cb NAME EXE ARGS...: a run that must exit 0; stdout in $work/NAME.out
cb() {
	name=$1 exe=$2
	shift 2
	if timeout 120 "$exe" "$@" >"$work/$name.out" 2>"$work/$name.err"; then ok; else
		bad "$name: exit $?:"; cat "$work/$name.err"; fi
}

# python3.11: the default target and KEY, every key shown (-n 0); the
# script calls once a line comes on stdin
if [ ! -x "$py" ]; then
	echo "install_trace_example: SKIP python: no $py (apt-get install python3.11)"
elif ! readelf -n "$py" | grep -q 'Name: function__entry$'; then
	echo "install_trace_example: SKIP python: $py has no python:function__entry probe"
else
	cat >"$work/calls.py" <<'PY'
import sys


def seven():
    pass


def twice():
    pass


def three():
    twice()
    twice()


sys.stdin.readline()
for i in range(7):
    seven()
for i in range(3):
    three()
PY
	calls="seven 7
three 3
twice 6"
	cb python "$work/build-gcc/count_by" -n 0 -c "$py -S $work/calls.py" </dev/null
	grep -E '^ *[0-9]+  (seven|three|twice)$' "$work/python.out" >"$work/python.mine" || :
	expect python "$work/python.mine" "$calls"
	# -p: a process already running
	mkfifo "$work/pygo"
	"$py" -S "$work/calls.py" <"$work/pygo" &
	ppid=$!
	bgpid=$ppid
	exec 3>"$work/pygo"
	timeout 120 "$work/build-gcc/count_by" -n 0 -p "$ppid" >"$work/pypid.out" \
		2>"$work/pypid.err" &
	cpid=$!
	bgpid="$ppid $cpid"
	started pypid "$work/pypid.err" "$cpid" && echo go >&3
	exec 3>&-
	# reaped here: a zombie would still answer count_by's kill(pid, 0)
	wait "$ppid" || :
	if wait "$cpid"; then ok; else bad "pypid: exit $?:"; cat "$work/pypid.err"; fi
	grep -E '^ *[0-9]+  (seven|three|twice)$' "$work/pypid.out" >"$work/pypid.mine" || :
	expect pypid "$work/pypid.mine" "$calls"
	bgpid=""
fi

# fx_tlib's tl:name(s, i): alpha, beta, gamma 10 times each
names="alpha 10
beta 10
gamma 10"
cb cmd "$work/build-clang/count_by" -c "$fx" tl:name 'str(arg0)'
expect cmd "$work/cmd.out" "$names"
# tlibl:fire(k), k = 0..6, is in the command's library
cb library "$work/build-clang/count_by" -c "$fx" tlibl:fire arg0
expect library "$work/library.out" "$(seq 0 6 | sed 's/$/ 1/')"
# a glob: each probe keyed on its own (begin and end of ids 0..4)
cb glob "$work/build-clang/count_by" -c "$fx" 'tl:[be]*' arg0
expect glob "$work/glob.out" "$(for p in begin end; do seq 0 4 | sed "s/^/tl:$p /; s/\$/ 1/"; done)"

# hist_by: tl:name(s, i)'s i per string: alpha i = 0, 3, ..., 27
timeout 120 "$work/build-gcc/hist_by" -c "$fx" tl:name arg1 'str(arg0)' \
	>"$work/hist.out" 2>"$work/hist.err" && rc=0 || rc=$?
want="@[alpha]: 10 values
[0]            1
[2, 4)            1
[4, 8)            1
[8, 16)            3
[16, 32)            4"
if [ "$rc" -eq 0 ] && [ "$(grep -A5 '^@\[alpha\]' "$work/hist.out" | sed 's/  */ /g')" = \
	"$(echo "$want" | sed 's/  */ /g')" ] && grep -q '^@\[gamma\]: 10 values$' "$work/hist.out"
then ok; else bad "hist_by: exit $rc:"; cat "$work/hist.out" "$work/hist.err"; fi

# -p: fx_tlib fires once a line comes, then exits, which ends count_by
mkfifo "$work/go"
"$fx" wait <"$work/go" &
fpid=$!
bgpid=$fpid
exec 3>"$work/go"
timeout 120 "$work/pc_shared" -p "$fpid" tl:name 'str(arg0)' >"$work/pid.out" 2>"$work/pid.err" &
cpid=$!
bgpid="$fpid $cpid"
started pid "$work/pid.err" "$cpid" && echo go >&3
exec 3>&-
# reaped here: a zombie would still answer count_by's kill(pid, 0)
wait "$fpid" || :
if wait "$cpid"; then ok; else bad "pid: exit $?:"; cat "$work/pid.err"; fi
expect pid "$work/pid.out" "$names"

# PATH:PROVIDER:NAME in any process, until SIGINT: tl:val's i = 0..99
timeout 120 "$work/pc_static" -n 0 "$fx:tl:val" arg0 >"$work/any.out" 2>"$work/any.err" &
cpid=$!
bgpid=$cpid
if started any "$work/any.err" "$cpid"; then
	"$fx" || bad "fx_tlib failed"
fi
kill -INT "$cpid" 2>/dev/null || :
if wait "$cpid"; then ok; else bad "any: exit $?:"; cat "$work/any.err"; fi
expect any "$work/any.out" "$(seq 0 99 | sed 's/$/ 1/')"
bgpid=""

# refusals: one line from the library and the step, then exit 1 (a
# PATH target: a -c PROVIDER:NAME that nothing has waits for a library
# loaded later instead); a bad KEY is a usage error (2)
timeout 60 "$work/pc_shared" -c "$fx" "$fx:tl:nope" >/dev/null 2>"$work/nope.err" && rc=0 || rc=$?
if [ "$rc" -eq 1 ] && grep -q '^count_by: .*no probe tl:nope' "$work/nope.err"; then ok; else
	bad "a bad target: exit $rc:"; cat "$work/nope.err"; fi
timeout 60 "$work/pc_shared" -c "$fx" tl:name 'str(arg9' >/dev/null 2>"$work/key.err" && rc=0 || rc=$?
if [ "$rc" -eq 2 ] && grep -q '^usage: ' "$work/key.err"; then ok; else
	bad "a bad KEY: exit $rc:"; cat "$work/key.err"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
