/* debug_info_test: the DWARF that `oxl build` emits (compiler/codegen/debug.c).
 * A program that overflows three calls deep is built at -O0 and -O2 and run
 * under gdb with a breakpoint on oxl_panic_at: the backtrace must name each
 * OxL frame at main.oxl:<line>. The object's line table (llvm-dwarfdump-14
 * --debug-line) must name main.oxl and have a row for every statement line
 * and none past the end of the file. A panic inside a spawned task has the
 * spawn block's body in its backtrace. A struct's field, a list's element,
 * a map's entry and a union's member print at -O0 and -O2. Two builds give
 * the same bytes; a
 * program with a type error gives a file:line:col error and no executable.
 *
 *   debug_info_test OXL */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cmd.h"
#include "tap.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *oxl;
static char *dir;

/* Lines 1..18; the statement lines are listed in main(). */
static const char program[] =
    "fn inner(a: Int, b: Int) -> Int {\n"           /* 1 */
    "  let c = a * b\n"                              /* 2 */
    "  return c + a\n"                               /* 3: overflows for a = 1 */
    "}\n"                                            /* 4 */
    "\n"                                             /* 5 */
    "fn outer(n: Int) -> Int {\n"                    /* 6 */
    "  var s = 0\n"                                  /* 7 */
    "  for i in 0..n {\n"                            /* 8 */
    "    s += inner(i, 9223372036854775807)\n"       /* 9 */
    "  }\n"                                          /* 10 */
    "  return s\n"                                   /* 11 */
    "}\n"                                            /* 12 */
    "\n"                                             /* 13 */
    "fn main() {\n"                                  /* 14 */
    "  let label = \"start\"\n"                      /* 15 */
    "  print(label)\n"                               /* 16 */
    "  print(outer(3))\n"                            /* 17 */
    "}\n";                                           /* 18 */

/* True when some backtrace line ("#N ...") names fn and ends with
 * "at <where>" (so main.oxl:3 does not match main.oxl:30). */
static bool frame_at(const char *bt, const char *fn, const char *where) {
    for (const char *l = bt; l && *l;) {
        const char *end = strchr(l, '\n');
        size_t len = end ? (size_t)(end - l) : strlen(l);
        char line[1024];
        if (len >= sizeof line) len = sizeof line - 1;
        memcpy(line, l, len);
        line[len] = '\0';
        char suffix[128];
        snprintf(suffix, sizeof suffix, " at %s", where);
        size_t sl = strlen(suffix);
        if (line[0] == '#' && strstr(line, fn) && len >= sl && strcmp(line + len - sl, suffix) == 0) return true;
        l = end ? end + 1 : NULL;
    }
    return false;
}

static void check_gdb(const char *opt) {
    char *out;
    int st = cmd_run(&out, "cd '%s' && '%s' build main.oxl %s -o prog%s", dir, oxl, opt, opt);
    if (!tap_ok(st == 0, "%s: oxl build exits 0", opt)) tap_diag("%s", out);
    free(out);
    st = cmd_run(&out, "cd '%s' && ./prog%s", dir, opt);
    tap_is_int(st, 101, "%s: the program panics (exit 101)", opt);
    tap_contains(out, "panic: integer overflow\n  at main.oxl:3", "%s: the panic names main.oxl:3", opt);
    free(out);
    st = cmd_run(&out, "cd '%s' && timeout 120 gdb -batch -nx -ex 'set debuginfod enabled off' "
                       "-ex 'break oxl_panic_at' -ex run -ex bt ./prog%s </dev/null",
                 dir, opt);
    tap_is_int(st, 0, "%s: gdb -batch exits 0", opt);
    bool a = tap_ok(frame_at(out, "inner", "main.oxl:3"), "%s: backtrace: inner at main.oxl:3", opt);
    bool b = tap_ok(frame_at(out, "outer", "main.oxl:9"), "%s: backtrace: outer at main.oxl:9", opt);
    bool c = tap_ok(frame_at(out, "main.main", "main.oxl:17"), "%s: backtrace: main at main.oxl:17", opt);
    if (!a || !b || !c) tap_diag("gdb said:\n%s", out);
    if (strcmp(opt, "-O0") == 0)
        tap_ok(strstr(out, "inner (a=1, b=9223372036854775807)") != NULL, "%s: gdb shows inner's parameters", opt);
    free(out);
}

