#!/bin/sh
# Mode inst on the VM kernels (5.10 by default: no BPF cookies, where
# AUTO takes inst): bench/inst_bench.sh's measurements in a qemu-system
# guest of each cross build, in one boot per target (tests/vm/vm.sh,
# scenario "instbench" of tests/vm/guest.sh; tests/vm/check_instbench.py
# checks what is exact: hits, modes, one program per spec).
#
# Per set and way, IB_RUNS runs (default 3): the time from the CLI's start
# to its "Tracing" line, and the memlock of the BPF programs and maps its
# fds hold then (from /proc/PID/fdinfo: the guest has no bpftool). The
# table gives medians: of that time, of the trace program's own load in
# it (-v's "loaded usdtkit_trace ... load N ms"), and of the rest (each
# run's time less its load), and the teardown (until no reaper is left).
#   mN (N = 1, 10, 100)  a PIE, one probe of N sites each its own spec
#                        (tests/fixtures/gen_probes.py sites N), a waiting process:
#                        auto_path (by path: inst before 5.15), auto_pid
#                        (-p PID: ipmap), inst_pid (--mode inst -p PID);
#                        N hits each, --count N
#   python               Debian 12's python3.11 of the target's
#                        architecture (8 probes; a non-PIE, so AUTO by path
#                        is ipmap): auto_path and inst_path (--mode inst)
#   ruby                 Debian 12's libruby 3.1 (22 probes): auto_path
#   rt                   where those are Thumb-2 (armhf: no Thumb uprobes),
#                        a PIE of 22 probes over 40 sites
#                        (gen_probes.py probes 22 40), as mN
# m1100 (1100 specs) shows the cap: one line, exit 1, nothing made.
# python3.11-minimal and libruby3.1 of the target's Debian architecture
# come through scripts/cross-apt.sh's private apt state (cached in
# $USDTKIT_CACHE/instbench/ARCH); x86_64 takes the machine's own.
# Times are qemu TCG's on a shared machine: compare rows and targets
# with each other, not with a board.
#
# usage: bench/vm_inst.sh [--table] [CROSS...]   (default: x86_64 aarch64
#        armhf i686; scripts/cross.sh CROSS first)
#   --table  only tabulate the console logs of earlier runs
# Environment: USDTKIT_VM_KERNEL (default 5.10), IB_RUNS (default 3),
# USDTKIT_VM_TIMEOUT (default 1800 s for the boot)
set -eu
cd "$(dirname "$0")/.."
top=$PWD
table=0
[ "${1:-}" = --table ] && { table=1; shift; }
[ $# -gt 0 ] || set -- x86_64 aarch64 armhf i686
kver=${USDTKIT_VM_KERNEL:-5.10}
ai=scripts/archinfo
USDTKIT_CACHE=${USDTKIT_CACHE:-/var/cache/usdtkit}

# attachable FILE PROVIDER: the host's `usdtkit list` has a site of
# PROVIDER in FILE that it does not refuse (armhf's Thumb-2 code)
attachable() {
	build/cli/usdtkit list "$1" 2>/dev/null | grep "^$2:" | grep -qv 'cannot attach'
}

# the arguments ctest gives tests/vm/vm.sh for this cross build
vm_args() {
	sed -n "s/^add_test(vm_$1_basics \"sh\" \"[^\"]*\" \(.*\))$/\1/p" \
		"build-cross/$1/tests/vm/CTestTestfile.cmake" | tr -d '"' |
		sed 's/ basics / instbench /'
}

# extra CROSS DIR: the guest's /x
extra() {
	t=$1 x=$2/x
	b=build-cross/$t
	rm -rf "$2"
	mkdir -p "$x"
	# the toolchain file's compiler (cmake/toolchains/debian-cross.cmake)
	# shellcheck disable=SC2046
	cc=$(set -- $(vm_args "$t"); echo "$4")-gcc
	flags="-O0 -fpie -pie -I$b/tests/cross/sdt"
	case $t in arm*) flags="$flags -marm" ;; esac
	for n in 1 10 100 1100; do
		python3 tests/fixtures/gen_probes.py sites $n "$2/m$n.c"
		# shellcheck disable=SC2086
		$cc $flags -o "$x/m$n" "$2/m$n.c"
	done
	deb=$($ai get "$($ai find cross "$t")" debian "" | cut -d' ' -f1)
	if [ "$deb" = amd64 ]; then
		py=/usr/bin/python3.11 rb=/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1
	else
		d=$USDTKIT_CACHE/instbench/$deb
		if [ ! -f "$d/.done" ]; then
			# shellcheck disable=SC1091
			usdtkit_top=$top . scripts/cross-apt.sh
			apt_cross_fetch "$d" "python3.11-minimal:$deb" "libruby3.1:$deb"
			for f in "$d"/*.deb; do dpkg -x "$f" "$d/root"; done
			touch "$d/.done"
		fi
		py=$d/root/usr/bin/python3.11
		rb=$(ls "$d"/root/usr/lib/*/libruby-3.1.so.3.1)
	fi
	if attachable "$py" python; then
		cp "$py" "$x/python3.11"
	else
		echo "vm_inst: $t: $py: no site it can attach (Thumb-2?): left out" >&2
	fi
	if attachable "$rb" ruby; then
		cp "$rb" "$x/libruby.so"
	else
		echo "vm_inst: $t: $rb: no site it can attach (Thumb-2?): left out;" \
			"rt instead" >&2
		python3 tests/fixtures/gen_probes.py probes 22 40 "$2/rt.c"
		# shellcheck disable=SC2086
		$cc $flags -o "$x/rt" "$2/rt.c"
	fi
	echo "IB_RUNS=${IB_RUNS:-3}" > "$x/instbench.conf"
}

