/* main.c: the oxl command: `oxl check` (lex, parse and, when the
 * semantic stage is built in, check a package), `oxl build` and `oxl run`
 * (when code generation is built in), `oxl version`, `oxl help`.
 * Exit status: 0 no errors, 1 errors in the program, 2 usage error (bad
 * flag, missing or unreadable input), 3 internal compiler error. The only
 * exit() calls of the compiler are here. */
#include "driver/build.h"
#ifdef OXL_HAVE_CODEGEN
#include "driver/test_runner.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef OXL_VERSION
#define OXL_VERSION "0.0.0"
#endif

static const char usage_text[] =
    "usage: oxl <command> [arguments]\n"
    "\n"
    "commands:\n"
    "  check <package-dir | file.oxl> [options]\n"
    "                  parse and check a package (every .oxl file of the\n"
    "                  directory, in name order) or one file\n"
    "      --dump-tokens           print the tokens instead of checking\n"
    "      --dump-ast              print the syntax tree instead of checking\n"
    "      --color auto|always|never   color in diagnostics (default auto)\n"
    "  build <package-dir | file.oxl> [-o out] [-O2] [-c] [--emit-llvm] [-###]\n"
    "                  compile a package's fn main() to an executable\n"
    "                  (-c: an object only; --emit-llvm: textual LLVM IR)\n"
    "  build --tests <package-dir | file.oxl> [-o out] [-O2] [-###]\n"
    "                  compile a package's tests to one test binary\n"
    "                  (default out: <package>.test; docs/test-binary.md)\n"
    "  run <package-dir | file.oxl> [-O2] [-###] [-- args]\n"
    "                  build to a temporary file, run it, exit with its status\n"
    "  test [package-dir] [options]\n"
    "                  build the package's test binary and run its unit and sim\n"
    "                  tests, each seed in a process of its own (docs/testing.md;\n"
    "                  exit status 0 pass, 1 failed, 2 usage, 3 not built,\n"
    "                  4 no test matched, 5 not deterministic)\n"
    "  version         print the version\n"
    "  help            print this help\n"
    "\n"
    "exit status: 0 no errors, 1 errors in the program, 2 usage error,\n"
    "3 internal compiler error. OXL_STD overrides the standard library root.\n";

static void usage_error(const char *fmt, const char *arg) {
    fputs("oxl: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (see 'oxl help')\n", stderr);
}

#ifdef OXL_HAVE_CODEGEN
static int cmd_build(int argc, char **argv, bool run) {
    drv_build_req br = {0};
    br.run = run;
    const char *path = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (run && strcmp(a, "--") == 0) {
            br.run_args = argv + i + 1;
            br.run_nargs = argc - i - 1;
            break;
        } else if (!run && strcmp(a, "-o") == 0) {
            if (i + 1 >= argc) {
                usage_error("%s needs a file name", a);
                return EXIT_USAGE;
            }
            br.out = argv[++i];
        } else if (strcmp(a, "-O2") == 0) {
            br.opt_level = 2;
        } else if (strcmp(a, "-O0") == 0) {
            br.opt_level = 0;
        } else if (!run && strcmp(a, "-c") == 0) {
            br.obj_only = true;
        } else if (!run && strcmp(a, "--tests") == 0) {
            br.tests = true;
        } else if (!run && strcmp(a, "--emit-llvm") == 0) {
            br.emit_llvm = true;
        } else if (strcmp(a, "-###") == 0) {
            br.show_cmds = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            usage_error(run ? "unknown option '%s' for 'oxl run'" : "unknown option '%s' for 'oxl build'", a);
            return EXIT_USAGE;
        } else if (path) {
            usage_error("one package directory or file only; '%s' is one too many", a);
            return EXIT_USAGE;
        } else {
            path = a;
        }
    }
    if (!path) {
        usage_error("%s", run ? "'oxl run' needs a package directory or a .oxl file"
                              : "'oxl build' needs a package directory or a .oxl file");
        return EXIT_USAGE;
    }
    if (br.tests && (br.obj_only || br.emit_llvm)) {
        usage_error("%s", "--tests builds an executable: -c and --emit-llvm do not apply");
        return EXIT_USAGE;
    }
    return drv_compile(path, "auto", false, false, &br);
}
#endif

static int cmd_check(int argc, char **argv) {
    const char *path = NULL, *color = "auto";
    bool dump_tok = false, dump_ast = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--dump-tokens") == 0) {
            dump_tok = true;
        } else if (strcmp(a, "--dump-ast") == 0) {
            dump_ast = true;
        } else if (strcmp(a, "--color") == 0 || strncmp(a, "--color=", 8) == 0) {
            if (a[7] == '=') {
                color = a + 8;
            } else if (i + 1 < argc) {
                color = argv[++i];
            } else {
                usage_error("%s needs a value: auto, always or never", a);
                return EXIT_USAGE;
            }
            if (strcmp(color, "auto") && strcmp(color, "always") && strcmp(color, "never")) {
                usage_error("--color takes auto, always or never, not '%s'", color);
                return EXIT_USAGE;
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            usage_error("unknown option '%s' for 'oxl check'", a);
            return EXIT_USAGE;
        } else if (path) {
            usage_error("'oxl check' takes one package directory or file; '%s' is one too many", a);
            return EXIT_USAGE;
        } else {
            path = a;
        }
    }
    if (!path) {
        usage_error("%s", "'oxl check' needs a package directory or a .oxl file");
        return EXIT_USAGE;
    }
    if (dump_tok && dump_ast) {
        usage_error("%s", "--dump-tokens and --dump-ast cannot be used together");
        return EXIT_USAGE;
    }
    return drv_compile(path, color, dump_tok, dump_ast, NULL);
}


int main(int argc, char **argv) {
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "check") == 0) return cmd_check(argc - 2, argv + 2);
#ifdef OXL_HAVE_CODEGEN
    if (strcmp(cmd, "build") == 0) return cmd_build(argc - 2, argv + 2, false);
    if (strcmp(cmd, "run") == 0) return cmd_build(argc - 2, argv + 2, true);
    if (strcmp(cmd, "test") == 0) return tr_command(argc - 2, argv + 2);
#endif
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        if (argc > 2) {
            usage_error("'oxl version' takes no arguments, not '%s'", argv[2]);
            return EXIT_USAGE;
        }
        printf("oxl %s\n", OXL_VERSION);
        return EXIT_OK;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    usage_error("unknown command '%s'", cmd);
    return EXIT_USAGE;
}

