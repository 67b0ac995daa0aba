# How a BPF program is compiled for the architecture usdtkit is built
# for, from the manifests, without the tools: cmake/Bpf.cmake compiles
# usdtkit's own programs with it, and cmake/UsdtkitInstall.cmake bakes it
# into the installed usdtkit_add_bpf_skeleton() (usdtkitBpf.cmake.in),
# which cannot read the manifests. Sets USDTKIT_BPF_ARCH (empty when no
# manifest names one), USDTKIT_BPF_ARCH_TARGET, USDTKIT_BPF_DEFS,
# USDTKIT_BPF_TARGET, USDTKIT_BPF_HOST_TARGET, USDTKIT_BPF_ASM_INC and
# USDTKIT_MULTIARCH.
include_guard(GLOBAL)

# __TARGET_ARCH_* for bpf_tracing.h (the manifest's bpf_arch, plus its
# bpf_defs: i386 needs __i386__, by which bpf_tracing.h and usdtkit.bpf.h
# tell the 32-bit kernel's pt_regs from x86-64's), for the cross target
# or for the native one (the manifest whose "processor" is this machine's).
if(USDTKIT_CROSS_TARGET)
  set(_bpf_t ${USDTKIT_CROSS_TARGET})
else()
  usdtkit_arch_find(_bpf_t processor ${CMAKE_SYSTEM_PROCESSOR})
endif()
set(USDTKIT_BPF_ARCH "")
if(_bpf_t)
  set(USDTKIT_BPF_ARCH ${USDTKIT_ARCH_${_bpf_t}_bpf_arch})
endif()
# the manifest target BPF programs are built for (x86_64, s390x, ...)
set(USDTKIT_BPF_ARCH_TARGET ${_bpf_t})
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

# a Debian cross build (cmake/toolchains/) has the target's <asm/...> in
# its sysroot, not in /usr/include/<multiarch>; the host's own
# architecture built that way (x86_64 for the VM proof) has no sysroot
set(USDTKIT_BPF_ASM_INC /usr/include/${USDTKIT_MULTIARCH})
if(CMAKE_CROSSCOMPILING AND USDTKIT_TRIPLET AND
   EXISTS /usr/${USDTKIT_TRIPLET}/include)
  set(USDTKIT_BPF_ASM_INC /usr/${USDTKIT_TRIPLET}/include)
endif()
