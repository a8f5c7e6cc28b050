# lex: the lexer. Debian's re2c turns lex.re into lex.c in the build tree
# at build time (nothing generated is committed).
find_program(OXL_RE2C re2c REQUIRED)
set(OXL_LEX_C ${CMAKE_CURRENT_BINARY_DIR}/lex/lex.c)
add_custom_command(
  OUTPUT ${OXL_LEX_C}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/lex
  COMMAND ${OXL_RE2C} -W -Werror -o ${OXL_LEX_C} ${CMAKE_CURRENT_LIST_DIR}/lex.re
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/lex.re
  COMMENT "re2c compiler/lex/lex.re"
  VERBATIM)
list(APPEND OXL_FRONT_SOURCES ${OXL_LEX_C})
