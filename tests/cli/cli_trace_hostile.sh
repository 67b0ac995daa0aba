#!/bin/sh
# usdtkit trace on tests/fixtures/fx_mixed.c, live (root, BPF):
# - mixed:val has an int site and a long site: every hit is printed at the
#   width and sign of the site that fired, in JSON and in text;
# - a copy whose probe names hold terminal control characters: neither
#   the hits nor the messages (-v) pass one to the terminal or forge a line.
# usage: cli_trace_hostile.sh USDTKIT FX_MIXED
set -u
u=$1 fx=$2

. "$(dirname "$0")/../helpers/trace_run.sh"

# ---- mixed widths ----
if run_traced "$fx" 2 "$tmp/mixed.json" "$tmp/mixed.err" --json --count 12 \
	"$fx:mixed:val"; then ok; else ko "mixed: trace exit $?"; cat "$tmp/mixed.err"; fi
if python3 - "$tmp/mixed.json" <<'PY'; then ok; else ko "mixed: values"; fi
import json, sys
vals = [json.loads(l)["args"][0] for l in open(sys.argv[1])]
want = [2147483647, 5000000000, -5, 2147483648, -2147483648, -5000000000] * 2
assert vals == want, "got %r, want %r" % (vals, want)
PY
if run_traced "$fx" 1 "$tmp/mixed.txt" "$tmp/mixed2.err" --count 6 \
	"$fx:mixed:val"; then ok; else ko "mixed text: exit $?"; fi
if grep -q "mixed:val(s64 5000000000)" "$tmp/mixed.txt" &&
	grep -q "mixed:val(s32 -5)" "$tmp/mixed.txt" &&
	grep -q "mixed:val(s64 -5000000000)" "$tmp/mixed.txt"; then ok; else
	ko "mixed text:"; cat "$tmp/mixed.txt"; fi

# ---- -p: the process's last hits before it exits are all printed ----
if run_traced "$fx" 50 "$tmp/last.json" "$tmp/last.err" --json -p @PID \
	mixed:val; then ok; else ko "-p until exit: trace exit $rc"; cat "$tmp/last.err"; fi
[ "$(wc -l <"$tmp/last.json")" -eq 300 ] && ok ||
	ko "-p until exit: $(wc -l <"$tmp/last.json") hits, want 300"
grep -q "pid [0-9]* exited" "$tmp/last.err" && ok || { ko "-p: no exit line"; cat "$tmp/last.err"; }

# ---- hostile names: same lengths, so the note stays well-formed ----
python3 - "$fx" "$tmp/hostile" <<'PY'
import sys
img = open(sys.argv[1], "rb").read()
old = b"hostileprovider\0hostilenamexxxxxxxxxx\0"
new = b"h\x1b]0;pwned\x07xxxx\0\n 9.000 pid 1 x\x1b[2J\r\x7f\0"
assert len(old) == len(new) and img.count(old) == 1
open(sys.argv[2], "wb").write(img.replace(old, new))
PY
chmod +x "$tmp/hostile"
probes=2 run_traced "$tmp/hostile" 2 "$tmp/h.txt" "$tmp/h.err" --best-effort \
	--count 14 "$tmp/hostile:*:*"
rc=$?
[ $rc -eq 0 ] && ok || { ko "hostile: trace exit $rc"; cat "$tmp/h.err"; }
# nothing below 0x20 but newlines, no DEL, on stdout or stderr
for f in "$tmp/h.txt" "$tmp/h.err"; do
	if LC_ALL=C tr -d '\n' <"$f" | LC_ALL=C grep -q '[[:cntrl:]]'; then
		ko "control character in $(basename "$f"):"; od -c "$f" | head
	else ok; fi
done
# one line per hit: the forged line did not appear
[ "$(wc -l <"$tmp/h.txt")" -eq 14 ] && ok || { ko "hostile: lines"; cat "$tmp/h.txt"; }
grep -q 'h\\x1b]0;pwned\\x07xxxx:\\x0a 9.000 pid 1 x\\x1b\[2J\\x0d\\x7f(s32 1)' "$tmp/h.txt" &&
	ok || { ko "hostile: escaped name"; cat "$tmp/h.txt"; }
grep -q 'h\\x1b]0;pwned' "$tmp/h.err" && ok || { ko "hostile: -v names it"; cat "$tmp/h.err"; }
# JSON carries the names exactly, as JSON escapes
probes=2 run_traced "$tmp/hostile" 1 "$tmp/h.json" "$tmp/hj.err" --best-effort \
	--json --count 7 "$tmp/hostile:*:*"
if python3 - "$tmp/h.json" <<'PY'; then ok; else ko "hostile json"; fi
import json, sys
names = {(e["provider"], e["name"]) for e in map(json.loads, open(sys.argv[1]))}
assert ("h\x1b]0;pwned\x07xxxx", "\n 9.000 pid 1 x\x1b[2J\r\x7f") in names, names
PY

finish
