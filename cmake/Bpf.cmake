# BPF programs: compiled with clang -target bpf at build time and embedded
# in C as bpftool skeletons (NAME.skel.h). Nothing generated is committed.
find_program(USDTKIT_CLANG NAMES clang clang-16 clang-15 clang-14 REQUIRED)
find_program(USDTKIT_BPFTOOL NAMES bpftool PATHS /usr/sbin /usr/local/sbin REQUIRED)

include(BpfTarget)
if(NOT USDTKIT_BPF_ARCH)
  message(FATAL_ERROR "no architecture manifest gives a BPF target arch "
    "for ${CMAKE_SYSTEM_PROCESSOR}: build with -DUSDTKIT_BPF_PROGRAMS=OFF")
endif()
find_program(USDTKIT_LLVM_STRIP NAMES llvm-strip llvm-strip-16 llvm-strip-15
  llvm-strip-14 REQUIRED)

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
  # the compiler's own list of headers (DEPFILE): a change to any header
  # the program includes rebuilds it, not only to those named here
  add_custom_command(OUTPUT ${obj}
    COMMAND ${USDTKIT_CLANG} -target ${USDTKIT_BPF_TARGET} ${cflags}
            -MD -MF ${obj}.d -c ${src} -o ${obj}
    COMMAND ${USDTKIT_LLVM_STRIP} -g ${obj}
    DEPENDS ${deps}
    DEPFILE ${obj}.d
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
