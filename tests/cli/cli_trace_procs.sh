#!/bin/sh
# usdtkit list -p and trace -p [--children] (root, BPF) on a process whose
# program the tracer cannot reach by the path /proc/PID/maps gives
# (tests/fixtures/fx_box.c): under a plain chroot, under a chroot in its
# own mount and pid namespaces, in a pivot_root container, deleted,
# replaced by an upgrade, run from a memfd, under a chroot where the
# path maps gives names another build (its tick elsewhere), and a
# dynamic build with its libraries copied into the chroot. Each time,
# list -p shows the box's own box:tick, and the trace counts exactly
# its K hits (its C children's too with --children). -c runs the chroot
# command: the box it execs is attached at its exec. Then the same
# without privilege, where only /proc/PID/root/<path> is left: read
# when it is the inode mapped, skipped when it is another file.
# usage: cli_trace_procs.sh USDTKIT FX_BOX FX_BOX_DECOY FX_BOX_DYN
set -u
u=$1 box=$2 decoy=$3 dyn=$4

. "$(dirname "$0")/../helpers/check.sh"
spid="" tpid=""
cleanup() {
	exec 3>&- 2>/dev/null
	for p in $tpid $spid; do kill -9 "$p" 2>/dev/null; done
	umount -l "$tmp/bt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
# the nobody cases run programs from here
chmod 755 "$tmp"

C=3 K=7

# root DIR PROG: a chroot at DIR with PROG at /app/boxed
root() {
	mkdir -p "$1/app" && cp "$2" "$1/app/boxed"
}

# start CMD...: the box run by CMD, held on a fifo (fd 3) until go; its
# pid in $bpid: CMD's, or its child's (unshare -f forks the box)
start() {
	rm -f "$tmp/go" "$tmp/box.out"
	mkfifo "$tmp/go"
	"$@" <"$tmp/go" >"$tmp/box.out" 2>"$tmp/box.err" &
	spid=$!
	exec 3>"$tmp/go"
	bpid=$spid
	wait_for "$tmp/box.out" '^ready$' 100 $spid ||
		{ ko "$what: the box did not start"; cat "$tmp/box.err"; return 1; }
	_c=$(pgrep -P $spid) && bpid=$_c
	return 0
}

# go: let the box fire, and wait for it
go() {
	echo go >&3
	exec 3>&-
	wait $spid
	spid=""
}

# check [--children] [TRACE_ARGS...]: list -p shows the box's own probe
# (not the decoy's), and the trace counts the box's hits exactly, of
# $target (default box:tick)
check() {
	want=$K
	[ "${1:-}" = --children ] && want=$((K * (1 + C)))
	"$u" list -p $bpid >"$tmp/list" 2>"$tmp/list.err" 3>&-
	grep -q "^box:tick " "$tmp/list" && ! grep -q "box:decoy" "$tmp/list" && ok ||
		{ ko "$what: list -p $bpid:"; cat "$tmp/list" "$tmp/list.err"; }
	# no "Tracing" of the last trace seen before this one's redirection
	rm -f "$tmp/out" "$tmp/err"
	timeout 30 "$u" trace -v "$@" --counts -p $bpid "${target:-box:tick}" >"$tmp/out" \
		2>"$tmp/err" 3>&- &
	tpid=$!
	wait_for "$tmp/err" '^Tracing ' 300 $tpid || ko "$what: trace did not attach"
	go
	wait $tpid
	rc=$? tpid=""
	hits=$(awk '$2 == "box:tick" { print $1 }' "$tmp/out")
	[ $rc -eq 0 ] && [ "$hits" = "$want" ] && ok ||
		{ ko "$what $*: exit $rc, hits '$hits', want $want"; cat "$tmp/out" "$tmp/err"; }
}

what="plain chroot"
root "$tmp/r1" "$box"
start chroot "$tmp/r1" /app/boxed $C $K && check
start chroot "$tmp/r1" /app/boxed $C $K && check --children
# the kernel resolves the map_files link in perf_event_open() too
for m in perf ipmap; do
	start chroot "$tmp/r1" /app/boxed $C $K && check --mode $m
done

# (--propagation unchanged: a chroot needs no private mounts, and a test
# run inside a chroot itself, as scripts/fresh.sh runs CI, has a / that
# is no mount point, whose propagation cannot be changed)
what="chroot in its own mount and pid namespaces"
start unshare -m --propagation unchanged -p -f chroot "$tmp/r1" /app/boxed $C $K &&
	check --children

what="pivot_root container"
mkdir -p "$tmp/r1/.old"
if why=$(unshare -m true 2>&1); then
	start unshare -m sh -c 'mount --bind "$1" "$1" && cd "$1" &&
		pivot_root . .old && exec /app/boxed "$2" "$3"' - "$tmp/r1" $C $K &&
		check --children
else
	# pivot_root(2) refuses a current root that is no mount point
	echo "SKIP $what: this test runs in a chroot whose / is no mount point" \
		"($why): pivot_root cannot run here"
fi

what="another build at the path maps gives"
root "$tmp/r2" "$box"
root "$tmp/r2$tmp/r2" "$decoy"
start chroot "$tmp/r2" /app/boxed $C $K && check --children

what="dynamic build, libraries copied"
root "$tmp/r3" "$dyn"
for lib in $(ldd "$dyn" | grep -o '/[^ ]*'); do
	mkdir -p "$tmp/r3$(dirname "$lib")" && cp -L "$lib" "$tmp/r3$lib"
done
start chroot "$tmp/r3" /app/boxed $C $K && check --children
# a PATH target (the host's path) with -p: ipmap places a PIE's sites
# through the process's object of that inode
what="dynamic build, PATH target, ipmap"
target=$tmp/r3/app/boxed:box:tick
start chroot "$tmp/r3" /app/boxed $C $K && check --mode ipmap
target=""

what="deleted"
mkdir "$tmp/del" && cp "$box" "$tmp/del/boxed"
start "$tmp/del/boxed" $C $K && rm "$tmp/del/boxed" && check

what="replaced by an upgrade"
mkdir "$tmp/upg" && cp "$box" "$tmp/upg/boxed"
start "$tmp/upg/boxed" $C $K && cp "$decoy" "$tmp/upg/boxed.new" &&
	mv "$tmp/upg/boxed.new" "$tmp/upg/boxed" && check --children

what="memfd"
start "$box" -m $C $K && grep -q '/memfd:fx_box (deleted)$' /proc/$bpid/maps && check

# btrfs: stat() gives a subvolume's file the subvolume's device, maps
# the filesystem's (which mountinfo has): the same file all the same
if command -v mkfs.btrfs >/dev/null && truncate -s 128M "$tmp/btrfs.img" &&
	mkfs.btrfs -q "$tmp/btrfs.img" >/dev/null 2>&1 && mkdir "$tmp/bt" &&
	mount -o loop "$tmp/btrfs.img" "$tmp/bt" 2>"$tmp/err"; then
	what="btrfs subvolume"
	btrfs -q subvolume create "$tmp/bt/sv" >/dev/null && root "$tmp/bt/sv" "$box"
	start "$tmp/bt/sv/app/boxed" $C $K
	# as maps writes it: hex
	dev=$(printf '%02x:%02x' $(stat -c '%Hd %Ld' "$tmp/bt/sv/app/boxed"))
	grep "/app/boxed\$" /proc/$bpid/maps | grep -qv " $dev " && ok ||
		ko "$what: maps has stat()'s device $dev: the case proves nothing"
	check
	what="btrfs subvolume, chroot"
	start chroot "$tmp/bt/sv" /app/boxed $C $K && check --children
	umount "$tmp/bt"
else
	echo "cli_trace_procs: no btrfs here (mkfs.btrfs, a loop mount): its case not run"
	cat "$tmp/err" 2>/dev/null
fi

# without privilege (nobody, as the box): no map_files, only
# /proc/PID/root/<path>, taken when it is the very inode mapped
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
what="unprivileged, the path right"
start nobody "$tmp/upg/boxed" $C $K && nobody "$u" list -p $bpid >"$tmp/list" 2>&1
grep -q "^box:decoy " "$tmp/list" && ok || { ko "$what: list -p:"; cat "$tmp/list"; }
go
what="unprivileged, the path another file"
start chroot --userspec=65534:65534 "$tmp/r2" /app/boxed $C $K &&
	nobody "$u" list -p $bpid >"$tmp/list" 2>&1
! grep -q "^box:" "$tmp/list" && grep -q "pid $bpid: no USDT probes" "$tmp/list" && ok ||
	{ ko "$what: list -p:"; cat "$tmp/list"; }
go

# -c: the command execs the box in its chroot; the exec is held until
# the box's program (and, dynamic, its own loader) is attached
# cmd_check WHAT WANT CMD...: trace -c CMD --children counts WANT hits
cmd_check() {
	what=$1 want=$2; shift 2
	echo go | timeout 30 "$u" trace ${mode:+--mode $mode} --counts --children -c "$*" box:tick \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	hits=$(awk '$2 == "box:tick" { print $1 }' "$tmp/out")
	[ $rc -eq 0 ] && [ "$hits" = "$want" ] && ok ||
		{ ko "-c, $what: exit $rc, hits '$hits', want $want"; cat "$tmp/out" "$tmp/err"; }
}
cmd_check "plain chroot" $((K * (1 + C))) chroot "$tmp/r1" /app/boxed $C $K
cmd_check "own namespaces" $((K * (1 + C))) unshare -m --propagation unchanged -p -f \
	chroot "$tmp/r1" /app/boxed $C $K
cmd_check "another build at the path" $((K * (1 + C))) chroot "$tmp/r2" /app/boxed $C $K
cmd_check "dynamic, its own loader" $((K * (1 + C))) chroot "$tmp/r3" /app/boxed $C $K
# mode ipmap, the static box itself: attached by path at the start, not
# again at its exec (an ET_EXEC object is known by inode alone; it was
# taken for a new one there and every hit counted twice)
mode=ipmap
cmd_check "the static box, --mode ipmap" $((K * (1 + C))) "$box" $C $K
mode=

# a pid that is no more: one line
sh -c 'exit 0' &
dead=$!
wait $dead
run "list -p, a dead pid" 1 "$u" list -p $dead
# (the library's line names the pid and the file; said once)
grep -q "pid $dead: .*No such process" "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	ok || ko "dead pid: $(cat "$tmp/err")"

finish cli_trace_procs
