#!/bin/sh
# tests/vm/vm.sh: one boot of the VM proof (docs/ARCHES.md): boot the
# target's own Debian kernel under qemu-system (TCG) with a busybox
# initramfs holding the cross-built static CLI, the workloads and
# vm_api, run the scenarios (tests/vm/guest.sh) and check what they printed
# on the serial console (tests/vm/check.py). ctest runs it per kernel with
# every scenario (vm_<target>_cell on the manifest's first kernel, labels
# vm and vm-<kernel>; vm_<target>_<kernel>_cell on the others, label
# vm-<kernel>), and per scenario alone (label vmone).
#
# usage: vm.sh TARGET SCENARIO BUILD_DIR TRIPLET MULTIARCH SYSROOT [HOST_CLI]
#   SCENARIO   one of tests/vm/guest.sh's, or several joined by commas:
#              one boot runs them in turn (a "cell", what CI runs: a
#              boot costs 4-13 s under TCG, a scenario 3-15 s), each
#              on a fresh /tmp and after the previous one's tracers
#              have released everything (guest.sh, settle)
#   BUILD_DIR  the cross build (its cli/usdtkit and tests/vm programs)
#   TRIPLET, MULTIARCH, SYSROOT  where the target's ld.so, libc and
#              libraries are, for any dynamic program (vm_sites_so);
#              SYSROOT "-" when the build has none
#   HOST_CLI   the native usdtkit, whose `list` the guest's must equal
#              (default: build/cli/usdtkit of this checkout)
# Environment: USDTKIT_VM_KERNEL, one of the manifest's vm_kernels (6.1,
# 6.12, 5.10; default the first); USDTKIT_VM_TIMEOUT (s, default 300,
# and 120 more per further scenario) for the whole boot;
# USDTKIT_CACHE (scripts/cross-apt.sh) for kernels and busybox;
# USDTKIT_VM_EXTRA (bench/vm_inst.sh): see below;
# USDTKIT_VM_JIT=1 turns the BPF JIT on (net.core.bpf_jit_enable) before
# the scenario, on kernels where it is off by default (armhf, i686).
set -eu
target=$1 scenario=$2 build=$3 triplet=$4 multiarch=$5 sysroot=$6
here=$(cd "$(dirname "$0")" && pwd)
hostcli=${7:-$here/../../build/cli/usdtkit}
[ -x "$hostcli" ] || hostcli=
kver=${USDTKIT_VM_KERNEL:-}
case $scenario in
*,*) name=cell ;;
*) name=$scenario ;;
esac
work=$build/tests/vm/run-${kver:+$kver-}$name
root=$work/root
# the boot's limit: 300 s, and 120 s more per scenario of a cell
n=$(echo "$scenario" | tr , '\n' | wc -l)
timeout=${USDTKIT_VM_TIMEOUT:-$((300 + 120 * (n - 1)))}

# ---- kernel and busybox (cached) ----
fetched=$(sh "$here/fetch.sh" "$target" $kver)
kernel=$(echo "$fetched" | sed -n 's/^kernel //p')
busybox=$(echo "$fetched" | sed -n 's/^busybox //p')
if [ ! -f "$kernel" ] || [ ! -f "$busybox" ]; then
	echo "FAIL vm $target: no kernel or busybox ($fetched)"
	exit 1
fi

# ---- the initramfs ----
rm -rf "$work"
mkdir -p "$root/bin" "$root/lib" "$root/w" "$root/proc" "$root/sys" \
	"$root/dev" "$root/tmp"

