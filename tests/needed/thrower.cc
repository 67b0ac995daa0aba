// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// The command of tests/cli_trace_needed.sh's libstdc++ case: throws and
// catches K exceptions (usage: thrower K). libstdc++'s libstdcxx:throw
// and libstdcxx:catch probes are in libstdc++.so.6, not in this file.
#include <cstdlib>
#include <stdexcept>

int main(int argc, char **argv)
{
	int k = argc > 1 ? std::atoi(argv[1]) : 1;

	for (int i = 0; i < k; i++) {
		try {
			throw std::runtime_error("usdtkit");
		} catch (const std::exception &) {
		}
	}
	return 0;
}
