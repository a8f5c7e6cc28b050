# driver: the static library oxlfront (every front-end stage's sources, as
# the stages' sources.cmake listed them) and the oxl executable, placed at
# the top of the build tree (build/oxl).
set(OXL_VERSION_STRING "0.1.0")

add_library(oxlfront STATIC ${OXL_FRONT_SOURCES})
target_include_directories(oxlfront
  PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}
  PRIVATE ${OXL_FRONT_GENERATED_INCLUDES})

# The semantic stage is optional until compiler/sema/sources.cmake exists;
# the driver calls it only when it is built in.
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/sema/sources.cmake)
  set(OXL_HAVE_SEMA ON)
else()
  set(OXL_HAVE_SEMA OFF)
endif()

add_executable(oxl ${CMAKE_CURRENT_SOURCE_DIR}/driver/main.c ${CMAKE_CURRENT_SOURCE_DIR}/driver/build.c)
target_sources(oxl PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/driver/paths.c)
# The test runner without its builder: the oxl executable and the runner's
# own tests (tests/runner/, which hand it a fake test binary) compile it.
set(OXL_TEST_RUNNER_SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_main.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_opts.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_binary.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_failures.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_plan.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_gen.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_batch.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_report.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_report_human.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_report_tap.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_report_json.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_junit.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_exec.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_serve.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_explore.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_util.c
  CACHE INTERNAL "")
target_link_libraries(oxl PRIVATE oxlfront)
target_compile_definitions(oxl PRIVATE
  OXL_VERSION="${OXL_VERSION_STRING}"
  OXL_STD_DIR="${PROJECT_SOURCE_DIR}/std"
  OXL_INCLUDE_DIR="${PROJECT_SOURCE_DIR}/runtime/include"
  $<$<BOOL:${OXL_HAVE_SEMA}>:OXL_HAVE_SEMA=1>)
set_target_properties(oxl PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})

# Fuzzing build (tests/fuzz/, tests/compiler/syntax.cmake): the front end
# instrumented for libFuzzer's coverage, with ASan and UBSan.
option(OXL_FUZZ "Build the libFuzzer target tests/fuzz (needs clang)" OFF)
if(OXL_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "OXL_FUZZ=ON needs clang (CC=clang or -DCMAKE_C_COMPILER=clang)")
  endif()
  target_compile_options(oxlfront PRIVATE -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  # whatever links the instrumented library needs the sanitizers' runtime
  target_link_options(oxlfront INTERFACE -fsanitize=address,undefined)
endif()

# Code generation (LLVM 14) for `oxl build` and `oxl run`, when sema is built in.
if(OXL_HAVE_SEMA AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/codegen/sources.cmake)
  include(${CMAKE_CURRENT_SOURCE_DIR}/codegen/sources.cmake)
  target_link_libraries(oxl PRIVATE oxlcodegen)
  target_compile_definitions(oxl PRIVATE OXL_HAVE_CODEGEN=1 OXL_RUNTIME_LIB="$<TARGET_FILE:oxlrt>"
                             OXL_FENCE_LINK_FLAG="${OXL_FENCE_LINK_FLAG}")
  add_dependencies(oxl oxlrt)
  # oxl test (docs/testing.md), with build.c's test binary builder
  target_sources(oxl PRIVATE ${OXL_TEST_RUNNER_SOURCES} ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_build.c)
endif()
