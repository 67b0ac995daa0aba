# Debian 12 cross build for s390x (big-endian); the settings are the "s390x" row of
# debian-cross.cmake. Use: cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/s390x.cmake
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
