# Debian 12 cross build for aarch64: aarch64-linux-gnu-gcc (apt: gcc-aarch64-linux-gnu),
# sysroot /usr/aarch64-linux-gnu,
# tests under qemu-aarch64 (apt: qemu-user). See docs/ARCHES.md.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(USDTKIT_CROSS_NAME aarch64)
set(USDTKIT_TRIPLET aarch64-linux-gnu)
set(USDTKIT_MULTIARCH aarch64-linux-gnu)
set(USDTKIT_QEMU qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
