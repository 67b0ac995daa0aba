#!/bin/sh
# The library's ABI, as libbpf keeps its own:
# - libusdtkit.so exports exactly the names of the version script, each
#   versioned with its own node (USDTKIT_0.1, USDTKIT_0.2, ...), nothing
#   else (internal usdtkit__ helpers stay hidden); without the attach
#   layer its names are absent: in the script, they follow a comment
#   line that says "only with USDTKIT_WITH_BPF", up to the next comment
#   line or node;
# - the static archive cannot hide globals, but they all carry the
#   prefix usdtkit_;
# - no global of ours is one libbpf defines, in libbpf.so's dynamic
#   symbols or among libbpf.a's internal globals (it has usdt_* ones), so
#   a program linking both, statically too, never gets the wrong one.
# usage: check_exports.sh libusdtkit.so libusdtkit.a usdtkit.map HAVE_BPF [libbpf.a]
set -eu
so=$1 a=$2 map=$3 have_bpf=$4 libbpf_a=${5:-}
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the script: "name@@NODE" for each "name;" line of each node
nodes=$(sed -n 's/^\([A-Z0-9_.]*\) *{.*/\1/p' "$map" | tr '\n' ' ')
[ -n "$nodes" ] || { echo "FAIL: no version node in $map"; exit 1; }
awk -v bpf="$have_bpf" '
	/^[A-Z0-9_.]+ *\{/ { node = $1; attach = 0; next }
	/^[ \t]*\/\*.*\*\/[ \t]*$/ && node != "" { attach = /USDTKIT_WITH_BPF/ }
	/^[ \t]*local:/ { next }
	/^[ \t]*[A-Za-z_][A-Za-z0-9_]*;/ && node != "" {
		gsub(/[ \t;]/, "")
		if (!attach || bpf == 1) print $0 "@@" node
	}' "$map" | sort > "$tmp/map"
[ -s "$tmp/map" ] || { echo "FAIL: no names in $map"; exit 1; }

# every defined dynamic symbol but the version node's own (type A)
nm -D --defined-only "$so" | awk '$2 != "A" {print $3}' | sort > "$tmp/dyn"
[ -s "$tmp/dyn" ] || { echo "FAIL: no exported symbols in $so"; exit 1; }
unversioned=$(grep -v "@@" "$tmp/dyn" || true)
if [ -n "$unversioned" ]; then
	echo "FAIL: $so exports without a version: $unversioned"; fail=1
fi
sed 's/@.*//' "$tmp/dyn" > "$tmp/names"
# a name in the wrong node shows as one of each
extra=$(comm -23 "$tmp/dyn" "$tmp/map")
if [ -n "$extra" ]; then echo "FAIL: $so exports names not so in $map: $extra"; fail=1; fi
missing=$(comm -13 "$tmp/dyn" "$tmp/map")
if [ -n "$missing" ]; then echo "FAIL: $map names not so exported by $so: $missing"; fail=1; fi
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

n=$(wc -l < "$tmp/names")
nb=$(wc -l < "$tmp/bpf")
if [ $fail -eq 0 ]; then
	echo "1 passed, 0 failed ($n exported symbols, in ${nodes% }; $nb libbpf names, none shared)"
else
	echo "0 passed, 1 failed"
fi
exit $fail
