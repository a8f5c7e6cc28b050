/* bench_frontend: how fast the front end checks a large package, against
 * the C compiler's parser on C of the same size, both measured in this run.
 *
 * It writes a package of 100,000 lines of varied OxL (types, functions with
 * loops, matches and interpolated strings, tasks and channels, services, a
 * cluster, unit and simulation tests; valid, so every stage runs to the end)
 * and a C file of about as many lines, then times `oxl check <dir>` and
 * `cc -fsyntax-only <file>` (best of three each). Prints
 *   frontend.lines_per_sec, frontend.seconds, frontend.cc_lines_per_sec,
 *   frontend.vs_cc.ratio (oxl lines/s over cc lines/s: above 1 is faster),
 * and the same for the syntax stages alone (lexer and parser, through
 * `oxl check --dump-ast`): frontend.syntax_lines_per_sec and
 * frontend.syntax_vs_cc.ratio.
 *
 *   bench_frontend [path/to/oxl] [lines]
 * Without a path, oxl is looked for next to this program's directory
 * (build/bench/../oxl). */
#define _XOPEN_SOURCE 700 /* realpath */
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

#define FILE_LINES 1000 /* lines per generated .oxl file */
#define RUNS 3

/* The best times start unset: a failed run never counts as one. */
#define UNSET 1e30
static bool have(double best) { return best < UNSET; }

/* Prints NAME: value unit, or NAME: unavailable (and marks the bench failed)
 * when a time the figure needs was never measured. */