rc=0
if [ $table = 0 ]; then
	for t in "$@"; do
		if [ ! -f "build-cross/$t/CTestTestfile.cmake" ]; then
			echo "vm_inst: $t: no cross build (scripts/cross.sh $t)"
			rc=1
			continue
		fi
		extra "$t" "build-cross/$t/instbench"
		# shellcheck disable=SC2046
		USDTKIT_VM_KERNEL=$kver USDTKIT_VM_EXTRA=$PWD/build-cross/$t/instbench \
		USDTKIT_VM_TIMEOUT=${USDTKIT_VM_TIMEOUT:-1800} \
			sh tests/vm/vm.sh $(vm_args "$t") || rc=1
	done
fi

# the table: medians of the runs, per target, set and way
for t in "$@"; do
	echo "build-cross/$t/tests/vm/run-$kver-instbench/console.log"
done | python3 -c '
import re, statistics, sys
sys.path.insert(0, "tests/vm")
from check_instbench import runs
print("%-8s %-6s %-6s %-9s %-26s %6s %6s %10s %9s %5s %8s %7s %8s" % ("target",
      "kernel", "set", "how", "ms to Tracing (runs)", "median", "progs", "prog_bytes",
      "map_bytes", "perf", "teardown", "load", "the rest"))
for path in sys.stdin.read().split():
    try:
        text = open(path, "rb").read().decode("utf-8", "replace")
    except OSError:
        continue
    t = path.split("/")[1]
    b = re.search(r"@@begin \S+ \S+ (\S+)", text)
    k = ".".join(b.group(1).split(".")[:2]) if b else "?"
    # the load of the trace program in each run: "@@| ib_SET_HOW_RUN.err
    # ... load L ms"; the rest: the time of the run less it (the files,
    # the uprobes, the programs of inst)
    loads = {}
    for m in re.finditer(r"@@\| ib_(\S+?)_(auto_path|auto_pid|inst_pid|inst_path)_(\d+)\.err .*load ([0-9.]+) ms", text):
        loads[(m.group(1), m.group(2), int(m.group(3)))] = float(m.group(4))
    groups = {}
    for r in runs(text):
        groups.setdefault((r["set"], r["how"]), []).append(r)
    for (s, h), rs in groups.items():
        ms = [r["ms"] for r in rs]
        ld = [loads[(s, h, r["run"])] for r in rs if (s, h, r["run"]) in loads]
        rest = [r["ms"] - loads[(s, h, r["run"])] for r in rs if (s, h, r["run"]) in loads]
        last = rs[-1]
        med = lambda v: "%.0f" % statistics.median(v) if v else "-"
        print("%-8s %-6s %-6s %-9s %-26s %6d %6d %10d %9d %5d %8d %7s %8s" % (t, k, s, h,
              ",".join(map(str, ms)), statistics.median(ms), last["progs"],
              last["prog_bytes"], last["map_bytes"], last["perf"],
              statistics.median([r["teardown_ms"] for r in rs]), med(ld), med(rest)))
'
exit $rc
