# Debian 12 cross build for aarch64 (arm64); the settings are the "aarch64" row of
# debian-cross.cmake. Use: cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64.cmake
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
