#!/bin/sh
# Smoke test of the riscv64 kernel (scripts/riscv64/kernel.sh): boot it
# under qemu-system-riscv64 -M virt (TCG) with an initramfs holding only
# the static busybox (scripts/riscv64/busybox.sh), and check from inside
# that what usdtkit's VM tests will need is there: tracefs, the uprobe
# perf PMU and the bpf sysctls. Prints the guest's report and the boot
# time; exits non-zero if a check fails or the guest does not power off.
# The VM harness proper is tests/vm/; this only proves the kernel.
#
# No -bios: qemu 7.2's virt machine loads OpenSBI by default, from
# /usr/share/qemu/opensbi-riscv64-generic-fw_dynamic.bin (package
# qemu-system-data, which qemu-system-misc depends on).
#
# usage: scripts/riscv64/smoke.sh   (builds or reuses the cached kernel
# and busybox; USDTKIT_VM_TIMEOUT seconds before giving up, default 300)
set -eu
rv_top=$(cd "$(dirname "$0")/../.." && pwd)
. "$rv_top/scripts/riscv64/common.sh"

image=$(sh "$rv_top/scripts/riscv64/kernel.sh")
busybox=$(sh "$rv_top/scripts/riscv64/busybox.sh")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

# --- the initramfs: busybox and an /init that reports and powers off ---
r=$tmp/root
mkdir -p "$r/bin" "$r/proc" "$r/sys" "$r/dev" "$r/tmp"
cp "$busybox" "$r/bin/busybox"
# Each result line starts with "SMOKE:" so the host can find it among
# the kernel's messages on the same console.
cat > "$r/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
fail=0
check() {	# check WHAT TEST...
	what=$1; shift
	if "$@"; then echo "SMOKE: ok $what"; else echo "SMOKE: FAIL $what"; fail=1; fi
}
check "tracefs mounted" mount -t tracefs nodev /sys/kernel/tracing
echo "SMOKE: uname: $(uname -a)"
check "uprobe PMU (/sys/bus/event_source/devices/uprobe)" \
	test -d /sys/bus/event_source/devices/uprobe
check "bpf sysctl (/proc/sys/kernel/unprivileged_bpf_disabled = $(cat /proc/sys/kernel/unprivileged_bpf_disabled 2>/dev/null))" \
	test -e /proc/sys/kernel/unprivileged_bpf_disabled
# no networking, so no net.core.bpf_jit_enable: ask the config instead
check "BPF JIT always on (/proc/config.gz)" \
	sh -c 'zcat /proc/config.gz | grep -qx CONFIG_BPF_JIT_ALWAYS_ON=y'
check "uprobe_events (tracefs)" test -e /sys/kernel/tracing/uprobe_events
echo "SMOKE: uptime $(cut -d' ' -f1 /proc/uptime) s"
echo "SMOKE: done fail=$fail"
poweroff -f
EOF
chmod +x "$r/init"
(cd "$r" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) > "$tmp/initrd.gz"

# --- boot ---
log=$tmp/console.log
t0=$(date +%s.%N)
rc=0
timeout "${USDTKIT_VM_TIMEOUT:-300}" qemu-system-riscv64 -M virt -m 512M \
	-nographic -no-reboot -kernel "$image" -initrd "$tmp/initrd.gz" \
	-append "console=ttyS0 rdinit=/init" </dev/null >"$log" 2>&1 || rc=$?
t1=$(date +%s.%N)
mkdir -p "$rv_cache/log"
cp "$log" "$rv_cache/log/smoke-console.log"

grep '^SMOKE:' "$log" | tr -d '\r' || true
echo "boot to poweroff: $(echo "$t1 - $t0" | bc | xargs printf %.2f) s (qemu exit $rc);" \
	"console: $rv_cache/log/smoke-console.log"
[ "$rc" = 0 ] || rv_die "qemu exited $rc (124: timeout)"
grep -q '^SMOKE: done fail=0' "$log" || rv_die "a check failed in the guest"
