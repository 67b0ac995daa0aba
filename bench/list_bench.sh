#!/bin/sh
# usdtkit list against readelf -n, on real Debian libraries with probes
# and on a generated binary with 10,100 probe sites.
#
#   bench/list_bench.sh [build-dir] [out-dir]
#
# build-dir (default build-bench) must hold cli/usdtkit, and, for the
# in-process numbers, bench/list_api_bench. out-dir (default
# build-dir/list-bench) receives the generated program, hyperfine's JSON,
# CSV and markdown exports and summary.md.
#
# Environment: RUNS (timed runs per command, default 20), WARMUP (default
# 3), GEN_FUNCS and GEN_PER (generator size, default 100 x 101 = 10,100
# sites), API_RUNS (list_api_bench rounds, default 31; 0 skips it).
#
# As root it installs what is missing (idempotent): libruby3.1, libvirt0,
# libpython3.11 (the libraries), hyperfine, systemtap-sdt-dev (sys/sdt.h),
# binutils (readelf) and gcc. For every file it
#   1. counts the probes: readelf's NT_STAPSDT notes, the lines of
#      usdtkit list --json, the site headers of usdtkit list, and the
#      arguments of both; a mismatch is a loud WARNING;
#   2. times, in one hyperfine run (no shell, --output=null, which is
#      "> /dev/null"): readelf -n --wide FILE, usdtkit list --json FILE
#      and usdtkit list FILE;
#   3. reports the median wall times, the mean user+system CPU times
#      (steadier than wall time on a busy machine) and the ratios
#      readelf / usdtkit (above 1: usdtkit is faster).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build-bench}
out=${2:-$build/list-bench}
runs=${RUNS:-20}
warmup=${WARMUP:-3}
gen_funcs=${GEN_FUNCS:-100}
gen_per=${GEN_PER:-101}
api_runs=${API_RUNS:-31}
usdtkit=$build/cli/usdtkit
api_bench=$build/bench/list_api_bench
libpkgs="libruby3.1 libvirt0 libpython3.11"

die() {
	echo "list_bench.sh: $*" >&2
	exit 2
}

# ---- packages ----------------------------------------------------------
installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}
missing=
for p in $libpkgs hyperfine systemtap-sdt-dev binutils gcc; do
	installed "$p" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	[ "$(id -u)" -eq 0 ] || die "missing packages:$missing (run as root to install them)"
	echo "installing:$missing"
	# shellcheck disable=SC2086
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y $missing >/dev/null; then
		apt-get update >/dev/null
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive apt-get install -y $missing >/dev/null
	fi
fi

[ -x "$usdtkit" ] || die "no $usdtkit (build the CLI in $build first)"
mkdir -p "$out"
out=$(cd "$out" && pwd)

# ---- the files ---------------------------------------------------------
stapsdt_notes() {
	readelf -n --wide "$1" 2>/dev/null | grep -c NT_STAPSDT || true
}

: >"$out/files"
for p in $libpkgs; do
	found=0
	for f in $(dpkg -L "$p"); do
		case $f in
		*.so | *.so.*) ;;
		*) continue ;;
		esac
		if [ ! -f "$f" ] || [ -L "$f" ]; then
			continue
		fi
		[ "$(stapsdt_notes "$f")" -gt 0 ] || continue
		echo "$p $f" >>"$out/files"
		found=1
	done
	[ $found -eq 1 ] || echo "list_bench.sh: WARNING: no file of $p has USDT probes" >&2
done

# the generated binary: built once, rebuilt when the generator changes
gen=$out/gen
probes=$out/probes$((gen_funcs * gen_per))
if [ ! -x "$probes" ] || [ -n "$(find "$here/gen_probes.sh" -newer "$probes")" ]; then
	echo "generating $((gen_funcs * gen_per)) probe sites ($gen_funcs functions x $gen_per) ..."
	rm -rf "$gen"
	sh "$here/gen_probes.sh" "$gen" "$gen_funcs" "$gen_per"
	echo "compiling with gcc -O2 (takes a while) ..."
	gcc -O2 -o "$probes" "$gen"/gen_*.c
	"$probes" >/dev/null
fi
echo "generated $probes" >>"$out/files"

# ---- counts ------------------------------------------------------------
sanitize() {
	basename "$1" | tr -c 'A-Za-z0-9._\n-' '_'
}

