# Debian 12 cross build for riscv64: riscv64-linux-gnu-gcc (apt: gcc-riscv64-linux-gnu),
# sysroot /usr/riscv64-linux-gnu,
# tests under qemu-riscv64 (apt: qemu-user). See docs/ARCHES.md.
set(CMAKE_SYSTEM_PROCESSOR riscv64)
set(USDTKIT_CROSS_NAME riscv64)
set(USDTKIT_TRIPLET riscv64-linux-gnu)
set(USDTKIT_MULTIARCH riscv64-linux-gnu)
set(USDTKIT_QEMU qemu-riscv64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
