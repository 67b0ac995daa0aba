#!/bin/sh
# Install what usdtkit needs, from Debian 12's packages. Idempotent: only
# calls apt-get when something is missing. Run as root.
#
#   scripts/setup.sh          everything scripts/test.sh uses: the tests,
#                             valgrind, the fuzzers, the cross compilers,
#                             qemu-user and qemu-system, debootstrap
#   scripts/setup.sh --demo   only what building usdtkit (library, CLI and
#                             its BPF program) and tracing the demo needs:
#                             scripts/demo.sh
set -eu
mode=all
case ${1:-} in
--demo) mode=demo ;;
"") ;;
*) echo "usage: scripts/setup.sh [--demo]" >&2; exit 2 ;;
esac

# The packages and why each is needed: scripts/packages (with the
# manifests' "apt" keys), read through scripts/archinfo, which also
# checks that they provide every compiler and emulator the manifests name.
pkgs=$(sh "$(dirname "$0")/archinfo" packages "$mode")

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "setup: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
