#!/bin/sh
# The habits every subcommand shares (bpftool's): --version, `help CMD`
# = `CMD --help` = `CMD -h` (stdout, exit 0), and every usage error
# (unknown option, missing or bad value) exits 2 with one stderr line
# naming the problem. The commands and options come from the CLI itself
# (`usdtkit __complete`), so a new option is checked without an edit here.
# usage: cli_usage.sh USDTKIT
set -u
u=$1
. "$(dirname "$0")/../helpers/check.sh"

# usage_err WHAT PATTERN ARGS...: exit 2, nothing on stdout, one line
# on stderr matching PATTERN (grep -F)
usage_err() {
	what=$1 pat=$2; shift 2
	"$u" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	n=$(wc -l <"$tmp/err")
	if [ "$rc" -eq 2 ] && [ "$n" -eq 1 ] && [ ! -s "$tmp/out" ] &&
	   grep -Fq -- "$pat" "$tmp/err"; then ok; else
		ko "$what: exit $rc, $n stderr lines, want 2 and one line with '$pat':"
		cat "$tmp/err"
	fi
}

"$u" --version >"$tmp/out" && grep -q '^usdtkit [0-9]*\.[0-9]*\.[0-9]*$' "$tmp/out" &&
	ok || ko "--version"
"$u" -V | cmp -s - "$tmp/out" && ok || ko "-V differs from --version"
"$u" help >"$tmp/out" && grep -q '^usage: usdtkit COMMAND' "$tmp/out" && ok || ko "help"
usage_err "unknown command" "unknown command 'frob'" frob
usage_err "help of an unknown command" "unknown command 'frob'" help frob
usage_err "unknown top-level option" "unknown option '--frob'" --frob

cmds=$("$u" __complete commands | grep -v '^help$')
[ -n "$cmds" ] && ok || ko "__complete commands: empty"
for c in $cmds; do
	"$u" "$c" --help >"$tmp/help" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && grep -q "^usage: usdtkit $c" "$tmp/help"; then
		ok; else ko "$c --help: exit $rc"; cat "$tmp/err"; fi
	"$u" help "$c" | cmp -s - "$tmp/help" && ok || ko "help $c differs from $c --help"
	"$u" "$c" -h | cmp -s - "$tmp/help" && ok || ko "$c -h differs from $c --help"
	usage_err "$c --frobnicate" "usdtkit $c: unknown option '--frobnicate'" "$c" --frobnicate
	usage_err "$c -Z" "usdtkit $c: unknown option '-Z'" "$c" -Z
	# every option in the table is in the help, and each that takes a
	# value says so when it has none
	"$u" __complete options "$c" >"$tmp/opts"
	while IFS="	" read -r short long arg; do
		grep -Fq -- "$long" "$tmp/help" && ok || ko "$c --help lacks $long"
		[ "$short" = - ] || { grep -Fq -- "$short, $long" "$tmp/help" && ok ||
			ko "$c --help lacks '$short, $long'"; }
		if [ "$arg" != - ]; then
			usage_err "$c $long (no value)" "$long needs a value ($arg)" "$c" "$long"
		elif [ "$long" != --help ]; then
			usage_err "$c $long=x" "$long takes no value" "$c" "$long=x"
		fi
	done <"$tmp/opts"
done

# bad values: exit 2, before anything is opened or loaded
usage_err "parse no arch" "--arch is required" parse 8@%rax
usage_err "parse bad arch" "unknown architecture 'vax'" parse --arch vax 8@%rax
usage_err "parse option after spec" "options go before specs: --json" parse --arch x86_64 8@%rax --json
if echo "$cmds" | grep -qx list; then
	usage_err "list no file" "no FILE, no -p PID and no --all" list
	usage_err "list bad pid" "bad pid 'x'" list -p x
	usage_err "list pid 0" "bad pid '0'" list -p 0
fi
if echo "$cmds" | grep -qx trace; then
	usage_err "trace bad mode" "bad mode 'bogus'" trace --mode bogus /bin/true:a:b
	usage_err "trace bad count" "bad count 'x'" trace --count x /bin/true:a:b
	usage_err "trace count 0" "bad count '0'" trace --count 0 /bin/true:a:b
	usage_err "trace count -1" "bad count '-1'" trace --count -1 /bin/true:a:b
	usage_err "trace count overflow" "bad count '99999999999999999999999'" \
		trace --count 99999999999999999999999 /bin/true:a:b
	usage_err "trace --count=2x" "bad count '2x'" trace --count=2x /bin/true:a:b
	# -c is --command (as in bpftrace), no longer --count
	usage_err "trace -c unterminated quote" "unterminated quote" trace -c "app 'x" a:b
	usage_err "trace -c empty" "empty command" trace -c " " a:b
	usage_err "trace -c and -p" "-p and -c exclude each other" trace -c /bin/true -p 1 a:b
	usage_err "trace -p and --command" "-p and -c exclude each other" \
		trace -p 1 --command /bin/true a:b
	usage_err "trace bad duration" "bad duration 'soon'" trace --duration soon /bin/true:a:b
	usage_err "trace empty duration" "bad duration ''" trace --duration= /bin/true:a:b
	usage_err "trace bad pid" "bad pid '12ab'" trace -p 12ab a:b
	usage_err "trace no target" "no TARGET" trace --count 1
fi
if echo "$cmds" | grep -qx features; then
	usage_err "features operand" "unexpected argument 'now'" features now
fi

finish cli_usage
