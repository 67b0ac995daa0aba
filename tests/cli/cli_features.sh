#!/bin/sh
# `usdtkit features` on this host: every answer against facts the test
# reads itself (uname, /proc, /sys, kallsyms, the kernel version), the
# text and JSON reports against each other, the exit codes, and the same
# run without privileges (setpriv, from util-linux). Needs root, a kernel
# with BPF, and python3.
# usage: cli_features.sh USDTKIT
set -u
u=$1
. "$(dirname "$0")/../helpers/check.sh"

[ "$(id -u)" -eq 0 ] || { echo "cli_features: needs root"; exit 1; }

# check PRIV TEXT JSON: python asserts; PRIV is root or nobody
check() {
	python3 - "$@" <<'EOF'
import json, os, platform, re, sys

priv, text_path, json_path = sys.argv[1:4]
root = priv == "root"
j = json.loads(open(json_path).read())
errors = []

def want(key, value):
    if key not in j:
        errors.append(f"no key {key}")
    elif j[key] != value or type(j[key]) is not type(value):
        errors.append(f"{key}: {j[key]!r}, want {value!r}")

def read(path):
    try:
        return open(path).read().strip()
    except OSError:
        return None

keys = ["schema", "kernel", "machine", "bpf", "bpf_error", "jit", "jit_atomics",
        "bpf_jit_enable",
        "btf", "bpf_cookie", "uprobe_multi", "ref_ctr_offset",
        "uprobe_syscall", "uprobe_optimization", "uprobes", "ringbuf",
        "sleepable_uprobe", "sleepable_multi", "user_stack",
        "hwbp", "hwbp_slots", "hwbp_reason", "perf_event_paranoid",
        "cap_bpf", "cap_perfmon", "cap_sys_admin", "auto_mode",
        "auto_mode_reason"]
if list(j) != keys:
    errors.append(f"keys {list(j)}, want {keys}")

want("schema", "usdtkit-features/1.4")

# mode hwbp: found by doing it, so whatever this machine says, but said
# whole: registers where it works, one line naming the kernel where not
if j.get("hwbp") is True:
    if not (isinstance(j.get("hwbp_slots"), int) and j["hwbp_slots"] > 0
            and j.get("hwbp_reason") is None):
        errors.append("hwbp true: slots %r, reason %r" % (j.get("hwbp_slots"),
                                                          j.get("hwbp_reason")))
elif j.get("hwbp") is False:
    r = j.get("hwbp_reason") or ""
    if j.get("hwbp_slots") is not None or not r or "\x1b" in r or "\n" in r:
        errors.append("hwbp false: slots %r, reason %r" % (j.get("hwbp_slots"), r))
else:
    errors.append("hwbp %r, want a boolean" % j.get("hwbp"))

# facts any user can read
u = os.uname()
want("kernel", u.release)
want("machine", u.machine)
want("btf", os.path.exists("/sys/kernel/btf/vmlinux"))
jit_sysctl = read("/proc/sys/net/core/bpf_jit_enable")
want("bpf_jit_enable", int(jit_sysctl) if jit_sysctl is not None else None)
want("ref_ctr_offset",
     os.path.exists("/sys/bus/event_source/devices/uprobe/format/ref_ctr_offset"))
want("uprobes", read("/sys/bus/event_source/devices/uprobe/type") is not None)
want("perf_event_paranoid", int(read("/proc/sys/kernel/perf_event_paranoid")))
# sys_uprobe (6.18, x86-64 only) shows in kallsyms by name, for any user
syms = open("/proc/kallsyms").read()
want("uprobe_syscall", u.machine == "x86_64" and
     re.search(r" __x64_sys_uprobe$", syms, re.M) is not None)

# x86-64 kernels with the uprobe syscall optimize a long nop: 6.18 the
# nop5, 7.x the nop10 (tests/attach attach_nop10 and the VM's
# nop10 scenario see the trampoline); found by a BPF link, so root only
has_sys_uprobe = j.get("uprobe_syscall") is True
if not has_sys_uprobe:
    want("uprobe_optimization", "none")
elif not root:
    want("uprobe_optimization", None)
else:
    major = int(re.match(r"(\d+)", u.release).group(1))
    want("uprobe_optimization", "nop10" if major >= 7 else "nop5")

if root:
    # the kernel's own facts for what needs a BPF program
    ver = tuple(int(x) for x in re.match(r"(\d+)\.(\d+)", u.release).groups())
    want("bpf", True)
    want("bpf_error", None)
    for c in ("cap_bpf", "cap_perfmon", "cap_sys_admin"):
        want(c, True)
    # an enabled JIT compiles "r0 = 0; exit" on every arch that has one
    if jit_sysctl in ("1", "2"):
        want("jit", True)
    # the 64-bit JITs have an atomic add; the 32-bit arm and x86 ones not
    want("jit_atomics", u.machine not in ("armv7l", "armv6l", "i686", "i386")
         or j.get("jit") is False)
    want("ringbuf", ver >= (5, 8))
    want("bpf_cookie", ver >= (5, 15))
    # uprobe_multi link (6.6) with the PID filter fix (6.10)
    multi = ver >= (6, 10) and " bpf_uprobe_multi_link_attach" in syms
    want("uprobe_multi", multi)
    # sleepable uprobes over perf events (6.0), and from uprobe_multi
    # links (6.6, counted here only with the PID filter fix)
    want("sleepable_uprobe", ver >= (6, 0))
    want("sleepable_multi", multi)
    # every arch this test runs on natively has a user stack walker
    # (perf_callchain_user); mips and s390x 6.1 have none (tests/vm)
    want("user_stack", not u.machine.startswith(("mips", "s390")))
    if multi:
        want("auto_mode", "multi")
        want("auto_mode_reason", "uprobe_multi")
    else:
        want("auto_mode", "perf")
else:
    want("bpf", False)
    want("bpf_error", "EPERM")
    for c in ("cap_bpf", "cap_perfmon", "cap_sys_admin"):
        want(c, False)
    for k in ("jit", "jit_atomics", "bpf_cookie", "uprobe_multi", "ringbuf",
              "sleepable_uprobe", "sleepable_multi", "user_stack"):
        want(k, None)
    want("auto_mode", "none")
    want("auto_mode_reason", "bpf unavailable: EPERM")

# the text says the same, one aligned "name: value (note)" line per key
lines = open(text_path).read().splitlines()
col = None
seen = []
for l in lines:
    m = re.fullmatch(r"([a-z_ ]+):( +)(\S+)( \((.*)\))?", l)
    if not m:
        errors.append(f"text line {l!r}")
        continue
    if col is None:
        col = m.start(3)
    elif m.start(3) != col:
        errors.append(f"text line not aligned: {l!r}")
    key = m.group(1).replace(" ", "_")
    seen.append(key)
    v = j.get(key)
    shown = "yes" if v is True else "no" if v is False else \
        "unknown" if v is None else str(v)
    if m.group(3) != shown:
        errors.append(f"text {key}: {m.group(3)!r}, JSON {v!r}")
    if key == "auto_mode" and m.group(5) != j["auto_mode_reason"]:
        errors.append(f"text auto mode reason {m.group(5)!r}")
    if key == "bpf" and not root and not (m.group(5) or "").startswith("EPERM: not privileged"):
        errors.append(f"text bpf note {m.group(5)!r}")
if seen != [k for k in keys if k not in ("schema", "bpf_error", "auto_mode_reason",
                                         "hwbp_slots", "hwbp_reason")]:
    errors.append(f"text keys {seen}")
if lines and not lines[-1].startswith("auto mode:"):
    errors.append("the last line is not the auto mode")

for e in errors:
    print(e)
sys.exit(1 if errors else 0)
EOF
}

