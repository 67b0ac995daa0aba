# BPF programs: compiled with clang -target bpf at build time and embedded
# in C as bpftool skeletons (NAME.skel.h). Nothing generated is committed.
find_program(USDTKIT_CLANG NAMES clang clang-16 clang-15 clang-14 REQUIRED)
find_program(USDTKIT_BPFTOOL NAMES bpftool PATHS /usr/sbin /usr/local/sbin REQUIRED)

# __TARGET_ARCH_* for bpf_tracing.h (the manifest's bpf_arch, plus its
# bpf_defs: i386 needs __i386__, by which bpf_tracing.h and usdtkit.bpf.h
# tell the 32-bit kernel's pt_regs from x86-64's), for the cross target
# or for the native one (the manifest whose "processor" is this machine's).
if(USDTKIT_CROSS_TARGET)
  set(_bpf_t ${USDTKIT_CROSS_TARGET})
else()
  usdtkit_arch_find(_bpf_t processor ${CMAKE_SYSTEM_PROCESSOR})
endif()
if(NOT _bpf_t OR NOT USDTKIT_ARCH_${_bpf_t}_bpf_arch)
  message(FATAL_ERROR "no architecture manifest gives a BPF target arch "
    "for ${CMAKE_SYSTEM_PROCESSOR}: build with -DUSDTKIT_BPF_PROGRAMS=OFF")
endif()
set(USDTKIT_BPF_ARCH ${USDTKIT_ARCH_${_bpf_t}_bpf_arch})
separate_arguments(USDTKIT_BPF_DEFS UNIX_COMMAND "${USDTKIT_ARCH_${_bpf_t}_bpf_defs}")
# where the kernel's BPF context holds the IP (usdtkit.bpf.h), so that no
# architecture needs a case in the header
list(APPEND USDTKIT_BPF_DEFS -DUSDTKIT_IP_OFF=${USDTKIT_ARCH_${_bpf_t}_ip_offset}
  -DUSDTKIT_IP_SIZE=${USDTKIT_ARCH_${_bpf_t}_ptr_size})
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
usdtkit_arch_find(_bpf_host processor ${CMAKE_HOST_SYSTEM_PROCESSOR})
if(_bpf_host AND USDTKIT_ARCH_${_bpf_host}_elf_data STREQUAL "MSB")
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
  set(cflags -g -O2 -Wall ${USDTKIT_WERROR_FLAG} -D__TARGET_ARCH_${USDTKIT_BPF_ARCH}
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
