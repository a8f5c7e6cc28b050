/* cli.h: the command line of oxl as one table: its commands, the options
 * each accepts and the environment variables it reads. The parsers
 * (main.c, tr_opts.c) refuse any option the table does not list, and the
 * help text, the man page oxl.1 and the shell completions (cli_docgen.c)
 * are printed from it, so none of them can drift from what is parsed.
 * Adding an option is one row in cli.c's option table. */
#ifndef OXL_DRIVER_CLI_H
#define OXL_DRIVER_CLI_H

#include <stdbool.h>
#include <stdio.h>

typedef struct cli_cmd {
    const char *name;     /* "test" */
    const char *args;     /* "[package-dir] [options]" */
    const char *summary;  /* one line */
    const char *describe; /* a paragraph (NULL: none) */
} cli_cmd;

typedef struct cli_opt {
    const char *cmd;    /* the command it belongs to */
    const char *lng;    /* "--jobs", or NULL */
    const char *shrt;   /* "-j", "-O2" or "-###", or NULL */
    const char *value;  /* the value's placeholder ("N"), NULL for a flag */
    const char *values; /* the values it takes, space-separated, for completion (NULL: free) */
    const char *help;   /* what it does (one sentence or two) */
} cli_opt;

typedef struct cli_env {
    const char *name;
    const char *help;
} cli_env;

extern const cli_cmd cli_cmds[];
extern const cli_opt cli_opts[];
extern const cli_env cli_envs[];
extern const unsigned cli_ncmds, cli_nopts, cli_nenvs;

const cli_cmd *cli_find_cmd(const char *name);
/* The row of cmd's option that argument arg is ("--jobs", "--jobs=4",
 * "-j", "-j4"); NULL when cmd has no such option. */
const cli_opt *cli_match(const char *cmd, const char *arg);
/* `oxl help CMD` and `oxl CMD --help`: the command's usage, paragraph and
 * options, a line (or more) each. */
void cli_print_help(FILE *f, const cli_cmd *c);
/* `oxl help`: every command with its summary. */
void cli_print_overview(FILE *f);
/* An argument that asks for help: "--help" or "-h". */
bool cli_is_help(const char *arg);

#endif
