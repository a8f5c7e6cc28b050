# codegen: LLVM 14 (C API) code generation, the static library oxlcodegen.
find_program(OXL_LLVM_CONFIG NAMES llvm-config-14 llvm-config REQUIRED)
execute_process(COMMAND ${OXL_LLVM_CONFIG} --includedir OUTPUT_VARIABLE OXL_LLVM_INCLUDE OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND ${OXL_LLVM_CONFIG} --libdir OUTPUT_VARIABLE OXL_LLVM_LIBDIR OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND ${OXL_LLVM_CONFIG} --link-shared --libs core analysis target native ipo bitwriter
                OUTPUT_VARIABLE OXL_LLVM_LIBS OUTPUT_STRIP_TRAILING_WHITESPACE)
separate_arguments(OXL_LLVM_LIBS)
add_library(oxlcodegen STATIC
  ${CMAKE_CURRENT_LIST_DIR}/module.c
  ${CMAKE_CURRENT_LIST_DIR}/function.c
  ${CMAKE_CURRENT_LIST_DIR}/stmt.c
  ${CMAKE_CURRENT_LIST_DIR}/expr.c
  ${CMAKE_CURRENT_LIST_DIR}/task.c
  ${CMAKE_CURRENT_LIST_DIR}/closure.c
  ${CMAKE_CURRENT_LIST_DIR}/escape.c
  ${CMAKE_CURRENT_LIST_DIR}/ptrmap.c
  ${CMAKE_CURRENT_LIST_DIR}/test.c
  ${CMAKE_CURRENT_LIST_DIR}/union.c
  ${CMAKE_CURRENT_LIST_DIR}/optional.c
  ${CMAKE_CURRENT_LIST_DIR}/fmt.c
  ${CMAKE_CURRENT_LIST_DIR}/map.c
  ${CMAKE_CURRENT_LIST_DIR}/struct.c
  ${CMAKE_CURRENT_LIST_DIR}/methods.c
  ${CMAKE_CURRENT_LIST_DIR}/service.c
  ${CMAKE_CURRENT_LIST_DIR}/target.c)
# DWARF line tables and locals (debug.c)
target_sources(oxlcodegen PRIVATE ${CMAKE_CURRENT_LIST_DIR}/debug.c)
target_include_directories(oxlcodegen SYSTEM PUBLIC ${OXL_LLVM_INCLUDE})
target_include_directories(oxlcodegen PUBLIC ${CMAKE_CURRENT_LIST_DIR}/..)
target_link_libraries(oxlcodegen PUBLIC oxlfront "-L${OXL_LLVM_LIBDIR}" ${OXL_LLVM_LIBS})
if(OXL_SANITIZE)
  # Programs link the sanitizer runtime the runtime library was built with.
  target_compile_definitions(oxlcodegen PRIVATE OXL_RUNTIME_SANITIZE=1)
endif()
