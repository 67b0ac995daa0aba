# shellcheck shell=sh
# Sourced by the tests that compare usdtkit's user stacks with bpftrace's
# on tests/fixtures/fx_stack.c (a PIE with frame pointers that answers
# "hit N" on stdin with "ok"), given its path in $fx: check.sh's
# counters and $tmp; $fx made its absolute path with no symlink (the path the
# maps name); a skip (77) without bpftrace; the fixture started on a fifo
# held on fd 3 ($fpid, its output in $tmp/fx.out) and waited for; and at
# exit, the fixture and the pids in $upid and $bpid (the tracers) killed.
# usage: fx=FX_STACK; . fx_stack.sh   (sh's . takes no arguments)
fx=$(cd "$(dirname "$fx")" && pwd -P)/$(basename "$fx")
. "$(dirname "$0")/../helpers/check.sh"

command -v bpftrace >/dev/null 2>&1 || { echo "SKIP: no bpftrace"; exit 77; }
mkfifo "$tmp/in"
"$fx" <"$tmp/in" >"$tmp/fx.out" &
fpid=$!
exec 3>"$tmp/in"
upid="" wpid="" bpid=""
trap 'exec 3>&-; kill $fpid $upid $wpid $bpid 2>/dev/null; rm -rf "$tmp"' EXIT
wait_for "$tmp/fx.out" '^ready$' 100 "$fpid" && ok || ko "fixture not ready"
