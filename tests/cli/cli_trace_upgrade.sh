#!/bin/sh
# usdtkit trace as a service: --args-file (one argument a line, as is;
# blank and # lines skipped; bad files refused in one line), and a
# traced file upgraded under a running trace, as dpkg does it (renamed
# over): the trace says so once, and counts the new version's hits on
# top of the old one's, also those of a process started at once (its
# exec held until the new file is attached). Needs root and BPF.
# usage: cli_trace_upgrade.sh USDTKIT FX_UPG1 FX_UPG2
set -u
u=$1
v1=$2
v2=$3
. "$(dirname "$0")/../helpers/check.sh"

# a line is one argument, spaces and quotes kept: the filter's column
# proves the line arrived whole
printf '# a comment\n\n  --filter  \narg0 == "a b" &&\n/x:p:n\n' >"$tmp/bad.conf"
run "bad filter in a file" 2 "$u" trace --args-file "$tmp/bad.conf"
grep -q "bad --filter 'arg0 == \"a b\" &&': column 9" "$tmp/err" && ok ||
	{ ko "the filter line is not one argument"; cat "$tmp/err"; }
printf -- '--args-file\nx\n' >"$tmp/nest.conf"
run "nested --args-file" 2 "$u" trace --args-file "$tmp/nest.conf"
grep -q "nest.conf: line 1: --args-file in an arguments file" "$tmp/err" && ok ||
	{ ko "nested: $(cat "$tmp/err")"; }
printf -- '--counts\nx\0y\n' >"$tmp/nul.conf"
run "a NUL byte" 2 "$u" trace --args-file "$tmp/nul.conf"
grep -q "nul.conf: line 2: a NUL byte" "$tmp/err" && ok || ko "NUL: $(cat "$tmp/err")"
run "a missing file" 1 "$u" trace --args-file "$tmp/none.conf"
grep -q "args-file $tmp/none.conf: No such file" "$tmp/err" && ok || ko "missing: $(cat "$tmp/err")"
run "--args-file not first" 2 "$u" trace --counts --args-file "$tmp/bad.conf"
grep -q -- "--args-file comes first" "$tmp/err" && ok || ko "not first: $(cat "$tmp/err")"
printf -- '--help\n' >"$tmp/help.conf"
# what follows FILE comes first: an option there applies to the file's
# TARGETs (here: the same usage error, with -q before it)
run "an option after FILE" 2 "$u" trace --args-file "$tmp/bad.conf" -q
grep -q "bad --filter" "$tmp/err" && ok || ko "option after FILE: $(cat "$tmp/err")"
run "--help from a file" 0 "$u" trace --args-file="$tmp/help.conf"
grep -q -- "--args-file FILE" "$tmp/out" && ok || ko "help from a file"

# the upgrade, through the CLI's periodic refresh (every 2 s)
fx=$tmp/fx
cp "$v1" "$fx"
printf -- '--counts\n# until stopped, as a service\n%s:upg:tick\n' "$fx" >"$tmp/up.conf"
: >"$tmp/up.err" # (no "Tracing" of the last trace, read before this one truncates it)
"$u" trace --args-file "$tmp/up.conf" >"$tmp/up.out" 2>"$tmp/up.err" &
tpid=$!
wait_for "$tmp/up.err" "^Tracing 1 probe" 100 && ok || { ko "not attached"; cat "$tmp/up.err"; }
echo f | "$fx" >/dev/null
sleep 2.5
grep -q "re-attached" "$tmp/up.err" && ko "re-attached with nothing replaced" || ok
cp "$v2" "$fx.dpkg-new" && mv "$fx.dpkg-new" "$fx"
wait_for "$tmp/up.err" "re-attached" 100 && ok || ko "not re-attached"
grep -q "usdtkit trace: 1 probe re-attached to a replaced file (-v names them)" \
	"$tmp/up.err" && ok || { ko "no re-attach line"; cat "$tmp/up.err"; }
echo f | "$fx" >/dev/null
kill -INT $tpid
wait $tpid
rc=$?
[ $rc -eq 0 ] && ok || ko "trace exit $rc"
# version 1's 10 and version 2's 10, in one count
hits=$(awk '$2 == "upg:tick" { print $1 }' "$tmp/up.out")
[ "$hits" = 20 ] && ok ||
	{ ko "hits: '$hits', want 20 (both versions)"; cat "$tmp/up.out" "$tmp/up.err"; }
