# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
The architecture manifests, as the Python tests see them: a thin wrapper
around scripts/archinfo (their only reader; nothing here parses an ini).

    import archinfo
    archinfo.targets("fixture_cc", "elf_class")
        -> {"x86_64": {"dir": "x86", "fixture_cc": "gcc",
                       "elf_class": "64"}, ...}   (registry order; a key
                                                    the manifest lacks is None)
    archinfo.dirs() -> ["x86", "arm64", ...]

ARCHINFO (environment) names another scripts/archinfo; ARCHINFO_ARCH_DIR
another arch/ tree (archinfo -C).
"""
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.environ.get("ARCHINFO") or os.path.join(HERE, "..", "..",
                                                    "scripts", "archinfo")


def _run(*args):
    cmd = ["sh", SCRIPT]
    if os.environ.get("ARCHINFO_ARCH_DIR"):
        cmd += ["-C", os.environ["ARCHINFO_ARCH_DIR"]]
    p = subprocess.run(cmd + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError("scripts/archinfo %s failed (%d): %s"
                           % (" ".join(args), p.returncode, p.stderr.strip()))
    return p.stdout.splitlines()


def dirs():
    return _run("dirs")


def targets(*keys):
    """Every target, in registry order, with its folder and @keys."""
    out = {}
    for line in _run("table", *keys):
        f = line.split("\t")
        row = {"dir": f[1]}
        for k, v in zip(keys, f[2:]):
            row[k] = None if v == "-" else v
        out[f[0]] = row
    return out


def having(key, *keys):
    """The targets whose manifest has @key, with @key and @keys."""
    return {t: r for t, r in targets(key, *keys).items() if r[key] is not None}