# copy_libs BINARY: its interpreter and NEEDED libraries, recursively,
# from the build, the cross toolchain's libc and the unpacked sysroot (the
# machine's own libc last: x86_64's, which has no cross toolchain).
# Each level runs in a subshell: POSIX sh has no local variables.
copy_libs() {
	_f=$1
	_interp=$(readelf -lW "$_f" | sed -n 's/.*interpreter: \(.*\)]$/\1/p')
	if [ -n "$_interp" ] && [ ! -e "$root$_interp" ]; then
		mkdir -p "$root${_interp%/*}"
		# n64 mips keeps its loader in lib64 (/lib64/ld.so.1)
		for _d in ${libs:+"$libs/lib/$multiarch"} "/usr/$triplet/lib" \
			"/usr/$triplet/lib64" "/lib/$multiarch"; do
			[ -e "$_d/${_interp##*/}" ] || continue
			cp -L "$_d/${_interp##*/}" "$root$_interp"
			break
		done
	fi
	for _lib in $(readelf -dW "$_f" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
		[ -e "$root/lib/$_lib" ] && continue
		for _d in "$build/tests/vm" ${libs:+"$libs/lib/$multiarch"} \
			${libs:+"$libs/usr/lib/$multiarch"} "/usr/$triplet/lib" "/usr/$triplet/lib64" \
			"$sysroot/usr/lib/$multiarch" "$sysroot/lib/$multiarch" \
			"/lib/$multiarch"; do
			[ -e "$_d/$_lib" ] || continue
			cp -L "$_d/$_lib" "$root/lib/$_lib"
			(copy_libs "$root/lib/$_lib")
			break
		done
		if [ ! -e "$root/lib/$_lib" ]; then
			echo "FAIL vm: $_lib for $_f not found"
			exit 1
		fi
	done
}

cp "$busybox" "$root/bin/busybox"
cp "$build/cli/usdtkit" "$root/bin/usdtkit"
for p in vm_sites vm_sites_so vm_api vm_agg vm_sites_thumb vm_nop10 vm_forms \
	vm_forms_nopie vm_follow libvmfollow.so vm_hwbp vm_hwbp_hit; do
	[ -f "$build/tests/vm/$p" ] && cp "$build/tests/vm/$p" "$root/w/$p"
done
# the "compat32" scenario's workload (arm64 kernels): the armhf build's
# static one, a 32-bit arm program (scripts/cross.sh builds every target
# before the VMs run)
[ "$target" = aarch64 ] && [ -f "$build/../armhf/tests/vm/vm_sites" ] &&
	cp "$build/../armhf/tests/vm/vm_sites" "$root/w/vm_sites_a32"
# (and its Thumb-2 one)
[ "$target" = aarch64 ] && [ -f "$build/../armhf/tests/vm/vm_sites_thumb" ] &&
	cp "$build/../armhf/tests/vm/vm_sites_thumb" "$root/w/vm_sites_t32"
# (and vm_agg, for threads, children and aggregations in mode hwbp)
[ "$target" = aarch64 ] && [ -f "$build/../armhf/tests/vm/vm_agg" ] &&
	cp "$build/../armhf/tests/vm/vm_agg" "$root/w/vm_agg_a32"
[ "$target" = aarch64 ] && [ -f "$build/../armhf/tests/vm/vm_hwbp_hit" ] &&
	cp "$build/../armhf/tests/vm/vm_hwbp_hit" "$root/w/vm_hwbp_hit_a32"
# the "cold" scenario's workload (strings on untouched pages)
[ -f "$build/tests/vm/vm_cold" ] && cp "$build/tests/vm/vm_cold" "$root/w/vm_cold"
# the "unwind" scenario's workload: dynamic C++, and the libraries its
# stacks pass through as a Debian system has them (fetch.sh --libs: the
# cross toolchain's libstdc++ has no libstdcxx:throw, its libc no name
# for __libc_start_call_main): copy_libs below takes Debian's loader,
# libc, libstdc++.so.6 and libgcc_s.so.1 first, for every dynamic
# program of the guest (one libc, its loader's own), and libc's debug
# file goes where the symbolizer looks for it (by build id)
libs=
if [ -f "$build/tests/vm/fx_throw" ]; then
	cp "$build/tests/vm/fx_throw" "$root/w/fx_throw"
	libs=$(sh "$here/fetch.sh" --libs "$target" | sed -n 's/^libs //p')
	if [ ! -f "$libs/lib/$multiarch/libc.so.6" ]; then
		echo "FAIL vm $target: no Debian libc for the unwind scenario ($libs)"
		exit 1
	fi
fi
cp "$build/tests/vm/libvmsites.so" "$root/lib/"
for f in "$root/bin/usdtkit" "$root/w/"* "$root/lib/libvmsites.so"; do
	copy_libs "$f"
done
if [ -n "$libs" ]; then
	id=$(readelf -n "$root/lib/libc.so.6" | sed -n 's/.*Build ID: //p')
	dbg=usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
	mkdir -p "$root/${dbg%/*}"
	cp "$libs/$dbg" "$root/$dbg"
fi
# the "follow" scenario's chroot: vm_follow and its plugin in /box/app,
# their own loader and libc under /box: other files than the root's, at
# paths the root has not (/app) or where it has another file (the loader)
if [ -f "$root/w/vm_follow" ]; then
	mkdir -p "$root/box/app" "$root/box/lib" "$root/box/run"
	cp "$root/w/vm_follow" "$root/w/libvmfollow.so" "$root/box/app/"
	(root=$root/box; for f in "$root/app/"*; do copy_libs "$f"; done)
fi
# the "compat32" scenario's dynamic 32-bit programs, as most boards' are:
# the armhf build's vm_follow (a PIE) and its plugin, and vm_sites_so and
# its libvmsites.so, with armhf's loader and libc, in /box32 (an arm64
# root has no 32-bit libraries)
if [ "$target" = aarch64 ] && [ -f "$build/../armhf/tests/vm/vm_follow" ]; then
	mkdir -p "$root/box32/app" "$root/box32/lib" "$root/box32/run"
	cp "$build/../armhf/tests/vm/vm_follow" "$build/../armhf/tests/vm/libvmfollow.so" \
		"$build/../armhf/tests/vm/vm_sites_so" "$root/box32/app/"
	(root=$root/box32; triplet=arm-linux-gnueabihf; multiarch=arm-linux-gnueabihf
	 sysroot=$build/../sysroot-armhf; build=$build/../armhf
	 for f in "$root/app/"*; do copy_libs "$f"; done)
fi
# USDTKIT_VM_EXTRA: a directory copied as it is into the guest's root
# (bench/vm_inst.sh: its workloads and probe sets in /x)
[ -z "${USDTKIT_VM_EXTRA:-}" ] || cp -a "$USDTKIT_VM_EXTRA/." "$root/"
cp "$here/guest.sh" "$root/guest.sh"
cp "$here/../../bench/startup_configs" "$root/startup_configs"
cat > "$root/init" <<EOI
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
echo 1 > /proc/sys/kernel/printk
# USDTKIT_VM_JIT: the kernel hands an unknown usdtkit_jit=N to init's environment
[ "\${usdtkit_jit:-0}" = 1 ] && echo 1 > /proc/sys/net/core/bpf_jit_enable
echo "@@note bpf_jit_enable \$(cat /proc/sys/net/core/bpf_jit_enable 2>/dev/null || echo absent)"
. /guest.sh
jit0=\$(cat /proc/sys/net/core/bpf_jit_enable 2>/dev/null || echo 0)
for s in $(echo "$scenario" | tr , ' '); do
	# agg always runs with the JIT on: boards that enable it (for
	# speed) get a program the 32-bit JITs take (they have no atomic
	# add); the other scenarios keep the kernel's default
	j=\$jit0
	[ "\$s" = agg ] && j=1
	echo "\$j" > /proc/sys/net/core/bpf_jit_enable 2>/dev/null
	echo "@@begin $target \$s \$(uname -r) \$(uname -m) \$(cut -d' ' -f1 /proc/uptime)"
	(scenario_\$s)
	echo "@@finish \$(cut -d' ' -f1 /proc/uptime)"
	settle
done
poweroff -f
EOI
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) > "$work/initrd.cpio"

