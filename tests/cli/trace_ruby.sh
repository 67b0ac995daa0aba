#!/bin/sh
# `usdtkit trace -c 'ruby SCRIPT' ruby:cmethod__entry` on Debian's Ruby
# 3.1, whose probes are in libruby-3.1.so, a library /usr/bin/ruby loads:
# -c finds them there (usdtkit_needed(): DT_NEEDED, ld.so.cache), counts
# exactly the C-method calls of the script, and the same probe asked of
# the executable alone names the library that has it. Root, BPF.
#
# The script runs with --disable-gems: Ruby 3.1.2 itself can crash while
# cmethod__entry is enabled, in rb_dtrace_setup() at an `alias`
# (rubygems' monitor.rb:165 during its boot; seen in 1 run of 8 under
# usdtkit and in 5 of 10 under bpftrace -p on a script that aliases: a
# Ruby bug, docs/ATTACH.md). Ruby 3.1 fires method__entry only while a
# TracePoint is enabled, so that probe counts 0, in bpftrace too.
#
# Skips (77) without ruby (scripts/setup.sh installs it).
# usage: trace_ruby.sh USDTKIT
set -u
u=$1
skip() { echo "SKIP trace_ruby: $*"; exit 77; }
command -v ruby >/dev/null 2>&1 || skip "no ruby (apt-get install ruby)"
. "$(dirname "$0")/../helpers/check.sh"

cat >"$tmp/s.rb" <<'RB'
50.times { "abc".upcase }
7.times { [3, 1, 2].sort }
RB
cmd="ruby --disable-gems $tmp/s.rb"

# exactly the script's 50 upcase calls, counted in the kernel
"$u" trace -q -c "$cmd" --filter 'str(arg1) == "upcase"' --counts \
	ruby:cmethod__entry >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ok || { ko "trace -c ruby: exit $rc"; cat "$tmp/err"; }
[ "$(awk '$2 == "ruby:cmethod__entry" { print $1 }' "$tmp/out")" = 50 ] && ok ||
	{ ko "upcase: want 50 hits"; cat "$tmp/out" "$tmp/err"; }
grep -q 'exited with status 0' "$tmp/err" && ok || { ko "ruby's exit"; cat "$tmp/err"; }

# the same by key: upcase 50, sort 7, among Ruby's own calls
"$u" trace -q -c "$cmd" --count-by 'str(arg1)' --top 1000 ruby:cmethod__entry \
	>"$tmp/by" 2>"$tmp/err"
grep -qE '^ +50  "upcase"$' "$tmp/by" && grep -qE '^ +7  "sort"$' "$tmp/by" && ok ||
	{ ko "count-by: upcase 50, sort 7"; head -20 "$tmp/by"; cat "$tmp/err"; }

# asked of the executable alone: one line naming the library
exe=$(readlink -f "$(command -v ruby)")
"$u" trace -q -c "$cmd" "$exe:ruby:cmethod__entry" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q 'libruby.*a library it loads, has it' "$tmp/err" &&
	[ "$(wc -l <"$tmp/err")" = 1 ] && ok ||
	{ ko "executable alone: exit $rc"; cat "$tmp/err"; }
finish trace_ruby
