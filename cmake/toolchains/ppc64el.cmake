# Debian 12 cross build for ppc64el (little-endian, ELFv2); the settings are the "ppc64el" row of
# debian-cross.cmake. Use: cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/ppc64el.cmake
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
