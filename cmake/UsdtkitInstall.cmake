# Install: libraries, headers, the CLI, pkg-config and a CMake package.
include(CMakePackageConfigHelpers)

# Skeleton-only programs: one that attaches only through
# SEC("usdtkit/PATH:PROVIDER:NAME") and skel__attach() calls no usdtkit_*
# function, so a linker with --as-needed (Debian's and Ubuntu's gcc
# default) drops libusdtkit.so from DT_NEEDED, and a static link takes no
# object from libusdtkit.a. Either way the constructor that registers the
# libbpf section handler never runs and libbpf fails with "missing BPF
# prog type, check ELF section name 'usdtkit...'". So what consumers link
# keeps the library in:
# - usdtkit::usdtkit is an interface target wrapping the shared library
#   (exported as usdtkit::usdtkit_shared) in --no-as-needed; flags in
#   link options would come before the library, where they cannot
#   bracket it, and --undefined does not make a shared library needed;
# - usdtkit::usdtkit_static makes the registration function undefined
#   from the start, so the archive member with the constructor is taken;
# - usdtkit.pc does both (its Libs serve the shared and static links).
set(USDTKIT_KEEP_SYM usdtkit_register_libbpf_handler)
add_library(usdtkit_linked INTERFACE)
if(USDTKIT_WITH_BPF)
  # libbpf too, as for the static library: attach.h is libbpf's API
  target_link_libraries(usdtkit_linked INTERFACE
    "-Wl,--push-state,--no-as-needed" usdtkit "-Wl,--pop-state"
    $<BUILD_INTERFACE:PkgConfig::LIBBPF> $<INSTALL_INTERFACE:bpf>)
  target_link_options(usdtkit_static INTERFACE
    "LINKER:--undefined=${USDTKIT_KEEP_SYM}")
  set(USDTKIT_PC_LIBS "-Wl,--undefined=${USDTKIT_KEEP_SYM} -Wl,--push-state,--no-as-needed -lusdtkit -Wl,--pop-state")
  # attach.h takes struct bpf_program: a consumer compiles against libbpf
  set(USDTKIT_PC_REQUIRES "libbpf")
  set(USDTKIT_PC_REQUIRES_PRIVATE "libelf")
  set(USDTKIT_PC_LIBS_PRIVATE "-pthread")
else()
  target_link_libraries(usdtkit_linked INTERFACE usdtkit)
  set(USDTKIT_PC_LIBS "-lusdtkit")
  set(USDTKIT_PC_REQUIRES "")
  set(USDTKIT_PC_REQUIRES_PRIVATE "")
  if(USDTKIT_WITH_ELF)
    set(USDTKIT_PC_REQUIRES_PRIVATE "libelf")
  endif()
  set(USDTKIT_PC_LIBS_PRIVATE "")
endif()
set_target_properties(usdtkit PROPERTIES EXPORT_NAME usdtkit_shared)
set_target_properties(usdtkit_linked PROPERTIES EXPORT_NAME usdtkit)

install(TARGETS usdtkit usdtkit_static usdtkit_linked EXPORT usdtkitTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# the attach headers only with the attach layer (config.h says which)
if(USDTKIT_WITH_BPF AND USDTKIT_HAVE_TRACE)
  install(DIRECTORY include/usdtkit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.h")
elseif(USDTKIT_WITH_BPF)
  # the trace engine needs the BPF programs (USDTKIT_HAVE_TRACE)
  install(DIRECTORY include/usdtkit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.h" PATTERN "trace.h" EXCLUDE
    PATTERN "metrics.h" EXCLUDE)
else()
  install(DIRECTORY include/usdtkit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.h" PATTERN "attach.h" EXCLUDE
    PATTERN "usdtkit.bpf.h" EXCLUDE PATTERN "bpf_spec.h" EXCLUDE
    PATTERN "trace.h" EXCLUDE PATTERN "metrics.h" EXCLUDE)
endif()
install(FILES ${USDTKIT_GEN_INCLUDE}/usdtkit/version.h
  ${USDTKIT_GEN_INCLUDE}/usdtkit/config.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/usdtkit)
if(TARGET usdtkit_cli)
  # component "cli": all a board needs when the CLI is static
  install(TARGETS usdtkit_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
    COMPONENT cli)
endif()

set(USDTKIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/usdtkit)
install(EXPORT usdtkitTargets NAMESPACE usdtkit::
  DESTINATION ${USDTKIT_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/usdtkitConfig.cmake.in
  ${CMAKE_BINARY_DIR}/usdtkitConfig.cmake
  INSTALL_DESTINATION ${USDTKIT_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/usdtkitConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/usdtkitConfig.cmake
  ${CMAKE_BINARY_DIR}/usdtkitConfigVersion.cmake
  DESTINATION ${USDTKIT_CMAKE_DIR})

# usdtkit_add_bpf_skeleton() for users' BPF programs (usdtkitBpf.cmake.in,
# included by usdtkitConfig.cmake): compiles them as cmake/Bpf.cmake
# compiles ours, with the flags of the manifests baked in here for the
# architecture of this build. Needs no tools now, only where it is used.
if(USDTKIT_WITH_BPF)
  include(BpfTarget)
endif()
if(USDTKIT_WITH_BPF AND USDTKIT_BPF_ARCH)
  set(_bpf_flags_list -D__TARGET_ARCH_${USDTKIT_BPF_ARCH} ${USDTKIT_BPF_DEFS})
  string(JOIN " " _bpf_flags ${_bpf_flags_list})
  set(_bpf_msb_hosts)
  foreach(t ${USDTKIT_ARCH_TARGETS})
    if(USDTKIT_ARCH_${t}_elf_data STREQUAL "MSB" AND USDTKIT_ARCH_${t}_processor)
      string(REPLACE " " ";" p "${USDTKIT_ARCH_${t}_processor}")
      list(APPEND _bpf_msb_hosts ${p})
    endif()
  endforeach()
  configure_file(${CMAKE_CURRENT_LIST_DIR}/usdtkitBpf.cmake.in
    ${CMAKE_BINARY_DIR}/usdtkitBpf.cmake @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/usdtkitBpf.cmake
    DESTINATION ${USDTKIT_CMAKE_DIR})
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/BpfSkelBytes.cmake
    DESTINATION ${USDTKIT_CMAKE_DIR} RENAME usdtkitBpfSkelBytes.cmake)
endif()

# prefix relative to the .pc file, so an installed tree can be moved
file(RELATIVE_PATH USDTKIT_PC_TO_PREFIX
  /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_CURRENT_LIST_DIR}/usdtkit.pc.in
  ${CMAKE_BINARY_DIR}/usdtkit.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/usdtkit.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# `cpack` in a build with a static CLI (scripts/cross.sh) makes
# usdtkit-VERSION-TARGET-cli.tar.gz: the one file to copy onto a board.
if(USDTKIT_STATIC_CLI AND TARGET usdtkit_cli)
  if(USDTKIT_CROSS_NAME)
    set(CPACK_SYSTEM_NAME ${USDTKIT_CROSS_NAME})
  else()
    set(CPACK_SYSTEM_NAME ${CMAKE_SYSTEM_PROCESSOR})
  endif()
  set(CPACK_GENERATOR TGZ)
  set(CPACK_STRIP_FILES ON)
  set(CPACK_ARCHIVE_COMPONENT_INSTALL ON)
  set(CPACK_COMPONENTS_ALL cli)
  set(CPACK_PACKAGE_NAME usdtkit)
  set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
  include(CPack)
endif()
