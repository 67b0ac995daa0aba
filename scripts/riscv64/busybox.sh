#!/bin/sh
# A static busybox for riscv64, the userland of the riscv64 test VM's
# initramfs (scripts/riscv64/smoke.sh, tests/vm/). Debian 12 has no
# riscv64 busybox-static, so it is built from bookworm's busybox source
# with the cross compiler (scripts/riscv64/common.sh). Prints the path
# of the binary.
#
# usage: scripts/riscv64/busybox.sh   (cache: $USDTKIT_CACHE/riscv64)
set -eu
rv_top=$(cd "$(dirname "$0")/../.." && pwd)
. "$rv_top/scripts/riscv64/common.sh"

# Bump when the way of building changes (the config edits below).
recipe=1

dsc=$(rv_dscs busybox)
[ -n "$dsc" ] || rv_die "no source package busybox in the private apt state"
rv_begin busybox "$(rv_key "busybox recipe $recipe" "$dsc")" busybox

d=$rv_tmp/src
log=$rv_log/busybox.log
rv_unpack busybox "$dsc" "$d" "$log"
set -- ARCH=riscv CROSS_COMPILE=$rv_triplet-
rv_step "$log" "busybox: defconfig" make -C "$d" "$@" defconfig
# Static: the initramfs has no libc of its own (a board with busybox only
# is the user the static CLI is built for, too). tc is off: the test
# kernel has no networking, and busybox 1.35's tc uses the CBQ uapi that
# left the kernel's headers in 6.3 (bookworm's cross headers are 6.1 and
# still have it, but a newer linux-libc-dev-riscv64-cross would break
# the build for an applet nobody here runs).
sed -i -e 's/^# CONFIG_STATIC is not set$/CONFIG_STATIC=y/' \
	-e 's/^CONFIG_TC=y$/# CONFIG_TC is not set/' "$d/.config"
rv_step "$log" "busybox: oldconfig" sh -c "yes '' | make -C '$d' $* oldconfig"
grep -q '^CONFIG_STATIC=y$' "$d/.config" || rv_die "CONFIG_STATIC did not stick"
rv_step "$log" "busybox: build" make -C "$d" "$@" -j"$rv_jobs" busybox
file "$d/busybox" | grep -q 'statically linked' ||
	rv_die "busybox is not static: $(file "$d/busybox")"
mkdir "$rv_tmp/out"
cp "$d/busybox" "$d/.config" "$rv_tmp/out/"
echo "$dsc" > "$rv_tmp/out/SOURCES"
rv_commit "$rv_tmp/out"
