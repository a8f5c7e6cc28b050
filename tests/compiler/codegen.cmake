# Code generation tests (compiler/codegen/): the core conformance suite,
# each case run with `oxl run` at -O0 and -O2, and its object built twice
# and compared byte for byte (conformance/core/run.sh, TAP).
if(TARGET oxlcodegen)
  add_test(NAME conformance_core
           COMMAND sh ${PROJECT_SOURCE_DIR}/conformance/core/run.sh $<TARGET_FILE:oxl>)
  set_tests_properties(conformance_core PROPERTIES LABELS "conformance;codegen" TIMEOUT 600)
endif()
