# Install: libraries, headers, the CLI, pkg-config and a CMake package.
include(CMakePackageConfigHelpers)

install(TARGETS usdtkit usdtkit_static EXPORT usdtkitTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/usdtkit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")
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
