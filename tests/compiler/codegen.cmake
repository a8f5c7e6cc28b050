# Code generation tests (compiler/codegen/): the core conformance suite,
# each case run with `oxl run` at -O0 and -O2, and its object built twice
# and compared byte for byte (conformance/core/run.sh, TAP).
if(TARGET oxlcodegen)
  add_test(NAME conformance_core
           COMMAND sh ${PROJECT_SOURCE_DIR}/conformance/core/run.sh $<TARGET_FILE:oxl>)
  set_tests_properties(conformance_core PROPERTIES LABELS "conformance;codegen" TIMEOUT 600)
endif()
# The test binary protocol (docs/test-binary.md): packages under
# tests/testbin/ built with `oxl build --tests` and run (tests/testbin/run.sh).
if(TARGET oxlcodegen)
  add_test(NAME codegen_test_binary
           COMMAND sh ${PROJECT_SOURCE_DIR}/tests/testbin/run.sh $<TARGET_FILE:oxl>)
  set_tests_properties(codegen_test_binary PROPERTIES LABELS "codegen;sim;sched" TIMEOUT 300)
endif()
