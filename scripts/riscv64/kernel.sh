#!/bin/sh
# A riscv64 kernel Image for the riscv64 test VM (qemu-system-riscv64 -M
# virt; scripts/riscv64/smoke.sh, tests/vm/). Debian 12 ships no riscv64
# kernel, so it is built from bookworm's `linux` source package (the 6.1
# series, Debian's patches applied by dpkg-source) with the cross
# compiler: arch/riscv/configs/defconfig plus scripts/riscv64/kernel.config.
# Cached by source version and fragment (scripts/riscv64/common.sh).
# Prints the path of the Image; its .config lies next to it.
#
# usage: scripts/riscv64/kernel.sh   (cache: $USDTKIT_CACHE/riscv64)
set -eu
rv_top=$(cd "$(dirname "$0")/../.." && pwd)
. "$rv_top/scripts/riscv64/common.sh"

# Bump when the way of building changes (not the fragment: it is hashed).
recipe=1
frag=$rv_top/scripts/riscv64/kernel.config

dsc=$(rv_dscs linux)
[ -n "$dsc" ] || rv_die "no source package linux in the private apt state"
rv_begin kernel "$(rv_key "kernel recipe $recipe" "$dsc" \
	"$(sha256sum < "$frag")")" Image

d=$rv_tmp/linux
log=$rv_log/kernel.log
t0=$(date +%s)
rv_unpack linux "$dsc" "$d" "$log"
rv_say "linux: unpacked $dsc ($(($(date +%s) - t0)) s)"
set -- ARCH=riscv CROSS_COMPILE=$rv_triplet-
rv_step "$log" "linux: defconfig" make -C "$d" "$@" defconfig
# merge_config.sh -m only merges (and says which values the fragment
# overrides); olddefconfig then resolves dependencies, which may drop
# what the fragment asked for: checked below.
rv_step "$log" "linux: merge kernel.config" sh -c "cd '$d' &&
	ARCH=riscv scripts/kconfig/merge_config.sh -m .config '$frag'"
rv_step "$log" "linux: olddefconfig" make -C "$d" "$@" olddefconfig

# Every option the fragment turns on must be on: a dependency that
# olddefconfig silently resolved the other way would give a kernel that
# boots but cannot run the tests. Options the fragment turns off are
# only reported (something may select them; it costs build time only).
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qx "$line" "$d/.config" || {
			echo "riscv64: kernel.config asks $line, .config has:" \
				"$(grep -E "^(# )?${line%%=*}[= ]" "$d/.config" || echo nothing)" >&2
			bad=1
		} ;;
	"# CONFIG_"*" is not set")
		o=${line#"# "}
		o=${o%% *}
		grep -q "^$o=" "$d/.config" &&
			rv_say "note: $o stays on ($(grep "^$o=" "$d/.config"))" ;;
	esac
done < "$frag"
# what the tests need, whatever the fragment says
for o in BPF_SYSCALL BPF_JIT BPF_JIT_DEFAULT_ON BPF_EVENTS PERF_EVENTS \
	UPROBES UPROBE_EVENTS \
	BLK_DEV_INITRD DEVTMPFS SERIAL_8250_CONSOLE; do
	grep -qx "CONFIG_$o=y" "$d/.config" || {
		echo "riscv64: CONFIG_$o is not y in the kernel's .config" >&2
		bad=1
	}
done
[ "$bad" = 0 ] || rv_die "the kernel config lacks what the tests need (see above; log: $log)"
rv_say "linux: .config has BPF_SYSCALL BPF_JIT(_DEFAULT_ON) BPF_EVENTS PERF_EVENTS UPROBE_EVENTS"

rv_step "$log" "linux: build Image (-j$rv_jobs)" make -C "$d" "$@" -j"$rv_jobs" Image
mkdir "$rv_tmp/out"
cp "$d/arch/riscv/boot/Image" "$d/.config" "$rv_tmp/out/"
echo "$dsc" > "$rv_tmp/out/SOURCES"
rv_commit "$rv_tmp/out"
