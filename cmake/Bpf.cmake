# BPF programs: compiled with clang -target bpf at build time and embedded
# in C as bpftool skeletons (NAME.skel.h). Nothing generated is committed.
find_program(USDTKIT_CLANG NAMES clang clang-16 clang-15 clang-14 REQUIRED)
find_program(USDTKIT_BPFTOOL NAMES bpftool PATHS /usr/sbin /usr/local/sbin REQUIRED)

# __TARGET_ARCH_* for bpf_tracing.h, and the multiarch include dir that
# holds <asm/...> for the host (the BPF program reads the host's pt_regs).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  set(USDTKIT_BPF_ARCH x86)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  set(USDTKIT_BPF_ARCH arm64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "riscv64")
  set(USDTKIT_BPF_ARCH riscv)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "s390x")
  set(USDTKIT_BPF_ARCH s390)
else()
  set(USDTKIT_BPF_ARCH ${CMAKE_SYSTEM_PROCESSOR})
endif()
execute_process(COMMAND ${CMAKE_C_COMPILER} -print-multiarch
  OUTPUT_VARIABLE USDTKIT_MULTIARCH OUTPUT_STRIP_TRAILING_WHITESPACE
  ERROR_QUIET)
# BPF objects take the target's byte order (s390x: big-endian)
if(CMAKE_C_BYTE_ORDER STREQUAL "BIG_ENDIAN")
  set(USDTKIT_BPF_TARGET bpfeb)
else()
  set(USDTKIT_BPF_TARGET bpfel)
endif()
# a Debian cross build (cmake/toolchains/) has the target's <asm/...> in
# its sysroot, not in /usr/include/<multiarch>
set(USDTKIT_BPF_ASM_INC /usr/include/${USDTKIT_MULTIARCH})
if(CMAKE_CROSSCOMPILING AND USDTKIT_TRIPLET)
  set(USDTKIT_BPF_ASM_INC /usr/${USDTKIT_TRIPLET}/include)
endif()

# usdtkit_bpf_skeleton(NAME SOURCE [DEPENDS ...]): NAME.bpf.o and
# NAME.skel.h in the current binary dir; adds target NAME_skel. Extra
# compiler flags come from the variable USDTKIT_BPF_FLAGS_<NAME>.
function(usdtkit_bpf_skeleton name src)
  set(obj ${CMAKE_CURRENT_BINARY_DIR}/${name}.bpf.o)
  set(skel ${CMAKE_CURRENT_BINARY_DIR}/${name}.skel.h)
  add_custom_command(OUTPUT ${obj}
    COMMAND ${USDTKIT_CLANG} -g -O2 -target ${USDTKIT_BPF_TARGET} -Wall -Werror
            -D__TARGET_ARCH_${USDTKIT_BPF_ARCH}
            -I${PROJECT_SOURCE_DIR}/include -I${CMAKE_CURRENT_SOURCE_DIR}
            -I${USDTKIT_BPF_ASM_INC}
            ${USDTKIT_BPF_FLAGS_${name}}
            -c ${src} -o ${obj}
    DEPENDS ${src} ${PROJECT_SOURCE_DIR}/include/usdtkit/usdtkit.bpf.h
            ${PROJECT_SOURCE_DIR}/include/usdtkit/bpf_spec.h ${ARGN}
    COMMENT "BPF ${name}"
    VERBATIM)
  add_custom_command(OUTPUT ${skel}
    COMMAND ${USDTKIT_BPFTOOL} gen skeleton ${obj} name ${name} > ${skel}
    DEPENDS ${obj}
    COMMENT "skeleton ${name}.skel.h"
    VERBATIM)
  add_custom_target(${name}_skel DEPENDS ${skel})
endfunction()
