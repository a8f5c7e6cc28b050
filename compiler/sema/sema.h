/* sema.h: semantic analysis of a package: names, imports, types, services,
 * clusters and tests. Errors and warnings go to the diagnostics sink; the
 * checked tree keeps its types and symbols in ast_node.type / .sym for the
 * code generator. Prefix: sema_. */
#ifndef OXL_SEMA_H
#define OXL_SEMA_H

#include "base/base.h"
#include "parse/ast.h"

/* How sema finds the packages a `use` names. The driver implements it:
 * "std.test" is the directory std/test of the standard library; any other
 * dotted path is a directory relative to the package root. */
typedef struct sema_loader {
    /* Parses every .oxl file of the package at the dotted path into files
     * (AST_FILE nodes, sources registered in the sink). Returns false when
     * there is no such package (sema reports it at the `use`). */
    bool (*load)(void *ctx, const char *dotted_path, base_vec *files);
    void *ctx;
} sema_loader;

typedef struct sema_options {
    bool warn_unused;      /* warnings for unused variables (default on) */
    bool warn_unreachable; /* warnings for unreachable code (default on) */
} sema_options;

typedef struct sema_program sema_program; /* the checked package and what it imports */

/* Checks the package made of `files` (AST_FILE nodes). Returns the program,
 * or NULL only when memory runs out; check diag_errors for the verdict. */
sema_program *sema_check_package(base_arena *arena, base_names *names, diag_sink *diags, const base_vec *files,
                                 const sema_loader *loader, const sema_options *opt);

#endif
