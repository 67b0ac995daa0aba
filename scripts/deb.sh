#!/bin/sh
# Debian packages (debian/): build libusdtkit0, libusdtkit-dev and usdtkit
# with dpkg-buildpackage in a clean copy of the tree (git archive, so no
# build directory of the work tree leaks in), check them with lintian (no
# error allowed), install them, build a consumer against the installed
# package with pkg-config and with find_package, run the CLI and read its
# manual page, then purge the packages again. Run as root on Debian 12;
# scripts/test.sh calls it last (USDTKIT_SKIP_DEB=1 skips it there).
# Prints "N passed, M failed" and exits non-zero on a failure.
# env: USDTKIT_DEB_OUT=DIR keeps the .debs, .changes and lintian output
# there (default: a temporary directory, removed at the end).
set -eu
cd "$(dirname "$0")/.."
src=$(pwd)
export DEBIAN_FRONTEND=noninteractive
pkgs="libusdtkit0 libusdtkit-dev usdtkit"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "deb: FAIL: $*"; fail=$((fail + 1)); }
check() {	# check DESCRIPTION COMMAND...
	what=$1
	shift
	if "$@"; then ok; else bad "$what"; fi
}

# ---- tools: the packaging tools, then debian/control's Build-Depends ----
# (systemtap-sdt-dev: sys/sdt.h for the skeleton consumer's probe)
tools="dpkg-dev debhelper devscripts lintian fakeroot build-essential
       git man-db pkg-config cmake systemtap-sdt-dev"
missing=""
for p in $tools; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
updated=0
if [ -n "$missing" ]; then
	echo "deb: installing$missing"
	apt-get update -qq
	updated=1
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if ! dpkg-checkbuilddeps debian/control 2>/dev/null; then
	echo "deb: installing the Build-Depends of debian/control"
	[ "$updated" = 1 ] || apt-get update -qq
	apt-get build-dep -y -qq --no-install-recommends "$src" >/dev/null
fi

