#!/bin/sh
# The manual pages (docs/man, built by scdoc) against the CLI: each page
# renders (groff, as man(1) would), every command has its page, and every
# option a command accepts, taken from the command's own option table
# (`usdtkit __complete options CMD`, the table its parser reads), is in
# that page, short and long spelling. usdtkit.1 names every command.
# usage: cli_man.sh USDTKIT MANDIR
set -u
u=$1
man=$2
. "$(dirname "$0")/../helpers/check.sh"

# render PAGE: plain text in $tmp/PAGE.txt; no hyphenation and long lines
# so that an option is never split, no overstrike or escapes
render() {
	if groff -man -Tascii -rHY=0 -rLL=300n -P-cbu -ww "$man/$1" \
		>"$tmp/$1.txt" 2>"$tmp/$1.err" && [ ! -s "$tmp/$1.err" ] &&
		[ -s "$tmp/$1.txt" ]; then ok; else
		ko "$1 does not render cleanly:"; cat "$tmp/$1.err"; fi
}
# in PAGE WORD: WORD appears in the page as a whole option
in_page() {
	grep -Eq -- "(^|[^-[:alnum:]])$2([^-[:alnum:]]|\$)" "$tmp/$1.txt"
}

for p in usdtkit.1 usdtkit.3 usdtkit.bpf.h.7; do
	render "$p"
done
for w in -V --version -h --help; do
	in_page usdtkit.1 "$w" && ok || ko "usdtkit.1 lacks $w"
done

for c in $("$u" __complete commands | grep -vx help); do
	page=usdtkit-$c.1
	if [ ! -f "$man/$page" ]; then
		ko "command $c has no page $page"
		continue
	fi
	render "$page"
	grep -q "usdtkit-$c(1)" "$tmp/usdtkit.1.txt" && ok || ko "usdtkit.1 does not point to usdtkit-$c(1)"
	"$u" __complete options "$c" >"$tmp/opts"
	[ -s "$tmp/opts" ] && ok || ko "$c: no options listed"
	while IFS="	" read -r short long arg; do
		for o in $short $long; do
			[ "$o" = - ] && continue
			in_page "$page" "$o" && ok || ko "$page lacks $c's option $o"
		done
		# the value's name is in the page too
		if [ "$arg" != - ]; then
			grep -Fq -- "$long $arg" "$tmp/$page.txt" && ok ||
				ko "$page: no '$long $arg'"
		fi
	done <"$tmp/opts"
done

finish cli_man
