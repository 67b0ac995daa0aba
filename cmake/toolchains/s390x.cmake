# Debian 12 cross build for s390x: s390x-linux-gnu-gcc (apt: gcc-s390x-linux-gnu),
# sysroot /usr/s390x-linux-gnu,
# tests under qemu-s390x (apt: qemu-user). See docs/ARCHES.md.
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(USDTKIT_CROSS_NAME s390x)
set(USDTKIT_TRIPLET s390x-linux-gnu)
set(USDTKIT_MULTIARCH s390x-linux-gnu)
set(USDTKIT_QEMU qemu-s390x)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
