#!/bin/sh
# usdtkit's keyed aggregations against bpftrace's maps on one run of
# tests/fixtures/fx_keys.c (threads named kw-*, one with an escape, and a forked
# child): @[pid] = count(), @[comm] = count(), @[pid, str(arg0)] =
# count(), @[str(arg0)] = hist(arg1) and @[ustack] = count() each equal
# usdtkit's --count-by pid, comm, 'pid,str(arg0)', --hist arg1 --by
# 'str(arg0)' and --count-by ustack, key for key (stacks: their
# addresses, summed over processes, as bpftrace keys a stack by its own
# id). Both trace the PATH, every process. Root, BPF; skips (77)
# without bpftrace.
# usage: trace_keys_bpftrace.sh USDTKIT FX_KEYS [BPFTRACE]
set -u
u=$1 fx=$2 bt=${3:-bpftrace}
skip() { echo "SKIP trace_keys_bpftrace: $*"; exit 77; }
command -v "$bt" >/dev/null 2>&1 || skip "no $bt (apt-get install bpftrace)"
. "$(dirname "$0")/../helpers/check.sh"

E=$fx:keys:evt
mkfifo "$tmp/go"
"$fx" "$tmp/fx" fork <"$tmp/go" &
fpid=$!
exec 3>"$tmp/go"

pids=""
n=0
for o in "--count-by pid" "--count-by comm" "--count-by pid,str(arg0)" \
	"--hist arg1 --by str(arg0)" "--count-by ustack --top 100"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	timeout 120 "$u" trace --json $o "$E" >"$tmp/uk$n.out" 2>"$tmp/uk$n.err" &
	pids="$pids $!"
done
__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 timeout 120 "$bt" -e "usdt:$fx:keys:evt {
	@p[pid] = count(); @c[comm] = count(); @ps[pid, str(arg0)] = count();
	@h[str(arg0)] = hist(arg1); @s[ustack] = count(); }" >"$tmp/bt.out" 2>"$tmp/bt.err" &
bpid=$!
for i in 1 2 3 4 5; do
	wait_for "$tmp/uk$i.err" '^Tracing 1 probe' 300 || ko "usdtkit $i did not attach"
done
wait_for "$tmp/bt.err" '^__BPFTRACE_NOTIFY_PROBES_ATTACHED$' 300 $bpid ||
	ko "bpftrace did not attach"
echo go >&3
exec 3>&-
wait $fpid || ko "fx_keys failed"
sleep 0.5
# shellcheck disable=SC2086
kill -INT $pids
interrupt $bpid
for p in $pids; do wait "$p" || ko "usdtkit $p: exit $?"; done
wait $bpid || { ko "bpftrace: exit $?"; cat "$tmp/bt.err"; }

python3 - "$tmp" <<'PY' && ok || { ko "usdtkit and bpftrace differ"; cat "$tmp/bt.out"; }
import json, re, sys
from collections import Counter
tmp = sys.argv[1]
def uk(n):
    return [json.loads(l) for l in open("%s/uk%d.out" % (tmp, n)) if l.startswith("{")][0]
bt = open(tmp + "/bt.out", "rb").read().decode("utf-8", "surrogateescape")
def bt_map(name):
    """@name[KEY]: N lines (hist and ustack maps apart)"""
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"^@%s\[(.*?)\]: (\d+)$" % name, bt, re.M)}
want = {str(t["key"]): t["count"] for t in uk(1)["top"]}
assert bt_map("p") == want, ("pid", bt_map("p"), want)
want = {t["key"]: t["count"] for t in uk(2)["top"]}
assert bt_map("c") == want, ("comm", bt_map("c"), want)
want = {"%d, %s" % (t["parts"][0], t["parts"][1]): t["count"] for t in uk(3)["top"]}
assert bt_map("ps") == want, ("pid,str", bt_map("ps"), want)
# @h[KEY]: then bucket lines "[lo, hi) count |...|" or "[v] count |...|"
hist = {}
for m in re.finditer(r"^@h\[(.*?)\]: ?\n((?:\[.*\n)+)", bt, re.M):
    b = {}
    for l in m.group(2).splitlines():
        lm = re.match(r"^\[(\d+)[,\]].*?\s(\d+) \|", l)
        if lm and int(lm.group(2)):
            b[int(lm.group(1))] = int(lm.group(2))
    hist[m.group(1)] = b
want = {t["key"]: {x["min"]: x["count"] for x in t["buckets"]} for t in uk(4)["top"]}
assert hist == want, ("hist", hist, want)
# stacks: bpftrace keys one by its stack id, usdtkit by pid and stack
st = Counter()
for m in re.finditer(r"^@s\[\n((?:\s+.*\n)+?)\]: (\d+)$", bt, re.M):
    st[tuple(f.strip() for f in m.group(1).splitlines())] += int(m.group(2))
us = Counter()
for t in uk(5)["top"]:
    us[tuple(t["parts"][0]["frames"])] += t["count"]
if all(f.startswith("0x") for c in (st, us) for k in c for f in k):
    assert st == us, ("ustack", st, us)
else:
    # a side named frames (bpftrace: symbols; usdtkit: a process kept
    # from its first stack, named after its exit): the hits and stacks
    # still agree
    assert sorted(st.values()) == sorted(us.values()), ("ustack counts", st, us)
print("trace_keys_bpftrace: pid, comm, pid+str, hist by str, ustack (%d stacks) agree"
      % len(us))
PY
finish trace_keys_bpftrace
