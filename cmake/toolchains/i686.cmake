# Debian 12 cross build for i686 (i386); the settings are the "i686" row of
# debian-cross.cmake. Use: cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/i686.cmake
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
