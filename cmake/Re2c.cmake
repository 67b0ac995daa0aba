# re2c generates each arch lexer at build time; the .re file is the source
# and its generated C never enters the source tree.
find_program(RE2C_EXECUTABLE re2c REQUIRED)

# Every lexer includes what the backends share (/*!include:re2c */) from
# arch/: re2c searches it (-I), and a change there regenerates them all.
get_filename_component(USDTKIT_RE2C_INCLUDE_DIR
  ${CMAKE_CURRENT_LIST_DIR}/../arch ABSOLUTE)
set(USDTKIT_RE2C_INCLUDES ${USDTKIT_RE2C_INCLUDE_DIR}/prologue.re)

# usdtkit_re2c(<input.re> <out-var>): set <out-var> to the generated .c
function(usdtkit_re2c input outvar)
  get_filename_component(name ${input} NAME_WE)
  get_filename_component(dir ${input} DIRECTORY)
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${dir})
  set(out ${PROJECT_BINARY_DIR}/gen/${rel}/${name}.c)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/gen/${rel}
    COMMAND ${RE2C_EXECUTABLE} -W -Werror --no-generation-date
            --no-version -I ${USDTKIT_RE2C_INCLUDE_DIR} -o ${out} ${input}
    DEPENDS ${input} ${USDTKIT_RE2C_INCLUDES}
    COMMENT "re2c ${rel}/${name}.re"
    VERBATIM)
  set(${outvar} ${out} PARENT_SCOPE)
endfunction()
