#!/bin/sh
# A hint wherever a newcomer trips (a bpftrace or bcc user, with the
# README and the man pages): one line on stderr that shows the form
# meant, the exit it documents, and, where the line shows a TARGET, that
# TARGET traced (exit 0). On tests/fixtures/fx_cmd.c (cmdt:start,
# cmdt:guarded). Needs root and BPF; the -p case runs as nobody.
# usage: cli_hints.sh USDTKIT FX_CMD
set -u
u=$1 fx=$2
. "$(dirname "$0")/../helpers/check.sh"

# hint WHAT RC LINE ARGS...: exit RC, nothing on stdout, stderr exactly LINE
hint() {
	what=$1 want=$2 line=$3; shift 3
	timeout 30 "$u" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	if [ "$rc" -eq "$want" ] && [ ! -s "$tmp/out" ] && [ "$(cat "$tmp/err")" = "$line" ]; then
		ok; else ko "$what: exit $rc, want $want and the line '$line':"; cat "$tmp/err"; fi
}
# works WHAT: the TARGET after the hint's last ": ", traced (exit 0)
works() {
	t=$(sed 's/.*: //' "$tmp/err")
	timeout 30 "$u" trace -q -d 0.1 "$t" >/dev/null 2>"$tmp/err2" && ok ||
		{ ko "$what: the form shown, '$t', fails:"; cat "$tmp/err2"; }
}
B="usdtkit trace: bad target"

# ---- bpftrace's spelling of a target ----
hint "usdt: prefix" 2 "$B 'usdt:$fx:cmdt:start': usdtkit's form has no 'usdt:' prefix: $fx:cmdt:start" \
	trace "usdt:$fx:cmdt:start"
works
hint "U: prefix" 2 "$B 'U:$fx:cmdt:start': usdtkit's form has no 'U:' prefix: $fx:cmdt:start" \
	trace "U:$fx:cmdt:start"
hint "usdt:PATH:NAME" 2 "$B 'usdt:$fx:start': usdtkit's form has no 'usdt:' prefix, and an empty PROVIDER matches any: $fx::start" \
	trace "usdt:$fx:start"
works
hint "PATH:NAME" 2 "$B '$fx:start': want PATH:PROVIDER:NAME, an empty PROVIDER matching any: $fx::start" \
	trace "$fx:start"
works
hint "-p PID PATH:NAME" 2 "$B '$fx:start': want PATH:PROVIDER:NAME, an empty PROVIDER matching any: $fx::start" \
	trace -p 1 "$fx:start"
# a file named usdt is a PATH: no hint, its probes are looked for
mkdir "$tmp/d" && cp "$fx" "$tmp/d/usdt" && cd "$tmp/d" &&
	timeout 30 "$u" trace -q -d 0.1 usdt:cmdt:start >/dev/null 2>"$tmp/err" && ok ||
	{ ko "a file named usdt:"; cat "$tmp/err"; }
cd / || exit 1

# ---- a TARGET with a part too many or too few ----
hint "a ':' too many" 2 "$B 'a:b:c:d:e': want PATH:PROVIDER:NAME, and there is no file 'a:b:c' (PROVIDER and NAME hold no ':')" \
	trace a:b:c:d:e
hint "a PATH alone" 2 "$B '$fx': want PATH:PROVIDER:NAME; '$fx::' is every probe of it (usdtkit list $fx names them)" \
	trace "$fx"
hint "PROVIDER:NAME alone" 2 "$B 'cmdt:start': PROVIDER:NAME needs -p PID, -c CMD or --all; else name the file: PATH:cmdt:start" \
	trace cmdt:start
# a program named as the PROVIDER, with the probe, in $PATH: named
mkdir "$tmp/bin" && cp "$fx" "$tmp/bin/cmdt"
PATH=$tmp/bin:$PATH hint "PROVIDER:NAME, the program in PATH" 2 \
	"$B 'cmdt:start': PROVIDER:NAME needs -p PID, -c CMD or --all; else name the file: $tmp/bin/cmdt:cmdt:start" \
	trace cmdt:start
works
# an option after a TARGET (options stop at the first): said as one
hint "option after a TARGET" 2 "usdtkit trace: options go before the TARGETs: '-p' comes after '$fx:cmdt:start' (usdtkit help trace)" \
	trace "$fx:cmdt:start" -p 1
# a missing file or probe is not a usage error (exit 1)
hint "no such file" 1 "usdtkit trace: /nonexistent/x: No such file or directory" trace /nonexistent/x:a:b

# ---- --filter: other languages' words and quotes ----
F="usdtkit trace: bad --filter"
hint "filter and" 2 "$F 'arg0 > 1 and arg1 < 2': column 10: unexpected 'and' after a complete expression ('and' is written && here) (usdtkit help trace)" \
	trace --filter 'arg0 > 1 and arg1 < 2' "$fx:cmdt:start"
