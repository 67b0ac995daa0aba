#!/bin/sh
# examples/attach against an installed usdtkit, and nothing else: install
# the build into a scratch prefix, copy the example out of the source tree
# (so that no relative path can reach back into it), build it with gcc and
# with clang through find_package(usdtkit) + usdtkit_add_bpf_skeleton(),
# warning-free, check that the BPF program was compiled with the flags
# docs/ATTACH.md documents for this architecture, then trace the
# example's target with its host program in each attach mode and check
# every argument of every hit. Needs root (BPF).
# usage: install_example.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR BPF_FLAGS
#   BPF_FLAGS: "-target bpfel -g -O2 -Wall -D__TARGET_ARCH_x86 ..." as the
#   build computed it from the manifests
set -eu
build=$1 src=$2 work=$3 flags=$4
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
cp -R "$src/examples/attach" "$work/src"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
. "$(dirname "$0")/install_common.sh"

# the documented command line is the one this build installs
if grep -qF -- "$flags" "$src/docs/ATTACH.md"; then ok; else
	bad "docs/ATTACH.md does not show: clang $flags"; fi

for cc in gcc clang; do
	b=$work/build-$cc
	cmake_example "$cc" "$work/src" "$b" "$prefix" || continue
	# only the prefix: never the source tree's headers or cmake files,
	# nor the build tree's generated headers
	if grep -nE "$src/(include|cmake)|$build/(include|gen)" "$b.log" \
		"$b/CMakeCache.txt"; then bad "$cc: reached into the tree"; else ok; fi
	if grep -qF -- "clang $flags -I$prefix/include " "$b.log"; then ok; else
		bad "$cc: BPF not compiled as 'clang $flags -I$prefix/include ...':"
		grep -F 'hello.bpf.c' "$b.log"
	fi
done

# trace: the target fires hello:greet every 10 ms; each hit must carry
# seq, -seq * 1000, names[seq % 3], 3 arguments and the cookie 42
ex=$work/build-gcc
[ -x "$ex/hello_attach" ] || { echo "$pass passed, $((fail + 1)) failed"; exit 1; }
"$ex/hello_target" -i 10 >"$work/target.out" &
tpid=$!
# (|| :: dash exits with the trap's status, and the target may be gone)
trap 'kill $tpid 2>/dev/null || :' EXIT
for mode in auto multi perf ipmap; do
	if ! timeout 60 "$ex/hello_attach" -m "$mode" -p "$tpid" -c 5 \
		"$ex/hello_target" >"$work/$mode.out" 2>"$work/$mode.err"; then
		bad "$mode: hello_attach failed: $(cat "$work/$mode.err")"
		continue
	fi
	if awk -v pid="$tpid" '
		BEGIN { split("alice bob carol", names, " ") }
		{
			n++
			seq = $5
			want = "hello:greet pid " pid " seq " seq " value " (-seq * 1000) \
				" who \"" names[seq % 3 + 1] \
				"\" nargs 3 cookie 42"
			if ($0 != want) { print "got:  " $0; print "want: " want; bad = 1 }
			if (n > 1 && seq != last + 1) { print "seq " last " then " seq; bad = 1 }
			last = seq
		}
		END { if (n != 5) { print n " hits, not 5"; bad = 1 }; exit bad }
	' "$work/$mode.out"; then ok; else bad "$mode: wrong hits"; fi
done
kill "$tpid"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
