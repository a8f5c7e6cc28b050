# Toolchain tests around code generation (TAP):
#   debug_info  DWARF: gdb backtraces at main.oxl:<line>, the line table
#   install     cmake --install and the installed oxl finding runtime and std
#   cmake_find_package  find_package(oxl) and oxl_add_tests() after the install
#   gc_bound    an allocation-heavy OxL program in bounded memory
#   compile_limits  programs past the compiler's limits: many items, huge
#               constants, odd unions and test names, two spellings of a package
if(TARGET oxlcodegen)
  add_executable(debug_info_test compiler/debug_info_test.c compiler/cmd.c)
  target_link_libraries(debug_info_test PRIVATE oxl_tap)
  add_test(NAME debug_info COMMAND debug_info_test $<TARGET_FILE:oxl>)
  set_tests_properties(debug_info PROPERTIES LABELS "codegen;debug" TIMEOUT 300)

  add_executable(install_test compiler/install_test.c compiler/cmd.c)
  target_link_libraries(install_test PRIVATE oxl_tap)
  if(OXL_SANITIZE)
    target_compile_definitions(install_test PRIVATE OXL_TEST_SANITIZE=1)
  endif()
  add_test(NAME install COMMAND install_test ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR})
  set_tests_properties(install PROPERTIES LABELS "codegen;install" TIMEOUT 300)
  # find_package(oxl) and oxl_add_tests() in a project outside the tree (tests/cmake/)
  add_test(NAME cmake_find_package
           COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cmake/find_package.sh ${CMAKE_COMMAND} ${CMAKE_CTEST_COMMAND}
                   ${CMAKE_BINARY_DIR})
  set_tests_properties(cmake_find_package PROPERTIES LABELS "install;runner" TIMEOUT 300)

  add_executable(gc_bound_test compiler/gc_bound_test.c compiler/cmd.c)
  target_link_libraries(gc_bound_test PRIVATE oxl_tap)
  if(OXL_SANITIZE)
    target_compile_definitions(gc_bound_test PRIVATE OXL_TEST_SANITIZE=1)
  endif()
  add_test(NAME gc_bound COMMAND gc_bound_test $<TARGET_FILE:oxl>)
  set_tests_properties(gc_bound PROPERTIES LABELS "codegen;core" TIMEOUT 300)

  add_executable(compile_limits_test compiler/compile_limits_test.c compiler/cmd.c)
  target_link_libraries(compile_limits_test PRIVATE oxl_tap)
  if(OXL_SANITIZE)
    target_compile_definitions(compile_limits_test PRIVATE OXL_TEST_SANITIZE=1)
  endif()
  add_test(NAME compile_limits COMMAND compile_limits_test $<TARGET_FILE:oxl>)
  set_tests_properties(compile_limits PROPERTIES LABELS "compiler;parse;sema" TIMEOUT 600)
endif()
