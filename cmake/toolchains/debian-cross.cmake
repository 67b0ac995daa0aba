# The Debian 12 cross toolchains, one per architecture manifest with a
# "cross" key (arch/<dir>/manifest.ini). Use:
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/debian-cross.cmake \
#         -DUSDTKIT_CROSS_NAME=<cross>        (aarch64, armhf, i686, ...)
# The manifest gives CMAKE_SYSTEM_PROCESSOR ("processor"), the triplet
# (compiler prefix and /usr/<triplet> sysroot, apt: gcc-<triplet>), the
# multiarch directory ("multiarch", default the triplet) and the qemu-user
# binary that runs the target's tests ("qemu"). See docs/ARCHES.md.
include(${CMAKE_CURRENT_LIST_DIR}/../ArchManifest.cmake)
if(NOT USDTKIT_CROSS_NAME)
  message(FATAL_ERROR "debian-cross.cmake needs -DUSDTKIT_CROSS_NAME=<cross>")
endif()
usdtkit_archinfo(_target find cross ${USDTKIT_CROSS_NAME})
if(NOT _target)
  message(FATAL_ERROR "no architecture manifest has cross = ${USDTKIT_CROSS_NAME}")
endif()
foreach(_k processor triplet multiarch qemu)
  usdtkit_archinfo(_m_${_k} get ${_target} ${_k} -)
  if(_m_${_k} STREQUAL "-")
    set(_m_${_k} "")
  endif()
endforeach()
set(CMAKE_SYSTEM_PROCESSOR ${_m_processor})
set(USDTKIT_TRIPLET ${_m_triplet})
set(USDTKIT_MULTIARCH ${_m_multiarch})
if(NOT USDTKIT_MULTIARCH)
  set(USDTKIT_MULTIARCH ${USDTKIT_TRIPLET})
endif()
set(USDTKIT_QEMU ${_m_qemu})
set(USDTKIT_CROSS_TARGET ${_target})

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
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES USDTKIT_CROSS_SYSROOT
  USDTKIT_CROSS_NAME)
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
# the dynamic loader's root (and the unpacked libelf on its path). A
# target without "qemu" is the host's own architecture (x86_64, built
# for the VM proof): its programs run as they are, through env for the
# sysroot's library path.
if(USDTKIT_QEMU)
  find_program(USDTKIT_QEMU_BIN ${USDTKIT_QEMU})
  if(USDTKIT_QEMU_BIN)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${USDTKIT_QEMU_BIN} -L /usr/${USDTKIT_TRIPLET})
    if(USDTKIT_CROSS_SYSROOT)
      list(APPEND CMAKE_CROSSCOMPILING_EMULATOR -E LD_LIBRARY_PATH=${_libs})
    endif()
  endif()
else()
  find_program(USDTKIT_QEMU_BIN env)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${USDTKIT_QEMU_BIN})
  if(USDTKIT_CROSS_SYSROOT)
    list(APPEND CMAKE_CROSSCOMPILING_EMULATOR LD_LIBRARY_PATH=${_libs})
  endif()
endif()
if(USDTKIT_CROSS_SYSROOT)
  # libelf.so.1 needs libz and libzstd (in /lib/<multiarch>) to link
  string(REPLACE ":" ",-rpath-link," _rpath "${_libs}")
  set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${_rpath}")
  set(CMAKE_SHARED_LINKER_FLAGS_INIT ${CMAKE_EXE_LINKER_FLAGS_INIT})
endif()
