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
 * Then one-construct-of-many cases, each at a small and a 10x size, every
 * build timed BIG_RUNS times (best counts) and its program run and checked:
 * one function of 10,000 and 100,000 statements (calls, branches,
 * asserts, interpolation, a list, bindings), a list literal of 10,000 and
 * 100,000 elements, a string of 5,000 and 50,000 interpolations. For each
 *   compile.CASE.N.seconds, compile.CASE.N.us_per_item and
 *   compile.CASE.per_item_10x.ratio (the big size's time per item over the
 *   small one's: 1 is linear); above BIG_RATIO_LIMIT (3x) the bench says so
 *   on stderr and exits 1.
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
#define BIG_RUNS 2
#define BIG_RATIO_LIMIT 3.0

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

/* ---- one construct of many: build time per item at two sizes ---- */

typedef enum big_case { BIG_FN, BIG_LIST, BIG_INTERP } big_case;

static int64_t big_step(int64_t a, int64_t b) { return (a * 3 + b) % 1000003; }

/* Writes the program of `items` items into path and the line it prints
 * into expect (computed here, as the program computes it). */
static bool big_generate(big_case c, long items, const char *path, char *expect, size_t cap) {
    FILE *f = fopen(path, "w");
    if (!f) return false;
    if (c == BIG_FN) {
        /* One function of straight-line statements in a cycle of 16 (calls,
         * an interpolation, concatenation, a binding, pushes): one long
         * block is what LLVM's -O0 register allocator found costly. */
        int64_t x = 1, n = 0, pushed = 0, v = 0;
        char s[64] = "";
        fputs("fn step(a: Int, b: Int) -> Int {\n  return (a * 3 + b) % 1000003\n}\n\n"
              "fn main() {\n  var x = 1\n  var n = 0\n  var s = \"\"\n  var xs: [Int] = []\n",
              f);
        for (long i = 0; i < items; i++) {
            int c7 = (int)((i * 7919) % 97) + 1;
            switch (i % 16) {
            case 0: case 6: case 11:
                fprintf(f, "  x = step(x, %d)\n", c7);
                x = big_step(x, c7);
                break;
            case 1: case 12: case 15:
                fputs("  n = step(n, x)\n", f);
                n = big_step(n, x);
                break;
            case 2:
                fprintf(f, "  s = \"{x}:%d\"\n", c7);
                snprintf(s, sizeof s, "%lld:%d", (long long)x, c7);
                break;
            case 3: case 10:
                fputs(i % 16 == 3 ? "  s = s + \"+\"\n" : "  s = s + \"-\"\n", f);
                strcat(s, i % 16 == 3 ? "+" : "-");
                break;
            case 4:
                fputs("  n = step(n, s.len())\n", f);
                n = big_step(n, (int64_t)strlen(s));
                break;
            case 5:
                fputs("  xs.push(x)\n", f);
                pushed++;
                break;
            case 7:
                fputs("  n = step(n, xs.len())\n", f);
                n = big_step(n, pushed);
                break;
            case 8:
                fprintf(f, "  let v%ld = step(x, %d)\n", i, c7);
                v = big_step(x, c7);
                break;
            case 9:
                fprintf(f, "  x = step(v%ld, n)\n", i - 1);
                x = big_step(v, n);
                break;
            case 13:
                fputs("  xs.push(n)\n", f);
                pushed++;
                break;
            default: /* 14 */
                fputs("  x = step(x, s.len())\n", f);
                x = big_step(x, (int64_t)strlen(s));
                break;
            }
        }
        fputs("  print(\"{x} {n} {xs.len()} {s}\")\n}\n", f);
        snprintf(expect, cap, "%lld %lld %lld %s\n", (long long)x, (long long)n, (long long)pushed, s);
    } else if (c == BIG_LIST) {
        int64_t sum = 0;
        fputs("fn main() {\n  let xs = [", f);
        for (long i = 0; i < items; i++) {
            fprintf(f, "%s%ld", i ? (i % 20 ? ", " : ",\n    ") : "", i % 1000);
            sum += i % 1000;
        }
        fputs("]\n  var sum = 0\n  for x in xs {\n    sum += x\n  }\n  print(\"{xs.len()} {sum}\")\n}\n", f);
        snprintf(expect, cap, "%ld %lld\n", items, (long long)sum);
    } else {
        /* "{a}.{b}." ...: one string literal of `items` interpolations */
        fputs("fn main() {\n  let a = 7\n  let b = \"xy\"\n  let s = \"", f);
        for (long i = 0; i < items; i++) fputs(i % 2 ? "{b}." : "{a}.", f);
        fputs("\"\n  print(\"{s.len()}\")\n}\n", f);
        snprintf(expect, cap, "%ld\n", items / 2 * 3 + (items - items / 2) * 2);
    }
    return fclose(f) == 0;
}

static bool big_output_is(const char *path, const char *expect) {
    FILE *f = fopen(path, "r");
    char line[512] = "";
    bool ok = f && fgets(line, sizeof line, f) && strcmp(line, expect) == 0;
    if (f) fclose(f);
    if (!ok) fprintf(stderr, "bench_compile: printed '%s', expected '%s'\n", line, expect);
    return ok;
}

/* Builds (best of BIG_RUNS) and runs one case at one size; *seconds gets
 * the build time. */
static bool big_measure(const char *oxl, const char *dir, big_case c, const char *name, long items,
                        double *seconds) {
    char src[PATH_MAX], exe[PATH_MAX], log[PATH_MAX], out[PATH_MAX], expect[256];
    snprintf(src, sizeof src, "%s/%s%ld.oxl", dir, name, items);
    snprintf(exe, sizeof exe, "%s/%s%ld", dir, name, items);
    snprintf(log, sizeof log, "%s/%s%ld.log", dir, name, items);
    snprintf(out, sizeof out, "%s/%s%ld.out", dir, name, items);
    if (!big_generate(c, items, src, expect, sizeof expect)) {
        fprintf(stderr, "bench_compile: cannot write %s\n", src);
        return false;
    }
    char *argv[] = {(char *)oxl, "build", src, "-o", exe, NULL};
    double best = 1e30;
    for (int r = 0; r < BIG_RUNS; r++) {
        double s = 0;
        if (bench_run(argv, NULL, log, &s) != 0) {
            fprintf(stderr, "bench_compile: oxl build failed on %s (see %s)\n", src, log);
            return false;
        }
        if (s < best) best = s;
    }
    char *run[] = {exe, NULL};
    double t;
    if (bench_run(run, out, log, &t) != 0 || !big_output_is(out, expect)) {
        fprintf(stderr, "bench_compile: %s does not run right (see %s)\n", exe, log);
        return false;
    }
    *seconds = best;
    return true;
}

/* Returns 0, or 1 when a case failed or grew faster than linear. */
static int big_cases(const char *oxl, const char *dir) {
    static const struct {
        big_case c;
        const char *name;
        long small;
    } cases[] = {{BIG_FN, "fn", 10000}, {BIG_LIST, "list", 10000}, {BIG_INTERP, "interp", 5000}};
    int status = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        long small = cases[i].small, big = small * 10;
        double ts, tb;
        if (!big_measure(oxl, dir, cases[i].c, cases[i].name, small, &ts) ||
            !big_measure(oxl, dir, cases[i].c, cases[i].name, big, &tb)) {
            status = 1;
            continue;
        }
        double ratio = (tb / (double)big) / (ts / (double)small);
        printf("compile.%s.%ld.seconds: %.3f s\n", cases[i].name, small, ts);
        printf("compile.%s.%ld.us_per_item: %.1f us\n", cases[i].name, small, ts / (double)small * 1e6);
        printf("compile.%s.%ld.seconds: %.3f s\n", cases[i].name, big, tb);
        printf("compile.%s.%ld.us_per_item: %.1f us\n", cases[i].name, big, tb / (double)big * 1e6);
        printf("compile.%s.per_item_10x.ratio: %.2f x\n", cases[i].name, ratio);
        fflush(stdout);
        if (ratio > BIG_RATIO_LIMIT) {
            fprintf(stderr, "bench_compile: %s: %ld items cost %.2fx as much per item as %ld (limit %.0fx)\n",
                    cases[i].name, big, ratio, small, BIG_RATIO_LIMIT);
            status = 1;
        }
    }
    return status;
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
    if (big_cases(oxl, dir) != 0) status = 1;
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    /* OXL_BENCH_KEEP=1 keeps the sources, for profiling a build */
    bool keep = status != 0 || (getenv("OXL_BENCH_KEEP") && *getenv("OXL_BENCH_KEEP"));
    if (!keep && system(cmd) != 0) fprintf(stderr, "bench_compile: could not remove %s\n", dir);
    if (keep) fprintf(stderr, "bench_compile: kept %s\n", dir);
    return status;
}
