# parse: the parser. Debian's lemon turns grammar.y into grammar.c in the
# build tree with its own template (/usr/share/lemon/lempar.c); parse.c
# includes grammar.c, so only parse.c and ast.c are compiled.
find_program(OXL_LEMON lemon REQUIRED)
set(OXL_LEMPAR /usr/share/lemon/lempar.c CACHE FILEPATH "lemon's parser template (Debian package lemon)")
if(NOT EXISTS ${OXL_LEMPAR})
  message(FATAL_ERROR "lemon's template ${OXL_LEMPAR} is missing: apt-get install lemon")
endif()
set(OXL_PARSE_GEN ${CMAKE_CURRENT_BINARY_DIR}/parse)
add_custom_command(
  OUTPUT ${OXL_PARSE_GEN}/grammar.c ${OXL_PARSE_GEN}/grammar.h
  COMMAND ${CMAKE_COMMAND} -E make_directory ${OXL_PARSE_GEN}
  # lemon exits non-zero on a grammar conflict, which fails the build
  COMMAND ${OXL_LEMON} -q -T${OXL_LEMPAR} -d${OXL_PARSE_GEN} ${CMAKE_CURRENT_LIST_DIR}/grammar.y
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/grammar.y ${OXL_LEMPAR}
  COMMENT "lemon compiler/parse/grammar.y"
  VERBATIM)
set_source_files_properties(${OXL_PARSE_GEN}/grammar.c PROPERTIES HEADER_FILE_ONLY TRUE GENERATED TRUE)
list(APPEND OXL_FRONT_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/parse.c
  ${CMAKE_CURRENT_LIST_DIR}/ast.c
  ${OXL_PARSE_GEN}/grammar.c)
set(OXL_FRONT_GENERATED_INCLUDES ${OXL_PARSE_GEN})
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/parse.c PROPERTIES
  OBJECT_DEPENDS ${OXL_PARSE_GEN}/grammar.c)
