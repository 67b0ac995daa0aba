# Debian 12 cross build for mips64el (n64, little-endian); the settings are the
# "mips64el" row of debian-cross.cmake. Use: cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/mips64el.cmake
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
