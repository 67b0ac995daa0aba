# The architecture manifests (arch/arches, arch/<dir>/manifest.ini), as
# CMake and C see them. scripts/archinfo is their only reader; this file
# turns its answers into variables and into two generated headers:
#
#   gen/arch_manifest.h  the registry's lists and each target's identity,
#                        for the library (core/spec/registry.c, arch/*_regs.c)
#   gen/arch_table.h     the per-target facts the tests and fuzz
#                        harnesses need (Debian name, compilers, IP member)
#
# Variables: USDTKIT_ARCH_DIRS, USDTKIT_ARCH_TARGETS, and for each target T
# and key K (docs/ADDING_AN_ARCH.md) USDTKIT_ARCH_<T>_<K>, empty if absent.
# Folder keys are also USDTKIT_ARCHDIR_<D>_<K>.

set(USDTKIT_ARCHINFO ${CMAKE_CURRENT_LIST_DIR}/../scripts/archinfo)
get_filename_component(USDTKIT_ARCHINFO ${USDTKIT_ARCHINFO} ABSOLUTE)
get_filename_component(USDTKIT_ARCH_ROOT ${CMAKE_CURRENT_LIST_DIR}/../arch ABSOLUTE)


function(usdtkit_archinfo out)
  execute_process(COMMAND sh ${USDTKIT_ARCHINFO} ${ARGN}
    OUTPUT_VARIABLE o ERROR_VARIABLE e RESULT_VARIABLE rc
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(rc)
    message(FATAL_ERROR "scripts/archinfo ${ARGN} failed:\n${o}${e}")
  endif()
  set(${out} "${o}" PARENT_SCOPE)
endfunction()

# Read everything into variables of the caller's scope (a macro, so the
# toolchain file and the top-level CMakeLists.txt see them directly).
macro(usdtkit_read_arches)
  usdtkit_archinfo(_ai_check check)
  # every key a manifest may have (scripts/archinfo keys)
  usdtkit_archinfo(_ai_keys keys)
  string(REPLACE "\n" ";" USDTKIT_ARCH_KEYS "${_ai_keys}")
  usdtkit_archinfo(_ai_dirs dirs)
  string(REPLACE "\n" ";" USDTKIT_ARCH_DIRS "${_ai_dirs}")
  usdtkit_archinfo(_ai_table table ${USDTKIT_ARCH_KEYS})
  string(REPLACE "\n" ";" _ai_rows "${_ai_table}")
  set(USDTKIT_ARCH_TARGETS)
  foreach(_ai_row IN LISTS _ai_rows)
    string(REPLACE "\t" ";" _ai_f "${_ai_row}")
    list(POP_FRONT _ai_f _ai_t _ai_d)
    list(APPEND USDTKIT_ARCH_TARGETS ${_ai_t})
    set(USDTKIT_ARCH_${_ai_t}_dir ${_ai_d})
    foreach(_ai_k IN LISTS USDTKIT_ARCH_KEYS)
      list(POP_FRONT _ai_f _ai_v)
      if(_ai_v STREQUAL "-")
        set(_ai_v "")
      endif()
      set(USDTKIT_ARCH_${_ai_t}_${_ai_k} "${_ai_v}")
      set(USDTKIT_ARCHDIR_${_ai_d}_${_ai_k} "${_ai_v}")
    endforeach()
  endforeach()
  foreach(_ai_d IN LISTS USDTKIT_ARCH_DIRS)
    set_property(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} APPEND PROPERTY
      CMAKE_CONFIGURE_DEPENDS
      ${USDTKIT_ARCH_ROOT}/${_ai_d}/manifest.ini)
  endforeach()
  set_property(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} APPEND PROPERTY
    CMAKE_CONFIGURE_DEPENDS ${USDTKIT_ARCH_ROOT}/arches
    ${USDTKIT_ARCHINFO})
endmacro()

# The target whose KEY holds WORD (first match), or "" in OUT.
function(usdtkit_arch_find out key word)
  set(r "")
  foreach(t IN LISTS USDTKIT_ARCH_TARGETS)
    string(REPLACE " " ";" words "${USDTKIT_ARCH_${t}_${key}}")
    if(word IN_LIST words)
      set(r ${t})
      break()
    endif()
  endforeach()
  set(${out} "${r}" PARENT_SCOPE)
endfunction()

function(_usdtkit_c_str out v)
  if(v STREQUAL "")
    set(${out} "NULL" PARENT_SCOPE)
  else()
    set(${out} "\"${v}\"" PARENT_SCOPE)
  endif()
endfunction()