/* The rows of `llvm-dwarfdump --debug-line`: "0x<addr> <line> <col> ...". */
static void check_line_table(void) {
    char *out;
    int st = cmd_run(&out, "cd '%s' && '%s' build main.oxl -c -o a.o && llvm-dwarfdump-14 --debug-line --debug-info a.o", dir,
                     oxl);
    if (!tap_is_int(st, 0, "oxl build -c and llvm-dwarfdump-14 exit 0")) {
        tap_diag("%s", out);
        free(out);
        return;
    }
    tap_contains(out, "name: \"main.oxl\"", "the line table names main.oxl");
    char real[PATH_MAX];
    if (realpath(dir, real)) {
        char want[PATH_MAX + 32];
        snprintf(want, sizeof want, "DW_AT_comp_dir\t(\"%s\")", real);
        tap_contains(out, want, "the compile unit's directory is the source's directory");
    } else {
        tap_ok(false, "realpath of the test directory");
    }
    bool seen[64] = {0};
    int rows = 0, beyond = 0;
    for (const char *l = out; l && *l;) {
        unsigned long long addr;
        unsigned line, col;
        if (sscanf(l, "0x%llx %u %u", &addr, &line, &col) == 3) {
            rows++;
            if (line < 64) seen[line] = true;
            if (line > 18) beyond++;
        }
        l = strchr(l, '\n');
        if (l) l++;
    }
    tap_ok(rows > 10, "the line table has rows (%d)", rows);
    static const unsigned stmt_lines[] = {1, 2, 3, 6, 7, 8, 9, 11, 14, 15, 16, 17};
    for (size_t i = 0; i < sizeof stmt_lines / sizeof *stmt_lines; i++)
        tap_ok(seen[stmt_lines[i]], "a row for main.oxl line %u", stmt_lines[i]);
    tap_is_int(beyond, 0, "no row past the last line");
    free(out);
}

static void check_identical(void) {
    char *out;
    int st = cmd_run(&out,
                     "cd '%s' && mkdir -p again && '%s' build main.oxl -O2 -o p1 && '%s' build main.oxl -O2 -o again/p2"
                     " && cmp p1 again/p2 && '%s' build main.oxl -c -o b.o && cmp a.o b.o",
                     dir, oxl, oxl, oxl);
    if (!tap_is_int(st, 0, "two builds (executables at -O2, objects at -O0) are byte-identical")) tap_diag("%s", out);
    free(out);
}

/* A panic inside a task: the backtrace goes through the spawn block's
 * body (a function of its own, with an artificial subprogram). */
static const char task_program[] =
    "fn work(n: Int) -> Int {\n"   /* 1 */
    "  var s = 0\n"                /* 2 */
    "  for i in 0..n {\n"          /* 3 */
    "    s += i\n"                 /* 4 */
    "  }\n"                        /* 5 */
    "  return s / (n - 3)\n"       /* 6: division by zero for n = 3 */
    "}\n"                          /* 7 */
    "\n"                           /* 8 */
    "fn main() {\n"                /* 9 */
    "  let t = spawn {\n"          /* 10 */
    "    let k = 3\n"              /* 11 */
    "    work(k)\n"                /* 12 */
    "  }\n"                        /* 13 */
    "  print(t.join())\n"          /* 14 */
    "}\n";

static void check_task(void) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/task/main.oxl", dir);
    char *out;
    cmd_run(NULL, "mkdir -p '%s/task'", dir);
    cmd_write(path, task_program);
    int st = cmd_run(&out, "cd '%s/task' && '%s' build main.oxl -o prog && timeout 120 gdb -batch -nx "
                           "-ex 'set debuginfod enabled off' -ex 'break oxl_panic_at' -ex run -ex bt ./prog </dev/null",
                     dir, oxl);
    tap_is_int(st, 0, "a task's panic: build and gdb exit 0");
    bool a = tap_ok(frame_at(out, "work", "main.oxl:6"), "backtrace: work at main.oxl:6");
    bool b = tap_ok(frame_at(out, "oxl.spawn.", "main.oxl:12"), "backtrace: the spawn block's body at main.oxl:12");
    if (!a || !b) tap_diag("gdb said:\n%s", out);
    free(out);
}

/* Aggregates show their contents: a struct's fields, a list's elements, a
 * map's entries and a union's member, at -O0 and -O2. */
