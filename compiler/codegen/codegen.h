/* codegen.h: the code generator's interface. It turns a checked package
 * (sema's program, with ast_node.type/.sym filled in) into an LLVM module,
 * optimizes it, writes it as textual IR or as a native object, and links an
 * executable against the runtime with the system C compiler.
 * Errors go to the diagnostics sink; unsupported constructs are reported as
 * "code generation does not support <construct> yet". Prefix: cg_. */
#ifndef OXL_CODEGEN_H
#define OXL_CODEGEN_H

#include "base/base.h"
#include "sema/sema.h"

typedef struct cg_module cg_module;

/* Builds the module of the root package of prog (its `fn main()` and the
 * functions it has), verifies it and sets the host triple and data layout.
 * Returns NULL when an error was reported. */
cg_module *cg_build(diag_sink *d, const sema_program *prog, const char *module_name);
/* Builds the test binary's module of the root package: every test block
 * of sema_program.tests, a table of them and a C main that calls
 * oxl_test_main (docs/test-binary.md); no `fn main()` is needed. File names
 * in the table are relative to pkg_dir. NULL when an error was reported. */
cg_module *cg_build_tests(diag_sink *d, const sema_program *prog, const char *module_name, const char *pkg_dir);
/* opt_level 0 (nothing; the fast instruction selector) or 2 (LLVM's
 * default<O2> pipeline through LLVMRunPasses). False with an internal
 * error reported when the pipeline fails. */
bool cg_optimize(cg_module *m, int opt_level);
/* Textual LLVM IR. False with a message on stderr when it cannot be written. */
bool cg_write_ir(cg_module *m, const char *path);
/* A native object for the host. False with a message on stderr. */
bool cg_write_object(cg_module *m, const char *path);
void cg_free(cg_module *m);

/* Links an object into an executable with the system `cc` against the
 * runtime library rt_lib (and -lgc -lpthread -lm), compiling the package's
 * C files (its extern fns, n_c of them) with debug information and
 * include_dir on the header path. extra_flags, when not NULL, is a
 * NULL-terminated list of more flags for that command (a test binary's:
 * the fence's wrappers). With static_link the executable holds every
 * library it uses (cc -static): no dynamic loader, a few mappings (a test
 * binary's, for its fork server's seeds); a runtime built with sanitizers
 * links dynamically all the same, as their runtimes must. With
 * show_commands, prints each spawned command on stderr first. False with
 * a message on stderr. */
bool cg_link(const char *object, const char *const *c_sources, int n_c, const char *include_dir, const char *rt_lib,
             const char *const *extra_flags, bool static_link, const char *out, bool show_commands);
/* Spawns argv (argv[0] searched in PATH when it has no slash) and waits;
 * returns the exit status, 128 + signal when killed, -1 when it cannot be
 * started (message on stderr). */
int cg_spawn_wait(char *const argv[], bool show_command);

#endif
