# base: arenas, names, sources, diagnostics (compiler/base/base.h).
list(APPEND OXL_FRONT_SOURCES ${CMAKE_CURRENT_LIST_DIR}/base.c)