static void figure(int *status, bool avail, const char *name, int prec, double v, const char *unit) {
    if (!avail) {
        printf("frontend.%s: unavailable\n", name);
        *status = 1;
    } else {
        printf("frontend.%s: %.*f %s\n", name, prec, v, unit);
    }
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static unsigned pick(unsigned n) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* Writes one unit of OxL (about 110 lines) with names suffixed by k;
 * returns the number of lines written. */
static int oxl_unit(FILE *f, int k) {
    int a = 1 + (int)pick(9), b = 2 + (int)pick(20), lim = 100 + (int)pick(5000);
    int n = fprintf(f,
        "type Order%d { id: Int, total: Int, note: String }\n"
        "type Fail%d { reason: String, code: Int = %d }\n"
        "type Result%d = Order%d | Fail%d\n"
        "\n"
        "const LIMIT%d: Int = %d\n"
        "const PAUSE%d = %dms\n"
        "\n"
        "// price%d adds the items with a factor, then takes a few off\n"
        "fn price%d(xs: [Int], factor: Int) -> Int {\n"
        "  var total = 0\n"
        "  for x in xs {\n"
        "    total += x * factor\n"
        "  }\n"
        "  var i = 0\n"
        "  while i < %d {\n"
        "    i += 1\n"
        "    if i %% %d == 0 {\n"
        "      continue\n"
        "    } else if i > %d {\n"
        "      break\n"
        "    }\n"
        "    total -= 1\n"
        "  }\n"
        "  for j in 1..=%d {\n"
        "    total = total + j * 2 - (j %% 3)\n"
        "  }\n"
        "  return total\n"
        "}\n"
        "\n"
        "fn make%d(id: Int, xs: [Int]) -> Result%d {\n"
        "  let total = price%d(xs, %d)\n"
        "  if total > LIMIT%d {\n"
        "    return Fail%d { reason: \"too much: {total} > {LIMIT%d}\" }\n"
        "  } else if total < 0 {\n"
        "    return Fail%d { reason: \"negative\", code: %d }\n"
        "  }\n"
        "  return Order%d { id: id, total: total, note: \"order {id} for {xs.len()} items\" }\n"
        "}\n"
        "\n"
        "fn describe%d(r: Result%d) -> String {\n"
        "  var s = \"\"\n"
        "  match r {\n"
        "    Order%d o => s = \"order {o.id} of {o.total}\"\n"
        "    Fail%d f => {\n"
        "      s = \"failed: {f.reason} ({f.code})\"\n"
        "    }\n"
        "  }\n"
        "  return s\n"
        "}\n"
        "\n",
        k, k, b, k, k, k, k, lim, k, a * 10, k, k, b, a + 1, b / 2, a, k, k, k, a, k, k, k, k, b, k, k, k, k, k);
    (void)n;
    int lines = 50;
    fprintf(f,
        "fn table%d() -> Map[String, Int] {\n"
        "  let m: Map[String, Int] = {\"a\": %d, \"b\": %d}\n"
        "  for key, v in m {\n"
        "    print(\"{key}={v} of %d\")\n"
        "  }\n"
        "  let xs = [%d, %d, %d]\n"
        "  var sum = 0\n"
        "  for i in 0..xs.len() {\n"
        "    sum += xs[i]\n"
        "  }\n"
        "  assert sum > 0, \"sum of table%d\"\n"
        "  return m\n"
        "}\n"
        "\n"
        "fn pump%d(n: Int) -> Int {\n"
        "  let c = Chan[Int](%d)\n"
        "  let t = spawn {\n"
        "    for i in 0..n {\n"
        "      c.send(i)\n"
        "    }\n"
        "    c.close()\n"
        "  }\n"
        "  var got = 0\n"
        "  select {\n"
        "    v = c.recv() => {\n"
        "      print(\"{v}\")\n"
        "      got += 1\n"
        "    }\n"
        "    after PAUSE%d => got = -1\n"
        "  }\n"
        "  t.join()\n"
        "  return got\n"
        "}\n"
        "\n",
        k, a, b, k, a, b, lim, k, k, a + 1, k);
    lines += 34;
    if (k % 4 == 0) {
        fprintf(f,
            "service Store%d {\n"
            "  state stock: Map[String, Int] = {}\n"
            "  state served: Int = 0\n"
            "  on start { print(\"boot %d\") }\n"
            "  rpc reserve(sku: String, qty: Int) -> Bool {\n"
            "    served += 1\n"
            "    return qty > 0 && qty < %d\n"
            "  }\n"
            "}\n"
            "\n",
            k, k, lim);
        lines += 10;
    }
    fprintf(f,
        "test \"price%d\" {\n"
        "  assert price%d([1, 2, 3], 2) >= 0 - %d, \"price\"\n"
        "  let d = %dms + 2s\n"
        "  assert d > 1s\n"
        "  assert describe%d(make%d(%d, [1, 2])) != \"\"\n"
        "}\n"
        "\n"
        "test sim \"pump%d\" seeds 1..=%d {\n"
        "  assert pump%d(%d) >= -1\n"
        "}\n"
        "\n",
        k, k, lim, a, k, k, a, k, 10 + a, k, b);
    lines += 11;
    return lines;
}

/* Writes one unit of C of similar shape; returns its line count. */
static int c_unit(FILE *f, int k) {
    int a = 1 + (int)pick(9), b = 2 + (int)pick(20), lim = 100 + (int)pick(5000);
    fprintf(f,
        "struct order%d { long id, total; const char *note; };\n"
        "struct fail%d { const char *reason; int code; };\n"
        "enum { LIMIT%d = %d, PAUSE%d = %d };\n"
        "\n"
        "/* price%d adds the items with a factor, then takes a few off */\n"
        "static long price%d(const long *xs, size_t n, long factor) {\n"
        "    long total = 0;\n"
        "    for (size_t x = 0; x < n; x++) {\n"
        "        total += xs[x] * factor;\n"
        "    }\n"
        "    long i = 0;\n"
        "    while (i < %d) {\n"
        "        i += 1;\n"
        "        if (i %% %d == 0) {\n"
        "            continue;\n"
        "        } else if (i > %d) {\n"
        "            break;\n"
        "        }\n"
        "        total -= 1;\n"
        "    }\n"
        "    for (long j = 1; j <= %d; j++) {\n"
        "        total = total + j * 2 - (j %% 3);\n"
        "    }\n"
        "    return total;\n"
        "}\n"
        "\n"
        "static int make%d(long id, const long *xs, size_t n, struct order%d *o, struct fail%d *fl) {\n"
        "    long total = price%d(xs, n, %d);\n"
        "    char buf[64];\n"
        "    if (total > LIMIT%d) {\n"
        "        snprintf(buf, sizeof buf, \"too much: %%ld > %%d\", total, LIMIT%d);\n"
        "        fl->reason = \"too much\";\n"
        "        return 1;\n"
        "    } else if (total < 0) {\n"
        "        fl->reason = \"negative\";\n"
        "        fl->code = %d;\n"
        "        return 1;\n"
        "    }\n"
        "    o->id = id;\n"
        "    o->total = total;\n"
        "    o->note = \"order\";\n"
        "    return 0;\n"
        "}\n"
        "\n"
        "static const char *describe%d(int kind, const struct order%d *o, const struct fail%d *fl) {\n"
        "    static char s[128];\n"
        "    switch (kind) {\n"
        "    case 0:\n"
        "        snprintf(s, sizeof s, \"order %%ld of %%ld\", o->id, o->total);\n"
        "        break;\n"
        "    default:\n"
        "        snprintf(s, sizeof s, \"failed: %%s (%%d)\", fl->reason, fl->code);\n"
        "        break;\n"
        "    }\n"
        "    return s;\n"
        "}\n"
        "\n"
        "static long table%d(void) {\n"
        "    const long xs[] = {%d, %d, %d};\n"
        "    long sum = 0;\n"
        "    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {\n"
        "        sum += xs[i];\n"
        "        printf(\"%%zu=%%ld of %d\\n\", i, xs[i]);\n"
        "    }\n"
        "    assert(sum > 0 && \"sum of table%d\");\n"
        "    return sum;\n"
        "}\n"
        "\n"
        "static long pump%d(long n) {\n"
        "    long ring[%d];\n"
        "    long got = 0;\n"
        "    for (long i = 0; i < n; i++) {\n"
        "        ring[i %% %d] = i;\n"
        "        got += ring[i %% %d] > PAUSE%d ? 1 : 0;\n"
        "    }\n"
        "    return got;\n"
        "}\n"
        "\n"
        "int test_price%d(void);\n"
        "int test_price%d(void) {\n"
        "    const long xs[] = {1, 2, 3};\n"
        "    struct order%d o; struct fail%d fl = {0};\n"
        "    int kind = make%d(%d, xs, 3, &o, &fl);\n"
        "    assert(price%d(xs, 3, 2) >= 0 - %d);\n"
        "    assert(describe%d(kind, &o, &fl)[0] != 0);\n"
        "    return (int)table%d() + (int)pump%d(%d);\n"
        "}\n"
        "\n",
        k, k, k, lim, k, a * 10, k, k, b, a + 1, b / 2, a, k, k, k, k, a, k, k, b, k, k, k, k, a, b, lim, lim, k,
        k, a + 1, a + 1, a + 1, k, k, k, k, k, k, a, k, lim, k, k, k, b);
    return 92;
}

int main(int argc, char **argv) {
    char oxl[PATH_MAX];
    if (argc > 1) {
        snprintf(oxl, sizeof oxl, "%s", argv[1]);
    } else {
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0) {
            fprintf(stderr, "bench_frontend: cannot find myself; pass the path of oxl\n");
            return 2;
        }
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) *slash = '\0';
        if (strlen(self) + 8 > sizeof oxl) {
            fprintf(stderr, "bench_frontend: path too long\n");
            return 2;
        }
        memcpy(oxl, self, strlen(self));
        memcpy(oxl + strlen(self), "/../oxl", 8);
    }
    if (access(oxl, X_OK) != 0) {
        fprintf(stderr, "bench_frontend: no oxl at %s (build it, or pass its path)\n", oxl);
        return 2;
    }
    long want = argc > 2 ? atol(argv[2]) : 100000;
    if (want < 1000 || want > 10000000) want = 100000;

    char dir[] = "/tmp/oxl-bench-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    char pkg[PATH_MAX], cfile[PATH_MAX], log[PATH_MAX];
    snprintf(pkg, sizeof pkg, "%s/pkg", dir);
    snprintf(cfile, sizeof cfile, "%s/gen.c", dir);
    snprintf(log, sizeof log, "%s/oxl.log", dir);
    mkdir(pkg, 0755);

    /* the OxL package: files of about FILE_LINES lines each */
    long oxl_lines = 0;
    int files = 0, k = 0;
    FILE *f = NULL;
    long in_file = FILE_LINES;
    while (oxl_lines < want) {
        if (in_file >= FILE_LINES) {
            if (f) fclose(f);
            char path[PATH_MAX + 32];
            snprintf(path, sizeof path, "%s/part%03d.oxl", pkg, files++);
            f = fopen(path, "w");
            if (!f) {
                perror(path);
                return 2;
            }
            in_file = 0;
            if (files == 1) {
                fputs("package bench\n\nuse std.time { now, sleep }\n\ncluster shop {\n  role store: Store0\n}\n\n", f);
                in_file += 8;
                oxl_lines += 8;
            }
        }
        int l = oxl_unit(f, k++);
        in_file += l;
        oxl_lines += l;
    }
    fclose(f);

    /* the C file */
    f = fopen(cfile, "w");
    if (!f) {
        perror(cfile);
        return 2;
    }
    fputs("#include <assert.h>\n#include <stddef.h>\n#include <stdio.h>\n\n", f);
    long c_lines = 4;
    for (int i = 0; c_lines < want; i++) c_lines += c_unit(f, i);
    fclose(f);

    char *oxl_argv[] = {oxl, "check", pkg, "--color=never", NULL};
    /* the syntax stages alone: the tree dump skips semantic analysis (and
     * its printing, to /dev/null, is counted against it) */
    char *syntax_argv[] = {oxl, "check", pkg, "--dump-ast", NULL};
    const char *cc = getenv("CC");
    char *cc_argv[] = {(char *)(cc && *cc ? cc : "cc"), "-fsyntax-only", "-w", cfile, NULL};
    double best_oxl = UNSET, best_cc = UNSET, best_syntax = UNSET;
    for (int r = 0; r < RUNS; r++) {
        double s = 0;
        int st = bench_run(oxl_argv, NULL, log, &s);
        if (st != 0) {
            fprintf(stderr, "bench_frontend: oxl check exited %d on the generated package (see %s)\n", st, log);
            return 1;
        }
        if (s < best_oxl) best_oxl = s;
        st = bench_run(syntax_argv, NULL, NULL, &s);
        if (st != 0)
            fprintf(stderr, "bench_frontend: oxl check --dump-ast exited %d on the generated package\n", st);
        else if (s < best_syntax)
            best_syntax = s;
        st = bench_run(cc_argv, NULL, NULL, &s);
        if (st != 0) {
            fprintf(stderr, "bench_frontend: %s -fsyntax-only exited %d on %s\n", cc_argv[0], st, cfile);
            return 1;
        }
        if (s < best_cc) best_cc = s;
    }
    int status = 0;
    double oxl_rate = (double)oxl_lines / best_oxl, cc_rate = (double)c_lines / best_cc;
    printf("frontend.lines: %ld lines (%d files)\n", oxl_lines, files);
    figure(&status, have(best_oxl), "lines_per_sec", 0, oxl_rate, "lines/s");
    figure(&status, have(best_oxl), "seconds", 3, best_oxl, "s");
    figure(&status, have(best_cc), "cc_lines_per_sec", 0, cc_rate, "lines/s");
    figure(&status, have(best_oxl) && have(best_cc), "vs_cc.ratio", 2, oxl_rate / cc_rate, "x");
    figure(&status, have(best_syntax), "syntax_lines_per_sec", 0, (double)oxl_lines / best_syntax, "lines/s");
    figure(&status, have(best_syntax) && have(best_cc), "syntax_vs_cc.ratio", 2,
           (double)oxl_lines / best_syntax / cc_rate, "x");

    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "bench_frontend: could not remove %s\n", dir);
    return status;
}
