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

add_executable(fuzz_frontend_replay ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_frontend.c
               ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_replay.c)
target_link_libraries(fuzz_frontend_replay PRIVATE oxlfront)
target_compile_definitions(fuzz_frontend_replay PRIVATE ${OXL_FUZZ_DEFS})
add_test(NAME fuzz_smoke COMMAND fuzz_frontend_replay ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus)
set_tests_properties(fuzz_smoke PROPERTIES LABELS "fuzz-smoke" TIMEOUT 120)

# The rpc wire reader, fuzzed the same two ways (tests/fuzz/fuzz_wire.c).
add_executable(fuzz_wire_replay ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_wire.c ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_replay.c)
target_link_libraries(fuzz_wire_replay PRIVATE oxlrt)
add_test(NAME fuzz_wire_smoke COMMAND fuzz_wire_replay ${PROJECT_SOURCE_DIR}/tests/fuzz/wire_corpus)
set_tests_properties(fuzz_wire_smoke PROPERTIES LABELS "fuzz-smoke;rpc" TIMEOUT 120)
# The schedule file's reader, the same two ways (tests/fuzz/fuzz_schedule.c).
add_executable(fuzz_schedule_replay ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_schedule.c
               ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_replay.c)
target_link_libraries(fuzz_schedule_replay PRIVATE oxlrt)
add_test(NAME fuzz_schedule_smoke COMMAND fuzz_schedule_replay ${PROJECT_SOURCE_DIR}/tests/fuzz/schedule_corpus)
set_tests_properties(fuzz_schedule_smoke PROPERTIES LABELS "fuzz-smoke;sim" TIMEOUT 120)

# The real fuzzer: cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DOXL_FUZZ=ON
# (oxlfront is then instrumented too: compiler/driver/sources.cmake).
if(OXL_FUZZ)
  add_executable(fuzz_frontend ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_frontend.c)
  target_link_libraries(fuzz_frontend PRIVATE oxlfront)
  target_compile_definitions(fuzz_frontend PRIVATE ${OXL_FUZZ_DEFS})
  target_compile_options(fuzz_frontend PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(fuzz_frontend PRIVATE -fsanitize=fuzzer,address,undefined)
  # wire.c compiled into the target, so the fuzzer sees its branches
  add_executable(fuzz_wire ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_wire.c ${PROJECT_SOURCE_DIR}/runtime/src/rpc/wire.c)
  target_include_directories(fuzz_wire PRIVATE ${PROJECT_SOURCE_DIR}/runtime/src)
  target_link_libraries(fuzz_wire PRIVATE oxlrt)
  target_compile_options(fuzz_wire PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(fuzz_wire PRIVATE -fsanitize=fuzzer,address,undefined)
  add_executable(fuzz_schedule ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_schedule.c
                 ${PROJECT_SOURCE_DIR}/runtime/src/sim/schedule_file.c)
  target_include_directories(fuzz_schedule PRIVATE ${PROJECT_SOURCE_DIR}/runtime/include)
  target_compile_options(fuzz_schedule PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(fuzz_schedule PRIVATE -fsanitize=fuzzer,address,undefined)
endif()
