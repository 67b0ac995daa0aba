#!/bin/sh
# Install what usdtkit needs, from Debian 12's packages. Idempotent: only
# calls apt-get when something is missing. Run as root.
#
#   scripts/setup.sh          everything scripts/test.sh uses: the tests,
#                             valgrind, the fuzzers, the cross compilers,
#                             qemu-user and qemu-system
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

# The build: compiler, cmake, re2c (the lexers), libelf (the ELF core),
# sys/sdt.h (the demo's probes), libbpf, clang, llvm-strip and bpftool
# (the attach layer and the BPF program of `usdtkit trace`).
pkgs="build-essential cmake re2c pkg-config libelf-dev
      systemtap-sdt-dev
      libbpf-dev clang llvm bpftool"
if [ "$mode" = all ]; then
# ---- the tests: valgrind, python3 (ELF and VM tests), file, binutils;
# python3-jsonschema (tests/json_schema.py checks the JSON streams);
# procps (pgrep), util-linux (setpriv, flock) and bc are in a full Debian
# install but not in every minimal image ----
pkgs="$pkgs valgrind file binutils python3 python3-jsonschema procps util-linux bc"
# ---- tests/trace_python.sh: Debian's python3.11 (its USDT probes) and
# bpftrace (the peer it is checked against, and bench/trace_bench.sh's) ----
pkgs="$pkgs python3.11 bpftrace"
# ---- the manual pages and completions: scdoc renders the pages
# (docs/man), groff-base lets cli_man read them, zsh runs
# cli_completion's zsh half ----
pkgs="$pkgs scdoc groff-base zsh"
# ---- fuzzing: clang 14 and its libFuzzer runtime ----
pkgs="$pkgs clang libclang-rt-14-dev"
# ---- riscv64 from Debian's sources (scripts/riscv64/) ----
# dpkg-source (dpkg-dev) unpacks the source packages (xz, bzip2: their
# tarballs); bc bison flex libssl-dev gawk build the kernel; cpio and
# qemu-system-misc (which brings OpenSBI in qemu-system-data) boot it.
# elfutils, zlib, zstd and libbpf ship ready configure scripts and
# Makefiles: no autotools.
pkgs="$pkgs dpkg-dev xz-utils bzip2 make bc bison flex gawk libssl-dev"
# ---- cross-architecture proof (scripts/cross.sh) ----
# qemu-user runs the cross-built tests. Each target's libelf is fetched
# by scripts/cross.sh with a private apt state: no foreign architecture
# is added to this machine's dpkg.
pkgs="$pkgs qemu-user"
# ---- VM proof (scripts/vm.sh): cpio for the initramfs. The kernels
# and busybox come from Debian's archive through the same private apt
# state (tests/vm/fetch.sh).
pkgs="$pkgs cpio"
# ---- each architecture's own: its cross compiler and libc, the
# qemu-system that boots its kernel (the manifests' "apt" keys) ----
pkgs="$pkgs $("$(dirname "$0")/archinfo" table apt | cut -f3 | grep -v '^-$' | tr '\n' ' ')"
fi

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
