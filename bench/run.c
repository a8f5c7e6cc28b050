/* bench_run: how fast programs built by `oxl build -O2` run, against the
 * same programs in C built with `cc -O2`, all built and run in this
 * invocation. Each case is an OxL program and a C program that print the
 * same checksum (checked: a mismatch is an error, not a figure):
 *   fib      recursive fib(32)
 *   sum      a loop summing 10^8 pseudo-random integers (an LCG, so neither
 *            compiler can fold the loop into a formula)
 *   closure  the same loop, its step a closure made in every iteration that
 *            shares the two vars and is only called there: nothing is
 *            allocated and the call is inlined, so the loop is the one a
 *            direct call of a named step function gives; sum's C programs
 *   list     building a 10^6-element list with push, then summing it
 *   map      10^6 insertions into a Map[Int, Int], then 10^6 lookups (the C
 *            program has its own open-addressing table)
 *   interp   10^6 string interpolations ("item {i} of {total}")
 * Each executable runs RUNS times; the best wall time counts. Prints
 *   run.<case>.seconds, run.<case>.c_seconds, run.<case>.vs_c.ratio
 * (OxL time over C time: below 1 is faster); for fib, sum and closure also
 * run.<case>.c_checked_seconds and run.<case>.vs_c_checked.ratio, the C
 * program with OxL's semantics (every + - * checked for overflow, as
 * OxL's are), through cc -O2; when clang is installed
 * run.<case>.clang_seconds and run.<case>.vs_clang.ratio (the same C
 * through clang -O2, whose back end is OxL's), and, on stderr, a note for
 * every ratio above its target (2x for the integer cases, 5x for the
 * allocating ones).
 *
 *   bench_run [path/to/oxl] [case...]
 * Without a path, oxl is looked for next to this program's directory
 * (build/bench/../oxl). */
#define _XOPEN_SOURCE 700
#include "bench_util.h"

#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUNS 5

typedef struct bench_case {
    const char *name;
    double target; /* the OxL/C ratio to stay under */
    const char *oxl;
    const char *c;
    /* For the integer cases, the C program with OxL's semantics: every
     * + - * checked, overflow ends the program (as OxL's panic does). */
    const char *c_checked;
} bench_case;

#define C_OVERFLOW                                                                                                   \
    "#include <stdlib.h>\n"                                                                                            \
    "__attribute__((noreturn, cold)) static void overflow(void) {\n"                                                   \
    "    fputs(\"panic: integer overflow\\n\", stderr);\n"                                                            \
    "    exit(101);\n"                                                                                                \
    "}\n"                                                                                                             \
    "static long add(long a, long b) { long r; if (__builtin_add_overflow(a, b, &r)) overflow(); return r; }\n"      \
    "static long sub(long a, long b) { long r; if (__builtin_sub_overflow(a, b, &r)) overflow(); return r; }\n"      \
    "static long mul(long a, long b) { long r; if (__builtin_mul_overflow(a, b, &r)) overflow(); return r; }\n"

/* The C programs of sum, and of closure (its step inlined is sum's loop). */
#define SUM_C                                                                                                        \
    "#include <stdio.h>\n"                                                                                           \
    "int main(void) {\n"                                                                                             \
    "    long s = 0, x = 1;\n"                                                                                       \
    "    for (long i = 0; i < 100000000; i++) {\n"                                                                   \
    "        x = (x * 1103515245 + 12345) % 2147483648;\n"                                                           \
    "        s += x;\n"                                                                                              \
    "    }\n"                                                                                                        \
    "    printf(\"%ld\\n\", s);\n"                                                                                   \
    "    return 0;\n"                                                                                                \
    "}\n"
#define SUM_C_CHECKED                                                                                                \
    "#include <stdio.h>\n" C_OVERFLOW                                                                                \
    "int main(void) {\n"                                                                                             \
    "    long s = 0, x = 1;\n"                                                                                       \
    "    for (long i = 0; i < 100000000; i++) {\n"                                                                   \
    "        x = add(mul(x, 1103515245), 12345) % 2147483648;\n"                                                     \
    "        s = add(s, x);\n"                                                                                       \
    "    }\n"                                                                                                        \
    "    printf(\"%ld\\n\", s);\n"                                                                                   \
    "    return 0;\n"                                                                                                \
    "}\n"

