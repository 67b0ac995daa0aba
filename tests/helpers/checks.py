# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The Python tests' counters, as check.sh's ok/ko and finish are the
shell tests'."""


class Checks:
    """passed/failed counters: check(cond, what) prints what failed and
    returns cond; finish(name) prints the closing line and returns the
    exit status (1 if any failed or none passed: a test that checked
    nothing has not passed)"""

    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL:", what)
        return cond

    def finish(self, name):
        print("%s: %d passed, %d failed" % (name, self.passed, self.failed))
        return 1 if self.failed or not self.passed else 0
