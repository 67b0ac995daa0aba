# Cross build for big-endian ppc64 (ELFv1) with Debian 12's powerpc64-linux-gnu-gcc; the
# settings are the "ppc64" row of debian-cross.cmake. ppc64 is a Debian port, not a
# Debian 12 architecture: no libelf or libbpf for it here, so build with
# -DUSDTKIT_WITH_ELF=OFF -DUSDTKIT_WITH_BPF=OFF (docs/ARCHES.md).
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
