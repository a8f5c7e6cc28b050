# Toolchain tests around code generation (TAP):
#   debug_info  DWARF: gdb backtraces at main.oxl:<line>, the line table
if(TARGET oxlcodegen)
  add_executable(debug_info_test compiler/debug_info_test.c compiler/cmd.c)
  target_link_libraries(debug_info_test PRIVATE oxl_tap)
  add_test(NAME debug_info COMMAND debug_info_test $<TARGET_FILE:oxl>)
  set_tests_properties(debug_info PROPERTIES LABELS "codegen;debug" TIMEOUT 300)
endif()
