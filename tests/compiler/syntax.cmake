# The syntax half of the front end (lexer, parser, driver's check):
#   syntax_base_test  arena, names, line tables, the diagnostics printer
#   syntax_lex     golden token dumps and lexical errors  (tests/compiler/lex/)
#   syntax_parse   golden syntax trees and syntax errors  (tests/compiler/parse/)
#   syntax_limits  generated inputs: deep nesting, 1 MB lines, odd bytes, the driver
#   fuzz_smoke     the fuzz target's entry point replaying tests/fuzz/corpus/
# Regenerate goldens: build/tests/syntax_test build/oxl tests/compiler/parse ast --update
# (then review the diff: docs/oxl-check.md).
oxl_tap_test(syntax_base_test SOURCES compiler/base_test.c LIBS oxlfront LABELS "lex;parse")

add_executable(syntax_test compiler/syntax_test.c)
target_link_libraries(syntax_test PRIVATE oxl_tap)
add_test(NAME syntax_lex COMMAND syntax_test $<TARGET_FILE:oxl> ${CMAKE_CURRENT_SOURCE_DIR}/compiler/lex tokens)
add_test(NAME syntax_parse COMMAND syntax_test $<TARGET_FILE:oxl> ${CMAKE_CURRENT_SOURCE_DIR}/compiler/parse ast)
set_tests_properties(syntax_lex PROPERTIES LABELS "lex" TIMEOUT 120)
set_tests_properties(syntax_parse PROPERTIES LABELS "parse" TIMEOUT 120)

add_executable(syntax_limits_test compiler/syntax_limits_test.c)
target_link_libraries(syntax_limits_test PRIVATE oxl_tap)
add_test(NAME syntax_limits COMMAND syntax_limits_test $<TARGET_FILE:oxl>)
set_tests_properties(syntax_limits PROPERTIES LABELS "lex;parse" TIMEOUT 300)

set(OXL_FUZZ_DEFS "")
if(EXISTS ${PROJECT_SOURCE_DIR}/compiler/sema/sources.cmake)
  set(OXL_FUZZ_DEFS OXL_HAVE_SEMA=1)
endif()

add_executable(fuzz_frontend_replay ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_frontend.c)
target_link_libraries(fuzz_frontend_replay PRIVATE oxlfront)
target_compile_definitions(fuzz_frontend_replay PRIVATE OXL_FUZZ_REPLAY=1 ${OXL_FUZZ_DEFS})
add_test(NAME fuzz_smoke COMMAND fuzz_frontend_replay ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus)
set_tests_properties(fuzz_smoke PROPERTIES LABELS "fuzz-smoke" TIMEOUT 120)

# The real fuzzer: cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DOXL_FUZZ=ON
# (oxlfront is then instrumented too: compiler/driver/sources.cmake).
if(OXL_FUZZ)
  add_executable(fuzz_frontend ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_frontend.c)
  target_link_libraries(fuzz_frontend PRIVATE oxlfront)
  target_compile_definitions(fuzz_frontend PRIVATE ${OXL_FUZZ_DEFS})
  target_compile_options(fuzz_frontend PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(fuzz_frontend PRIVATE -fsanitize=fuzzer,address,undefined)
endif()
