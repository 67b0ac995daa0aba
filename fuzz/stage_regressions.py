#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Copy a harness's regression inputs into the build tree, for replay and
as a read-only corpus: text inputs as they are, binary ones (ELF images)
from their committed hex form NAME.hex (binaries are not committed).

usage: stage_regressions.py SRC_DIR DST_DIR
"""
import binascii
import os
import shutil
import sys


def main():
    src, dst = sys.argv[1], sys.argv[2]
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    # a new harness has no regressions until it finds something
    names = sorted(os.listdir(src)) if os.path.isdir(src) else []
    for name in names:
        path = os.path.join(src, name)
        if name.endswith(".hex"):
            with open(path) as f:
                data = binascii.unhexlify("".join(f.read().split()))
            with open(os.path.join(dst, name[:-4]), "wb") as f:
                f.write(data)
        else:
            shutil.copyfile(path, os.path.join(dst, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
