#!/bin/sh
# trace --all under a host's churn (tests/fixtures/fx_churn.c): N
# short-lived processes, half of them carrying a probe (a static box, the
# same box in a chroot, a host that dlopen()s its plugin), the rest
# /bin/true. Every hit is counted exactly, and once they are gone (and
# swept), the trace holds no more fds (its links among them) and no
# more memory than before them. Prints the trace's own CPU time.
# Needs root and BPF.
# usage: cli_trace_all_churn.sh USDTKIT FX_CHURN FX_BOX FX_PLUG LIBFX_PLUG N
set -u
u=$1 churn=$2 box=$3 plug=$4 lib=$5 n=$6
. "$(dirname "$0")/../helpers/check.sh"
tpid=""
cleanup() {
	[ -n "$tpid" ] && kill -9 "$tpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

skip_no_all_hold "$u"
# under ASan, freed memory waits in its quarantine (256 MB): the RSS
# would be the sanitizer's; with none, it is ours
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0
export ASAN_OPTIONS
mkdir -p "$tmp/root/app" && cp "$box" "$tmp/root/app/boxed"

: >"$tmp/err" # (no "Tracing" of the skip check, read before this one truncates it)
"$u" trace --all -v --counts box:tick plug:fire >"$tmp/out" 2>"$tmp/err" &
tpid=$!
wait_for "$tmp/err" "^Tracing " 300 $tpid && ok || { ko "not attached"; cat "$tmp/err"; }

# the trace's fds, links (bpf links and perf events), RSS (kB) and CPU
# time (ticks)
state() {
	fds=$(ls /proc/$tpid/fd | wc -l)
	links=$(ls -l /proc/$tpid/fd | grep -c 'bpf_link\|perf_event')
	rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$tpid/status)
	cpu=$(awk '{ print $14 + $15 }' /proc/$tpid/stat)
}
# a first round, swept, so that what is measured after is the churn's
"$churn" 200 8 "$box" "$tmp/root" "$plug" "$lib" >"$tmp/w1"
sleep 5
state
fds0=$fds links0=$links rss0=$rss cpu0=$cpu
t0=$(date +%s)
"$churn" "$n" 8 "$box" "$tmp/root" "$plug" "$lib" >"$tmp/w2"
t1=$(date +%s)
sleep 5
state
kill -INT $tpid
wait $tpid
rc=$? tpid=""
[ $rc -eq 0 ] && ok || { ko "trace exit $rc"; cat "$tmp/err"; }
cat "$tmp/w1" "$tmp/w2"
set -- $(cat "$tmp/w1") $(cat "$tmp/w2")
# (box B chroot C plug P none O failed F, twice)
want_box=$(($2 + $4 + ${12} + ${14})) want_plug=$(($6 + ${16}))
[ "${10}" = 0 ] && [ "${20}" = 0 ] && ok || ko "some processes failed"
count() { awk -v p="$1" '$2 == p { print $1 }' "$tmp/out"; }
[ "$(count box:tick)" = "$want_box" ] && ok ||
	{ ko "box:tick: '$(count box:tick)', want $want_box"; cat "$tmp/out"; }
[ "$(count plug:fire)" = "$want_plug" ] && ok ||
	{ ko "plug:fire: '$(count plug:fire)', want $want_plug"; cat "$tmp/out"; }
echo "churn: $n processes in $((t1 - t0)) s; the trace's fds $fds0 -> $fds," \
	"links $links0 -> $links, RSS $rss0 -> $rss kB, CPU time" \
	"$(((cpu - cpu0) * 1000 / $(getconf CLK_TCK))) ms"
[ "$fds" -le "$fds0" ] && ok || ko "fds grew: $fds0 -> $fds"
[ "$links" -le "$links0" ] && ok || ko "links grew: $links0 -> $links"
# no memory per process: 2 MB of slack for the allocator's arenas
[ "$rss" -le $((rss0 + 2048)) ] && ok || ko "RSS grew: $rss0 -> $rss kB"
grep -q "object(s) detached" "$tmp/err" && ok || { ko "no account"; cat "$tmp/err"; }
finish cli_trace_all_churn
