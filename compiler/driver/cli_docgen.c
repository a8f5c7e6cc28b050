/* cli_docgen.c: prints, from cli.c's table, the man page oxl.1 (roff), the
 * bash and zsh completions, or a command's options one per line (for the
 * tests that check the parsers and the help against the table). Run at
 * build time; the outputs are installed (CMakeLists.txt).
 *
 *   oxl_docgen man VERSION | bash | zsh | options CMD | commands */
#include "cli.h"

#include <stdio.h>
#include <string.h>

/* Text in roff: a backslash doubled, '-' as \-, and a line that would
 * start with '.' or '\'' guarded. */
static void roff(const char *s) {
    if (*s == '.' || *s == '\'') fputs("\\&", stdout);
    for (; *s; s++) {
        if (*s == '\\') fputs("\\e", stdout);
        else if (*s == '-') fputs("\\-", stdout);
        else putchar(*s);
    }
}

static void man_option(const cli_opt *o) {
    puts(".TP");
    fputs("\\fB", stdout);
    if (o->shrt) roff(o->shrt);
    if (o->shrt && o->lng) fputs("\\fR, \\fB", stdout);
    if (o->lng) roff(o->lng);
    fputs("\\fR", stdout);
    if (o->value) {
        fputs(" \\fI", stdout);
        roff(o->value);
        fputs("\\fR", stdout);
    }
    putchar('\n');
    roff(o->help);
    putchar('\n');
}

static void man(const char *version) {
    printf(".TH OXL 1 \"\" \"oxl %s\" \"User Commands\"\n", version);
    puts(".SH NAME\noxl \\- the OxL compiler and its deterministic simulation test runner");
    puts(".SH SYNOPSIS");
    for (unsigned i = 0; i < cli_ncmds; i++) {
        printf(".B oxl %s\n", cli_cmds[i].name);
        if (*cli_cmds[i].args) {
            roff(cli_cmds[i].args);
            putchar('\n');
        }
        puts(".br");
    }
    puts(".B oxl \\-V\n.SH DESCRIPTION");
    roff("oxl compiles OxL packages (a directory of .oxl files) and runs their tests: unit tests, and sim tests "
         "whose every seed is a deterministic simulation of a World of nodes, run in a process of its own.");
    putchar('\n');
    for (unsigned i = 0; i < cli_nopts; i++)
        if (strcmp(cli_opts[i].cmd, "oxl") == 0) man_option(&cli_opts[i]);
    puts(".SH COMMANDS");
    for (unsigned i = 0; i < cli_ncmds; i++) {
        const cli_cmd *c = &cli_cmds[i];
        printf(".SS \"oxl %s", c->name);
        if (*c->args) putchar(' '), roff(c->args);
        puts("\"");
        roff(c->describe ? c->describe : c->summary);
        putchar('\n');
        for (unsigned k = 0; k < cli_nopts; k++)
            if (strcmp(cli_opts[k].cmd, c->name) == 0) man_option(&cli_opts[k]);
    }
    puts(".SH ENVIRONMENT");
    for (unsigned i = 0; i < cli_nenvs; i++) {
        printf(".TP\n.B ");
        roff(cli_envs[i].name);
        putchar('\n');
        roff(cli_envs[i].help);
        putchar('\n');
    }
    puts(".SH EXIT STATUS");
    roff("0 no errors (oxl test: every test passed); 1 errors in the program (a test failed); 2 usage error; "
         "3 internal compiler error (oxl test: the test binary was not built); oxl test also exits 4 when no test "
         "matched and 5 when a failing seed was not deterministic.");
    puts("\n.SH SEE ALSO");
    roff("The guides installed in share/doc/oxl: testing.md (oxl test), test-binary.md, language.md.");
    putchar('\n');
}

/* Every spelling of cmd's options, space-separated. */
static void spellings(const char *cmd) {
    for (unsigned i = 0; i < cli_nopts; i++) {
        const cli_opt *o = &cli_opts[i];
        if (strcmp(o->cmd, cmd) != 0) continue;
        if (o->shrt) printf(" %s", o->shrt);
        if (o->lng) printf(" %s", o->lng);
    }
}

