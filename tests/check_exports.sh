#!/bin/sh
# Only the public API leaves the library, under the one prefix usdtkit_.
# (libbpf.a has internal usdt_* symbols; ours must never collide.)
# usage: check_exports.sh libusdtkit.so libusdtkit.a
set -eu
so=$1 a=$2
fail=0
dyn=$(nm -D --defined-only "$so" | awk '$2 ~ /[TDBR]/ {print $3}')
[ -n "$dyn" ] || { echo "FAIL: no exported symbols in $so"; exit 1; }
bad=$(printf '%s\n' "$dyn" | grep -v '^usdtkit_' || true)
if [ -n "$bad" ]; then echo "FAIL: $so exports outside usdtkit_: $bad"; fail=1; fi
# internal helpers use usdtkit__ and must stay hidden in the .so
hidden=$(printf '%s\n' "$dyn" | grep '^usdtkit__' || true)
if [ -n "$hidden" ]; then echo "FAIL: $so exports internals: $hidden"; fail=1; fi
# the static archive cannot hide globals, but they all carry the prefix
# sanitizer builds add __odr_asan.* and __asan_* globals of their own
glob=$(nm --defined-only "$a" | awk 'NF==3 && $2 ~ /[TDBR]/ {print $3}' | grep -v -e '^__odr_asan' -e '^__asan' -e '^__ubsan' || true)
bad=$(printf '%s\n' "$glob" | grep -v '^usdtkit_' || true)
if [ -n "$bad" ]; then echo "FAIL: $a has globals outside usdtkit_: $bad"; fail=1; fi
n=$(printf '%s\n' "$dyn" | wc -l)
if [ $fail -eq 0 ]; then echo "1 passed, 0 failed ($n exported symbols)"; else echo "0 passed, 1 failed"; fi
exit $fail
