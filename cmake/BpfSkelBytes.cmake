# cmake -DNAME=n -DSKEL_IN=twin.skel.h -DOBJ=target.bpf.o -DSKEL_OUT=n.skel.h
#   -P BpfSkelBytes.cmake
#
# A bpftool skeleton whose embedded object is replaced by OBJ: the
# skeleton was made from a twin of OBJ in the host's byte order (bpftool
# refuses the other), and the skeleton's code does not depend on the byte
# order, only its bytes do. Fails unless exactly one NAME__elf_bytes()
# body is found and OBJ is an ELF file.
foreach(v NAME SKEL_IN OBJ SKEL_OUT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "BpfSkelBytes: ${v} not set")
  endif()
endforeach()

file(READ ${SKEL_IN} skel)
set(head "static inline const void *${NAME}__elf_bytes(size_t *sz)\n{\n")
string(FIND "${skel}" "${head}" start)
if(start LESS 0)
  message(FATAL_ERROR "BpfSkelBytes: no ${NAME}__elf_bytes() body in ${SKEL_IN}")
endif()
string(LENGTH "${head}" hlen)
math(EXPR body "${start} + ${hlen}")
string(SUBSTRING "${skel}" ${body} -1 rest)
string(FIND "${rest}" "\";\n}\n" end)
if(end LESS 0)
  message(FATAL_ERROR "BpfSkelBytes: unterminated ${NAME}__elf_bytes() in ${SKEL_IN}")
endif()
string(SUBSTRING "${skel}" 0 ${body} before)
math(EXPR after_at "${end} + 5")
string(SUBSTRING "${rest}" ${after_at} -1 after)

file(READ ${OBJ} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR n "${n} / 2")
if(n LESS 64 OR NOT hex MATCHES "^7f454c46")
  message(FATAL_ERROR "BpfSkelBytes: ${OBJ} is not an ELF object")
endif()
# 32 bytes a line, each as \xNN (never ambiguous: every byte is escaped)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" esc "${hex}")
set(line "")
foreach(i RANGE 31)
  string(APPEND line "\\\\x..")
endforeach()
string(REGEX REPLACE "(${line})" "\\1\\\\\n" esc "${esc}")
file(WRITE ${SKEL_OUT}.tmp
  "${before}\t*sz = ${n};\n\treturn (const void *)\"\\\n${esc}\";\n}\n${after}")
file(RENAME ${SKEL_OUT}.tmp ${SKEL_OUT})
