#!/bin/sh
# `usdtkit list` options: -P filters (repeatable, never positional), -r
# directory walks, the semaphore value of a live process with -p and
# --all (every process: one in a chroot, one named by an escape), usage
# errors (exit 2, one line), one error line per unreadable file.
# usage: cli_list.sh USDTKIT CC
set -u
u=$1
cc=$2
. "$(dirname "$0")/../helpers/check.sh"
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"; :' EXIT INT TERM

# err_is WHAT PATTERN: stderr is one line and matches PATTERN (grep -E)
err_is() {
	n=$(wc -l <"$tmp/err")
	if [ "$n" -eq 1 ] && grep -Eq -- "$2" "$tmp/err"; then ok; else
		ko "$1: stderr ($n lines) does not match '$2':"; cat "$tmp/err"; fi
}

# A program with two semaphore probes and one without. It prints the
# address of sema:on's semaphore, then waits: the test raises that
# semaphore through /proc/PID/mem, as a tracer would.
# (two files: sys/sdt.h gives every probe of a file a semaphore or none)
cat >"$tmp/sema.c" <<'EOF'
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

unsigned short sema_on_semaphore __attribute__((section(".probes"), used));
unsigned short sema_off_semaphore __attribute__((section(".probes"), used));

void fire(int n)
{
	if (sema_on_semaphore)
		STAP_PROBE1(sema, on, n);
	if (sema_off_semaphore)
		STAP_PROBE1(sema, off, n);
}
EOF
cat >"$tmp/main.c" <<'EOF'
#include <stdio.h>
#include <unistd.h>
#include <sys/sdt.h>

extern unsigned short sema_on_semaphore;
void fire(int n);

int main(int argc, char **argv)
{
	(void)argv;
	printf("%p\n", (void *)&sema_on_semaphore);
	fflush(stdout);
	for (;;) {
		fire(argc);
		STAP_PROBE(plain, tick);
		usleep(10000);
	}
}
EOF
if ! "$cc" -O1 -o "$tmp/sema" "$tmp/main.c" "$tmp/sema.c" 2>"$tmp/cc.err"; then
	echo "cli_list: cannot build the test program:"; cat "$tmp/cc.err"; exit 1
fi
prog=$tmp/sema

# ---- usage errors: exit 2, one line naming the problem ----
run "no argument" 2 "$u" list
err_is "no argument" "^usdtkit list: no FILE"
run "bad option" 2 "$u" list --frobnicate "$prog"
err_is "bad option" "unknown option '--frobnicate'"
run "bad pid" 2 "$u" list -p x
err_is "bad pid" "bad pid 'x'"
run "-p without value" 2 "$u" list -p
err_is "-p without value" "-p needs a value"
run "-P without value" 2 "$u" list "$prog" -P
err_is "-P without value" "-P needs a value"
run "--json=1" 2 "$u" list --json=1 "$prog"
err_is "--json=1" "--json takes no value"
run "list --help" 0 "$u" list --help
grep -q "^usage: usdtkit list" "$tmp/out" && ok || ko "list --help: $(cat "$tmp/out")"
run "help list" 0 "$u" help list
grep -q -- "-P, --probe" "$tmp/out" && ok || ko "help list names -P"

# ---- -P ----
run "-P one" 0 "$u" list --json -P 'sema:on' "$prog"
[ "$(wc -l <"$tmp/out")" -eq 1 ] && grep -q '"name":"on"' "$tmp/out" && ok ||
	ko "-P sema:on: $(cat "$tmp/out")"
run "-P twice" 0 "$u" list --json -P 'sema:on' -P 'plain' "$prog"
[ "$(grep -c '"provider"' "$tmp/out")" -eq 2 ] && ok || ko "-P twice: $(cat "$tmp/out")"
# one site matched by two filters is listed once
run "-P overlapping" 0 "$u" list --json -P 'sema:*' -P '*:on' "$prog"
[ "$(wc -l <"$tmp/out")" -eq 2 ] && ok || ko "-P overlapping: $(cat "$tmp/out")"
run "-P no match" 0 "$u" list -P 'nomatch' "$prog"
err_is "-P no match" "no probe matches"
# a glob -P (:NAME) and the long spelling
run "--probe=:of?" 0 "$u" list --json --probe=:of? "$prog"
grep -q '"name":"off"' "$tmp/out" && ok || ko "--probe=:of?"

