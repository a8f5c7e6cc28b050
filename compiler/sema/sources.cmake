# Semantic analysis: names, imports, types, services, clusters and tests.
list(APPEND OXL_FRONT_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/types.c
  ${CMAKE_CURRENT_LIST_DIR}/scope.c
  ${CMAKE_CURRENT_LIST_DIR}/items.c
  ${CMAKE_CURRENT_LIST_DIR}/imports.c
  ${CMAKE_CURRENT_LIST_DIR}/layout.c
  ${CMAKE_CURRENT_LIST_DIR}/check_expr.c
  ${CMAKE_CURRENT_LIST_DIR}/check_call.c
  ${CMAKE_CURRENT_LIST_DIR}/check_stmt.c
  ${CMAKE_CURRENT_LIST_DIR}/builtins.c
)