static void bash(void) {
    puts("# bash completion for oxl (generated from the driver's option table)");
    puts("_oxl() {");
    puts("    local cur prev cmd");
    puts("    cur=${COMP_WORDS[COMP_CWORD]}");
    puts("    prev=${COMP_WORDS[COMP_CWORD-1]}");
    puts("    cmd=${COMP_WORDS[1]}");
    puts("    if [ \"$COMP_CWORD\" -eq 1 ]; then");
    fputs("        COMPREPLY=($(compgen -W '", stdout);
    for (unsigned i = 0; i < cli_ncmds; i++) printf("%s%s", i ? " " : "", cli_cmds[i].name);
    spellings("oxl");
    puts("' -- \"$cur\"))\n        return\n    fi");
    puts("    case \"$cmd $prev\" in");
    for (unsigned i = 0; i < cli_nopts; i++) {
        const cli_opt *o = &cli_opts[i];
        if (!o->value || strcmp(o->cmd, "oxl") == 0) continue;
        printf("    \"%s %s\")\n", o->cmd, o->lng ? o->lng : o->shrt);
        if (o->values) printf("        COMPREPLY=($(compgen -W '%s' -- \"$cur\"))\n", o->values);
        else printf("        COMPREPLY=($(compgen -f -- \"$cur\"))\n");
        puts("        return ;;");
    }
    puts("    esac");
    puts("    case \"$cmd\" in");
    for (unsigned i = 0; i < cli_ncmds; i++) {
        if (strcmp(cli_cmds[i].name, "help") == 0) {
            fputs("    help) COMPREPLY=($(compgen -W '", stdout);
            for (unsigned k = 0; k < cli_ncmds; k++) printf("%s%s", k ? " " : "", cli_cmds[k].name);
            puts("' -- \"$cur\")) ;;");
            continue;
        }
        printf("    %s)\n        if [[ $cur == -* ]]; then\n            COMPREPLY=($(compgen -W '", cli_cmds[i].name);
        spellings(cli_cmds[i].name);
        puts("' -- \"$cur\"))\n        else\n            COMPREPLY=($(compgen -f -- \"$cur\"))\n        fi ;;");
    }
    puts("    esac\n}\ncomplete -o filenames -F _oxl oxl");
}

/* zsh _arguments specs: text inside [...] may not hold ']' or ':'. */
static void zsh_text(const char *s) {
    for (; *s; s++) {
        if (*s == '[' || *s == ']') putchar(*s == '[' ? '(' : ')');
        else if (*s == ':') putchar(',');
        else if (*s == '\'') fputs("'\\''", stdout);
        else putchar(*s);
    }
}

static void zsh_spec(const cli_opt *o, const char *spelling) {
    printf("        '%s%s[", spelling, o->value && spelling[1] == '-' ? "=" : "");
    zsh_text(o->help);
    putchar(']');
    if (o->value) {
        printf(":%s:", o->value);
        if (o->values) printf("(%s)", o->values);
        else fputs("_files", stdout);
    }
    puts("' \\");
}

static void zsh(void) {
    puts("#compdef oxl\n# zsh completion for oxl (generated from the driver's option table)");
    puts("_oxl() {\n    local -a cmds\n    cmds=(");
    for (unsigned i = 0; i < cli_ncmds; i++) {
        printf("        '%s:", cli_cmds[i].name);
        zsh_text(cli_cmds[i].summary);
        puts("'");
    }
    puts("    )\n    if (( CURRENT == 2 )); then\n        _describe 'command' cmds\n        return\n    fi");
    puts("    local cmd=${words[2]}\n    shift words\n    (( CURRENT-- ))\n    case $cmd in");
    for (unsigned i = 0; i < cli_ncmds; i++) {
        const char *name = cli_cmds[i].name;
        if (strcmp(name, "help") == 0) {
            puts("    help) _describe 'command' cmds ;;");
            continue;
        }
        printf("    %s)\n        _arguments \\\n", name);
        for (unsigned k = 0; k < cli_nopts; k++) {
            const cli_opt *o = &cli_opts[k];
            if (strcmp(o->cmd, name) != 0) continue;
            if (o->shrt) zsh_spec(o, o->shrt);
            if (o->lng) zsh_spec(o, o->lng);
        }
        puts("        '*:file:_files' ;;");
    }
    puts("    esac\n}\n_oxl \"$@\"");
}

/* One line per option of cmd: its spellings, then "=" and its first value
 * (or "x") when it takes one: "-j --jobs =x". */
static int options(const char *cmd) {
    if (strcmp(cmd, "oxl") != 0 && !cli_find_cmd(cmd)) return 2;
    for (unsigned i = 0; i < cli_nopts; i++) {
        const cli_opt *o = &cli_opts[i];
        if (strcmp(o->cmd, cmd) != 0) continue;
        printf("%s%s%s", o->shrt ? o->shrt : "", o->shrt && o->lng ? " " : "", o->lng ? o->lng : "");
        if (o->value) printf(" =%s", o->value);
        putchar('\n');
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "man") == 0) man(argv[2]);
    else if (argc == 2 && strcmp(argv[1], "bash") == 0) bash();
    else if (argc == 2 && strcmp(argv[1], "zsh") == 0) zsh();
    else if (argc == 3 && strcmp(argv[1], "options") == 0) return options(argv[2]);
    else if (argc == 2 && strcmp(argv[1], "commands") == 0)
        for (unsigned i = 0; i < cli_ncmds; i++) puts(cli_cmds[i].name);
    else {
        fputs("usage: oxl_docgen man VERSION | bash | zsh | options CMD | commands\n", stderr);
        return 2;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
