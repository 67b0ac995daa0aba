// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// C++ with exceptions for test_cfi's readelf oracle: personality and
// LSDA augmentations ("zPLR"), landing pads, -O2 -fomit-frame-pointer.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

__attribute__((noinline)) static int thrower(int n)
{
	if (n % 3 == 0)
		throw std::runtime_error("three: " + std::to_string(n));
	return n * 2;
}

__attribute__((noinline)) int catcher(int n)
{
	std::vector<std::string> v;

	for (int i = 0; i < n; i++) {
		try {
			v.push_back(std::to_string(thrower(i)));
		} catch (const std::exception &e) {
			v.emplace_back(e.what());
		}
	}
	return static_cast<int>(v.size());
}

int main(int argc, char **)
{
	std::printf("%d\n", catcher(argc + 5));
	return 0;
}
