# Debian 12 cross build for armhf (ARMv7 hard-float, Thumb-2); the settings are the "armhf" row of
# debian-cross.cmake. Use: cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/armhf.cmake
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
