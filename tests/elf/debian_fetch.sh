#!/bin/sh
# usage: debian_fetch.sh ARCH PKG...
#
# Debian 12 binary packages of one architecture, unpacked with dpkg -x
# into $USDTKIT_CACHE/debian/ARCH/root (default cache /var/cache/usdtkit);
# prints that directory. The .debs come from the private apt state of
# scripts/cross-apt.sh (no foreign architecture is added to the machine's
# dpkg); once unpacked they are deleted, and their file names (so their
# versions) are kept in $USDTKIT_CACHE/debian/ARCH/debs.txt. Once the
# stamp file names the same packages, nothing is downloaded again: a warm
# run makes no network access. Exits non-zero, saying why, when a package
# cannot be had.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 ARCH PKG..." >&2; exit 2; }
arch=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/cross-apt.sh
usdtkit_top=$(cd "$here/../.." && pwd)
. "$here/../../scripts/cross-apt.sh"

dir=$USDTKIT_CACHE/debian/$arch
want="$*"
mkdir -p "$dir"
(
	flock 9	# two runs for one arch at once fetch it once
	if [ -f "$dir/.done" ] && [ "$(cat "$dir/.done")" = "$want" ] &&
	   [ -d "$dir/root" ]; then
		exit 0
	fi
	rm -rf "$dir/debs.new" "$dir/root.new"
	mkdir -p "$dir/debs.new"
	set --
	for p in $want; do set -- "$@" "$p:$arch"; done
	apt_cross_init
	# An architecture that the private state does not list yet (a new
	# entry of USDTKIT_DEBIAN_ARCHES): its index is added to the state
	# once, so that adding an architecture to the test is one word.
	has_index() {
		ls "$aptdir/lists/"*"_binary-${arch}_Packages"* >/dev/null 2>&1
	}
	if ! has_index; then
		(
			flock 9
			has_index ||
			apt_cross -o "APT::Architectures::=$arch" update >&2 ||
			echo "debian_fetch: apt update reported errors" >&2
		) 9>"$aptdir/.lock"
	fi
	# Dir::State::status=/dev/null: the candidate is the private lists'
	# version, never the one this machine happens to have installed
	# (maybe from bookworm-security, which the private state leaves out)
	(cd "$dir/debs.new" &&
	 apt_cross -o "APT::Architectures::=$arch" \
		-o Dir::State::status=/dev/null download "$@" 2>&1 |
		grep -v unsandboxed >&2) || true
	for p in $want; do
		ls "$dir/debs.new/${p}_"*"_$arch.deb" >/dev/null 2>&1 || {
			echo "debian_fetch: cannot download $p:$arch" >&2
			exit 1
		}
	done
	for d in "$dir/debs.new"/*.deb; do
		dpkg -x "$d" "$dir/root.new"
	done
	(cd "$dir/debs.new" && ls -- *.deb) > "$dir/debs.txt"
	rm -rf "$dir/debs" "$dir/debs.new" "$dir/root"
	mv "$dir/root.new" "$dir/root"
	echo "$want" > "$dir/.done"
) 9>"$dir/.lock"
echo "$dir/root"
