# Debian 12 cross build for i686: i686-linux-gnu-gcc (apt: gcc-i686-linux-gnu),
# sysroot /usr/i686-linux-gnu,
# tests under qemu-i386 (apt: qemu-user). See docs/ARCHES.md.
set(CMAKE_SYSTEM_PROCESSOR i686)
set(USDTKIT_CROSS_NAME i686)
set(USDTKIT_TRIPLET i686-linux-gnu)
set(USDTKIT_MULTIARCH i386-linux-gnu)
set(USDTKIT_QEMU qemu-i386)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