[ "$(grep -c "re-attached" "$tmp/up.err")" -eq 1 ] && ok || ko "re-attached said $(grep -c "re-attached" "$tmp/up.err") times, want once"

# a process started right after the upgrade, before any refresh tick
# (2 s): its exec is held until the new file is attached (fanotify), so
# its first hits count; without that hold, these 30 hits were 0
cp "$v1" "$fx"
: >"$tmp/up.err" # (no "Tracing" of the last trace, read before this one truncates it)
"$u" trace -v --counts "$fx:upg:tick" >"$tmp/up.out" 2>"$tmp/up.err" &
tpid=$!
wait_for "$tmp/up.err" "^Tracing 1 probe" 100 && ok || { ko "exec hold: not attached"; cat "$tmp/up.err"; }
cp "$v2" "$fx.dpkg-new" && mv "$fx.dpkg-new" "$fx"
for i in 1 2 3; do echo f | "$fx" >/dev/null; done
kill -INT $tpid
wait $tpid
hits=$(awk '$2 == "upg:tick" { print $1 }' "$tmp/up.out")
[ "$hits" = 30 ] && ok ||
	{ ko "exec right after the upgrade: '$hits' hits, want 30"; cat "$tmp/up.out" "$tmp/up.err"; }
grep -q "upgrades: 3 exec(s) of files in the targets' directories held" "$tmp/up.err" && ok ||
	{ ko "exec hold: no account of 3 execs"; cat "$tmp/up.err"; }

# a trace that does not answer (stopped): an exec there waits 2 s at
# most, the tracer process lets it go, and the trace says so once it
# runs again
cp "$v1" "$fx"
: >"$tmp/up.err" # (no "Tracing" of the last trace, read before this one truncates it)
"$u" trace -v --counts "$fx:upg:tick" >"$tmp/up.out" 2>"$tmp/up.err" &
tpid=$!
wait_for "$tmp/up.err" "^Tracing 1 probe" 100 && ok || { ko "stopped: not attached"; cat "$tmp/up.err"; }
kill -STOP $tpid
t0=$(date +%s)
echo f | timeout 10 "$fx" >/dev/null
rc=$? t1=$(date +%s)
[ $rc -eq 0 ] && [ $((t1 - t0)) -le 4 ] && ok ||
	ko "stopped trace: the exec took $((t1 - t0)) s (exit $rc), want at most the 2 s hold"
kill -CONT $tpid
wait_for "$tmp/up.err" "went on unanswered" 100 && ok ||
	{ ko "stopped: not said (the exec took $((t1 - t0)) s)"; cat "$tmp/up.err"; }
grep -q "^usdtkit trace: pid [0-9]*: its exec, held until a replaced file was attached, went on unanswered after 2 s" \
	"$tmp/up.err" && ok || { ko "stopped: the line"; cat "$tmp/up.err"; }
kill -INT $tpid
wait $tpid

# the same under a running --serve, as the exporter service runs it: the
# scraped counter goes on across the upgrade (10, then 20)
scrape() {
	/usr/bin/python3.11 -c 'import sys, urllib.request as u
print(u.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode())' "$1" |
		awk '/^usdtkit_probe_hits_total\{/ { print $2 }'
}
cp "$v1" "$fx"
: >"$tmp/up.err"
printf -- '--serve\n127.0.0.1:0\n%s:upg:tick\n' "$fx" >"$tmp/srv.conf"
"$u" trace --args-file "$tmp/srv.conf" >"$tmp/up.out" 2>"$tmp/up.err" &
tpid=$!
wait_for "$tmp/up.err" "^Serving metrics on" 100 && ok || { ko "--serve: not serving"; cat "$tmp/up.err"; }
port=$(sed -n 's/^Serving metrics on .* (port \([0-9]*\)).*/\1/p' "$tmp/up.err")
echo f | "$fx" >/dev/null
[ "$(scrape "$port")" = 10 ] && ok || ko "--serve before the upgrade: '$(scrape "$port")', want 10"
cp "$v2" "$fx.dpkg-new" && mv "$fx.dpkg-new" "$fx"
wait_for "$tmp/up.err" "re-attached" 100 && ok || { ko "--serve: not re-attached"; cat "$tmp/up.err"; }
echo f | "$fx" >/dev/null
[ "$(scrape "$port")" = 20 ] && ok || ko "--serve after the upgrade: '$(scrape "$port")', want 20"
kill -INT $tpid
wait $tpid
finish cli_trace_upgrade