static const bench_case cases[] = {
    {"fib", 2.0,
     "fn fib(n: Int) -> Int {\n"
     "  if n < 2 {\n"
     "    return n\n"
     "  }\n"
     "  return fib(n - 1) + fib(n - 2)\n"
     "}\n"
     "\n"
     "fn main() {\n"
     "  print(fib(32))\n"
     "}\n",
     "#include <stdio.h>\n"
     "static long fib(long n) {\n"
     "    if (n < 2) return n;\n"
     "    return fib(n - 1) + fib(n - 2);\n"
     "}\n"
     "int main(void) {\n"
     "    printf(\"%ld\\n\", fib(32));\n"
     "    return 0;\n"
     "}\n",
     "#include <stdio.h>\n" C_OVERFLOW
     "static long fib(long n) {\n"
     "    if (n < 2) return n;\n"
     "    return add(fib(sub(n, 1)), fib(sub(n, 2)));\n"
     "}\n"
     "int main(void) {\n"
     "    printf(\"%ld\\n\", fib(32));\n"
     "    return 0;\n"
     "}\n"},
    {"sum", 2.0,
     "fn main() {\n"
     "  var s = 0\n"
     "  var x = 1\n"
     "  for i in 0..100000000 {\n"
     "    x = (x * 1103515245 + 12345) % 2147483648\n"
     "    s += x\n"
     "  }\n"
     "  print(s)\n"
     "}\n",
     SUM_C, SUM_C_CHECKED},
    {"closure", 2.0,
     "fn main() {\n"
     "  var s = 0\n"
     "  var x = 1\n"
     "  for i in 0..100000000 {\n"
     "    let step = fn(k: Int) {\n"
     "      x = (x * 1103515245 + k) % 2147483648\n"
     "      s += x\n"
     "    }\n"
     "    step(12345)\n"
     "  }\n"
     "  print(s)\n"
     "}\n",
     SUM_C, SUM_C_CHECKED},
    {"list", 5.0,
     "fn main() {\n"
     "  var xs: [Int] = []\n"
     "  for i in 0..1000000 {\n"
     "    xs.push(i * 3)\n"
     "  }\n"
     "  var s = 0\n"
     "  for x in xs {\n"
     "    s += x\n"
     "  }\n"
     "  print(\"{xs.len()} {s}\")\n"
     "}\n",
     "#include <stdio.h>\n"
     "#include <stdlib.h>\n"
     "int main(void) {\n"
     "    long n = 0, cap = 0, *xs = NULL;\n"
     "    for (long i = 0; i < 1000000; i++) {\n"
     "        if (n == cap) {\n"
     "            cap = cap ? cap * 2 : 4;\n"
     "            xs = realloc(xs, (size_t)cap * sizeof *xs);\n"
     "            if (!xs) return 1;\n"
     "        }\n"
     "        xs[n++] = i * 3;\n"
     "    }\n"
     "    long s = 0;\n"
     "    for (long i = 0; i < n; i++) s += xs[i];\n"
     "    printf(\"%ld %ld\\n\", n, s);\n"
     "    free(xs);\n"
     "    return 0;\n"
     "}\n", NULL},
    {"map", 5.0,
     "fn main() {\n"
     "  var m: Map[Int, Int] = {}\n"
     "  for i in 0..1000000 {\n"
     "    m[i * 7] = i\n"
     "  }\n"
     "  var s = 0\n"
     "  for i in 0..1000000 {\n"
     "    s += m[i * 7]\n"
     "  }\n"
     "  print(\"{m.len()} {s}\")\n"
     "}\n",
     "#include <stdint.h>\n"
     "#include <stdio.h>\n"
     "#include <stdlib.h>\n"
     "/* a hand-written table: open addressing, linear probing, grows at 1/2 load */\n"
     "typedef struct map { long n, cap; int64_t *keys, *vals; unsigned char *used; } map;\n"
     "static uint64_t hash(int64_t k) {\n"
     "    uint64_t x = (uint64_t)k;\n"
     "    x ^= x >> 33;\n"
     "    x *= 0xff51afd7ed558ccdu;\n"
     "    x ^= x >> 33;\n"
     "    return x;\n"
     "}\n"
     "static void put(map *m, int64_t k, int64_t v);\n"
     "static void grow(map *m) {\n"
     "    map old = *m;\n"
     "    m->cap = old.cap ? old.cap * 2 : 16;\n"
     "    m->n = 0;\n"
     "    m->keys = malloc((size_t)m->cap * sizeof *m->keys);\n"
     "    m->vals = malloc((size_t)m->cap * sizeof *m->vals);\n"
     "    m->used = calloc((size_t)m->cap, 1);\n"
     "    if (!m->keys || !m->vals || !m->used) abort();\n"
     "    for (long i = 0; i < old.cap; i++)\n"
     "        if (old.used[i]) put(m, old.keys[i], old.vals[i]);\n"
     "    free(old.keys);\n"
     "    free(old.vals);\n"
     "    free(old.used);\n"
     "}\n"
     "static void put(map *m, int64_t k, int64_t v) {\n"
     "    if (2 * (m->n + 1) > m->cap) grow(m);\n"
     "    uint64_t mask = (uint64_t)m->cap - 1;\n"
     "    for (uint64_t i = hash(k) & mask;; i = (i + 1) & mask) {\n"
     "        if (!m->used[i]) {\n"
     "            m->used[i] = 1;\n"
     "            m->keys[i] = k;\n"
     "            m->vals[i] = v;\n"
     "            m->n++;\n"
     "            return;\n"
     "        }\n"
     "        if (m->keys[i] == k) {\n"
     "            m->vals[i] = v;\n"
     "            return;\n"
     "        }\n"
     "    }\n"
     "}\n"
     "static int64_t get(const map *m, int64_t k) {\n"
     "    uint64_t mask = (uint64_t)m->cap - 1;\n"
     "    for (uint64_t i = hash(k) & mask; m->used[i]; i = (i + 1) & mask)\n"
     "        if (m->keys[i] == k) return m->vals[i];\n"
     "    abort();\n"
     "}\n"
     "int main(void) {\n"
     "    map m = {0};\n"
     "    for (long i = 0; i < 1000000; i++) put(&m, i * 7, i);\n"
     "    long s = 0;\n"
     "    for (long i = 0; i < 1000000; i++) s += get(&m, i * 7);\n"
     "    printf(\"%ld %ld\\n\", m.n, s);\n"
     "    return 0;\n"
     "}\n", NULL},
    {"interp", 5.0,
     "fn main() {\n"
     "  var total = 0\n"
     "  for i in 0..1000000 {\n"
     "    let s = \"item {i} of {total}\"\n"
     "    total += s.len()\n"
     "  }\n"
     "  print(total)\n"
     "}\n",
     "#include <stdio.h>\n"
     "#include <stdlib.h>\n"
     "#include <string.h>\n"
     "int main(void) {\n"
     "    long total = 0;\n"
     "    for (long i = 0; i < 1000000; i++) {\n"
     "        char buf[64];\n"
     "        int n = snprintf(buf, sizeof buf, \"item %ld of %ld\", i, total);\n"
     "        char *s = malloc((size_t)n + 1);\n"
     "        if (!s) return 1;\n"
     "        memcpy(s, buf, (size_t)n + 1);\n"
     "        total += (long)strlen(s);\n"
     "        free(s);\n"
     "    }\n"
     "    printf(\"%ld\\n\", total);\n"
     "    return 0;\n"
     "}\n", NULL},
};

