/* build.h: the compilation pipeline of the oxl command: read a package,
 * check it, and (with code generation built in) compile it to an
 * executable, a program run, or a package's test binary
 * (docs/test-binary.md). main.c parses the command line; this does the
 * work. Exit statuses: 0 no errors, 1 errors in the program, 2 usage error
 * (bad flag, missing or unreadable input), 3 internal compiler error. */
#ifndef OXL_DRIVER_BUILD_H
#define OXL_DRIVER_BUILD_H

#include <stdbool.h>

enum { EXIT_OK = 0, EXIT_ERRORS = 1, EXIT_USAGE = 2, EXIT_INTERNAL = 3 };

/* What `oxl build` and `oxl run` ask of a compilation (NULL for check). */
typedef struct drv_build_req {
    const char *out;   /* executable to write */
    int opt_level;     /* 0 or 2 */
    bool emit_llvm;    /* write textual IR to out instead */
    bool obj_only;     /* -c: write the object to out, do not link */
    bool show_cmds;    /* -###: print each spawned command */
    bool run;          /* oxl run: build to a temporary file and run it */
    bool tests;        /* --tests: the package's test binary instead of its main */
    char **run_args;   /* the program's arguments (after --) */
    int run_nargs;
} drv_build_req;

/* Checks (breq NULL) or builds the package directory or file at path;
 * color is auto, always or never; dump_tok / dump_ast print instead of
 * checking. Diagnostics go to stderr. Returns the exit status. */
/* The command its messages name ("oxl test"; default "oxl"). */
void drv_set_command(const char *name);

int drv_compile(const char *path, const char *color, bool dump_tok, bool dump_ast, const drv_build_req *breq);

/* The test binary of the package at pkg_path, written to out_path (default:
 * the package's name + ".test"). Returns 0 when built, 1 on compile errors
 * (diagnostics already printed), 2 when the package cannot be read, 3 on
 * an internal or link error. */
int drv_build_test_binary(const char *pkg_path, const char *out_path, bool show_commands, int opt_level);

#endif
