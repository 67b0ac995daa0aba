# The Debian 12 cross toolchains: cmake/toolchains/<name>.cmake includes
# this file, and <name> picks a row below: CMAKE_SYSTEM_PROCESSOR, the
# triplet (compiler prefix and /usr/<triplet> sysroot, apt: gcc-<triplet>),
# the multiarch directory (/usr/lib/<multiarch>) and the qemu-user binary
# that runs the target's tests (apt: qemu-user). See docs/ARCHES.md.
set(_row_aarch64 aarch64 aarch64-linux-gnu aarch64-linux-gnu qemu-aarch64)
set(_row_armhf armv7l arm-linux-gnueabihf arm-linux-gnueabihf qemu-arm)
set(_row_riscv64 riscv64 riscv64-linux-gnu riscv64-linux-gnu qemu-riscv64)
set(_row_s390x s390x s390x-linux-gnu s390x-linux-gnu qemu-s390x)
set(_row_i686 i686 i686-linux-gnu i386-linux-gnu qemu-i386)
set(_row_ppc64el ppc64le powerpc64le-linux-gnu powerpc64le-linux-gnu qemu-ppc64le)
set(_row_ppc64 ppc64 powerpc64-linux-gnu powerpc64-linux-gnu qemu-ppc64)

get_filename_component(USDTKIT_CROSS_NAME ${CMAKE_PARENT_LIST_FILE} NAME_WE)
if(NOT DEFINED _row_${USDTKIT_CROSS_NAME})
  message(FATAL_ERROR "no Debian cross toolchain named ${USDTKIT_CROSS_NAME}")
endif()
list(GET _row_${USDTKIT_CROSS_NAME} 0 CMAKE_SYSTEM_PROCESSOR)
list(GET _row_${USDTKIT_CROSS_NAME} 1 USDTKIT_TRIPLET)
list(GET _row_${USDTKIT_CROSS_NAME} 2 USDTKIT_MULTIARCH)
list(GET _row_${USDTKIT_CROSS_NAME} 3 USDTKIT_QEMU)

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${USDTKIT_TRIPLET}-gcc)

# Libraries and headers come from the target's sysroots only, never from
# the host's /usr/lib/x86_64-linux-gnu; programs (re2c) from the host.
# USDTKIT_CROSS_SYSROOT (optional) is an extra root holding target
# packages unpacked with dpkg -x (scripts/cross.sh), for machines whose
# apt cannot co-install them.
set(CMAKE_FIND_ROOT_PATH /usr/${USDTKIT_TRIPLET} ${USDTKIT_CROSS_SYSROOT})
# try_compile re-reads this file in the same process: without the
# sysroot it would reset the environment below.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES USDTKIT_CROSS_SYSROOT)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config must see the target's .pc files, not the host's.
set(_pc "/usr/lib/${USDTKIT_MULTIARCH}/pkgconfig")
if(USDTKIT_CROSS_SYSROOT)
  set(_pc "${USDTKIT_CROSS_SYSROOT}/usr/lib/${USDTKIT_MULTIARCH}/pkgconfig:${_pc}")
  set(ENV{PKG_CONFIG_SYSROOT_DIR} "${USDTKIT_CROSS_SYSROOT}")
endif()
set(ENV{PKG_CONFIG_LIBDIR} "${_pc}")
set(ENV{PKG_CONFIG_PATH} "")

set(_libs ${USDTKIT_CROSS_SYSROOT}/usr/lib/${USDTKIT_MULTIARCH}:${USDTKIT_CROSS_SYSROOT}/lib/${USDTKIT_MULTIARCH})

# ctest runs target programs through qemu-user with the cross sysroot as
# the dynamic loader's root (and the unpacked libelf on its path).
find_program(USDTKIT_QEMU_BIN ${USDTKIT_QEMU})
if(USDTKIT_QEMU_BIN)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${USDTKIT_QEMU_BIN} -L /usr/${USDTKIT_TRIPLET})
  if(USDTKIT_CROSS_SYSROOT)
    list(APPEND CMAKE_CROSSCOMPILING_EMULATOR -E LD_LIBRARY_PATH=${_libs})
  endif()
endif()
if(USDTKIT_CROSS_SYSROOT)
  # libelf.so.1 needs libz and libzstd (in /lib/<multiarch>) to link
  string(REPLACE ":" ",-rpath-link," _rpath "${_libs}")
  set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${_rpath}")
  set(CMAKE_SHARED_LINKER_FLAGS_INIT ${CMAKE_EXE_LINKER_FLAGS_INIT})
endif()
