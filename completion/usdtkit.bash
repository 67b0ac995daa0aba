# bash completion for usdtkit(1).
# Everything it offers comes from the program itself (`usdtkit
# __complete`): the commands, each command's options from the table it
# parses with, the architectures from the registry, and the probes of a
# file, so the completion never lags behind the program.

# The word being completed, whole: bash splits "app:prov:na" at the
# colons (COMP_WORDBREAKS), which a PATH:PROVIDER:NAME must not be.
_usdtkit_cur()
{
	local line=${COMP_LINE:0:COMP_POINT}

	_usdtkit_word=${line##*[[:space:]]}
}

# COMPREPLY from candidates in $1 (one per line) matching $_usdtkit_word,
# minus what bash already counts as typed before the last colon.
_usdtkit_reply()
{
	local cur=$_usdtkit_word cand colon_prefix=
	local IFS=$'\n'

	[[ $cur == *:* && $COMP_WORDBREAKS == *:* ]] && colon_prefix=${cur%"${cur##*:}"}
	COMPREPLY=()
	for cand in $1; do
		[[ $cand == "$cur"* ]] && COMPREPLY+=("${cand#"$colon_prefix"}")
	done
}

_usdtkit()
{
	local prog=${COMP_WORDS[0]} cmd= i w prev opts arg operand
	local _usdtkit_word

	_usdtkit_cur
	# the command: the first word after the program that is no option
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ $w != -* ]]; then
			cmd=$w
			break
		fi
	done
	if [[ -z $cmd ]]; then
		if [[ $_usdtkit_word == -* ]]; then
			_usdtkit_reply $'-h\n--help\n-V\n--version'
		else
			_usdtkit_reply "$("$prog" __complete commands 2>/dev/null)"
		fi
		return
	fi
	if [[ $cmd == help ]]; then
		_usdtkit_reply "$("$prog" __complete commands 2>/dev/null | grep -vx help)"
		return
	fi

	opts=$("$prog" __complete options "$cmd" 2>/dev/null) || return
	# the word before, with a colon-split word put back together
	prev=${COMP_LINE:0:COMP_POINT}
	prev=${prev%"$_usdtkit_word"}
	prev=${prev%"${prev##*[![:space:]]}"}
	prev=${prev##*[[:space:]]}
	# a value of the option before it: which kind of value?
	if [[ $prev == -* ]]; then
		arg=$(printf '%s\n' "$opts" | awk -F'\t' -v o="$prev" \
			'($1 == o || $2 == o) && $3 != "-" { print $3 }')
		case $arg in
		NAME)	# --arch
			_usdtkit_reply "$("$prog" __complete arches 2>/dev/null)"
			return ;;
		MODE)
			_usdtkit_reply $'auto\nmulti\nperf\nipmap\ninst'
			return ;;
		PID*)	# PID[,PID...]: the pids after the last comma
			local pre=
			[[ $_usdtkit_word == *,* ]] && pre=${_usdtkit_word%,*},
			_usdtkit_reply "$(cd /proc 2>/dev/null && printf "$pre%s\n" [0-9]*)"
			return ;;
		CMD)	# trace -c: a program (its arguments are the user's)
			if [[ $_usdtkit_word == */* ]]; then
				COMPREPLY=($(compgen -f -- "$_usdtkit_word"))
			else
				COMPREPLY=($(compgen -c -- "$_usdtkit_word" | sort -u))
			fi
			return ;;
		'PROVIDER[:NAME]')
			_usdtkit_probes_of_files
			return ;;
		FILE)	# trace --args-file, -o
			COMPREPLY=($(compgen -f -- "$_usdtkit_word"))
			return ;;
		?*)	# a number or a duration: nothing to offer
			COMPREPLY=()
			return ;;
		esac
	fi
	if [[ $_usdtkit_word == -* ]]; then
		_usdtkit_reply "$(printf '%s\n' "$opts" | awk -F'\t' \
			'{ if ($2 != "-") print $2; if ($1 != "-") print $1 }')"
		return
	fi
	operand=$("$prog" __complete operand "$cmd" 2>/dev/null)
	case $operand in
	target)	_usdtkit_target ;;
	file)	COMPREPLY=($(compgen -f -- "$_usdtkit_word")) ;;
	*)	COMPREPLY=() ;;
	esac
}

# list -P: the probes of the files already on the line
_usdtkit_probes_of_files()
{
	local i w all=
	for ((i = 2; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		[[ $w != -* && -f $w ]] &&
			all+=$("$prog" __complete probes "$w" 2>/dev/null)$'\n'
	done
	_usdtkit_reply "$all"
}

# trace: PATH, then PATH:PROVIDER:NAME from the probes of PATH; with -p,
# PROVIDER:NAME of the process; with -c, those of the command's program
_usdtkit_target()
{
	local cur=$_usdtkit_word path pid= i exe=
	for ((i = 2; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == -p || ${COMP_WORDS[i]} == --pid ]]; then
			# (several: the first one's probes)
			pid=${COMP_WORDS[i + 1]%%,*}
		elif [[ ${COMP_WORDS[i]} == -c || ${COMP_WORDS[i]} == --command ]]; then
			# its first word, out of the quotes around the whole
			exe=${COMP_WORDS[i + 1]#[\'\"]}
			exe=${exe%%[[:space:]\'\"]*}
			[[ -n $exe ]] && exe=$(type -P -- "$exe")
		fi
	done
	if [[ $cur == *:* ]]; then
		path=${cur%%:*}
		if [[ -f $path ]]; then
			_usdtkit_reply "$("$prog" __complete probes "$path" 2>/dev/null |
				sed "s|^|$path:|")"
			return
		fi
		if [[ -n $pid ]]; then
			_usdtkit_reply "$("$prog" __complete probes --pid "$pid" 2>/dev/null)"
			return
		fi
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
	# a file gets its colon, and no space: its probes come next
	if [[ ${#COMPREPLY[@]} -eq 1 && -f ${COMPREPLY[0]} ]]; then
		COMPREPLY=("${COMPREPLY[0]}:")
		compopt -o nospace 2>/dev/null
	fi
	if [[ -n $pid && $cur != */* ]]; then
		local IFS=$'\n'
		COMPREPLY+=($("$prog" __complete probes --pid "$pid" 2>/dev/null |
			grep -F -- "$cur"))
	fi
	if [[ -n $exe && $cur != */* ]]; then
		local IFS=$'\n'
		COMPREPLY+=($("$prog" __complete probes "$exe" 2>/dev/null |
			grep -F -- "$cur"))
	fi
}

complete -F _usdtkit usdtkit
