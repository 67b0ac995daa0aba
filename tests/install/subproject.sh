#!/bin/sh
# usdtkit built inside a parent project with add_subdirectory()
# (tests/install/subproject/): configured with USDTKIT_WERROR=ON as CI does,
# built whole, the parent's program run. usdtkit's -Wextra, -Werror and
# _GNU_SOURCE must not reach the parent's own target, which has an unused
# variable (a warning under the parent's -Wall, an error under -Werror)
# and an unused parameter (a warning only under -Wextra); the parent's
# build type must stay its own (empty), and usdtkit's tests and benches
# are not built in a parent.
# usage: subproject.sh SOURCE_DIR WORK_DIR C_COMPILER
set -eu
src=$1 work=$2 cc=$3
rm -rf "$work"
mkdir -p "$work"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { echo "FAIL: $*"; fail=$((fail + 1)); }

if ! cmake -S "$src/tests/install/subproject" -B "$work/build" -DCMAKE_C_COMPILER="$cc" \
	-DUSDTKIT_SOURCE_DIR="$src" -DUSDTKIT_WERROR=ON >"$work/configure.log" 2>&1; then
	cat "$work/configure.log"
	ko "configure"
	echo "$pass passed, $fail failed"
	exit 1
fi
ok
if ! cmake --build "$work/build" -j "${USDTKIT_SUBPROJECT_JOBS:-2}" >"$work/build.log" 2>&1; then
	grep -E "error|Error" "$work/build.log" | head -20
	ko "build (usdtkit's -Werror reached the parent?)"
	echo "$pass passed, $fail failed"
	exit 1
fi
ok

if out=$("$work/build/parent_app"); then ok; else ko "parent_app exited $?"; fi
if [ "$out" = "s32 mem [rbp + rax*8 - 1204]" ]; then ok; else ko "parent_app printed '$out'"; fi

# the parent's -Wall is in effect on app.c, usdtkit's -Wextra is not
if grep -q "unused_variable" "$work/build.log"; then ok; else
	ko "no -Wunused-variable warning for app.c: the parent's -Wall is lost"
fi
if grep -q "unused_param" "$work/build.log"; then
	ko "-Wunused-parameter warning for app.c: usdtkit's -Wextra leaked"
else ok; fi

# the compile commands: usdtkit's flags on usdtkit's sources, not on app.c
if python3 - "$work/build/compile_commands.json" <<'PY'
import json, sys
cmds = json.load(open(sys.argv[1]))
app = [c["command"].split() for c in cmds if c["file"].endswith("/app.c")]
lib = [c["command"].split() for c in cmds if c["file"].endswith("/core/spec/spec.c")]
bad = 0
if len(app) != 1 or len(lib) != 1:
    print("app.c or core/spec/spec.c not compiled once:", len(app), len(lib))
    sys.exit(1)
for flag in ("-Werror", "-Wextra", "-D_GNU_SOURCE"):
    if flag in app[0]:
        print("app.c is compiled with usdtkit's", flag)
        bad += 1
    if flag not in lib[0]:
        print("core/spec/spec.c is compiled without", flag)
        bad += 1
sys.exit(bad != 0)
PY
then ok; else ko "compile commands"; fi

bt=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$work/build/CMakeCache.txt")
if [ -z "$bt" ]; then ok; else ko "usdtkit set the parent's CMAKE_BUILD_TYPE to '$bt'"; fi
if [ -e "$work/build/usdtkit/tests" ] || [ -e "$work/build/usdtkit/bench" ]; then
	ko "usdtkit's tests or benches were built in the parent"
else ok; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