# ---- a clean copy: the committed tree plus uncommitted changes to
# tracked files (git stash create makes that commit without touching the
# work tree or the stash); untracked files stay out, as in a release ----
tmp=$(mktemp -d /tmp/usdtkit-deb.XXXXXX)
out=${USDTKIT_DEB_OUT:-$tmp/out}
mkdir -p "$out"
cleanup() {
	# shellcheck disable=SC2086
	apt-get purge -y -qq $pkgs >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
ver=$(dpkg-parsechangelog -l debian/changelog -S Version)
tree=$(git stash create 2>/dev/null || true)
git archive --prefix="usdtkit-$ver/" "${tree:-HEAD}" | tar -x -C "$tmp"
bsrc=$tmp/usdtkit-$ver

# the changelog's version is project(VERSION) of CMakeLists.txt
pver=$(sed -n 's/^project(usdtkit VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
check "debian/changelog version $ver is not project(VERSION) $pver" \
	[ "${ver%%-*}" = "$pver" ]

# ---- build ----
jobs=$(nproc)
echo "deb: dpkg-buildpackage -us -uc -b (log: $out/build.log)"
if (cd "$bsrc" && DEB_BUILD_OPTIONS="parallel=$jobs" \
	dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1); then
	ok
else
	tail -40 "$out/build.log"
	bad "dpkg-buildpackage"
	echo "$pass passed, $fail failed"
	exit 1
fi
changes=$(ls "$tmp"/usdtkit_"$ver"_*.changes)
cp "$tmp"/*.deb "$tmp"/*.changes "$tmp"/*.buildinfo "$out"/ 2>/dev/null || true
for p in $pkgs; do
	deb=$(ls "$tmp/${p}_${ver}"_*.deb)
	echo "deb: $(basename "$deb"): $(dpkg-deb -c "$deb" | grep -vc '/$') files"
done

# ---- lintian: errors fail, warnings are listed ----
# (as root it says "running with root privileges is not recommended!":
# left out of what is printed)
if lintian --fail-on error --display-info "$changes" >"$out/lintian.txt" 2>&1; then
	ok
else
	bad "lintian reports errors"
fi
grep -v '^running with root privileges' "$out/lintian.txt" | sed 's/^/lintian: /' || true
echo "deb: lintian: $(grep -c '^E:' "$out/lintian.txt" || true) errors, $(grep -c '^W:' "$out/lintian.txt" || true) warnings"

# ---- install the three packages ----
debs=""
for p in $pkgs; do
	debs="$debs $(ls "$tmp/${p}_${ver}"_*.deb)"
done
# shellcheck disable=SC2086
check "apt-get install of the packages (log: $out/apt.log)" sh -c \
	"apt-get install -y -qq --no-install-recommends $debs >'$out/apt.log' 2>&1"
for p in $pkgs; do
	check "$p is not installed" sh -c \
		"dpkg-query -W -f='\${Status}' $p | grep -q 'ok installed'"
done

# ---- the CLI, its manual pages and completion ----
v=$(usdtkit --version 2>&1 || true)
echo "deb: usdtkit --version: $v"
check "usdtkit --version: $v" sh -c "echo '$v' | grep -q '$pver'"
check "usdtkit parse" sh -c \
	"usdtkit parse --arch x86_64 '8@16(%rsp)' | grep -q 'mem \[rsp + 16\]'"
check "usdtkit is not /usr/bin/usdtkit" [ "$(command -v usdtkit)" = /usr/bin/usdtkit ]
# man -w reads the man-db index: a page excluded by a dpkg path-exclude
# (minimal images) is missing here
for page in usdtkit usdtkit-list usdtkit-parse usdtkit-trace usdtkit-features; do
	check "man -w $page" sh -c "man -w $page >/dev/null"
done
check "man -w 3 usdtkit" sh -c "man -w 3 usdtkit >/dev/null"
check "man -w usdtkit.bpf.h" sh -c "man -w 7 usdtkit.bpf.h >/dev/null"
check "usdtkit-list(1) renders" sh -c \
	"MANWIDTH=80 man usdtkit-list 2>/dev/null | grep -q 'usdtkit list'"
check "bash completion" bash -c \
	". /usr/share/bash-completion/completions/usdtkit && complete -p usdtkit >/dev/null"
check "zsh completion installed" test -f /usr/share/zsh/site-functions/_usdtkit

# ---- the exporter service: its template unit as systemd reads it (no
# systemd needs to run), and the example of its arguments, a conffile ----
unit=/lib/systemd/system/usdtkit-exporter@.service
check "$unit installed" test -f "$unit"
check "/etc/usdtkit/exporter/example.conf is a conffile" sh -c \
	"dpkg-query -W -f='\${Conffiles}' usdtkit | grep -q ' /etc/usdtkit/exporter/example.conf '"
if command -v systemd-analyze >/dev/null; then
	systemd-analyze verify --man=no \
		/lib/systemd/system/usdtkit-exporter@example.service >"$out/verify.txt" 2>&1 || true
	sed 's/^/deb: systemd-analyze: /' "$out/verify.txt"
	check "systemd-analyze verify usdtkit-exporter@example.service says nothing" \
		test ! -s "$out/verify.txt"
fi

# ---- consumers of the installed package: pkg-config and find_package,
# linked against the system's libusdtkit.so.0 (no LD_LIBRARY_PATH) ----
c=$tmp/consumer
mkdir -p "$c"
needs() { readelf -d "$1" | grep -q "NEEDED.*\\[$2\\]"; }
check "pkg-config --modversion usdtkit" [ "$(pkg-config --modversion usdtkit)" = "$pver" ]
# shellcheck disable=SC2046
if cc -Wall -Werror -o "$c/consumer_pc" "$src/tests/install/consumer/consumer.c" \
	$(pkg-config --cflags --libs usdtkit); then
	check "pkg-config consumer runs" "$c/consumer_pc"
	check "pkg-config consumer needs libusdtkit.so.0" needs "$c/consumer_pc" libusdtkit.so.0
else
	bad "pkg-config consumer builds"
fi
# shellcheck disable=SC2046
if cc -Wall -Werror -o "$c/consumer_pc_static" "$src/tests/install/consumer/consumer.c" \
	$(pkg-config --cflags usdtkit) \
	$(pkg-config --static --libs usdtkit | sed 's/-lusdtkit\b/-l:libusdtkit.a/'); then
	check "static pkg-config consumer runs" "$c/consumer_pc_static"
	check "static consumer needs no libusdtkit.so" sh -c \
		"! readelf -d '$c/consumer_pc_static' | grep -q 'NEEDED.*libusdtkit'"
else
	bad "static pkg-config consumer builds"
fi
if cmake -S "$src/tests/install/consumer" -B "$c/cmake" >"$c/cmake.log" 2>&1 &&
	cmake --build "$c/cmake" >>"$c/cmake.log" 2>&1; then
	check "find_package consumer runs" "$c/cmake/consumer"
	check "find_package consumer needs libusdtkit.so.0" needs "$c/cmake/consumer" libusdtkit.so.0
	check "find_package static consumer runs" "$c/cmake/consumer_static"
else
	cat "$c/cmake.log"
	bad "find_package consumer builds"
fi
# the BPF side of -dev: a program against the installed usdtkit.bpf.h
# compiles and bpftool makes its skeleton (what consumer_skel.c includes)
arch=$(uname -m)
case $arch in
x86_64) barch=x86 ;; aarch64) barch=arm64 ;; s390x) barch=s390 ;;
riscv64) barch=riscv ;; *) barch="" ;;
esac
if [ -n "$barch" ]; then
	if clang -target bpf -g -O2 -Wall -Werror -D__TARGET_ARCH_$barch \
		-I"/usr/include/$(dpkg-architecture -qDEB_HOST_MULTIARCH)" \
		-c "$src/tests/install/consumer/skel.bpf.c" -o "$c/skel.bpf.o" &&
		bpftool gen skeleton "$c/skel.bpf.o" name skel >"$c/skel.skel.h"; then
		# shellcheck disable=SC2046
		check "skeleton consumer builds" cc -Wall -Werror -I"$c" \
			-o "$c/consumer_skel" "$src/tests/install/consumer/consumer_skel.c" \
			$(pkg-config --cflags --libs usdtkit)
		check "skeleton consumer needs libusdtkit.so.0" needs "$c/consumer_skel" libusdtkit.so.0
		# as root it attaches to its own probe and counts the hits
		if [ "$(id -u)" = 0 ]; then
			check "skeleton consumer attaches and counts its hits" "$c/consumer_skel"
		fi
	else
		bad "BPF program against the installed usdtkit.bpf.h"
	fi
fi

# the examples, projects of their own, against the installed
# libusdtkit-dev: examples/attach (find_package(usdtkit) and
# usdtkit_add_bpf_skeleton()) and examples/trace (<usdtkit/trace.h>
# alone: also the pkg-config line its CMakeLists.txt shows; as root both
# builds count a python3.11 script's calls)
for ex in attach trace; do
	[ -f "$src/examples/$ex/CMakeLists.txt" ] || continue
	if cmake -S "$src/examples/$ex" -B "$c/$ex" >"$c/$ex.log" 2>&1 &&
		cmake --build "$c/$ex" >>"$c/$ex.log" 2>&1; then
		ok
	else
		cat "$c/$ex.log"
		bad "examples/$ex builds against the installed package"
	fi
done
if [ -f "$src/examples/trace/CMakeLists.txt" ]; then
	# shellcheck disable=SC2046
	check "examples/trace builds with pkg-config" cc -Wall -Wextra -Werror \
		-o "$c/count_by_pc" $(pkg-config --cflags usdtkit) \
		"$src/examples/trace/count_by.c" $(pkg-config --libs usdtkit)
	if [ "$(id -u)" = 0 ] && [ -x /usr/bin/python3.11 ]; then
		printf 'def seven():\n    pass\n\n\nfor i in range(7):\n    seven()\n' \
			>"$c/seven.py"
		for cb in "$c/trace/count_by" "$c/count_by_pc"; do
			check "$cb counts python3.11's calls" sh -c "'$cb' -n 0 \
				-c '/usr/bin/python3.11 -S $c/seven.py' | grep -qx ' *7  seven'"
		done
	fi
fi

# ---- purge: nothing of the packages is left ----
# shellcheck disable=SC2086
check "apt-get purge" sh -c "apt-get purge -y -qq $pkgs >>'$out/apt.log' 2>&1"
for p in $pkgs; do
	check "$p still installed after purge" sh -c \
		"! dpkg-query -W -f='\${Status}' $p 2>/dev/null | grep -q 'ok installed'"
done
check "/usr/bin/usdtkit left after purge" test ! -e /usr/bin/usdtkit
check "/usr/include/usdtkit left after purge" test ! -e /usr/include/usdtkit

echo "deb: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
