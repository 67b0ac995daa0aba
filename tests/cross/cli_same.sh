#!/bin/sh
# The ELF core on a foreign host: `usdtkit list --json` of the cross-built
# CLI (run under qemu-user: big-endian on s390x, 32-bit on armhf/i686)
# must print exactly what the host's CLI prints, for every ELF fixture of
# the six architectures (tests/elf, built by the native build).
# usage: cli_same.sh HOST_CLI FIXTURE_DIR -- EMULATOR... CROSS_CLI
set -u
host=$1 dir=$2
shift 2
[ "${1:-}" = -- ] && shift
pass=0 fail=0
tmp=${TMPDIR:-/tmp}/cli_same.$$
mkdir -p "$tmp"
for f in $(find "$dir" -type f ! -name '*.json' ! -name '*.h' | sort); do
	"$host" list --json "$f" > "$tmp/host" 2>&1
	"$@" list --json "$f" > "$tmp/cross" 2>&1
	if cmp -s "$tmp/host" "$tmp/cross" && [ -s "$tmp/host" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $f"
		diff "$tmp/host" "$tmp/cross" | head -5
	fi
done
rm -rf "$tmp"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