# as root
run "text" 0 "$u" features
cp "$tmp/out" "$tmp/text"
run "--json" 0 "$u" features --json
cp "$tmp/out" "$tmp/json"
[ "$(wc -l <"$tmp/json")" -eq 1 ] && ok || ko "--json: not one line"
if check root "$tmp/text" "$tmp/json" >"$tmp/py" 2>&1; then ok; else
	ko "root report"; cat "$tmp/py" "$tmp/text" "$tmp/json"; fi

# without privileges: bpf(2) refuses with EPERM, the report is still made
if command -v setpriv >/dev/null; then
	np="setpriv --reuid=65534 --regid=65534 --clear-groups"
	run "unprivileged text" 0 $np "$u" features
	cp "$tmp/out" "$tmp/text"
	run "unprivileged --json" 0 $np "$u" features --json
	cp "$tmp/out" "$tmp/json"
	if check nobody "$tmp/text" "$tmp/json" >"$tmp/py" 2>&1; then ok; else
		ko "unprivileged report"; cat "$tmp/py" "$tmp/text" "$tmp/json"; fi
else
	echo "cli_features: no setpriv, unprivileged run skipped"
fi

# usage
run "--help" 0 "$u" features --help
grep -q "^usage: usdtkit features" "$tmp/out" && ok || ko "--help: $(cat "$tmp/out")"
run "bogus option" 2 "$u" features --bogus
grep -q "unknown option '--bogus'" "$tmp/err" && ok || ko "bogus: $(cat "$tmp/err")"
[ -s "$tmp/out" ] && ko "bogus option printed a report" || ok
run "usdtkit --help" 0 "$u" --help
grep -q "^  features " "$tmp/out" && ok || ko "usdtkit --help does not list features"

finish cli_features