# gen/arch_manifest.h and gen/arch_table.h under DIR.
function(usdtkit_write_arch_headers dir)
  set(targets "")
  set(lexers "")
  set(aliases "")
  set(idents "")
  set(rows "")
  foreach(d IN LISTS USDTKIT_ARCH_DIRS)
    get_filename_component(lx ${USDTKIT_ARCHDIR_${d}_lexer} NAME_WE)
    string(APPEND lexers " X(${lx})")
  endforeach()
  foreach(t IN LISTS USDTKIT_ARCH_TARGETS)
    set(d ${USDTKIT_ARCH_${t}_dir})
    get_filename_component(lx ${USDTKIT_ARCHDIR_${d}_lexer} NAME_WE)
    string(APPEND targets " X(${t})")
    string(REPLACE " " ";" al "${USDTKIT_ARCH_${t}_aliases}")
    foreach(a IN LISTS al)
      string(APPEND aliases " { \"${a}\", \"${t}\" },")
    endforeach()
    if(USDTKIT_ARCH_${t}_elf_class STREQUAL "64")
      set(cls 2)
    else()
      set(cls 1)
    endif()
    if(USDTKIT_ARCH_${t}_elf_data STREQUAL "MSB")
      set(data 2)
    else()
      set(data 1)
    endif()
    set(cip "${USDTKIT_ARCH_${t}_compat64_ip_offset}")
    if(cip STREQUAL "")
      set(cip -1)
    endif()
    _usdtkit_c_str(ck "${USDTKIT_ARCH_${t}_compat64_kernels}")
    _usdtkit_c_str(nk "${USDTKIT_ARCH_${t}_no_uprobe_kernels}")
    # the multiarch directory: its own key where it differs from the triplet
    set(ma "${USDTKIT_ARCH_${t}_multiarch}")
    if(ma STREQUAL "")
      set(ma "${USDTKIT_ARCH_${t}_triplet}")
    endif()
    _usdtkit_c_str(ma "${ma}")
    _usdtkit_c_str(pf "${USDTKIT_ARCH_${t}_processor}")
    string(APPEND idents "#define USDTKIT_MANIFEST_${t} \\
	.name = \"${t}\", .e_machine = ${USDTKIT_ARCH_${t}_e_machine}, \\
	.elf_class = ${cls}, .elf_data = ${data}, \\
	.ptr_size = ${USDTKIT_ARCH_${t}_ptr_size}, \\
	.ip_offset = { ${USDTKIT_ARCH_${t}_ip_offset}, ${cip} }, \\
	.compat64_kernels = ${ck}, .no_uprobe_kernels = ${nk}, \\
	.multiarch = ${ma}, .platform = ${pf}, \\
	.parse_fast = usdtkit__${lx}_parse_fast, \\
	.parse_operand = usdtkit__${lx}_parse_operand\n")
    set(row "\t{ \"${t}\", \"${d}\", \"${lx}\"")
    foreach(k debian triplet qemu cross ip compat64_ip layout_cc compat64_cc
            bpf_arch ip_kernel_delta aliases test_args)
      _usdtkit_c_str(s "${USDTKIT_ARCH_${t}_${k}}")
      string(APPEND row ", ${s}")
    endforeach()
    string(APPEND row ",\n\t  ${USDTKIT_ARCH_${t}_e_machine}, ${cls}, ${data}, \
${USDTKIT_ARCH_${t}_ptr_size}, ${USDTKIT_ARCH_${t}_ip_offset}, ${cip}")
    string(APPEND rows "${row} },\n")
  endforeach()
  set(head "/* Generated by cmake/ArchManifest.cmake from arch/arches and\n * arch/<dir>/manifest.ini: edit those, not this. */\n")
  file(CONFIGURE OUTPUT ${dir}/arch_manifest.h @ONLY CONTENT
"${head}#ifndef USDTKIT_GEN_ARCH_MANIFEST_H
#define USDTKIT_GEN_ARCH_MANIFEST_H

/* X(target), in registry order */
#define USDTKIT_ARCH_TARGETS(X)${targets}
/* X(lexer), one per folder: usdtkit__<lexer>_parse_fast/_parse_operand */
#define USDTKIT_ARCH_LEXERS(X)${lexers}
/* { alias, target } */
#define USDTKIT_ARCH_ALIASES${aliases}

/* Each target's identity, the head of its struct usdtkit_arch. */
${idents}
#endif
")
  file(CONFIGURE OUTPUT ${dir}/arch_table.h @ONLY CONTENT
"${head}#ifndef USDTKIT_GEN_ARCH_TABLE_H
#define USDTKIT_GEN_ARCH_TABLE_H

#include <stddef.h>

/* What tests and fuzz harnesses know of each target; NULL where the
 * manifest has no such key. debian may list several names. */
struct usdtkit_arch_info {
	const char *name, *dir, *lexer, *debian, *triplet, *qemu, *cross;
	const char *ip, *compat64_ip, *layout_cc, *compat64_cc, *bpf_arch;
	/* bytes from the uapi struct's IP member to the kernel's */
	const char *ip_kernel_delta;
	const char *aliases;	/* blank-separated, NULL if none */
	/* three args in the target's syntax: a register, memory, and one
	 * relative to the symbol \"counter\" (last) */
	const char *test_args;
	unsigned short e_machine;
	unsigned char elf_class;	/* ELFCLASS32 1, ELFCLASS64 2 */
	unsigned char elf_data;		/* ELFDATA2LSB 1, ELFDATA2MSB 2 */
	unsigned char ptr_size;
	short ip_offset, compat64_ip_offset;	/* -1: no compat64 layout */
};

static const struct usdtkit_arch_info usdtkit_arch_infos[] = {
${rows}};

#define USDTKIT_ARCH_INFO_COUNT \\
	(sizeof(usdtkit_arch_infos) / sizeof(usdtkit_arch_infos[0]))

#endif
")
endfunction()
