#!/usr/bin/env python3
"""Write a C program with many USDT probe sites (tests and bench).

gen_probes.py sites N OUT.c
    one probe, many:site, with N sites, each passing its own constant
    (N distinct specs: the maps must hold them all)
gen_probes.py probes P S OUT.c
    P probes gen:pI over S sites in all (the first S - P probes get a
    second site), like a language runtime's library

The program fires every site ROUNDS times (argv[1], default 1) after a
line on stdin (so a tracer can attach first), then exits.
"""
import sys


def body(sites):
    out = ['#include <stdio.h>', '#include <stdlib.h>', '#include <sys/sdt.h>',
           '', 'static void fire(void)', '{']
    for prov, name, arg in sites:
        out.append('\tDTRACE_PROBE1(%s, %s, %d);' % (prov, name, arg))
    out += ['}', '', 'int main(int argc, char **argv)', '{',
            '\tint r, rounds = argc > 1 ? atoi(argv[1]) : 1;',
            '\tchar line[16];', '',
            '\tif (!fgets(line, sizeof(line), stdin))', '\t\treturn 1;',
            '\tfor (r = 0; r < rounds; r++)', '\t\tfire();', '\treturn 0;',
            '}', '']
    return '\n'.join(out)


def main(argv):
    if len(argv) == 4 and argv[1] == 'sites':
        n = int(argv[2])
        sites = [('many', 'site', 1000 + i) for i in range(n)]
    elif len(argv) == 5 and argv[1] == 'probes':
        p, s = int(argv[2]), int(argv[3])
        sites = [('gen', 'p%d' % i, i) for i in range(p)]
        sites += [('gen', 'p%d' % i, -i) for i in range(s - p)]
    else:
        sys.exit(__doc__)
    open(argv[-1], 'w').write(body(sites))


if __name__ == '__main__':
    main(sys.argv)
