# BPF programs: compiled with clang -target bpf at build time and embedded
# in C as bpftool skeletons (NAME.skel.h). Nothing generated is committed.
find_program(USDTKIT_CLANG NAMES clang clang-16 clang-15 clang-14 REQUIRED)
find_program(USDTKIT_BPFTOOL NAMES bpftool PATHS /usr/sbin /usr/local/sbin REQUIRED)

# __TARGET_ARCH_* for bpf_tracing.h, and the multiarch include dir that
# holds <asm/...> for the target (the BPF program runs in its kernel).
# i386 also needs __i386__: bpf_tracing.h and usdtkit.bpf.h tell the
# 32-bit kernel's pt_regs from x86-64's by it.
set(USDTKIT_BPF_DEFS)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  set(USDTKIT_BPF_ARCH x86)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^i.86$")
  set(USDTKIT_BPF_ARCH x86)
  set(USDTKIT_BPF_DEFS -D__i386__)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  set(USDTKIT_BPF_ARCH arm64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^arm")
  set(USDTKIT_BPF_ARCH arm)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "riscv64")
  set(USDTKIT_BPF_ARCH riscv)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "s390x")
  set(USDTKIT_BPF_ARCH s390)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(ppc64|powerpc64)")
  set(USDTKIT_BPF_ARCH powerpc)
else()
  message(FATAL_ERROR "no BPF target arch for ${CMAKE_SYSTEM_PROCESSOR}: "
    "build with -DUSDTKIT_BPF_PROGRAMS=OFF")
endif()
execute_process(COMMAND ${CMAKE_C_COMPILER} -print-multiarch
  OUTPUT_VARIABLE USDTKIT_MULTIARCH OUTPUT_STRIP_TRAILING_WHITESPACE
  ERROR_QUIET)
# BPF objects take the target's byte order (s390x: big-endian). bpftool
# makes skeletons only of objects in the host's byte order (Debian 12's
# 7.1 says "Endian mismatch"), so a cross build to the other order also
# compiles a host-order twin for bpftool and embeds the target's bytes in
# its skeleton (BpfSkelBytes.cmake). The twin differs only in byte
# order: same maps, programs and sections, so the same skeleton code.
if(CMAKE_C_BYTE_ORDER STREQUAL "BIG_ENDIAN")
  set(USDTKIT_BPF_TARGET bpfeb)
else()
  set(USDTKIT_BPF_TARGET bpfel)
endif()
if(CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "s390x|ppc64$|mips64$|sparc")
  set(USDTKIT_BPF_HOST_TARGET bpfeb)
else()
  set(USDTKIT_BPF_HOST_TARGET bpfel)
endif()
find_program(USDTKIT_LLVM_STRIP NAMES llvm-strip llvm-strip-16 llvm-strip-15
  llvm-strip-14 REQUIRED)

# a Debian cross build (cmake/toolchains/) has the target's <asm/...> in
# its sysroot, not in /usr/include/<multiarch>
set(USDTKIT_BPF_ASM_INC /usr/include/${USDTKIT_MULTIARCH})
if(CMAKE_CROSSCOMPILING AND USDTKIT_TRIPLET)
  set(USDTKIT_BPF_ASM_INC /usr/${USDTKIT_TRIPLET}/include)
endif()

# usdtkit_bpf_skeleton(NAME SOURCE [DEPENDS ...]): NAME.bpf.o and
# NAME.skel.h in the current binary dir; adds target NAME_skel. Extra
# compiler flags come from the variable USDTKIT_BPF_FLAGS_<NAME>. The
# object keeps its BTF but not its DWARF (llvm-strip -g): libbpf needs
# the one, a board's flash has no use for the other.
function(usdtkit_bpf_skeleton name src)
  set(obj ${CMAKE_CURRENT_BINARY_DIR}/${name}.bpf.o)
  set(skel ${CMAKE_CURRENT_BINARY_DIR}/${name}.skel.h)
  set(cflags -g -O2 -Wall -Werror -D__TARGET_ARCH_${USDTKIT_BPF_ARCH}
    ${USDTKIT_BPF_DEFS} -I${PROJECT_SOURCE_DIR}/include
    -I${CMAKE_CURRENT_SOURCE_DIR} -I${USDTKIT_BPF_ASM_INC}
    ${USDTKIT_BPF_FLAGS_${name}})
  set(deps ${src} ${PROJECT_SOURCE_DIR}/include/usdtkit/usdtkit.bpf.h
    ${PROJECT_SOURCE_DIR}/include/usdtkit/bpf_spec.h ${ARGN})
  add_custom_command(OUTPUT ${obj}
    COMMAND ${USDTKIT_CLANG} -target ${USDTKIT_BPF_TARGET} ${cflags}
            -c ${src} -o ${obj}
    COMMAND ${USDTKIT_LLVM_STRIP} -g ${obj}
    DEPENDS ${deps}
    COMMENT "BPF ${name} (${USDTKIT_BPF_TARGET})"
    VERBATIM)
  if(USDTKIT_BPF_TARGET STREQUAL USDTKIT_BPF_HOST_TARGET)
    add_custom_command(OUTPUT ${skel}
      COMMAND ${USDTKIT_BPFTOOL} gen skeleton ${obj} name ${name} > ${skel}
      DEPENDS ${obj}
      COMMENT "skeleton ${name}.skel.h"
      VERBATIM)
  else()
    set(twin ${CMAKE_CURRENT_BINARY_DIR}/${name}.${USDTKIT_BPF_HOST_TARGET}.o)
    add_custom_command(OUTPUT ${skel}
      COMMAND ${USDTKIT_CLANG} -target ${USDTKIT_BPF_HOST_TARGET} ${cflags}
              -c ${src} -o ${twin}
      COMMAND ${USDTKIT_LLVM_STRIP} -g ${twin}
      COMMAND ${USDTKIT_BPFTOOL} gen skeleton ${twin} name ${name} > ${skel}.twin
      COMMAND ${CMAKE_COMMAND} -DNAME=${name} -DSKEL_IN=${skel}.twin
              -DOBJ=${obj} -DSKEL_OUT=${skel}
              -P ${PROJECT_SOURCE_DIR}/cmake/BpfSkelBytes.cmake
      DEPENDS ${obj} ${deps} ${PROJECT_SOURCE_DIR}/cmake/BpfSkelBytes.cmake
      COMMENT "skeleton ${name}.skel.h (${USDTKIT_BPF_TARGET} bytes, ${USDTKIT_BPF_HOST_TARGET} twin)"
      VERBATIM)
  endif()
  add_custom_target(${name}_skel DEPENDS ${skel})
endfunction()
