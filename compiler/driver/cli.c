/* cli.c: the table of oxl's commands, options and environment variables
 * (cli.h), and the help text printed from it. */
#include "cli.h"

#include <string.h>

const cli_cmd cli_cmds[] = {
    {"check", "<package-dir | file.oxl> [options]", "parse and check a package or one file",
     "Lexes, parses and checks every .oxl file of the package directory (in name order), or the one file. "
     "Exit status 0 no errors, 1 errors in the program, 2 usage error, 3 internal compiler error."},
    {"build", "<package-dir | file.oxl> [options]", "compile a package's fn main() (or its tests) to an executable",
     "Compiles the package's fn main() to an executable (default out: the package's name), or with --tests "
     "every test block to one test binary (default out: <package>.test; docs/test-binary.md)."},
    {"run", "<package-dir | file.oxl> [options] [-- args]", "build to a temporary file, run it, exit with its status",
     "Builds the package's fn main() to a temporary executable and runs it with the arguments after '--'; "
     "the exit status is the program's."},
    {"test", "[package-dir] [options]", "build the package's test binary and run its unit and sim tests",
     "Builds the package's test binary (cached) and runs every unit test and every seed of every sim test in a "
     "process of its own, the lowest failing seed of each test reported with a line that reproduces it "
     "(docs/testing.md). Exit status 0 pass, 1 failed, 2 usage, 3 not built, 4 no test matched, "
     "5 not deterministic."},
    {"version", "", "print the version", NULL},
    {"help", "[command]", "print the help of oxl or of a command", NULL},
};

#define HELP_ROW(cmd) {cmd, "--help", "-h", NULL, NULL, "print this help and exit"}

const cli_opt cli_opts[] = {
    /* oxl itself, before a command */
    {"oxl", "--version", "-V", NULL, NULL, "print the version and exit (as 'oxl version')"},
    HELP_ROW("oxl"),

    {"check", "--dump-tokens", NULL, NULL, NULL, "print the tokens instead of checking"},
    {"check", "--dump-ast", NULL, NULL, NULL, "print the syntax tree instead of checking"},
    {"check", "--color", NULL, "WHEN", "auto always never", "color in diagnostics (default auto)"},
    HELP_ROW("check"),

    {"build", NULL, "-o", "FILE", NULL, "the output file"},
    {"build", NULL, "-O2", NULL, NULL, "optimize (LLVM's -O2)"},
    {"build", NULL, "-O0", NULL, NULL, "do not optimize (the default)"},
    {"build", NULL, "-c", NULL, NULL, "an object file only, not linked"},
    {"build", "--tests", NULL, NULL, NULL, "compile the package's tests to one test binary"},
    {"build", "--emit-llvm", NULL, NULL, NULL, "write textual LLVM IR"},
    {"build", NULL, "-###", NULL, NULL, "print the commands it runs (compiler, linker) on stderr"},
    HELP_ROW("build"),

    {"run", NULL, "-O2", NULL, NULL, "optimize (LLVM's -O2)"},
    {"run", NULL, "-O0", NULL, NULL, "do not optimize (the default)"},
    {"run", NULL, "-###", NULL, NULL, "print the commands it runs on stderr"},
    HELP_ROW("run"),

    {"test", "--kind", NULL, "KIND", "unit sim", "run only the unit tests, or only the sim tests"},
    {"test", "--seed", NULL, "N", NULL,
     "run exactly seed N (0 to 2^63-1) of each selected sim test, even outside its range; implies --kind sim"},
    {"test", "--seeds", NULL, "A..B", NULL,
     "run seeds A to B, both included, of every selected sim test instead of its own range (N alone: 1..N)"},
    {"test", "--exact", NULL, "NAME", NULL, "only the test called exactly NAME"},
    {"test", "--filter", "-f", "SUBSTR", NULL, "only the tests whose name contains SUBSTR"},
    {"test", "--timeout", "-t", "SECONDS", NULL,
     "wall-clock limit of each process (default 300, 0 for none); a process over it is killed and reported"},
    {"test", "--jobs", "-j", "N", NULL, "processes at a time (default: the online cores; 1 to 1024)"},
    {"test", "--no-fail-fast", NULL, NULL, NULL, "run every test even after one failed"},
    {"test", "--list", NULL, NULL, NULL,
     "print the selected tests (index, kind, seeds, place, name; a sim test's nodes) and exit"},
    {"test", "--format", NULL, "FORMAT", "human tap json github",
     "the report on stdout (default human; github: human plus ::error annotations)"},
    {"test", "--junit", NULL, "FILE", NULL, "also write a JUnit XML report to FILE"},
    {"test", "--partition", NULL, "hash:M/N", NULL,
     "run shard M (1-based) of N; hash:auto/N takes M from JOB_COMPLETION_INDEX (+1)"},
    {"test", "--color", NULL, "WHEN", "auto always never", "color in the human report (default auto)"},
    {"test", "--gdb", NULL, NULL, NULL,
     "run the one test (--exact NAME, and --seed N for a sim test) under gdb, its environment and policy set, "
     "stopping at a panic"},
    {"test", "--policy", NULL, "POLICY", "random fifo pct",
     "the scheduler's policy in every sim process (default random; pct: PCT, see --pct-depth)"},
    {"test", "--pct-depth", NULL, "D", NULL, "the bug depth --policy pct aims at, 1 to 64 (default 3)"},
    {"test", "--shrink", NULL, NULL, NULL,
     "with --exact NAME --seed N: shrink that failing seed's schedule and write it as a schedule file"},
    {"test", "--shrink-budget", NULL, "N", NULL, "runs the shrink may take (default 500); the best found is kept"},
    {"test", "--shrink-out", NULL, "FILE", NULL, "where --shrink writes the schedule (default oxl-schedule-seed<N>.txt)"},
    {"test", "--replay", NULL, "FILE", NULL, "with --exact NAME: run the schedule file FILE (as --shrink wrote it)"},
    {"test", "--timeline", NULL, "FILE", NULL,
     "with --exact NAME --seed N: also write that seed's whole run as one HTML page"},
    {"test", "--in-process", NULL, NULL, NULL,
     "run sim seeds one after the other in long-lived processes (one a job); what does not pass there runs in its own"},
    {"test", "--merge", NULL, NULL, NULL,
     "no run: report the JSON reports of a sharded run's shards (the arguments) as the one unsharded run"},
    {"test", "--no-capture", NULL, NULL, NULL,
     "print every process's output as it comes, one process at a time (sets -j 1)"},
    {"test", "--nocapture", NULL, NULL, NULL, "the same as --no-capture"},
    {"test", "--trace-tail", NULL, "N|all", NULL, "trace events a failing seed's report shows (default 20)"},
    {"test", "--time-limit", NULL, "DURATION", NULL,
     "virtual time after which a sim seed stops with the time-limit report (30s, 2m, 500ms); wins over OXL_SIM_TIME_LIMIT"},
    {"test", "--failures-file", NULL, "PATH", NULL,
     "the failures file to read and write instead of <package>/oxl-test-failures.txt (one package only)"},
    {"test", NULL, "-O2", NULL, NULL, "build the test binary optimized"},
    {"test", NULL, "-O0", NULL, NULL, "build the test binary without optimization (the default)"},
    {"test", NULL, "-###", NULL, NULL, "print the commands it runs on stderr"},
    HELP_ROW("test"),

    HELP_ROW("version"),
};

