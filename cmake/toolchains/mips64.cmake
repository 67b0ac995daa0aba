# Cross build for big-endian mips64 (n64) with Debian 12's compiler. mips64 is
# no Debian 12 architecture: there is no libelf or libbpf to link, so build
# with -DUSDTKIT_WITH_ELF=OFF (docs/ARCHES.md). Settings: the "mips64" row of
# debian-cross.cmake.
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
