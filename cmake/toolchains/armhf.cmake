# Debian 12 cross build for armhf: arm-linux-gnueabihf-gcc (apt: gcc-arm-linux-gnueabihf),
# sysroot /usr/arm-linux-gnueabihf,
# tests under qemu-arm (apt: qemu-user). See docs/ARCHES.md.
set(CMAKE_SYSTEM_PROCESSOR armv7l)
set(USDTKIT_CROSS_NAME armhf)
set(USDTKIT_TRIPLET arm-linux-gnueabihf)
set(USDTKIT_MULTIARCH arm-linux-gnueabihf)
set(USDTKIT_QEMU qemu-arm)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
