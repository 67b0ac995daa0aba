# Compiler flags of usdtkit's own targets, and of nothing else.
#
# Nothing here goes through add_compile_options(), add_link_options() or
# add_definitions(): those set directory properties, so a project that
# pulls usdtkit in with add_subdirectory() would get usdtkit's flags on
# usdtkit's targets mixed with its own, and any target it adds under
# usdtkit's directories would get ours. Instead usdtkit_target_flags()
# sets PRIVATE options on one target, and usdtkit_apply_target_flags(),
# called once at the end of the top-level CMakeLists.txt, gives them to
# every target defined under usdtkit's source tree: the library objects,
# the CLI, tests, benches, fuzzers and test fixtures. No flag is PUBLIC
# or INTERFACE, so none reaches a program that links usdtkit::usdtkit.
#
# USDTKIT_WERROR turns warnings into errors. It is OFF by default, since
# another compiler or version (or a parent project's own flags) may warn
# where ours does not; scripts/test.sh, scripts/cross.sh and fuzz/ci.sh
# pass -DUSDTKIT_WERROR=ON so CI keeps every build warning-free.
option(USDTKIT_WERROR "Treat compiler warnings as errors in usdtkit's targets" OFF)

# USDTKIT_WERROR_FLAG is also what the programs that usdtkit compiles
# through add_custom_command (the demo, the BPF objects, test fixtures)
# put after their -Wall: no target property reaches those.
set(USDTKIT_WERROR_FLAG)
if(USDTKIT_WERROR)
  set(USDTKIT_WERROR_FLAG -Werror)
endif()
set(USDTKIT_WARNING_FLAGS -Wall -Wextra ${USDTKIT_WERROR_FLAG})

# clang writes DWARF 5 with forms (DW_FORM_strx1, addrx) that Debian 12's
# valgrind 3.19 cannot read, and the valgrind tests give up on the whole
# binary; DWARF 4 when debug information is asked for (this flag alone
# adds none). GCC 12's DWARF 5 reads fine.
set(USDTKIT_DEBUG_FLAGS)
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  set(USDTKIT_DEBUG_FLAGS -fdebug-default-version=4)
endif()

# The sanitizer builds (USDTKIT_SANITIZE, and USDTKIT_FUZZ, whose
# libFuzzer runtime the harnesses link themselves in fuzz/).
set(USDTKIT_SANITIZE_COMPILE_FLAGS)
set(USDTKIT_SANITIZE_LINK_FLAGS)
if(USDTKIT_SANITIZE)
  list(APPEND USDTKIT_SANITIZE_COMPILE_FLAGS -fsanitize=address,undefined
    -fno-sanitize-recover=all -fno-omit-frame-pointer)
  list(APPEND USDTKIT_SANITIZE_LINK_FLAGS -fsanitize=address,undefined)
endif()
if(USDTKIT_FUZZ)
  list(APPEND USDTKIT_SANITIZE_COMPILE_FLAGS -fsanitize=fuzzer-no-link,address,undefined
    -fno-sanitize-recover=all -fno-omit-frame-pointer)
  list(APPEND USDTKIT_SANITIZE_LINK_FLAGS -fsanitize=address,undefined)
endif()

# usdtkit_target_flags(TARGET): warnings, _GNU_SOURCE (the sources use
# memmem, pipe2, process_vm_readv and the like), the DWARF version and
# the sanitizers, all PRIVATE to TARGET.
function(usdtkit_target_flags t)
  get_target_property(type ${t} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY" OR type STREQUAL "UTILITY")
    return()
  endif()
  target_compile_options(${t} PRIVATE ${USDTKIT_WARNING_FLAGS}
    ${USDTKIT_DEBUG_FLAGS} ${USDTKIT_SANITIZE_COMPILE_FLAGS})
  target_compile_definitions(${t} PRIVATE _GNU_SOURCE)
  if(USDTKIT_SANITIZE_LINK_FLAGS AND NOT type STREQUAL "STATIC_LIBRARY"
     AND NOT type STREQUAL "OBJECT_LIBRARY")
    target_link_options(${t} PRIVATE ${USDTKIT_SANITIZE_LINK_FLAGS})
  endif()
endfunction()

# usdtkit_apply_target_flags(): usdtkit_target_flags() on every target
# of the directory it is called in and of all its subdirectories.
function(usdtkit_apply_target_flags)
  set(dirs ${CMAKE_CURRENT_SOURCE_DIR})
  while(dirs)
    list(POP_FRONT dirs d)
    get_property(targets DIRECTORY ${d} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(t ${targets})
      usdtkit_target_flags(${t})
    endforeach()
    get_property(subs DIRECTORY ${d} PROPERTY SUBDIRECTORIES)
    list(APPEND dirs ${subs})
  endwhile()
endfunction()