warn=0
printf '%-16s %-28s %9s %7s %7s %7s %8s %8s\n' package file bytes readelf json text \
	"re-args" "uk-args" >"$out/counts.txt"
while read -r pkg f; do
	n_re=$(stapsdt_notes "$f")
	n_json=$("$usdtkit" list --json "$f" 2>/dev/null | wc -l)
	n_text=$("$usdtkit" list "$f" 2>/dev/null | grep -c -v '^ ' || true)
	# readelf: the whitespace-separated operands of every "Arguments:" line
	a_re=$(readelf -n --wide "$f" | sed -n 's/^ *Arguments: *//p' | wc -w)
	a_uk=$("$usdtkit" list --json "$f" 2>/dev/null | grep -o '{"index":' | wc -l)
	printf '%-16s %-28s %9s %7s %7s %7s %8s %8s\n' "$pkg" "$(basename "$f")" \
		"$(stat -c %s "$f")" "$n_re" "$n_json" "$n_text" "$a_re" "$a_uk" \
		>>"$out/counts.txt"
	if [ "$n_re" != "$n_json" ] || [ "$n_re" != "$n_text" ] || [ "$a_re" != "$a_uk" ]; then
		warn=1
		{
			echo "########################################################"
			echo "WARNING: $f: readelf has $n_re probes ($a_re args),"
			echo "         usdtkit list --json $n_json, usdtkit list $n_text ($a_uk args)"
			echo "########################################################"
		} >&2
	fi
done <"$out/files"
cat "$out/counts.txt"

# ---- timing ------------------------------------------------------------
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
{
	echo "# usdtkit list vs readelf -n --wide"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, \"$cpu\", $(uname -r),"
	echo "$(readelf --version | head -1), hyperfine $(hyperfine --version | cut -d' ' -f2),"
	echo "usdtkit $usdtkit, $runs runs after $warmup warmups, loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "| file | probes | args | readelf -n --wide | usdtkit list --json | ratio | usdtkit list | ratio |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
} >"$out/summary.md"

while read -r pkg f; do
	name=$(sanitize "$f")
	hyperfine -N --style basic --warmup "$warmup" --runs "$runs" --output=null \
		--export-json "$out/$name.json" --export-csv "$out/$name.csv" \
		--export-markdown "$out/$name.md" \
		-n readelf "readelf -n --wide $f" \
		-n usdtkit-json "$usdtkit list --json $f" \
		-n usdtkit-text "$usdtkit list $f"
	n=$(awk -v f="$(basename "$f")" '$2 == f { print $4 " " $8 }' "$out/counts.txt")
	# CSV: command,mean,stddev,median,user,system,min,max (seconds)
	awk -F, -v file="$(basename "$f")" -v n="$n" '
		NR > 1 { med[$1] = $4 * 1000; cpu[$1] = ($5 + $6) * 1000 }
		function cell(c) { return sprintf("%.2f ms (cpu %.2f)", med[c], cpu[c]) }
		function ratio(c) {
			return sprintf("%.2fx (cpu %.2fx)", med["readelf"] / med[c],
				       cpu["readelf"] / cpu[c])
		}
		END {
			split(n, c, " ")
			printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", file, c[1], c[2],
			       cell("readelf"), cell("usdtkit-json"), ratio("usdtkit-json"),
			       cell("usdtkit-text"), ratio("usdtkit-text")
		}' "$out/$name.csv" >>"$out/summary.md"
done <"$out/files"
{
	echo
	echo "Times: median wall clock (mean user+system CPU time). ratio = readelf /"
	echo "usdtkit, for the medians (and for the CPU times): above 1, usdtkit is faster."
} >>"$out/summary.md"

# ---- in process --------------------------------------------------------
if [ "$api_runs" -gt 0 ] && [ -x "$api_bench" ]; then
	# shellcheck disable=SC2046
	"$api_bench" --runs "$api_runs" $(awk '{ print $2 }' "$out/files") \
		>"$out/api.txt"
	{
		echo
		echo '```'
		cat "$out/api.txt"
		echo '```'
	} >>"$out/summary.md"
elif [ "$api_runs" -gt 0 ]; then
	echo "list_bench.sh: no $api_bench: in-process numbers skipped" >&2
fi

echo
cat "$out/summary.md"
echo
echo "exports in $out"
if [ $warn -ne 0 ]; then
	echo "list_bench.sh: WARNING: probe or argument counts differ (see above)" >&2
	exit 1
fi
