/* parse.h: the OxL parser (grammar.y, built with lemon). It reads one
 * source through the lexer and builds its syntax tree (ast.h) in the
 * arena; syntax errors go to the sink, several per run: the parser skips
 * to the next statement or item and goes on. Prefix: parse_. */
#ifndef OXL_PARSE_H
#define OXL_PARSE_H

#include "base/base.h"
#include "parse/ast.h"

/* The deepest syntax tree the parser hands on (statements, expressions
 * and types together); deeper input is "too deeply nested", so later
 * stages may recurse over the tree without running out of stack. */
#define PARSE_MAX_TREE_DEPTH 2048

/* Parses `src` (registered in `diags`) into an AST_FILE. Never NULL: on
 * errors the file holds every item that parsed. */
ast_node *parse_source(base_arena *arena, base_names *names, diag_sink *diags, const base_source *src);

#endif
