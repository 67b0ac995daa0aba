#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Every options struct the tree declares is zero in its padding.

The library refuses a non-zero byte past the last field it knows
(core/base/opts.h), and C leaves the padding of `struct T o = { .sz = ... }`
unspecified: clang does not clear it. So an object of an options type
(each `struct usdtkit_*` whose header defines TYPE__last_field) may only
be made
- by USDTKIT_OPTS(TYPE, name, ...), or
- declared without an initializer, its first use being
  `memset(&name, 0, ...)` or the library's `usdtkit__opts_copy(&name, ...)`
  (which starts with a memset).
Struct members and pointers are not objects of their own: the object that
holds a member is zeroed by its own declaration (calloc, memset). Anything
else is an error: an initializer, a copy, a compound literal, a function
or parameter passing one by value.

The check reads the source (every C and C++ file git tracks, or the
files given), not a list of files that use options. The options types
are found the same way: every TYPE__last_field a header defines.

usage: opts_decl.py ROOT [FILE...]   0 clean, 1 with one line per offence
       opts_decl.py --selftest        the checker against known forms
"""
import os
import re
import subprocess
import sys

EXTS = (".c", ".h", ".cpp", ".cc", ".hpp")
TOKEN = re.compile(r"""
    (?P<skip>//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<pp>^[ \t]*\#(?:\\\n|[^\n])*)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<num>\d\w*)
  | (?P<op>->|\S)
""", re.S | re.M | re.X)
ZEROERS = ("memset", "usdtkit__opts_copy")
# the macros that may name an options type bare: the library's copy and
# its size arithmetic (core/base/opts.h); any other (LIBBPF_OPTS, a macro of
# one's own) is a form this check cannot follow
TYPE_MACROS = ("usdtkit__opts_copy", "usdtkit__opts_known", "sizeof",
               "offsetof")
AGGREGATE = ("struct", "union")


def opts_types(root, files):
    """the options types: those a header of the tree names a last field
    of (TYPE__last_field, which core/base/opts.h's copy needs)"""
    names = set()
    for f in files:
        if f.endswith((".h", ".hpp")):
            with open(os.path.join(root, f), encoding="utf-8") as h:
                names |= set(re.findall(r"#define\s+(\w+)__last_field\b",
                                        h.read()))
    return names


def tokens(text):
    """(kind, text, line) of the C tokens; comments, strings and the
    preprocessor's lines dropped (a macro's body is checked where used)"""
    out = []
    for m in TOKEN.finditer(text):
        kind = m.lastgroup
        if kind in ("skip", "pp"):
            continue
        out.append((kind, m.group(), text.count("\n", 0, m.start()) + 1))
    return out


def contexts(toks):
    """for each token: whether it sits directly in a struct/union body,
    and whether it is inside parentheses (a parameter list, a cast, a
    macro's arguments)"""
    stack, parens, in_body, in_paren = [], 0, [], []
    for i, (_, t, _) in enumerate(toks):
        in_body.append(bool(stack) and stack[-1])
        in_paren.append(parens > 0)
        if t == "{":
            # `struct [tag] {`: a body of members; anything else a block
            # or an initializer (whose parentheses are closed)
            j = i - 1
            if j >= 0 and toks[j][0] == "id" and toks[j][1] not in AGGREGATE:
                j -= 1
            stack.append(j >= 0 and toks[j][1] in AGGREGATE)
        elif t == "}" and stack:
            stack.pop()
        elif t == "(":
            parens += 1
        elif t == ")" and parens:
            parens -= 1
        elif t == ";":
            parens = 0
    return in_body, in_paren


def first_use_zeroes(toks, i, name):
    """the first use of @name after token @i is ZERO(&name, or ZERO(name,
    (`*p = &name` in the same declaration names it, it does not use it)"""
    decl = True
    for j in range(i, len(toks)):
        decl = decl and toks[j][1] != ";"
        if toks[j][1] != name:
            continue
        if decl and toks[j - 1][1] == "&" and toks[j - 2][1] == "=":
            continue
        k = j - 1
        if toks[k][1] == "&":
            k -= 1
        return toks[k][1] == "(" and toks[k - 1][1] in ZEROERS
    return False


def declarators(toks, i, t):
    """@toks[i] names an object of @t with no initializer: it and the
    rest of its declaration (`T a, *p = &a, b;`), each zeroed first"""
    bad, depth, j = [], 0, i
    while j < len(toks) and toks[j][1] != ";":
        tk, line = toks[j][1], toks[j][2]
        depth += tk in "([{"
        depth -= tk in ")]}"
        is_name = j == i or (depth == 0 and toks[j - 1][1] == "," and
                             toks[j][0] == "id")
        if is_name:
            name, after = tk, toks[j + 1][1]
            if after in ("=", "{"):
                bad.append((line, "%s %s declared with an initializer "
                            "(padding unspecified): use USDTKIT_OPTS()"
                            % (t, name)))
            elif not first_use_zeroes(toks, j + 1, name):
                bad.append((line, "%s %s used before a memset() or "
                            "usdtkit__opts_copy()" % (t, name)))
        j += 1
    return bad


def check(path, text, types):
    toks = tokens(text)
    in_body, in_paren = contexts(toks)
    n = len(toks)

    def tok(j):
        return toks[j][1] if 0 <= j < n else ""

    bad = []
    for i, (kind, t, line) in enumerate(toks):
        if kind != "id" or t not in types:
            continue
        tagged = tok(i - 1) == "struct"
        p = i - 2 if tagged else i - 1	# the token before [struct] TYPE
        nxt = tok(i + 1)
        if tok(p) == "(" and tok(p - 1) == "USDTKIT_OPTS":
            continue			# USDTKIT_OPTS(TYPE, name, ...)
        if tok(p) == "(" and tok(p - 1) in ("sizeof", "offsetof"):
            continue
        if nxt in ("{", "*", "&", "::", "__last_field"):
            continue			# a definition, a pointer, a reference
        if tok(p) == "(" and nxt == ")":
            if tagged and tok(i + 2) == "{":
                bad.append((line, "a compound literal of %s (padding "
                            "unspecified): use USDTKIT_OPTS()" % t))
            elif tagged and tok(p - 1) not in ("sizeof", "alignof",
                                               "_Alignof"):
                bad.append((line, "a cast to %s" % t))
            continue			# sizeof, or a macro's argument
        if not tagged and tok(p) in (",", "(") and nxt in (",", ")"):
            k, depth = p, 0		# the macro whose argument it is
            while k >= 0 and not (tok(k) == "(" and depth == 0):
                depth += tok(k) == ")"
                depth -= tok(k) == "(" and depth > 0
                k -= 1
            if tok(k - 1) not in TYPE_MACROS:
                bad.append((line, "%s named in %s(): use USDTKIT_OPTS()"
                            % (t, tok(k - 1))))
            continue
        if toks[i + 1][0] != "id":
            if tagged:
                bad.append((line, "%s: a form this check does not know" % t))
            continue
        name, after = nxt, tok(i + 2)
        if in_body[i]:
            continue			# a member
        if after == "(":
            bad.append((line, "%s %s() returns one by value" % (t, name)))
        elif in_paren[i]:
            bad.append((line, "%s %s passed by value" % (t, name)))
        elif after in ("=", "{"):
            bad.append((line, "%s %s declared with an initializer "
                        "(padding unspecified): use USDTKIT_OPTS()"
                        % (t, name)))
        elif after in (";", "[", ","):
            bad += declarators(toks, i + 1, t)
        else:
            bad.append((line, "%s %s: a form this check does not know"
                        % (t, name)))
    return ["%s:%d: %s" % (path, line, why) for line, why in bad]


def tracked(root):
    """the C and C++ files git tracks; without git (a source package),
    every one under @root but build trees"""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files"],
                             capture_output=True, text=True,
                             check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        out = []
        for d, dirs, files in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith((".", "build",
                                                            "obj-"))]
            out += [os.path.relpath(os.path.join(d, f), root) for f in files]
    return sorted(f for f in out if f.endswith(EXTS))


SELFTEST_TYPES = {"usdtkit_x_opts"}
SELFTEST_GOOD = """
struct usdtkit_x_opts { size_t sz; bool b; size_t :0; };
#define usdtkit_x_opts__last_field b
struct holder { struct usdtkit_x_opts o; int n; };
int f(const struct usdtkit_x_opts *p, size_t n)
{
	USDTKIT_OPTS(usdtkit_x_opts, a, .b = 1);
	struct usdtkit_x_opts m;
	struct usdtkit_x_opts c, *pc = &c;
	int e = usdtkit__opts_copy(&c, usdtkit_x_opts, p);

	memset(&m, 0, sizeof(m));
	m.sz = sizeof(m);
	return g(&a, sizeof(struct usdtkit_x_opts), &m, pc, e, n,
		 usdtkit__opts_known(usdtkit_x_opts));
}
"""
SELFTEST_BAD = [
    "void f(void) { struct usdtkit_x_opts o = { .sz = sizeof(o) }; g(&o); }",
    "void f(void) { struct usdtkit_x_opts o = {\n .sz = 8,\n}; g(&o); }",
    "void f(void) { g(&(struct usdtkit_x_opts){ .sz = 8 }); }",
    "void f(void) { struct usdtkit_x_opts o; o.sz = sizeof(o); g(&o); }",
    "void f(void) { struct usdtkit_x_opts o = other; g(&o); }",
    "static struct usdtkit_x_opts named(int n) { return x; }",
    "void f(struct usdtkit_x_opts o) { g(&o); }",
    "void f() { usdtkit_x_opts o{}; g(&o); }",
    "void f() { usdtkit_x_opts o = {}; g(&o); }",
    "void f(void) { LIBBPF_OPTS(usdtkit_x_opts, o, .b = 1); g(&o); }",
    "void f(void) { struct usdtkit_x_opts a, b = { 8 };\n"
    " memset(&a, 0, sizeof(a)); g(&a, &b); }",
    "void f(void) { struct usdtkit_x_opts a, *p = &a, b;\n"
    " memset(&a, 0, sizeof(a)); g(p, &b); }",
    "void f(void) { struct usdtkit_x_opts o; h(&o); g(&o); }",
]


def selftest():
    fails = 0
    if check("good.c", SELFTEST_GOOD, SELFTEST_TYPES):
        print("selftest: FAIL: the good forms were refused:",
              check("good.c", SELFTEST_GOOD, SELFTEST_TYPES))
        fails += 1
    for n, src in enumerate(SELFTEST_BAD):
        if not check("bad%d.c" % n, src, SELFTEST_TYPES):
            print("selftest: FAIL: not refused: %s" % src)
            fails += 1
    print("selftest: %d good forms, %d bad forms, %d failed"
          % (1, len(SELFTEST_BAD), fails))
    return 1 if fails else 0


def main(argv):
    if argv[1:] == ["--selftest"]:
        return selftest()
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    root = argv[1]
    files = argv[2:] or tracked(root)
    types = opts_types(root, tracked(root))
    if not types:
        print("opts_decl: no TYPE__last_field in the headers of %s" % root)
        return 1
    bad = []
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8") as fh:
            bad += check(f, fh.read(), types)
    for b in bad:
        print(b)
    print("opts_decl: %d files, %d options types (%s), %d offences"
          % (len(files), len(types), " ".join(sorted(types)), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