const cli_env cli_envs[] = {
    {"OXL_STD", "the standard library's root (default: share/oxl/std beside the oxl executable)"},
    {"OXL_RUNTIME", "the runtime library to link (default: lib/oxl/liboxlrt.a beside the oxl executable)"},
    {"OXL_CACHE_DIR", "where oxl test caches test binaries (else $XDG_CACHE_HOME/oxl, else ~/.cache/oxl)"},
    {"OXL_TEST_KEEP_BINARY", "oxl test copies the test binary to this path"},
    {"OXL_TEST_FORK_SERVER", "0: each process of oxl test is forked by a server of its own (default 1)"},
    {"OXL_TEST_SPREAD_FORKS", "1: the kernel places every seed's process; 0 (default): one forked while no other runs stays on the fork server's CPU"},
    {"OXL_SIM_TIME_LIMIT", "seconds of virtual time after which a sim seed fails (default 86400)"},
    {"OXL_SIM_FENCE", "0: no fence inside sim seeds (default 1)"},
    {"OXL_SIM_TRACE_DUMP", "a file: a sim seed writes its whole trace there (what the timeline and the trace diff read)"},
    {"OXL_TEST_CANARY_EVERY", "with --in-process: re-run the canary seed every N seeds (default 100)"},
    {"OXL_SIM_POLICY", "random, fifo or pct: the scheduler's policy, as --policy (the flag wins)"},
    {"OXL_SIM_PCT_DEPTH", "1 to 64: pct's depth, as --pct-depth (the flag wins)"},
    {"OXL_SIM_NODES_DEBUG", "1: a sim seed prints a line per node boot, crash and restart"},
    {"OXL_TEST_TOTAL_SHARDS", "with JOB_COMPLETION_INDEX: a Kubernetes Indexed Job's shards (as --partition hash:auto/N)"},
    {"JOB_COMPLETION_INDEX", "the shard index (from 0) of a Kubernetes Indexed Job's pod"},
    {"TEST_TOTAL_SHARDS", "with TEST_SHARD_INDEX: Bazel's sharding (see --partition)"},
    {"XML_OUTPUT_FILE", "without --junit: where oxl test writes its JUnit report (Bazel)"},
    {"GITHUB_ACTIONS", "true: oxl test adds ::error annotations to the human report"},
    {"NO_COLOR", "set and not empty: no color with --color auto"},
    {"COLUMNS", "the terminal's width when the terminal does not say (the progress line)"},
};

