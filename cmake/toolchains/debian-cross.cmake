# Shared part of the Debian 12 cross toolchain files: the including file
# sets CMAKE_SYSTEM_PROCESSOR, USDTKIT_TRIPLET (the compiler prefix and
# /usr/<triplet> sysroot), USDTKIT_MULTIARCH (/usr/lib/<multiarch>, where
# `apt-get install libelf-dev:ARCH` puts the target's libelf) and
# USDTKIT_QEMU (the qemu-user binary that runs the target's tests).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${USDTKIT_TRIPLET}-gcc)

# Libraries and headers come from the target's sysroots only, never from
# the host's /usr/lib/x86_64-linux-gnu; programs (re2c) from the host.
# USDTKIT_CROSS_SYSROOT (optional) is an extra root holding target
# packages unpacked with dpkg -x (scripts/cross.sh), for machines whose
# apt cannot co-install them.
set(CMAKE_FIND_ROOT_PATH /usr/${USDTKIT_TRIPLET} ${USDTKIT_CROSS_SYSROOT})
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

# ctest runs target programs through qemu-user with the cross sysroot as
# the dynamic loader's root.
find_program(USDTKIT_QEMU_BIN ${USDTKIT_QEMU})
if(USDTKIT_QEMU_BIN)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${USDTKIT_QEMU_BIN} -L /usr/${USDTKIT_TRIPLET})
endif()