# ---- the machine ----
# the manifest's vm_qemu and vm_console (arch/<dir>/manifest.ini)
ai=$here/../../scripts/archinfo
m=$("$ai" find cross "$target")
qemu=$([ -n "$m" ] && "$ai" get "$m" vm_qemu "")
console=$([ -n "$m" ] && "$ai" get "$m" vm_console "")
# the host's own architecture runs under KVM when /dev/kvm is usable
# (x86_64 on this project's machines), else under TCG like the others.
# Usable means hardware virtualisation too: a /dev/kvm without vmx or svm
# (a cloud VM's kvm-pvm) boots only kernels built for it, and a Debian
# kernel hangs there after "Booting from ROM" until the timeout.
accel=tcg
if [ -n "$m" ] && [ "$("$ai" get "$m" processor "")" = "$(uname -m)" ] &&
   [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qw -e vmx -e svm /proc/cpuinfo; then
	accel=kvm
	qemu="$qemu -accel kvm -cpu host"
fi
if [ -z "$qemu" ] || [ -z "$console" ]; then
	echo "FAIL vm: no manifest gives vm_qemu and vm_console for $target"
	exit 1
fi
# shellcheck disable=SC2086
set -- $qemu
jit=${USDTKIT_VM_JIT:-0}
start=$(date +%s.%N)
rc=0
timeout "$timeout" "$@" -smp 1 -m 512M -nographic -no-reboot \
	-kernel "$kernel" -initrd "$work/initrd.cpio" \
	-append "console=$console quiet panic=-1 usdtkit_jit=$jit" \
	< /dev/null > "$work/console.log" 2>&1 || rc=$?
end=$(date +%s.%N)
secs=$(awk "BEGIN { printf \"%.1f\", $end - $start }")
echo "vm $target ${kver:+$kver }$name ($accel): qemu exit $rc after $secs s" \
	"(kernel ${kernel##*/}, console $work/console.log)"
# for scripts/vm-matrix.sh
echo "$accel $secs ${kernel##*/}" > "$work/machine"

# ---- the verdict ----
set -- --target "$target" --scenario "$scenario" --log "$work/console.log" \
	--files "$build/tests/vm"
[ -n "$hostcli" ] && set -- "$@" --host-cli "$hostcli"
# the verdict is kept beside the console log (scripts/vm-matrix.sh)
rc=0
python3 "$here/check.py" "$@" > "$work/verdict" 2>&1 || rc=$?
cat "$work/verdict"
exit $rc
