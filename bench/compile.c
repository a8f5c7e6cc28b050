/* bench_compile: how long `oxl build` takes end to end (check, code
 * generation, object, link) on a generated package, against `cc -O0` (compile
 * and link) of a C file of the same shape, both measured in this run.
 *
 * It writes a 1,000-line and a 10,000-line package using what code
 * generation supports today (docs/oxl-build.md): functions over Int with
 * loops, branches and constants, strings (interpolation, concatenation,
 * len, contains, toUpper), lists (literals by push, indexing, for-in),
 * asserts; and for each a C file doing the same thing. Each side is built
 * RUNS times (oxl keeps no cache, so every build is cold; the file system
 * cache is warm after the first); the best time counts. Both executables
 * are run and must print the same line. Prints, for N in 1000 and 10000,
 *   compile.N.lines, compile.N.seconds (oxl build), compile.N.first_seconds
 *   (its first run), compile.N.c_seconds (cc -O0), compile.N.vs_c.ratio
 *   (oxl time over cc time: below 1 is faster), compile.N.lines_per_sec,
 *   and for optimized builds compile.N.o2_seconds (oxl build -O2),
 *   compile.N.c_o2_seconds (cc -O2), compile.N.o2_vs_c_o2.ratio
 * and, on stderr, a note when the 1,000-line build takes 0.5 s or more.
 *
 *   [OXL_BENCH_KEEP=1] bench_compile [path/to/oxl]
 * Without a path, oxl is looked for next to this program's directory
 * (build/bench/../oxl). */
#define _XOPEN_SOURCE 700
#include "bench_util.h"

#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUNS 3
#define FILE_LINES 1000 /* lines per generated .oxl file, about */
#define TARGET_1000 0.5 /* seconds */

static uint64_t rng = 0x2545f4914f6cdd1du;
static int pick(int lo, int hi) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return lo + (int)(rng % (uint64_t)(hi - lo + 1));
}

typedef struct unit_params {
    int a, b, c, d, e;
} unit_params;