# a name that is not a file is a missing file, never a filter: a typo in
# a file name must not silently list nothing
run "typo" 1 "$u" list "$prog" "$tmp/semma"
err_is "typo" "^usdtkit list: $tmp/semma: No such file or directory$"
[ "$(grep -c '^[a-z]' "$tmp/out")" -eq 3 ] && ok || ko "typo: the good file is still listed"
# an old positional filter is told how to say it now
run "positional filter" 1 "$u" list "$prog" 'sema:*'
err_is "positional filter" "sema:\*: No such file or directory \(a PROVIDER\[:NAME\] filter is -P 'sema:\*'\)"

# ---- -r DIR ----
tree=$tmp/tree
mkdir -p "$tree/b/deep" "$tree/a" "$tree/c"
cp "$prog" "$tree/b/deep/prog2"
cp "$prog" "$tree/a/prog1"
cp "$prog" "$tree/prog0"
printf 'not elf\n' >"$tree/a/notes.txt"
printf '#!/bin/sh\n' >"$tree/c/script"
: >"$tree/c/empty"
ln -s .. "$tree/b/up"			# a loop if links were followed
ln -s ../prog0 "$tree/a/link"		# listed once, under its own name
ln -s nowhere "$tree/c/dangling"
mkfifo "$tree/c/fifo"			# never opened: it would block
run "-r" 0 "$u" list -r --json -P 'plain:*' "$tree"
got=$(python3 -c '
import json, sys
print(" ".join(json.loads(l)["file"] for l in open(sys.argv[1])))' "$tmp/out")
want="$tree/a/prog1 $tree/b/deep/prog2 $tree/prog0"
[ "$got" = "$want" ] && ok || ko "-r order: '$got', want '$want'"
[ -s "$tmp/err" ] && ko "-r: stderr: $(cat "$tmp/err")" || ok
# the same twice
"$u" list -r "$tree" >"$tmp/out2" 2>&1
"$u" list -r "$tree" >"$tmp/out3" 2>&1
cmp -s "$tmp/out2" "$tmp/out3" && ok || ko "-r: two runs differ"
# a trailing slash gives the same paths without "//"
run "-r DIR/" 0 "$u" list -r -P 'plain:*' "$tree/"
grep -q '//' "$tmp/out" && ko "-r DIR/: a double slash" || ok
# a tree without probes, and a directory without -r
run "-r no probes" 0 "$u" list -r "$tree/c"
err_is "-r no probes" "$tree/c: no USDT probes"
run "dir without -r" 1 "$u" list "$tree"
err_is "dir without -r" "$tree: is a directory"
# an unreadable ELF file: one line naming it, the others still listed
if command -v setpriv >/dev/null && [ "$(id -u)" -eq 0 ]; then
	chmod 755 "$tmp"
	chmod -R a+rX "$tree"
	cp "$prog" "$tree/b/secret"
	chmod 000 "$tree/b/secret"
	run "-r unreadable" 1 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$u" list -r -P 'plain:*' "$tree"
	err_is "-r unreadable" "^usdtkit list: $tree/b/secret: Permission denied$"
	[ "$(grep -c '^plain:tick' "$tmp/out")" -eq 3 ] && ok || ko "-r unreadable: others"
	rm -f "$tree/b/secret"
elif [ "$(id -u)" -ne 0 ]; then
	cp "$prog" "$tree/b/secret"
	chmod 000 "$tree/b/secret"
	run "-r unreadable" 1 "$u" list -r -P 'plain:*' "$tree"
	err_is "-r unreadable" "^usdtkit list: $tree/b/secret: Permission denied$"
	rm -f "$tree/b/secret"
else
	echo "cli_list: no setpriv, unreadable file under -r not checked"
fi

# ---- -p PID: semaphore values ----
"$prog" >"$tmp/addr" &
pid=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$tmp/addr" ] && break; sleep 0.1; done
addr=$(cat "$tmp/addr")
# sema_values: "name=value" per site of provider sema, from the JSON
sema_values() {
	python3 -c '
import json, sys
out = []
for l in open(sys.argv[1]):
    s = json.loads(l)
    out.append("%s=%s" % (s["name"], s.get("semaphore_value", "none")))
print(" ".join(out))' "$tmp/out"
}
run "-p idle" 0 "$u" list --json -p "$pid" -P 'sema:*'
[ "$(sema_values)" = "on=0 off=0" ] && ok || ko "-p idle: $(sema_values)"
run "-p text idle" 0 "$u" list -p "$pid" -P 'sema:on'
grep -q "semaphore 0x[0-9a-f]* (file offset 0x[0-9a-f]*) = 0 (inactive)" "$tmp/out" &&
	ok || ko "-p text idle: $(cat "$tmp/out")"
# a probe without semaphore carries no value
run "-p plain" 0 "$u" list --json -p "$pid" -P 'plain:*'
grep -q semaphore_value "$tmp/out" && ko "-p plain: a semaphore_value" || ok
# raise sema:on to 258 (both bytes count), as tracers do through the
# kernel's ref_ctr_offset
python3 - "$pid" "$addr" <<'EOF'
import struct, sys
with open("/proc/%s/mem" % sys.argv[1], "r+b", buffering=0) as m:
    m.seek(int(sys.argv[2], 16))
    m.write(struct.pack("=H", 258))
EOF
run "-p raised" 0 "$u" list --json -p "$pid" -P 'sema:*'
[ "$(sema_values)" = "on=258 off=0" ] && ok || ko "-p raised: $(sema_values)"
run "-p text raised" 0 "$u" list -p "$pid" -P 'sema:on'
grep -q " = 258 (active)" "$tmp/out" && ok || ko "-p text raised: $(cat "$tmp/out")"
# without -p there is no process, and no value
run "file only" 0 "$u" list --json -P 'sema:*' "$prog"
grep -q semaphore_value "$tmp/out" && ko "file: a semaphore_value" || ok

# ---- --all: every process of the host that maps a probe ----
# the same process, found without its pid, with its name and the value
# its semaphore has now
run "--all" 0 "$u" list --all --json -P 'sema:on'
python3 - "$tmp/out" "$pid" <<'EOF' && ok || ko "--all: $(cat "$tmp/out")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
mine = [r for r in rows if r["pid"] == int(sys.argv[2])]
assert len(mine) == 1, rows
assert mine[0]["comm"] == "sema" and mine[0]["semaphore_value"] == 258, mine
EOF
run "--all text" 0 "$u" list --all -P 'sema:on'
grep -q "pid $pid \"sema\" at 0x[0-9a-f]*  semaphore .* = 258 (active)" "$tmp/out" && ok ||
	ko "--all text: $(cat "$tmp/out")"
run "--all and -p" 2 "$u" list --all -p "$pid"
err_is "--all and -p" "-p and --all: one or the other"
run "--all, no match" 0 "$u" list --all -P 'no_such_provider:*'
err_is "--all, no match" "no process maps a USDT probe that matches"
# a process in a chroot (maps names its file from our root) and one
# whose name is a terminal escape (comm comes from the file exec'd):
# both found, the escape never printed raw
if "$cc" -static -O1 -o "$tmp/sema_static" "$tmp/main.c" "$tmp/sema.c" 2>/dev/null; then
	mkdir -p "$tmp/box"
	cp "$tmp/sema_static" "$tmp/box/app"
	chroot "$tmp/box" /app >"$tmp/box.addr" &
	boxed=$!
	esc=$(printf 'e\033[31mx')
	ln -s "$tmp/sema" "$tmp/$esc"
	"$tmp/$esc" >/dev/null &
	escp=$!
	sleep 0.3
	run "--all: chroot and escape" 0 "$u" list --all --json -P 'sema:on'
	python3 - "$tmp/out" "$boxed" "$escp" <<'EOF' && ok || ko "--all, chroot and escape: $(cat "$tmp/out")"
import json, sys
rows = {r["pid"]: r for r in map(json.loads, open(sys.argv[1]))}
assert rows[int(sys.argv[2])]["comm"] == "app", rows
assert rows[int(sys.argv[3])]["comm"] == "e\x1b[31mx", rows
EOF
	run "--all text: escape" 0 "$u" list --all -P 'sema:on'
	grep -q "$(printf '\033')" "$tmp/out" && ko "--all: a raw escape printed" || ok
	grep -q "pid $escp \"e\\\\x1b\[31mx\"" "$tmp/out" && ok ||
		ko "--all: the escape not shown as \\x1b: $(grep "pid $escp" "$tmp/out")"
	kill "$boxed" "$escp"; wait "$boxed" "$escp" 2>/dev/null
else
	echo "cli_list: no static libc: --all in a chroot not checked"
fi
kill "$pid"; wait "$pid" 2>/dev/null; pid=

finish cli_list