/* Runs argv with stdout to `out` (or /dev/null) and stderr to `err` (or
 * /dev/null); returns the exit status (-1 when it did not exit) and the
 * wall time. */
static bool write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

static char *slurp(const char *path) {
    static char buf[4096];
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* One timed run; the output goes to out_path (or nowhere). Negative when
 * the program fails. */
static double time_run(const char *exe, const char *out_path) {
    char *argv[] = {(char *)exe, NULL};
    double s = 0;
    int st = bench_run(argv, out_path, NULL, &s);
    if (st != 0) {
        fprintf(stderr, "bench_run: %s exited with status %d\n", exe, st);
        return -1;
    }
    return s;
}

static bool wanted(int argc, char **argv, const char *name) {
    int first = argc > 1 && strchr(argv[1], '/') ? 2 : 1;
    if (first >= argc) return true;
    for (int i = first; i < argc; i++)
        if (strcmp(argv[i], name) == 0) return true;
    return false;
}

int main(int argc, char **argv) {
    char oxl[PATH_MAX];
    if (!bench_find_oxl(argc > 1 && strchr(argv[1], '/') ? argv[1] : NULL, oxl, sizeof oxl)) {
        fprintf(stderr, "bench_run: no oxl found (build it, or pass its path)\n");
        return 2;
    }
    char dir[] = "/tmp/oxl-bench-run-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    const char *cc = bench_cc();
    int status = 0;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const bench_case *bc = &cases[k];
        if (!wanted(argc, argv, bc->name)) continue;
        char src_oxl[PATH_MAX], src_c[PATH_MAX], exe_oxl[PATH_MAX], exe_c[PATH_MAX], log[PATH_MAX];
        char out_oxl[PATH_MAX], out_c[PATH_MAX];
        snprintf(src_oxl, sizeof src_oxl, "%s/%s.oxl", dir, bc->name);
        snprintf(src_c, sizeof src_c, "%s/%s.c", dir, bc->name);
        snprintf(exe_oxl, sizeof exe_oxl, "%s/%s_oxl", dir, bc->name);
        snprintf(exe_c, sizeof exe_c, "%s/%s_c", dir, bc->name);
        snprintf(log, sizeof log, "%s/%s.log", dir, bc->name);
        snprintf(out_oxl, sizeof out_oxl, "%s/%s_oxl.out", dir, bc->name);
        snprintf(out_c, sizeof out_c, "%s/%s_c.out", dir, bc->name);
        if (!write_file(src_oxl, bc->oxl) || !write_file(src_c, bc->c)) {
            fprintf(stderr, "bench_run: cannot write into %s\n", dir);
            return 2;
        }
        double s;
        char *b_oxl[] = {oxl, "build", "-O2", src_oxl, "-o", exe_oxl, NULL};
        char *b_c[] = {(char *)cc, "-O2", "-o", exe_c, src_c, NULL};
        if (bench_run(b_oxl, NULL, log, &s) != 0) {
            fprintf(stderr, "bench_run: oxl build -O2 failed on %s (see %s)\n", src_oxl, log);
            status = 1;
            continue;
        }
        if (bench_run(b_c, NULL, log, &s) != 0) {
            fprintf(stderr, "bench_run: %s -O2 failed on %s (see %s)\n", cc, src_c, log);
            status = 1;
            continue;
        }
        /* the C program with OxL's overflow checks, through cc -O2 */
        char src_cc[PATH_MAX + 8], exe_cc[PATH_MAX + 8];
        snprintf(src_cc, sizeof src_cc, "%s/%s_checked.c", dir, bc->name);
        snprintf(exe_cc, sizeof exe_cc, "%s_checked", exe_c);
        char *b_cc[] = {(char *)cc, "-O2", "-o", exe_cc, src_cc, NULL};
        bool have_checked = bc->c_checked && write_file(src_cc, bc->c_checked) && bench_run(b_cc, NULL, log, &s) == 0;
        if (bc->c_checked && !have_checked) {
            fprintf(stderr, "bench_run: the checked C of %s does not build (see %s)\n", bc->name, log);
            status = 1;
            continue;
        }
        /* clang -O2 as a second C baseline: LLVM, as OxL, so the gap to it
         * is the code generator's, and the gap to cc the C compilers' */
        char exe_clang[PATH_MAX + 8];
        snprintf(exe_clang, sizeof exe_clang, "%s_clang", exe_c);
        char *b_clang[] = {"clang", "-O2", "-o", exe_clang, src_c, NULL};
        bool have_clang = bench_run(b_clang, NULL, NULL, &s) == 0;
        /* the two sides alternate, so a noisy moment hits both alike;
         * the first run's output is kept for the comparison */
        double t_oxl = 1e30, t_c = 1e30, t_clang = 1e30, t_checked = 1e30;
        bool failed = false;
        for (int r = 0; r < RUNS && !failed; r++) {
            double a = time_run(exe_oxl, r == 0 ? out_oxl : NULL), b = time_run(exe_c, r == 0 ? out_c : NULL);
            double c = have_clang ? time_run(exe_clang, NULL) : 0;
            double d = have_checked ? time_run(exe_cc, NULL) : 0;
            failed = a < 0 || b < 0 || c < 0 || d < 0;
            if (a < t_oxl) t_oxl = a;
            if (b < t_c) t_c = b;
            if (c < t_clang) t_clang = c;
            if (d < t_checked) t_checked = d;
        }
        if (failed) {
            status = 1;
            continue;
        }
        char got_oxl[4096], *got_c;
        snprintf(got_oxl, sizeof got_oxl, "%s", slurp(out_oxl) ? slurp(out_oxl) : "");
        got_c = slurp(out_c);
        if (!got_c || strcmp(got_oxl, got_c) != 0 || !*got_oxl) {
            fprintf(stderr, "bench_run: %s: the OxL program printed '%s', the C program '%s'\n", bc->name, got_oxl,
                    got_c ? got_c : "");
            status = 1;
            continue;
        }
        double ratio = t_oxl / t_c;
        printf("run.%s.seconds: %.4f s\n", bc->name, t_oxl);
        printf("run.%s.c_seconds: %.4f s\n", bc->name, t_c);
        printf("run.%s.vs_c.ratio: %.2f x\n", bc->name, ratio);
        if (have_clang) {
            printf("run.%s.clang_seconds: %.4f s\n", bc->name, t_clang);
            printf("run.%s.vs_clang.ratio: %.2f x\n", bc->name, t_oxl / t_clang);
        }
        if (have_checked) {
            printf("run.%s.c_checked_seconds: %.4f s\n", bc->name, t_checked);
            printf("run.%s.vs_c_checked.ratio: %.2f x\n", bc->name, t_oxl / t_checked);
        }
        fflush(stdout);
        if (ratio > bc->target)
            fprintf(stderr, "bench_run: %s is %.2fx the C time (target: under %.0fx)\n", bc->name, ratio, bc->target);
    }
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "bench_run: could not remove %s\n", dir);
    return status;
}
