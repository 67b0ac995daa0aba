# re2c generates each arch lexer at build time; the .re file is the source
# and its generated C never enters the source tree.
find_program(RE2C_EXECUTABLE re2c REQUIRED)

# usdtkit_re2c(<input.re> <out-var>): set <out-var> to the generated .c
function(usdtkit_re2c input outvar)
  get_filename_component(name ${input} NAME_WE)
  get_filename_component(dir ${input} DIRECTORY)
  file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR} ${dir})
  set(out ${CMAKE_BINARY_DIR}/gen/${rel}/${name}.c)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/gen/${rel}
    COMMAND ${RE2C_EXECUTABLE} -W -Werror --no-generation-date
            --no-version -o ${out} ${input}
    DEPENDS ${input}
    COMMENT "re2c ${rel}/${name}.re"
    VERBATIM)
  set(${outvar} ${out} PARENT_SCOPE)
endfunction()
