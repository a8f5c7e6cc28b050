/* main.c: the oxl command: `oxl check` (lex, parse and, when the
 * semantic stage is built in, check a package), `oxl build` and `oxl run`
 * (when code generation is built in), `oxl version`, `oxl help`. Every
 * option is a row of cli.c's table: one the table does not list is refused
 * before a command looks at it, and the help text is printed from it.
 * Exit status: 0 no errors, 1 errors in the program, 2 usage error (bad
 * flag, missing or unreadable input), 3 internal compiler error. The only
 * exit() calls of the compiler are here. */
#include "driver/build.h"
#include "driver/cli.h"
#ifdef OXL_HAVE_CODEGEN
#include "driver/test_runner.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef OXL_VERSION
#define OXL_VERSION "0.0.0"
#endif

/* The command being run, for "see 'oxl help CMD'" (NULL: none yet). */
static const char *current_cmd;

static void usage_error(const char *fmt, const char *arg) {
    fputs("oxl: ", stderr);
    fprintf(stderr, fmt, arg);
    if (current_cmd) fprintf(stderr, " (see 'oxl help %s')\n", current_cmd);
    else fputs(" (see 'oxl help')\n", stderr);
}

/* An option of cmd that cli.c's table does not list: refused here, so
 * every option a parser below accepts is in the help text too. Help
 * (-h, --help) prints the command's help: returns EXIT_OK. -1: go on. */
static int gate(const char *cmd, const char *a) {
    if (cli_is_help(a)) {
        cli_print_help(stdout, cli_find_cmd(cmd));
        return EXIT_OK;
    }
    if (a[0] == '-' && a[1] != '\0' && !cli_match(cmd, a)) {
        fprintf(stderr, "oxl: unknown option '%s' for 'oxl %s' (see 'oxl help %s')\n", a, cmd, cmd);
        return EXIT_USAGE;
    }
    return -1;
}

#ifdef OXL_HAVE_CODEGEN
static int cmd_build(int argc, char **argv, bool run) {
    drv_build_req br = {0};
    br.run = run;
    const char *path = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int g = run && strcmp(a, "--") == 0 ? -1 : gate(run ? "run" : "build", a);
        if (g >= 0) return g;
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
        int g = gate("check", a);
        if (g >= 0) return g;
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


/* `oxl help [command]`. */
static int cmd_help(int argc, char **argv) {
    if (argc == 0) {
        cli_print_overview(stdout);
        return EXIT_OK;
    }
    const cli_cmd *c = cli_find_cmd(argv[0]);
    if (argc > 1 || !c) {
        usage_error(argc > 1 ? "'oxl help' takes one command, not '%s' too" : "'oxl help': no command '%s'",
                    argv[argc > 1 ? 1 : 0]);
        return EXIT_USAGE;
    }
    cli_print_help(stdout, c);
    return EXIT_OK;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        cli_print_overview(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    /* the driver's messages name the command: "oxl test: no .oxl files in ..." */
    static const char *const named[] = {"check", "build", "run", "test"};
    for (size_t i = 0; i < sizeof named / sizeof *named; i++) {
        static char prefix[16];
        if (strcmp(cmd, named[i]) != 0) continue;
        snprintf(prefix, sizeof prefix, "oxl %s", named[i]);
        drv_set_command(prefix);
        current_cmd = named[i];
    }
    if (strcmp(cmd, "check") == 0) return cmd_check(argc - 2, argv + 2);
#ifdef OXL_HAVE_CODEGEN
    if (strcmp(cmd, "build") == 0) return cmd_build(argc - 2, argv + 2, false);
    if (strcmp(cmd, "run") == 0) return cmd_build(argc - 2, argv + 2, true);
    if (strcmp(cmd, "test") == 0) return tr_command(argv[0], argc - 2, argv + 2);
#endif
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        if (argc > 2 && cli_is_help(argv[2])) {
            cli_print_help(stdout, cli_find_cmd("version"));
            return EXIT_OK;
        }
        if (argc > 2) {
            usage_error("'oxl version' takes no arguments, not '%s'", argv[2]);
            return EXIT_USAGE;
        }
        printf("oxl %s\n", OXL_VERSION);
        return EXIT_OK;
    }
    if (strcmp(cmd, "help") == 0) return cmd_help(argc - 2, argv + 2);
    if (cli_is_help(cmd)) {
        cli_print_overview(stdout);
        return EXIT_OK;
    }
    if (cmd[0] == '-') usage_error("unknown option '%s' for 'oxl' (a command comes first)", cmd);
    else usage_error("unknown command '%s'", cmd);
    return EXIT_USAGE;
}
