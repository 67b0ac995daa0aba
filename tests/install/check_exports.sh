#!/bin/sh
# The library's ABI, as libbpf keeps its own:
# - libusdtkit.so exports exactly the names of the version script, each
#   versioned with its node (USDTKIT_0.1, USDTKIT_0.2...), nothing else
#   (internal usdtkit__ helpers stay hidden); without the attach layer or
#   the trace engine their names (marked in the script) are absent;
# - the static archive cannot hide globals, but they all carry the
#   prefix usdtkit_;
# - no global of ours is one libbpf defines, in libbpf.so's dynamic
#   symbols or among libbpf.a's internal globals (it has usdt_* ones), so
#   a program linking both, statically too, never gets the wrong one;
# - the Debian package's symbols file lists the same names in the same
#   nodes (dh_makeshlibs refuses a package whose library exports a name
#   the file lacks), checked when the build has every layer, as the
#   package does.
# usage: check_exports.sh libusdtkit.so libusdtkit.a usdtkit.map SYMBOLS HAVE_BPF HAVE_TRACE [libbpf.a]
set -eu
so=$1 a=$2 map=$3 symbols=$4 have_bpf=$5 have_trace=$6 libbpf_a=${7:-}
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the script: its nodes, each with its "name;" lines, as name@@NODE;
# names after the attach marker comment belong to the attach layer,
# after the trace marker to the trace engine (each node ends a marker)
awk -v bpf="$have_bpf" -v trace="$have_trace" '
	/^[A-Z0-9_.]+ *\{/ { node = $1; attach = 0; tr = 0 }
	/attach layer/ { attach = 1 }
	/trace engine/ { tr = 1 }
	/^[ \t]*local:/ { next }
	/^[ \t]*[A-Za-z_][A-Za-z0-9_]*;/ {
		gsub(/[ \t;]/, "")
		if ((!attach || bpf == 1) && (!tr || trace == 1)) print $0 "@@" node
	}' "$map" | sort > "$tmp/map"
[ -s "$tmp/map" ] || { echo "FAIL: no names in $map"; exit 1; }
nodes=$(sed -n 's/^\([A-Z0-9_.]*\) *{.*/\1/p' "$map" | tr '\n' ' ')

# every defined dynamic symbol but the version nodes' own (type A)
nm -D --defined-only "$so" | awk '$2 != "A" {print $3}' | sort > "$tmp/dyn"
[ -s "$tmp/dyn" ] || { echo "FAIL: no exported symbols in $so"; exit 1; }
wrong=$(comm -23 "$tmp/dyn" "$tmp/map")
if [ -n "$wrong" ]; then echo "FAIL: $so exports names not in $map as versioned there: $wrong"; fail=1; fi
missing=$(comm -13 "$tmp/dyn" "$tmp/map")
if [ -n "$missing" ]; then echo "FAIL: $map names not exported by $so: $missing"; fail=1; fi
sed 's/@.*//' "$tmp/dyn" > "$tmp/names"
bad=$(grep -v '^usdtkit_' "$tmp/names" || true)
if [ -n "$bad" ]; then echo "FAIL: $so exports outside usdtkit_: $bad"; fail=1; fi
hidden=$(grep '^usdtkit__' "$tmp/names" || true)
if [ -n "$hidden" ]; then echo "FAIL: $so exports internals: $hidden"; fail=1; fi

# sanitizer builds add __odr_asan.* and __asan_* globals of their own
nm --defined-only "$a" | awk 'NF==3 && $2 ~ /[TDBRVW]/ {print $3}' |
	grep -v -e '^__odr_asan' -e '^__asan' -e '^__ubsan' | sort -u > "$tmp/glob" || true
bad=$(grep -v '^usdtkit_' "$tmp/glob" || true)
if [ -n "$bad" ]; then echo "FAIL: $a has globals outside usdtkit_: $bad"; fail=1; fi

# libbpf's own names: the shared library's exports, and when there is a
# libbpf.a its globals, internal ones included
libbpf_so=$(ldd "$so" 2>/dev/null | awk '/libbpf\.so/ {print $3}')
: > "$tmp/bpf"
[ -n "$libbpf_so" ] && nm -D --defined-only "$libbpf_so" | awk '{print $3}' | sed 's/@.*//' >> "$tmp/bpf"
[ -n "$libbpf_a" ] && [ -f "$libbpf_a" ] &&
	nm --defined-only "$libbpf_a" 2>/dev/null | awk 'NF==3 && $2 ~ /[TDBRVW]/ {print $3}' >> "$tmp/bpf"
sort -u "$tmp/bpf" -o "$tmp/bpf"
if [ "$have_bpf" = 1 ] && [ ! -s "$tmp/bpf" ]; then
	echo "FAIL: no libbpf symbols found to compare with"; fail=1
fi
clash=$(sort -u "$tmp/names" "$tmp/glob" | comm -12 - "$tmp/bpf")
if [ -n "$clash" ]; then echo "FAIL: names libbpf also defines: $clash"; fail=1; fi

# the symbols file: " name@NODE version" lines, the nodes' own excluded
if [ "$have_bpf" = 1 ] && [ "$have_trace" = 1 ]; then
	awk '/^ usdtkit_/ {print $1}' "$symbols" | sort > "$tmp/deb"
	sed 's/@@/@/' "$tmp/map" | sort > "$tmp/mapdeb"
	d=$(comm -3 "$tmp/deb" "$tmp/mapdeb" | tr -d '\t' | tr '\n' ' ')
	if [ -n "$d" ]; then
		echo "FAIL: $symbols and $map differ in: $d"; fail=1
	fi
fi

n=$(wc -l < "$tmp/names")
nb=$(wc -l < "$tmp/bpf")
if [ $fail -eq 0 ]; then
	echo "1 passed, 0 failed ($n exported symbols, in nodes $nodes; $nb libbpf names, none shared)"
else
	echo "0 passed, 1 failed"
fi
exit $fail