hint "filter or" 2 "$F '(arg0 or arg1)': column 7: expected ')' to close the '(' of column 1, found 'or' ('or' is written || here) (usdtkit help trace)" \
	trace --filter '(arg0 or arg1)' "$fx:cmdt:start"
hint "filter not" 2 "$F 'not arg0': column 1: unknown identifier 'not' (argN, pid, tid or str(argN)) ('not' is written ! here) (usdtkit help trace)" \
	trace --filter 'not arg0' "$fx:cmdt:start"
hint "filter argN == string" 2 "$F 'arg0 == \"x\"': column 9: a string is only compared with == or != to str(argN) (the string arg0 points to is str(arg0)) (usdtkit help trace)" \
	trace --filter 'arg0 == "x"' "$fx:cmdt:start"
hint "filter /.../" 2 "$F '/arg0 > 1/': column 1: unexpected '/' (a bpftrace predicate /EXPR/ is EXPR here, no slashes) (usdtkit help trace)" \
	trace --filter '/arg0 > 1/' "$fx:cmdt:start"
hint "filter quotes" 2 "$F 'str(arg0) == 'x'': column 14: unexpected \"'\" (strings are in double quotes: \"...\") (usdtkit help trace)" \
	trace --filter "str(arg0) == 'x'" "$fx:cmdt:start"

# ---- an argument out of range ----
hint "--hist arg12" 2 "usdtkit trace: bad --hist 'arg12': want argN, arg0 to arg11 (usdtkit help trace)" \
	trace --hist arg12 "$fx:cmdt:start"
hint "--sum arg99" 2 "usdtkit trace: bad --sum 'arg99': want argN, arg0 to arg11 (usdtkit help trace)" \
	trace --sum arg99 "$fx:cmdt:start"
hint "--hist arg5" 2 "usdtkit trace: $fx:cmdt:start: --hist arg5: the probe has 2 arguments" \
	trace --hist arg5 "$fx:cmdt:start"

# ---- list -P: trace's did-you-mean ----
hint "list -P typo" 0 "usdtkit list: $fx: no probe matches (did you mean cmdt:start?)" \
	list -P cmdt:strat "$fx"
hint "list -P glob: no guess" 0 "usdtkit list: $fx: no probe matches" list -P 'cmdt:strat*' "$fx"
hint "list -P far: no guess" 0 "usdtkit list: $fx: no probe matches" list -P 'cmdt:zzzzzzzz' "$fx"
"$fx" 1 30 >/dev/null &
fpid=$!
trap 'kill $fpid 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
sleep 0.2
hint "list -p a dead pid: one line" 1 "usdtkit list: pid 999999999: cannot read /proc/999999999/maps: No such process" \
	list -p 999999999
hint "list -p -P typo" 0 "usdtkit list: pid $fpid: no USDT probes match (did you mean cmdt:guarded?)" \
	list -p "$fpid" -P cmdt:guardd

# ---- -p PID of another user: what tracing needs ----
if command -v setpriv >/dev/null; then
	pub=$tmp/pub
	mkdir "$pub" && cp "$u" "$pub/" && chmod 755 "$tmp" "$pub"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$pub/usdtkit" trace -p "$fpid" \
		cmdt:start >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] && [ "$(cat "$tmp/err")" = "usdtkit trace: pid $fpid: cannot read /proc/$fpid/maps: Permission denied (tracing needs root, or CAP_BPF and CAP_PERFMON; another user's process, CAP_SYS_PTRACE too)" ] &&
		ok || { ko "-p as nobody: exit $rc"; cat "$tmp/err"; }
	setpriv --reuid=65534 --regid=65534 --clear-groups "$pub/usdtkit" list -p "$fpid" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] && [ "$(cat "$tmp/err")" = "usdtkit list: pid $fpid: cannot read /proc/$fpid/maps: Permission denied (another user's process is read as root or with CAP_SYS_PTRACE)" ] &&
		ok || { ko "list -p as nobody: exit $rc"; cat "$tmp/err"; }
else
	echo "no setpriv: the -p case as nobody is not run"
fi

# ---- what the user typed is escaped, never raw to a terminal ----
esc=$(printf '\033[2J')
for a in "usdt:$esc:a:b" "$esc:b" "--mode=$esc"; do
	timeout 30 "$u" trace "$a" x:y:z >/dev/null 2>"$tmp/err" </dev/null
	if grep -qF "$esc" "$tmp/err" || ! grep -qF '\x1b[2J' "$tmp/err"; then
		ko "a raw ESC of '$a':"; cat -v "$tmp/err"; else ok; fi
done

finish cli_hints
