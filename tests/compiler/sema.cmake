# Semantic analysis tests (label sema):
# - sema_programs: every program under tests/compiler/sema/ok must check
#   without a diagnostic, and every program under .../err must give exactly
#   the diagnostics written in its comments (see sema/README.md). The runner
#   is a POSIX sh script printing TAP; ctest passes it the oxl binary.
# - sema_types_test: the type algebra (interning, unions, printing) in C.
if(TARGET oxl)
  add_test(NAME sema_programs
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/sema/run.sh $<TARGET_FILE:oxl> ${CMAKE_CURRENT_LIST_DIR}/sema)
  set_tests_properties(sema_programs PROPERTIES LABELS "sema;compiler" TIMEOUT 300)
endif()
if(TARGET oxlfront)
  oxl_tap_test(sema_types_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/sema/types_test.c
               LIBS oxlfront LABELS "sema;compiler" TIMEOUT 60)
endif()
# docs_examples: every ```oxl block in docs/ passes `oxl check` and
# `oxl build` (a program, or a test binary), and every
# ```oxl error block fails with the errors its `// error:` comments name
# (tests/docs/run.sh), so the docs cannot drift from the compiler.
if(TARGET oxl)
  add_test(NAME docs_examples
           COMMAND sh ${PROJECT_SOURCE_DIR}/tests/docs/run.sh $<TARGET_FILE:oxl> ${PROJECT_SOURCE_DIR}/docs)
  set_tests_properties(docs_examples PROPERTIES LABELS "sema;codegen;compiler;docs" TIMEOUT 120)
endif()