static int count_lines(const char *s) {
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* One unit of OxL; returns its line count. */
static int oxl_unit(FILE *f, int k, const unit_params *p) {
    char buf[4096];
    snprintf(buf, sizeof buf,
             "// unit %d: integer work, strings, a list\n"
             "const LIMIT%d: Int = %d\n"
             "\n"
             "fn work%d(n: Int) -> Int {\n"
             "  var total = 0\n"
             "  for i in 0..n {\n"
             "    if i %% 3 == 0 {\n"
             "      total += i * %d\n"
             "    } else if i %% 3 == 1 {\n"
             "      total -= %d\n"
             "    } else {\n"
             "      total = total + 1\n"
             "    }\n"
             "  }\n"
             "  var j = 0\n"
             "  while j < LIMIT%d {\n"
             "    j += 1\n"
             "    if j > n {\n"
             "      break\n"
             "    }\n"
             "  }\n"
             "  return total + j\n"
             "}\n"
             "\n"
             "fn label%d(x: Int) -> String {\n"
             "  let name = \"item%d\"\n"
             "  var s = \"{name}: {x}\"\n"
             "  if s.len() > %d {\n"
             "    s = s + \"!\"\n"
             "  }\n"
             "  return s.toUpper()\n"
             "}\n"
             "\n"
             "fn collect%d(n: Int) -> [Int] {\n"
             "  var xs: [Int] = []\n"
             "  for i in 0..=n {\n"
             "    xs.push(i * %d - %d)\n"
             "  }\n"
             "  xs[0] = LIMIT%d\n"
             "  return xs\n"
             "}\n"
             "\n"
             "fn check%d() -> Int {\n"
             "  let xs = collect%d(%d)\n"
             "  var sum = 0\n"
             "  for x in xs {\n"
             "    sum += x\n"
             "  }\n"
             "  let s = label%d(sum)\n"
             "  assert s.len() > 0, \"label %d\"\n"
             "  if s.contains(\"ITEM\") && sum > work%d(%d) {\n"
             "    return 1\n"
             "  }\n"
             "  return 0\n"
             "}\n"
             "\n",
             k, k, p->c, k, p->a, p->b, k, k, k, p->d, k, p->a, p->b, k, k, k, p->e, k, k, k, p->e);
    fputs(buf, f);
    return count_lines(buf);
}

static int c_unit(FILE *f, int k, const unit_params *p) {
    char buf[4096];
    snprintf(buf, sizeof buf,
             "/* unit %d: integer work, strings, a list */\n"
             "enum { LIMIT%d = %d };\n"
             "\n"
             "static long work%d(long n) {\n"
             "    long total = 0;\n"
             "    for (long i = 0; i < n; i++) {\n"
             "        if (i %% 3 == 0) {\n"
             "            total += i * %d;\n"
             "        } else if (i %% 3 == 1) {\n"
             "            total -= %d;\n"
             "        } else {\n"
             "            total = total + 1;\n"
             "        }\n"
             "    }\n"
             "    long j = 0;\n"
             "    while (j < LIMIT%d) {\n"
             "        j += 1;\n"
             "        if (j > n) {\n"
             "            break;\n"
             "        }\n"
             "    }\n"
             "    return total + j;\n"
             "}\n"
             "\n"
             "static char *label%d(long x) {\n"
             "    const char *name = \"item%d\";\n"
             "    char *s = fmt(\"%%s: %%ld\", name, x);\n"
             "    if ((long)strlen(s) > %d) {\n"
             "        s = concat(s, \"!\");\n"
             "    }\n"
             "    return upper(s);\n"
             "}\n"
             "\n"
             "static list *collect%d(long n) {\n"
             "    list *xs = list_new();\n"
             "    for (long i = 0; i <= n; i++) {\n"
             "        list_push(xs, i * %d - %d);\n"
             "    }\n"
             "    xs->items[0] = LIMIT%d;\n"
             "    return xs;\n"
             "}\n"
             "\n"
             "static long check%d(void) {\n"
             "    list *xs = collect%d(%d);\n"
             "    long sum = 0;\n"
             "    for (long i = 0; i < xs->n; i++) {\n"
             "        sum += xs->items[i];\n"
             "    }\n"
             "    char *s = label%d(sum);\n"
             "    assert(strlen(s) > 0 && \"label %d\");\n"
             "    if (strstr(s, \"ITEM\") && sum > work%d(%d)) {\n"
             "        return 1;\n"
             "    }\n"
             "    return 0;\n"
             "}\n"
             "\n",
             k, k, p->c, k, p->a, p->b, k, k, k, p->d, k, p->a, p->b, k, k, k, p->e, k, k, k, p->e);
    fputs(buf, f);
    return count_lines(buf);
}

static const char c_prelude[] =
    "#include <assert.h>\n"
    "#include <ctype.h>\n"
    "#include <stdarg.h>\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "\n"
    "typedef struct list { long n, cap; long *items; } list;\n"
    "\n"
    "static void *xalloc(size_t n) {\n"
    "    void *p = malloc(n);\n"
    "    if (!p) abort();\n"
    "    return p;\n"
    "}\n"
    "\n"
    "static list *list_new(void) {\n"
    "    list *l = xalloc(sizeof *l);\n"
    "    l->n = l->cap = 0;\n"
    "    l->items = NULL;\n"
    "    return l;\n"
    "}\n"
    "\n"
    "static void list_push(list *l, long v) {\n"
    "    if (l->n == l->cap) {\n"
    "        l->cap = l->cap ? l->cap * 2 : 4;\n"
    "        l->items = realloc(l->items, (size_t)l->cap * sizeof *l->items);\n"
    "        if (!l->items) abort();\n"
    "    }\n"
    "    l->items[l->n++] = v;\n"
    "}\n"
    "\n"
    "static char *fmt(const char *f, ...) {\n"
    "    va_list ap;\n"
    "    va_start(ap, f);\n"
    "    int n = vsnprintf(NULL, 0, f, ap);\n"
    "    va_end(ap);\n"
    "    char *s = xalloc((size_t)n + 1);\n"
    "    va_start(ap, f);\n"
    "    vsnprintf(s, (size_t)n + 1, f, ap);\n"
    "    va_end(ap);\n"
    "    return s;\n"
    "}\n"
    "\n"
    "static char *concat(const char *a, const char *b) { return fmt(\"%s%s\", a, b); }\n"
    "\n"
    "static char *upper(const char *s) {\n"
    "    char *u = fmt(\"%s\", s);\n"
    "    for (char *p = u; *p; p++) *p = (char)toupper((unsigned char)*p);\n"
    "    return u;\n"
    "}\n"
    "\n";

static bool same_output(const char *a, const char *b) {
    FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
    char la[512] = "", lb[512] = "";
    bool ok = fa && fb && fgets(la, sizeof la, fa) && fgets(lb, sizeof lb, fb) && strcmp(la, lb) == 0;
    if (!ok) fprintf(stderr, "bench_compile: the programs disagree: '%s' against '%s'\n", la, lb);
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return ok;
}

/* Writes the package (files of about FILE_LINES lines) and the C file for
 * `want` lines; returns the OxL line count, or -1. */
static long generate(const char *pkg, const char *cfile, long want, long *c_lines) {
    if (mkdir(pkg, 0755) != 0) return -1;
    FILE *cf = fopen(cfile, "w");
    if (!cf) return -1;
    fputs(c_prelude, cf);
    *c_lines = count_lines(c_prelude);
    /* units until the package (with main: a line per unit and 4 more)
     * reaches the size */
    long lines = 0, in_file = FILE_LINES;
    int units = 0, files = 0;
    FILE *f = NULL;
    while (lines + units + 4 < want) {
        if (in_file >= FILE_LINES) {
            if (f) fclose(f);
            char path[PATH_MAX + 32];
            snprintf(path, sizeof path, "%s/part%03d.oxl", pkg, files++);
            if (!(f = fopen(path, "w"))) return -1;
            in_file = 0;
        }
        unit_params p = {pick(2, 9), pick(1, 20), pick(5, 50), pick(8, 14), pick(10, 60)};
        int n = oxl_unit(f, units, &p);
        in_file += n;
        lines += n;
        *c_lines += c_unit(cf, units, &p);
        units++;
    }
    fputs("fn main() {\n  var n = 0\n", f);
    fputs("int main(void) {\n    long n = 0;\n", cf);
    for (int k = 0; k < units; k++) {
        fprintf(f, "  n += check%d()\n", k);
        fprintf(cf, "    n += check%d();\n", k);
    }
    fprintf(f, "  print(\"checks passed: {n} of %d\")\n}\n", units);
    fprintf(cf, "    printf(\"checks passed: %%ld of %d\\n\", n);\n    return 0;\n}\n", units);
    lines += units + 4;
    *c_lines += units + 5;
    fclose(f);
    return fclose(cf) == 0 ? lines : -1;
}

int main(int argc, char **argv) {
    char oxl[PATH_MAX];
    if (!bench_find_oxl(argc > 1 ? argv[1] : NULL, oxl, sizeof oxl)) {
        fprintf(stderr, "bench_compile: no oxl found (build it, or pass its path)\n");
        return 2;
    }
    char dir[] = "/tmp/oxl-bench-compile-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    const char *cc = bench_cc();
    static const long sizes[] = {1000, 10000};
    int status = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        long want = sizes[si], c_lines = 0;
        char pkg[PATH_MAX], cfile[PATH_MAX], exe[PATH_MAX], exe2[PATH_MAX], cexe[PATH_MAX], log[PATH_MAX];
        char out[PATH_MAX], cout[PATH_MAX];
        snprintf(pkg, sizeof pkg, "%s/pkg%ld", dir, want);
        snprintf(cfile, sizeof cfile, "%s/gen%ld.c", dir, want);
        snprintf(exe, sizeof exe, "%s/oxl%ld", dir, want);
        snprintf(exe2, sizeof exe2, "%s/oxl%ld_o2", dir, want);
        snprintf(cexe, sizeof cexe, "%s/c%ld", dir, want);
        snprintf(log, sizeof log, "%s/build%ld.log", dir, want);
        snprintf(out, sizeof out, "%s/oxl%ld.out", dir, want);
        snprintf(cout, sizeof cout, "%s/c%ld.out", dir, want);
        long lines = generate(pkg, cfile, want, &c_lines);
        if (lines < 0) {
            fprintf(stderr, "bench_compile: cannot write the sources into %s\n", dir);
            return 2;
        }
        char *oxl_argv[] = {oxl, "build", pkg, "-o", exe, NULL};
        char *oxl2_argv[] = {oxl, "build", pkg, "-O2", "-o", exe2, NULL};
        char *cc_argv[] = {(char *)cc, "-O0", "-w", "-o", cexe, cfile, NULL};
        char *cc2_argv[] = {(char *)cc, "-O2", "-w", "-o", cexe, cfile, NULL};
        double best = 1e30, best2 = 1e30, best_cc = 1e30, best_cc2 = 1e30, first = 0;
        bool failed = false;
        for (int r = 0; r < RUNS && !failed; r++) {
            double s = 0;
            if (bench_run(oxl_argv, NULL, log, &s) != 0) {
                fprintf(stderr, "bench_compile: oxl build failed on %s (see %s)\n", pkg, log);
                failed = true;
                break;
            }
            if (r == 0) first = s;
            if (s < best) best = s;
            if (bench_run(oxl2_argv, NULL, log, &s) != 0) {
                fprintf(stderr, "bench_compile: oxl build -O2 failed on %s (see %s)\n", pkg, log);
                failed = true;
                break;
            }
            if (s < best2) best2 = s;
            if (bench_run(cc_argv, NULL, log, &s) != 0) {
                fprintf(stderr, "bench_compile: %s -O0 failed on %s (see %s)\n", cc, cfile, log);
                failed = true;
                break;
            }
            if (s < best_cc) best_cc = s;
            if (bench_run(cc2_argv, NULL, log, &s) != 0) {
                fprintf(stderr, "bench_compile: %s -O2 failed on %s (see %s)\n", cc, cfile, log);
                failed = true;
                break;
            }
            if (s < best_cc2) best_cc2 = s;
        }
        double t;
        char *run_oxl[] = {exe, NULL}, *run_oxl2[] = {exe2, NULL}, *run_c[] = {cexe, NULL};
        if (!failed && (bench_run(run_oxl, out, NULL, &t) != 0 || bench_run(run_c, cout, NULL, &t) != 0 ||
                        !same_output(out, cout) || bench_run(run_oxl2, out, NULL, &t) != 0 || !same_output(out, cout))) {
            fprintf(stderr, "bench_compile: the %ld-line programs do not run alike\n", want);
            failed = true;
        }
        if (failed) {
            status = 1;
            continue;
        }
        printf("compile.%ld.lines: %ld lines\n", want, lines);
        printf("compile.%ld.c_lines: %ld lines\n", want, c_lines);
        printf("compile.%ld.seconds: %.3f s\n", want, best);
        printf("compile.%ld.first_seconds: %.3f s\n", want, first);
        printf("compile.%ld.o2_seconds: %.3f s\n", want, best2);
        printf("compile.%ld.c_seconds: %.3f s\n", want, best_cc);
        printf("compile.%ld.vs_c.ratio: %.2f x\n", want, best / best_cc);
        printf("compile.%ld.c_o2_seconds: %.3f s\n", want, best_cc2);
        printf("compile.%ld.o2_vs_c_o2.ratio: %.2f x\n", want, best2 / best_cc2);
        printf("compile.%ld.lines_per_sec: %.0f lines/s\n", want, (double)lines / best);
        fflush(stdout);
        if (want == 1000 && best >= TARGET_1000)
            fprintf(stderr, "bench_compile: 1,000 lines took %.3f s (target: under %.1f s)\n", best, TARGET_1000);
    }
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    /* OXL_BENCH_KEEP=1 keeps the sources, for profiling a build */
    bool keep = status != 0 || (getenv("OXL_BENCH_KEEP") && *getenv("OXL_BENCH_KEEP"));
    if (!keep && system(cmd) != 0) fprintf(stderr, "bench_compile: could not remove %s\n", dir);
    if (keep) fprintf(stderr, "bench_compile: kept %s\n", dir);
    return status;
}