const unsigned cli_ncmds = sizeof cli_cmds / sizeof *cli_cmds;
const unsigned cli_nopts = sizeof cli_opts / sizeof *cli_opts;
const unsigned cli_nenvs = sizeof cli_envs / sizeof *cli_envs;

const cli_cmd *cli_find_cmd(const char *name) {
    for (unsigned i = 0; i < cli_ncmds; i++)
        if (strcmp(cli_cmds[i].name, name) == 0) return &cli_cmds[i];
    return NULL;
}

bool cli_is_help(const char *arg) { return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0; }

const cli_opt *cli_match(const char *cmd, const char *arg) {
    for (unsigned i = 0; i < cli_nopts; i++) {
        const cli_opt *o = &cli_opts[i];
        if (strcmp(o->cmd, cmd) != 0) continue;
        if (o->lng) {
            size_t n = strlen(o->lng);
            if (strncmp(arg, o->lng, n) == 0 && (arg[n] == '\0' || (o->value && arg[n] == '='))) return o;
        }
        if (o->shrt) {
            size_t n = strlen(o->shrt);
            if (strncmp(arg, o->shrt, n) == 0 && (arg[n] == '\0' || (o->value && n == 2))) return o;
        }
    }
    return NULL;
}

/* Writes text from column col on, wrapped before column 80, each further
 * line indented to indent. */
static void wrap(FILE *f, const char *text, int col, int indent) {
    const char *s = text;
    while (*s) {
        size_t w = strcspn(s, " ");
        if (col > indent && col + 1 + (int)w > 79) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fwrite(s, 1, w, f);
        col += (int)w;
        s += w;
        while (*s == ' ') s++;
    }
    fputc('\n', f);
}

void cli_print_help(FILE *f, const cli_cmd *c) {
    fprintf(f, "usage: oxl %s%s%s\n", c->name, *c->args ? " " : "", c->args);
    fputc('\n', f);
    wrap(f, c->describe ? c->describe : c->summary, 0, 0);
    bool any = false;
    for (unsigned i = 0; i < cli_nopts; i++) {
        const cli_opt *o = &cli_opts[i];
        if (strcmp(o->cmd, c->name) != 0) continue;
        if (!any) fputs("\noptions:\n", f);
        any = true;
        char spell[64];
        snprintf(spell, sizeof spell, "%s%s%s%s%s", o->shrt ? o->shrt : "", o->shrt && o->lng ? ", " : "",
                 o->lng ? o->lng : "", o->value ? " " : "", o->value ? o->value : "");
        int col = fprintf(f, "  %-22s", spell);
        if (col > 24) {
            fprintf(f, "\n%24s", "");
            col = 24;
        }
        wrap(f, o->help, col, 24);
    }
    if (strcmp(c->name, "test") == 0) {
        fputs("\nenvironment:\n", f);
        for (unsigned i = 0; i < cli_nenvs; i++) {
            int col = fprintf(f, "  %-22s", cli_envs[i].name);
            if (col > 24) fprintf(f, "\n%24s", ""), col = 24;
            wrap(f, cli_envs[i].help, col, 24);
        }
    }
}

void cli_print_overview(FILE *f) {
    fputs("usage: oxl <command> [arguments]\n       oxl -V | --version\n\ncommands:\n", f);
    for (unsigned i = 0; i < cli_ncmds; i++) {
        int col = fprintf(f, "  %-10s", cli_cmds[i].name);
        wrap(f, cli_cmds[i].summary, col, 12);
    }
    fputs("\n'oxl help <command>' or 'oxl <command> --help' prints a command's options.\n"
          "exit status: 0 no errors, 1 errors in the program, 2 usage error, 3 internal compiler error\n"
          "(oxl test: docs/testing.md). OXL_STD overrides the standard library root.\n",
          f);
}
