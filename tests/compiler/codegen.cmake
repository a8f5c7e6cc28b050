# Code generation tests (compiler/codegen/): the core conformance suite,
# each case run with `oxl run` at -O0 and -O2, and its object built twice
# and compared byte for byte (conformance/core/run.sh, TAP).
if(TARGET oxlcodegen)
  add_test(NAME conformance_core
           COMMAND sh ${PROJECT_SOURCE_DIR}/conformance/core/run.sh $<TARGET_FILE:oxl>)
  set_tests_properties(conformance_core PROPERTIES LABELS "conformance;codegen" TIMEOUT 1200)
endif()
# The test binary protocol (docs/test-binary.md): packages under
# tests/testbin/ built with `oxl build --tests` and run (tests/testbin/run.sh).
if(TARGET oxlcodegen)
  add_test(NAME codegen_test_binary
           COMMAND sh ${PROJECT_SOURCE_DIR}/tests/testbin/run.sh $<TARGET_FILE:oxl>)
  set_tests_properties(codegen_test_binary PROPERTIES LABELS "codegen;sim;sched" TIMEOUT 300)
endif()
# The extern fn C ABI: main.oxl's externs implemented in C (abi.c), linked
# with the object `oxl build -c` writes (tests/compiler/codegen_abi/run.sh).
if(TARGET oxlcodegen)
  set(OXL_ABI_FLAGS "")
  if(OXL_SANITIZE)
    set(OXL_ABI_FLAGS "-fsanitize=address,undefined")
  endif()
  add_test(NAME codegen_extern_abi
           COMMAND sh ${PROJECT_SOURCE_DIR}/tests/compiler/codegen_abi/run.sh $<TARGET_FILE:oxl> ${CMAKE_C_COMPILER}
                   ${PROJECT_SOURCE_DIR}/runtime/include $<TARGET_FILE:oxlrt> "${OXL_ABI_FLAGS}")
  set_tests_properties(codegen_extern_abi PROPERTIES LABELS "codegen" TIMEOUT 120)
endif()
# The union mismatch check of narrowings (tests/compiler/codegen_union/run.sh).
if(TARGET oxlcodegen)
  add_test(NAME codegen_union_check
           COMMAND sh ${PROJECT_SOURCE_DIR}/tests/compiler/codegen_union/run.sh $<TARGET_FILE:oxl>)
  set_tests_properties(codegen_union_check PROPERTIES LABELS "codegen" TIMEOUT 120)
endif()

# Closures and methods whose target LLVM sees compile to direct calls
# (tests/compiler/codegen_calls/run.sh).
if(TARGET oxlcodegen)
  add_test(NAME codegen_direct_calls
           COMMAND sh ${PROJECT_SOURCE_DIR}/tests/compiler/codegen_calls/run.sh $<TARGET_FILE:oxl>)
  set_tests_properties(codegen_direct_calls PROPERTIES LABELS "codegen" TIMEOUT 120)
endif()

# The `oxl test` conformance suite (the Standard's §18.4: test sim, seeds,
# reports, reproduce lines, the std.test controls): conformance/§18.4/run.sh.
if(TARGET oxl)
  add_test(NAME conformance_sim
           COMMAND sh "${PROJECT_SOURCE_DIR}/conformance/§18.4/run.sh" $<TARGET_FILE:oxl>)
  set_tests_properties(conformance_sim PROPERTIES LABELS "conformance;runner" TIMEOUT 1200)
endif()

# Optionals of scalars carry no box: checked in the IR (tests/compiler/codegen_optional/run.sh).
if(TARGET oxlcodegen)
  add_test(NAME codegen_unboxed_optionals
           COMMAND sh ${PROJECT_SOURCE_DIR}/tests/compiler/codegen_optional/run.sh $<TARGET_FILE:oxl>)
  set_tests_properties(codegen_unboxed_optionals PROPERTIES LABELS "codegen" TIMEOUT 120)
endif()
