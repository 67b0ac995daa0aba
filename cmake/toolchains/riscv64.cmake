# Debian 12 cross build for riscv64 (parse layer only: no Debian 12 libelf); the settings are the "riscv64" row of
# debian-cross.cmake. Use: cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/riscv64.cmake
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
