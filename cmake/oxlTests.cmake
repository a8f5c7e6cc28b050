# oxlTests.cmake: oxl_add_tests(NAME DIR [SEEDS a..b] [ARGS ...]
#                               [LABELS ...] [TIMEOUT seconds])
# adds the ctest NAME that runs `oxl test DIR` (docs/testing.md, CMake):
#   - DIR relative to the current source directory;
#   - SEEDS a..b is --seeds a..b; ARGS are more `oxl test` options;
#   - the failures file is NAME.oxl-test-failures.txt in the current
#     binary directory (--failures-file), not in the source tree, and the
#     JUnit report NAME.junit.xml beside it;
#   - exit status 4 (no test matched, or the package has no tests) is a
#     skipped ctest; every other nonzero status (1 failed, 2 usage, 3 does
#     not build, 5 not deterministic, 130 interrupted) a failed one;
#   - labels "oxl" and LABELS; the timeout TIMEOUT (default 1500 s).
function(oxl_add_tests name dir)
  cmake_parse_arguments(_oxl "" "SEEDS;TIMEOUT" "ARGS;LABELS" ${ARGN})
  if(_oxl_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "oxl_add_tests(${name}): unknown arguments: ${_oxl_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET oxl::oxl)
    message(FATAL_ERROR "oxl_add_tests(${name}): no oxl::oxl (call find_package(oxl) first)")
  endif()
  get_filename_component(_pkg "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT IS_DIRECTORY "${_pkg}")
    message(FATAL_ERROR "oxl_add_tests(${name}): '${dir}' is not a package directory (${_pkg})")
  endif()
  set(_args test "${_pkg}"
      --failures-file "${CMAKE_CURRENT_BINARY_DIR}/${name}.oxl-test-failures.txt"
      --junit "${CMAKE_CURRENT_BINARY_DIR}/${name}.junit.xml"
      --color never)
  if(DEFINED _oxl_SEEDS)
    if(NOT _oxl_SEEDS MATCHES "^[0-9]+(\\.\\.=?[0-9]+)?$")
      message(FATAL_ERROR "oxl_add_tests(${name}): SEEDS takes a..b or a count N, not '${_oxl_SEEDS}'")
    endif()
    list(APPEND _args --seeds "${_oxl_SEEDS}")
  endif()
  list(APPEND _args ${_oxl_ARGS})
  if(NOT _oxl_TIMEOUT)
    set(_oxl_TIMEOUT 1500)
  endif()
  add_test(NAME ${name} COMMAND oxl::oxl ${_args})
  set_tests_properties(${name} PROPERTIES
    SKIP_RETURN_CODE 4
    LABELS "oxl;${_oxl_LABELS}"
    TIMEOUT ${_oxl_TIMEOUT})
endfunction()
