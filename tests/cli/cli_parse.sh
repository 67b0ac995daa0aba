#!/bin/sh
# `usdtkit parse`: output per spec, JSON shape, stdin, exit codes.
# usage: cli_parse.sh USDTKIT
set -u
u=$1
pass=0 fail=0
ok() { pass=$((pass+1)); }
ko() { fail=$((fail+1)); echo "FAIL: $*"; }
expect_rc() { # want_rc description command...
	want=$1 what=$2; shift 2
	"$@" >/tmp/cli_parse.$$ 2>&1; rc=$?
	if [ "$rc" -eq "$want" ]; then ok; else ko "$what: exit $rc, want $want"; cat /tmp/cli_parse.$$; fi
}

expect_rc 0 "valid spec" "$u" parse --arch x86_64 -- '-4@-1204(%rbp,%rax,8) 8@%rdi'
expect_rc 0 "spec without --" "$u" parse --arch x86_64 '-4@%eax'
expect_rc 1 "invalid argument" "$u" parse --arch x86_64 '-4@%bogus'
expect_rc 2 "no arch" "$u" parse '-4@%eax'
expect_rc 2 "unknown arch" "$u" parse --arch vax '-4@%eax'
expect_rc 2 "unknown option" "$u" parse --arch x86_64 --frobnicate '-4@%eax'
expect_rc 0 "help" "$u" parse --help
expect_rc 2 "no command" "$u"

out=$("$u" parse --arch vax 1@%al 2>&1)
case $out in *"known architectures:"*x86_64*aarch64*s390x*) ok ;; *) ko "unknown arch lists the known ones: $out" ;; esac

# one line per spec, in order, also when one is invalid
n=$("$u" parse --arch x86_64 -- '8@%rax' '-4@%bogus' '' ':' | wc -l)
[ "$n" -eq 4 ] && ok || ko "one line per spec: $n"

# stdin, one spec per line
n=$(printf '8@%%rax\n-4@$5 1@%%ah\n' | "$u" parse --json --arch x86_64 | wc -l)
[ "$n" -eq 2 ] && ok || ko "stdin lines: $n"

# the JSON is valid and carries the documented fields
json=$("$u" parse --json --arch x86_64 -- '-4@-1204(%rbp,%rax,8) -1@%ah 4@counter.0(%rip) -4@%bad' '')
printf '%s\n' "$json" | python3 -c '
import json, sys
lines = [json.loads(l) for l in sys.stdin]
a = lines[0]["args"]
assert lines[0]["arch"] == "x86_64" and lines[0]["spec"].startswith("-4@-1204")
assert a[0] == {"index": 0, "text": "-4@-1204(%rbp,%rax,8)", "size": 4, "signed": True,
  "float": False, "kind": "mem", "base": {"name": "rbp", "offset": 32, "shift": 0, "width": 8},
  "index_reg": {"name": "rax", "offset": 80, "shift": 0, "width": 8}, "scale": 8,
  "disp": -1204, "status": "ok"}, a[0]
assert a[1]["reg"] == {"name": "ah", "offset": 80, "shift": 8, "width": 1}, a[1]
assert a[2]["kind"] == "symbol" and a[2]["symbol"] == "counter.0" and a[2]["status"] == "unresolved"
assert a[3]["kind"] == "invalid" and a[3]["error_pos"] == 50 and a[3]["error"], a[3]
assert lines[1]["args"] == []
' && ok || ko "JSON shape"

# more than 12 arguments are flagged for BPF
"$u" parse --json --arch x86_64 -- "$(printf '8@%%rax %.0s' $(seq 13))" | grep -q '"bpf_too_many_args":true' && ok || ko "13 args flagged"
# a NUL inside a stdin line: the line is refused by number, not cut short
out=$(printf '8@%%rax\n4@%%eax\0 junk\n' | "$u" parse --arch x86_64 2>/tmp/cli_parse.$$)
rc=$?
[ $rc -eq 1 ] && ok || ko "NUL in stdin: exit $rc, want 1"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && ok || ko "NUL in stdin: printed $out"
grep -q "stdin line 2: NUL byte at offset 6" /tmp/cli_parse.$$ && ok ||
	ko "NUL in stdin: message $(cat /tmp/cli_parse.$$)"
# the habits of bpftool and git: --version, help CMD = CMD --help
"$u" --version | grep -q '^usdtkit [0-9]*\.[0-9]*\.[0-9]*$' && ok || ko "--version"
"$u" help parse | grep -q '^usage: usdtkit parse' && ok || ko "help parse"
"$u" help nope >/dev/null 2>&1; [ $? -eq 2 ] && ok || ko "help of an unknown command: not 2"
"$u" parse --help >/dev/null; [ $? -eq 0 ] && ok || ko "parse --help: not 0"
rm -f /tmp/cli_parse.$$
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
