#!/bin/sh
# The fresh-machine proof: run .ci/run (the README's test command) on a
# minimal Debian 12 root that has nothing but the base system, as a new
# user's machine has. A package that some script or test uses without
# installing it is found here, not by a user.
#
#   scripts/fresh.sh [--downloads] [--keep] [--root DIR] [--ref REF]
#                    [--run CMD]
#
#   --downloads  bind the host's download caches (apt's .debs and
#                $USDTKIT_CACHE: kernels, sysroots, source packages) into
#                the root; by default the root starts with none
#   --keep       leave the root in place afterwards (default: removed)
#   --root DIR   where to make it (default: a new /var/tmp/usdtkit-fresh.*)
#   --ref REF    the commit to clone (default: HEAD); uncommitted changes
#                are never part of the proof
#   --run CMD    run CMD (bash -c, in the clone) instead of .ci/run: one
#                stage again, in a root kept by --keep
#
# The root is `debootstrap --variant=minbase bookworm`, with the suites a
# Debian 12 machine has (bookworm, -updates, -security). The committed
# tree is cloned into /root/usdtkit, and .ci/run runs there as root with
# an empty environment (CI=true), the host's kernel (BPF, uprobes) and
# its /dev (kvm). Prints each phase's time and the total, and exits with
# .ci/run's status. Run as root; needs debootstrap and git on the host
# (scripts/setup.sh installs debootstrap).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
downloads=0 keep=0 root="" ref=HEAD run="bash .ci/run"
while [ $# -gt 0 ]; do
	case $1 in
	--downloads) downloads=1 ;;
	--keep) keep=1 ;;
	--root) root=$2; shift ;;
	--ref) ref=$2; shift ;;
	--run) run=$2; shift ;;
	*) sed -n '7,22s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
	shift
done
die() { echo "fresh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (debootstrap, chroot, BPF)"
command -v debootstrap >/dev/null || die "no debootstrap (apt-get install debootstrap)"
command -v git >/dev/null || die "no git"
commit=$(git -C "$top" rev-parse --verify "$ref^{commit}") ||
	die "no commit $ref in $top"
mirror=${USDTKIT_MIRROR:-http://deb.debian.org/debian}
security=${USDTKIT_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
[ -n "$root" ] || root=$(mktemp -d /var/tmp/usdtkit-fresh.XXXXXX)
mkdir -p "$root"
# it is the guest's /: mktemp's 0700 would shut every user but root out
# of the whole tree (apt's _apt, the tests' unprivileged runs)
chmod 755 "$root"
t0=$(date +%s)
phase() { echo "fresh: $1 ($(($(date +%s) - t0)) s so far)"; }

# Unmount in reverse order, however the run ends; the root's mounts are
# private, so nothing here propagates back to the host's.
mounts=""
cleanup() {
	for m in $mounts; do umount -l "$m" 2>/dev/null || true; done
	if [ "$keep" = 0 ]; then
		# never remove through a mount that is still there
		if grep -q " $root/" /proc/mounts; then
			echo "fresh: $root still has mounts; left in place" >&2
		else
			rm -rf "$root"
		fi
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bind() {	# bind SRC DEST [rbind]: DEST inside the root
	mkdir -p "$root$2"
	mount "--${3:-bind}" "$1" "$root$2"
	mount --make-rprivate "$root$2"
	mounts="$root$2 $mounts"
}

if [ ! -x "$root/usr/bin/apt-get" ]; then
	phase "debootstrap --variant=minbase bookworm $root"
	debootstrap --variant=minbase bookworm "$root" "$mirror" \
		>"$root.debootstrap.log" 2>&1 ||
		die "debootstrap failed: $root.debootstrap.log"
	rm -f "$root.debootstrap.log"
fi
# what a Debian 12 machine's apt has: the release, its updates and
# security suites
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

phase "cloning $commit"
rm -rf "$root/root/usdtkit"
git clone -q --no-local "$top" "$root/root/usdtkit"
git -C "$root/root/usdtkit" checkout -q "$commit"

mount -t proc proc "$root/proc"
mounts="$root/proc $mounts"
bind /sys /sys rbind	# BPF, tracefs and debugfs, as the host has them
bind /dev /dev rbind	# /dev/kvm, /dev/null, ptys
mount -t tmpfs tmpfs "$root/tmp"
mounts="$root/tmp $mounts"
if [ "$downloads" = 1 ]; then
	mkdir -p /var/cache/apt/archives "${USDTKIT_CACHE:-/var/cache/usdtkit}"
	bind /var/cache/apt/archives /var/cache/apt/archives
	bind "${USDTKIT_CACHE:-/var/cache/usdtkit}" /var/cache/usdtkit
fi

phase "$run in $root/root/usdtkit"
t1=$(date +%s)
rc=0
chroot "$root" /usr/bin/env -i HOME=/root CI=true LANG=C.UTF-8 TERM=dumb \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	bash -c "cd /root/usdtkit && $run" </dev/null || rc=$?
t2=$(date +%s)
echo "fresh: $run exited $rc after $((t2 - t1)) s; $((t2 - t0)) s in all" \
	"(commit $commit, root $root, downloads $([ "$downloads" = 1 ] && echo "from the host's cache" || echo "none cached"))"
exit "$rc"
