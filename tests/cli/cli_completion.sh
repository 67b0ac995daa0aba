#!/bin/sh
# The bash completion (completion/usdtkit.bash), sourced into a bash that
# has no bash-completion package loaded: COMP_LINE, COMP_POINT,
# COMP_WORDS and COMP_CWORD set as bash sets them, _usdtkit called, its
# COMPREPLY compared with what the program itself lists (`usdtkit
# __complete`). Probes come from a program built here with <sys/sdt.h>.
# When zsh is here, its completion is driven in an interactive zsh too.
# usage: cli_completion.sh USDTKIT CC SRCDIR
set -u
u=$1
cc=$2
src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

cat >"$tmp/p.c" <<'EOF2'
#include <sys/sdt.h>
int main(int argc, char **argv)
{
	(void)argv;
	STAP_PROBE1(app, request, argc);
	STAP_PROBE1(app, reply, argc);
	STAP_PROBE(other, tick);
	return 0;
}
EOF2
"$cc" -o "$tmp/app" "$tmp/p.c" || { echo "cli_completion: cannot build"; exit 1; }

# zsh: the function parses, then an interactive zsh (zpty) completes
# three lines with TAB, each checked for the completed text
zsh_ok=skip
if command -v zsh >/dev/null; then
	cat >"$tmp/zt.zsh" <<'EOF2'
setopt extendedglob
zmodload zsh/zpty || exit 2
zpty z zsh -f -i
zpty -w z "PS1='> '; fpath=($SRC/completion \$fpath); autoload -Uz compinit; compinit -u; PATH=$BIN:\$PATH"
fails=0
# try LINE WANT: type LINE and TAB, read until WANT shows (a watchdog of
# 60 s, far beyond the fraction of a second it takes even under load)
try() {
	local l all= n=0
	zpty -w -n z $'\C-u'"$1"$'\t'
	while (( n++ < 600 )); do
		while zpty -r -t z l; do all+=$l; done
		# zsh draws the space after a match between attribute codes
		[[ ${all//$'\e'\[[0-9;?]#[a-zA-Z]/} == *"$2"* ]] && return 0
		sleep 0.1
	done
	print -r -- "FAIL: zsh: '$1' TAB: no '$2' in: ${(q+)all[-300,-1]}"
	(( fails++ ))
}
try "usdtkit parse --arch x8" "--arch x86_64 "
try "usdtkit list --rec" "list --recursive "
# ${APP}: "$APP:a" would apply zsh's :a modifier
try "usdtkit trace ${APP}:app:req" "${APP}:app:request "
zpty -d z
exit $(( fails != 0 ))
EOF2
	if ! zsh -n "$src/completion/_usdtkit"; then
		zsh_ok=0
	elif SRC=$src BIN=$(dirname "$u") APP=$tmp/app timeout 300 zsh -f "$tmp/zt.zsh"; then
		zsh_ok=1
	else
		zsh_ok=0
	fi
fi

U=$u APP=$tmp/app SRC=$src ZSH_OK=$zsh_ok exec bash --norc --noprofile -c '
set -u
pass=0 fail=0
ok() { pass=$((pass+1)); }
ko() { fail=$((fail+1)); echo "FAIL: $*"; }
. "$SRC/completion/usdtkit.bash"
complete -p usdtkit >/dev/null && ok || ko "no complete -F for usdtkit"

# comp LINE: COMPREPLY for the cursor at the end of LINE ("usdtkit" in
# it is the program under test); the words split as bash splits them,
# at blanks and at each colon
comp() {
	local line=${1//usdtkit/$U} words=() w
	COMP_LINE=$line
	COMP_POINT=${#line}
	w=${line//:/ : }
	read -ra words <<<"$w"
	[[ $line == *" " ]] && words+=("")
	COMP_WORDS=("${words[@]}")
	COMP_CWORD=$((${#words[@]} - 1))
	COMPREPLY=()
	_usdtkit
	printf "%s\n" "${COMPREPLY[@]}" | sort
}
# expect WHAT GOT WANT: both as sorted lists
expect() {
	if [[ "$2" == "$3" ]]; then ok; else
		ko "$1: got [$(echo $2)], want [$(echo $3)]"; fi
}
# has WHAT GOT WORD...: each WORD is among the candidates
has() {
	local what=$1 got=$2 w; shift 2
	for w; do grep -qx -- "$w" <<<"$got" && ok || ko "$what: no $w in [$(echo $got)]"; done
}

cmds=$("$U" __complete commands | sort)
expect "commands" "$(comp "usdtkit ")" "$cmds"
expect "l" "$(comp "usdtkit l")" "list"
expect "top-level options" "$(comp "usdtkit --")" "$(printf -- "--help\n--version")"
expect "help CMD" "$(comp "usdtkit help ")" "$(grep -vx help <<<"$cmds")"
expect "parse --arch" "$(comp "usdtkit parse --arch ")" "$("$U" __complete arches | sort)"
expect "parse --arch x8" "$(comp "usdtkit parse --arch x8")" "x86_64"
expect "parse -a aarch" "$(comp "usdtkit parse -a aarch")" "aarch64"
# every option of every command, from its own table
for c in $(grep -vx help <<<"$cmds"); do
	want=$("$U" __complete options "$c" | cut -f2 | sort)
	expect "$c --" "$(comp "usdtkit $c --")" "$want"
done
has "list -" "$(comp "usdtkit list -")" -p -P -r -h --json
# an option value that is a number offers nothing
if grep -qx trace <<<"$cmds"; then
	expect "trace --mode" "$(comp "usdtkit trace --mode ")" "$(printf "auto\ninst\nipmap\nmulti\nperf")"
	expect "trace --count" "$(comp "usdtkit trace --count ")" ""
	# PATH:PROVIDER:NAME: bash inserts after the last colon
	expect "trace PATH" "$(comp "usdtkit trace $APP")" "$APP:"
	expect "trace PATH:" "$(comp "usdtkit trace $APP:")" "$(printf "app:reply\napp:request\nother:tick")"
	expect "trace PATH:app:re" "$(comp "usdtkit trace $APP:app:re")" "$(printf "reply\nrequest")"
	expect "trace PATH:app:req" "$(comp "usdtkit trace --json $APP:app:req")" "request"
	expect "trace PATH:o" "$(comp "usdtkit trace $APP:o")" "other:tick"
	# -c CMD: a program, then the PROVIDER:NAME of its file
	has "trace -c CMD" "$(comp "usdtkit trace -c tru")" true
	has "trace -c CMD TARGET" "$(comp "usdtkit trace -c \"$APP 1\" app")" \
		app:reply app:request
	has "trace --command CMD TARGET" "$(comp "usdtkit trace --command $APP o")" other:tick
fi
# list -P: the probes of the files on the line
expect "list -P" "$(comp "usdtkit list $APP -P ")" "$(printf "app:reply\napp:request\nother:tick")"
expect "list -P o" "$(comp "usdtkit list $APP -P o")" "other:tick"
# FILE operands: files
has "list FILE" "$(comp "usdtkit list ${APP%/*}/a")" "$APP"

case $ZSH_OK in 1) ok ;; 0) ko "zsh completion (above)" ;; *) echo "cli_completion: no zsh, its completion not checked" ;; esac
echo "cli_completion: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
'