static const char aggregate_program[] =
    "type Account { owner: String, balance: Int, open: Bool }\n"
    "\n"
    "fn show(acct: Account, xs: [Int], m: Map[String, Int], u: Int | String, o: Int?) {\n"
    "  print(\"{acct.balance} {xs.len()} {m.len()} {u} {o}\")\n" /* line 4: the breakpoint's caller */
    "  print(acct.owner)\n"
    "}\n"
    "\n"
    "fn main() {\n"
    "  let acct = Account { owner: \"ann\", balance: 42, open: true }\n"
    "  let xs = [10, 20, 30]\n"
    "  let m = {\"a\": 1, \"b\": 2}\n"
    "  let u: Int | String = \"hi\"\n"
    "  let o: Int? = 5\n"
    "  let all = [acct]\n" /* acct escapes, as most values do: at -O2 it is not optimized out */
    "  show(acct, xs, m, u, o)\n"
    "  print(xs[2] + all[0].balance)\n"
    "}\n";

static void check_aggregates(const char *opt) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/agg/main.oxl", dir);
    cmd_run(NULL, "mkdir -p '%s/agg'", dir);
    cmd_write(path, aggregate_program);
    char *out;
    int st = cmd_run(&out, "cd '%s/agg' && '%s' build main.oxl %s -o prog%s && timeout 120 gdb -batch -nx "
                           "-ex 'set debuginfod enabled off' -ex 'break oxl_print' -ex run -ex up "
                           "-ex 'p acct->balance' -ex 'p *acct' -ex 'p acct->owner->data' -ex 'p xs->items[1]' "
                           "-ex 'p xs->len' -ex 'p m->entries[1].value' -ex 'p u->value.String->data' -ex 'p o' ./prog%s </dev/null",
                     dir, oxl, opt, opt, opt);
    tap_is_int(st, 0, "%s: aggregates: build and gdb exit 0", opt);
    bool a = tap_contains(out, "= 42\n", "%s: gdb shows a struct's field (acct->balance)", opt);
    bool b = tap_contains(out, "balance = 42, open = true}", "%s: gdb shows a whole struct (*acct)", opt);
    bool c = tap_contains(out, "\"ann\"", "%s: gdb shows a String's text (acct->owner->data)", opt);
    bool d = tap_contains(out, "= 20\n", "%s: gdb shows a list's element (xs->items[1])", opt);
    bool e = tap_contains(out, "= 3\n", "%s: gdb shows a list's length (xs->len)", opt);
    bool f = tap_contains(out, "= 2\n", "%s: gdb shows a map's entry (m->entries[1].value)", opt);
    bool g = tap_contains(out, "\"hi\"", "%s: gdb shows a union's member (u->value.String->data)", opt);
    /* an optional of a scalar is a value, not a pointer (optional.c) */
    bool h = tap_contains(out, "{value = 5, present = true}", "%s: gdb shows an Int? as { value, present } (o)", opt);
    if (!a || !b || !c || !d || !e || !f || !g || !h) tap_diag("gdb said:\n%s", out);
    free(out);
}

static void check_bad_program(void) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/bad.oxl", dir);
    cmd_write(path, "fn main() {\n  let x: Int = \"text\"\n  print(x)\n}\n");
    char *out;
    int st = cmd_run(&out, "cd '%s' && '%s' build bad.oxl -o badprog", dir, oxl);
    tap_is_int(st, 1, "a type error: oxl build exits 1");
    tap_contains(out, "bad.oxl:2:", "the error has the file and line");
    snprintf(path, sizeof path, "%s/badprog", dir);
    tap_ok(!cmd_exists(path), "no executable is written");
    free(out);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: debug_info_test OXL\n");
        return 2;
    }
    static char oxl_abs[PATH_MAX];
    if (!realpath(argv[1], oxl_abs)) tap_bail("no oxl at %s", argv[1]);
    oxl = oxl_abs;
    if (cmd_run(NULL, "gdb --version >/dev/null") != 0) tap_bail("gdb is missing (tools/deps installs it)");
    if (cmd_run(NULL, "llvm-dwarfdump-14 --version >/dev/null") != 0)
        tap_bail("llvm-dwarfdump-14 is missing (tools/deps installs llvm-14)");
    dir = cmd_tempdir("dbg");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/main.oxl", dir);
    cmd_write(path, program);

    check_gdb("-O0");
    check_gdb("-O2");
    check_line_table();
    check_identical();
    check_task();
    check_aggregates("-O0");
    check_aggregates("-O2");
    check_bad_program();

    if (tap_failures() == 0) cmd_remove_tree(dir);
    else tap_diag("kept %s", dir);
    free(dir);
    return tap_done();
}
