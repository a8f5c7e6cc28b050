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
target_sources(oxl PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/driver/paths.c ${CMAKE_CURRENT_SOURCE_DIR}/driver/cli.c)

# The man page and the shell completions, printed from the option table
# (driver/cli.c) by oxl_docgen at build time and installed (CMakeLists.txt).
add_executable(oxl_docgen ${CMAKE_CURRENT_SOURCE_DIR}/driver/cli_docgen.c ${CMAKE_CURRENT_SOURCE_DIR}/driver/cli.c)
set(OXL_DOC_OUT ${CMAKE_BINARY_DIR}/share)
add_custom_command(
  OUTPUT ${OXL_DOC_OUT}/man/man1/oxl.1 ${OXL_DOC_OUT}/bash-completion/completions/oxl
         ${OXL_DOC_OUT}/zsh/site-functions/_oxl
  COMMAND ${CMAKE_COMMAND} -E make_directory ${OXL_DOC_OUT}/man/man1 ${OXL_DOC_OUT}/bash-completion/completions
          ${OXL_DOC_OUT}/zsh/site-functions
  COMMAND oxl_docgen man ${OXL_VERSION_STRING} > ${OXL_DOC_OUT}/man/man1/oxl.1
  COMMAND oxl_docgen bash > ${OXL_DOC_OUT}/bash-completion/completions/oxl
  COMMAND oxl_docgen zsh > ${OXL_DOC_OUT}/zsh/site-functions/_oxl
  DEPENDS oxl_docgen
  COMMENT "oxl.1 and the shell completions from the option table")
add_custom_target(oxl_docs ALL DEPENDS ${OXL_DOC_OUT}/man/man1/oxl.1)
set(OXL_DOC_OUT ${OXL_DOC_OUT} CACHE INTERNAL "")
# The timeline page's script and style sheet (driver/timeline/), embedded
# as C strings at configure time; an edit of either configures again.
set(OXL_TIMELINE_ASSETS_C ${CMAKE_BINARY_DIR}/generated/tr_timeline_assets.c)
set(_tl_c "/* generated from compiler/driver/timeline/ by compiler/driver/sources.cmake */\n")
foreach(_tl_asset js css)
  set(_tl_file ${CMAKE_CURRENT_SOURCE_DIR}/driver/timeline/timeline.${_tl_asset})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_tl_file})
  file(READ ${_tl_file} _tl_hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _tl_hex "${_tl_hex}")
  string(APPEND _tl_c "extern const char tr_timeline_${_tl_asset}[];\nconst char tr_timeline_${_tl_asset}[] = {${_tl_hex}0x00};\n")
endforeach()
file(GENERATE OUTPUT ${OXL_TIMELINE_ASSETS_C} CONTENT "${_tl_c}")
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
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_dumpread.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_explain.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_exec.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_serve.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_explore.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_util.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_shrink.c
  ${PROJECT_SOURCE_DIR}/runtime/src/sim/schedule_file.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_gdb.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_locate.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_report_github.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_reproduce.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_progress.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_timeline.c
  ${OXL_TIMELINE_ASSETS_C}
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_more_opts.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_packages.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_merge.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_jsonread.c
  ${CMAKE_CURRENT_SOURCE_DIR}/driver/tr_stream.c
  CACHE INTERNAL "")
# cli.c is the oxl executable's already
set(OXL_TEST_RUNNER_TEST_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/driver/cli.c CACHE INTERNAL "")
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
  # the schedule file's reader (runtime/src/sim/schedule_file.c) is compiled in too
  target_include_directories(oxl PRIVATE ${PROJECT_SOURCE_DIR}/runtime/include)
endif()
