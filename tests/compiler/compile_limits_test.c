/* compile_limits_test: programs too big or too odd to commit, made here and
 * run through `oxl check`, `oxl build` and `oxl test`: more top-level items
 * than the parser's first stack (257, and 100,000), constants folded past
 * their size limit (42 doublings of a string, a constant used too often, in
 * code, as the elements of a list or map constant, as a state's initial
 * value or a default made at each use, a 17 MiB literal), a union whose 65 members are one type, a NUL in a test
 * name, 20,000 tests and 80,000 roles, one function too big for -O2 and one whose frame
 * outgrows a task's stack, and a package named relatively and absolutely
 * through one cache.
 *
 *   compile_limits_test OXL */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cmd.h"
#include "tap.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *oxl;
static char *tmp;

/* Under a sanitizer the address space cannot be capped (the shadow memory
 * is reserved up front); elsewhere a runaway compiler meets the cap. */
#ifdef OXL_TEST_SANITIZE
#define MEM_CAP ""
#else
#define MEM_CAP "ulimit -v 2000000; "
#endif

static FILE *create(const char *rel) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", tmp, rel);
    FILE *f = fopen(path, "w");
    if (!f) tap_bail("cannot write %s", path);
    return f;
}

static void finish(FILE *f) {
    if (fclose(f) != 0) tap_bail("cannot write a source");
}

static void mkdir_in(const char *rel) {
    if (cmd_run(NULL, "mkdir -p '%s/%s'", tmp, rel) != 0) tap_bail("cannot make %s", rel);
}

static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* Exactly one `file:line:col: error:` and it says `msg` at `where`. */
static void one_error(const char *what, int status, const char *out, const char *where, const char *msg) {
    tap_is_int(status, 1, "%s: exit status 1", what);
    tap_is_int(count(out, ": error: "), 1, "%s: one error", what);
    tap_contains(out, where, "%s: at %s", what, where);
    tap_contains(out, msg, "%s: says '%s'", what, msg);
    tap_ok(!strstr(out, "AddressSanitizer") && !strstr(out, "runtime error:") && !strstr(out, "internal"),
           "%s: no crash or sanitizer report", what);
}

/* ---- more top-level items than the parser's first stack ---- */

static void many_items(void) {
    mkdir_in("items257");
    FILE *f = create("items257/main.oxl");
    for (int i = 0; i < 257; i++) fprintf(f, "fn f%d() {}\n", i);
    fputs("fn main() {\n  f256()\n  print(\"ok\")\n}\ntest \"t\" {\n  f0()\n}\n", f);
    finish(f);
    char *out;
    int st = cmd_run(&out, "cd '%s' && '%s' check items257", tmp, oxl);
    tap_ok(st == 0 && !*out, "257 top-level items: check passes silently (%d: %.200s)", st, out);
    free(out);
    st = cmd_run(&out, "cd '%s' && '%s' build items257 -o items257.exe && ./items257.exe", tmp, oxl);
    tap_ok(st == 0 && strcmp(out, "ok\n") == 0, "257 top-level items: build and run (%d: %.200s)", st, out);
    free(out);
    st = cmd_run(&out, "cd '%s' && OXL_CACHE_DIR='%s/cache' '%s' test items257", tmp, tmp, oxl);
    tap_ok(st == 0 && strstr(out, "1 passed"), "257 top-level items: test passes (%d: %.300s)", st, out);
    free(out);

    /* 100,000 items of every kind the parser stacks: functions, constants,
     * types; a main and tests that reach the last ones */
    mkdir_in("items100k");
    f = create("items100k/main.oxl");
    for (int i = 0; i < 100000; i++) {
        switch (i % 10) {
        case 0: fprintf(f, "fn f%d(x: Int) -> Int {\n  return x + %d\n}\n", i, i % 7); break;
        case 1: case 4: case 7: fprintf(f, "const C%d = %d\n", i, i); break;
        case 2: case 5: case 8: fprintf(f, "type T%d {\n  a: Int\n}\n", i); break;
        default: fprintf(f, "const S%d = \"s%d\"\n", i, i); break;
        }
    }
    fputs("fn main() {\n  let t = T99998 { a: C99997 }\n  print(\"{f99990(t.a)} {S99999}\")\n}\n"
          "test \"first\" {\n  assert f10(C1) == 4\n}\n"
          "test \"last\" {\n  assert f99990(C99991) == 99993\n}\n",
          f);
    finish(f);
    st = cmd_run(&out, "cd '%s' && '%s' check items100k", tmp, oxl);
    tap_ok(st == 0 && !*out, "100,000 top-level items: check passes silently (%d: %.200s)", st, out);
    free(out);
    st = cmd_run(&out, "cd '%s' && '%s' build items100k -o items100k.exe && ./items100k.exe", tmp, oxl);
    tap_ok(st == 0 && strcmp(out, "99999 s99999\n") == 0, "100,000 top-level items: build and run (%d: %.200s)", st,
           out);
    free(out);
    st = cmd_run(&out, "cd '%s' && OXL_CACHE_DIR='%s/cache' '%s' test items100k", tmp, tmp, oxl);
    tap_ok(st == 0 && strstr(out, "2 passed"), "100,000 top-level items: test passes (%d: %.300s)", st, out);
    free(out);
}

/* ---- compile-time values ---- */

static void constants(void) {
    /* 42 doublings would be 8 TiB: the 24th is the first past 16 MiB */
    FILE *f = create("doubling.oxl");
    fputs("const S0 = \"ab\"\n", f);
    for (int i = 0; i < 42; i++) fprintf(f, "const S%d = S%d + S%d\n", i + 1, i, i);
    fputs("fn main() {\n  print(\"{S42.len()}\")\n}\n", f);
    finish(f);
    char *out;
    int st = cmd_run(&out, MEM_CAP "cd '%s' && '%s' check doubling.oxl", tmp, oxl);
    one_error("42 doublings of a string constant", st, out, "doubling.oxl:25:13:",
              "a folded string of 33554432 bytes is longer than a String constant may be (16 MiB)");
    free(out);
    st = cmd_run(&out, MEM_CAP "cd '%s' && '%s' build doubling.oxl -o doubling.exe", tmp, oxl);
    tap_is_int(st, 1, "42 doublings: build refuses it too");
    free(out);

    /* just inside: 23 doublings of 2 bytes are 16 MiB */
    f = create("doubling23.oxl");
    fputs("const S0 = \"ab\"\n", f);
    for (int i = 0; i < 23; i++) fprintf(f, "const S%d = S%d + S%d\n", i + 1, i, i);
    fputs("const SAME = S22 == S22\n"
          "fn main() {\n  print(\"{S23.len()} {SAME}\")\n}\n",
          f);
    finish(f);
    st = cmd_run(&out, MEM_CAP "cd '%s' && '%s' run doubling23.oxl", tmp, oxl);
    tap_ok(st == 0 && strcmp(out, "16777216 true\n") == 0, "23 doublings (16 MiB) build and run (%d: %.200s)", st,
           out);
    free(out);

    /* a 1 MiB constant emitted at each use: 70 uses pass 64 MiB */
    f = create("uses.oxl");
    fputs("const A = \"0123456789abcdef\"\n", f);
    fputs("const B = A + A + A + A + A + A + A + A + A + A + A + A + A + A + A + A\n", f);
    fputs("const C = B + B + B + B + B + B + B + B + B + B + B + B + B + B + B + B\n", f);
    fputs("const D = C + C + C + C + C + C + C + C + C + C + C + C + C + C + C + C\n", f);
    fputs("const E = D + D + D + D + D + D + D + D + D + D + D + D + D + D + D + D\n", f);
    fputs("fn show(s: String = E) -> Int {\n  return s.len()\n}\nfn main() {\n  var n = 0\n", f);
    for (int i = 0; i < 35; i++) fputs("  n += E.len()\n  n += show()\n", f);
    fputs("  print(\"{n}\")\n}\n", f);
    finish(f);
    st = cmd_run(&out, MEM_CAP "cd '%s' && '%s' check uses.oxl", tmp, oxl);
    one_error("70 uses of a 1 MiB constant", st, out, "uses.oxl:",
              "compile-time strings of this program exceed 64 MiB");
    free(out);

    /* a String constant as an element of a list or map constant: code
     * generation emits each element in the constant's function, so each
     * is charged where the constant is made, outside any function too:
     * 200 elements of 8 MiB were 34 s and 3.3 GB in `oxl build` (or
     * LLVM's out-of-memory abort) and a silent `oxl check` */
    static const struct {
        const char *file, *open, *key, *close, *where;
    } aggregate[] = {{"constlist.oxl", "const L = [", "", "]\n", "constlist.oxl:24:"},
                     {"constmap.oxl", "const L = {", "\"k%d\": ", "}\n", "constmap.oxl:24:"}};
    for (size_t a = 0; a < sizeof aggregate / sizeof aggregate[0]; a++) {
        f = create(aggregate[a].file);
        fputs("const S0 = \"ab\"\n", f);
        for (int i = 0; i < 22; i++) fprintf(f, "const S%d = S%d + S%d\n", i + 1, i, i);
        fputs(aggregate[a].open, f);
        for (int i = 0; i < 200; i++) {
            fputs(i ? ", " : "", f);
            fprintf(f, aggregate[a].key, i);
            fputs("S22", f);
        }
        fputs(aggregate[a].close, f);
        fputs("fn main() {\n  print(\"{L.len()}\")\n}\n", f);
        finish(f);
        char what[96];
        snprintf(what, sizeof what, "200 uses of an 8 MiB constant in a %s constant", a ? "map" : "list");
        st = cmd_run(&out, MEM_CAP "cd '%s' && '%s' check %s", tmp, oxl, aggregate[a].file);
        one_error(what, st, out, aggregate[a].where, "compile-time strings of this program exceed 64 MiB");
        free(out);
        st = cmd_run(&out, MEM_CAP "cd '%s' && '%s' build %s -o aggregate.exe", tmp, oxl, aggregate[a].file);
        tap_ok(st == 1 && count(out, ": error: ") == 1 && strstr(out, "exceed 64 MiB"),
               "%s: build refuses it with the same error (%d: %.200s)", what, st, out);
        free(out);
    }
    /* a String constant copied where it is not a use in code: a state's
     * initial value (emitted in the service's init function), a field
     * default and a parameter default that is a list literal (each made
     * again at every literal or call that leaves it out; the struct is
     * declared after the literals, so its defaults are checked first
     * there); each was a silent `oxl check` and a build that ran out of
     * memory */
    static const struct {
        const char *file, *before, *each, *after, *where;
    } copies[] = {
        {"statecopies.oxl", "service Big {\n", "  state s%d: String = S22\n",
         "  rpc n() -> Int {\n    return s0.len()\n  }\n}\nfn main() {\n  print(\"x\")\n}\n", "statecopies.oxl:"},
        {"fieldcopies.oxl", "type Big {\n  s: String = S22\n}\nfn main() {\n  let bs = [", "Big {}, ",
         "Big {}]\n  print(\"{bs.len()}\")\n}\n", "fieldcopies.oxl:"},
        {"paramcopies.oxl", "fn f(x: [String] = [S22, S22]) -> Int {\n  return x.len()\n}\nfn main() {\n  var n = 0\n",
         "  n += f()\n", "  print(\"{n}\")\n}\n", "paramcopies.oxl:"},
    };
    for (size_t a = 0; a < sizeof copies / sizeof copies[0]; a++) {
        for (int uses = 3; uses <= 200; uses += 197) {
            f = create(copies[a].file);
            fputs("const S0 = \"ab\"\n", f);
            for (int i = 0; i < 22; i++) fprintf(f, "const S%d = S%d + S%d\n", i + 1, i, i);
            fputs(copies[a].before, f);
            for (int i = 0; i < uses; i++) fprintf(f, copies[a].each, i);
            fputs(copies[a].after, f);
            finish(f);
            st = cmd_run(&out, MEM_CAP "cd '%s' && '%s' check %s", tmp, oxl, copies[a].file);
            if (uses == 3) {
                tap_ok(st == 0 && !*out, "%s with 3 copies of an 8 MiB constant: check passes (%d: %.200s)",
                       copies[a].file, st, out);
            } else {
                char what[96];
                snprintf(what, sizeof what, "%s with 200 copies of an 8 MiB constant", copies[a].file);
                one_error(what, st, out, copies[a].where, "compile-time strings of this program exceed 64 MiB");
            }
            free(out);
        }
    }
    /* the copies are made: 3 field defaults and 3 parameter defaults run */
    f = create("copies3.oxl");
    fputs("const S0 = \"ab\"\n", f);
    for (int i = 0; i < 22; i++) fprintf(f, "const S%d = S%d + S%d\n", i + 1, i, i);
    fputs("fn f(x: [String] = [S22]) -> Int {\n  return x[0].len()\n}\n"
          "fn main() {\n  let bs = [Big {}, Big {}, Big {}]\n  let n = f() + f() + f()\n"
          "  print(\"{bs[2].s.len()} {n}\")\n}\ntype Big {\n  s: String = S22\n}\n",
          f);
    finish(f);
    st = cmd_run(&out, MEM_CAP "cd '%s' && '%s' run copies3.oxl", tmp, oxl);
    tap_ok(st == 0 && strcmp(out, "8388608 25165824\n") == 0,
           "defaults of 8 MiB made at 3 literals and 3 calls build and run (%d: %.200s)", st, out);
    free(out);
    /* inside the limit: 3 elements of 8 MiB build and run */
    f = create("constlist3.oxl");
    fputs("const S0 = \"ab\"\n", f);
    for (int i = 0; i < 22; i++) fprintf(f, "const S%d = S%d + S%d\n", i + 1, i, i);
    fputs("const L = [S22, S22, S22]\nfn main() {\n  print(\"{L.len()} {L[2].len()}\")\n}\n", f);
    finish(f);
    st = cmd_run(&out, MEM_CAP "cd '%s' && '%s' run constlist3.oxl", tmp, oxl);
    tap_ok(st == 0 && strcmp(out, "3 8388608\n") == 0, "a list constant of 3 elements of 8 MiB builds and runs (%d: %.200s)",
           st, out);
    free(out);

    /* a literal past the limit: 17 MiB inside a 64 MiB file */
    f = create("literal.oxl");
    fputs("fn main() {\n  let s = \"", f);
    for (int i = 0; i < 17 * 1024; i++) {
        for (int k = 0; k < 64; k++) fputs("0123456789abcdef", f);
    }
    fputs("\"\n  print(\"{s.len()}\")\n}\n", f);
    finish(f);
    st = cmd_run(&out, MEM_CAP "cd '%s' && '%s' check literal.oxl", tmp, oxl);
    one_error("a 17 MiB string literal", st, out, "literal.oxl:2:11:",
              "a string literal of 17825792 bytes is longer than a String constant may be (16 MiB)");
    free(out);
}

/* ---- unions and test names ---- */

static void unions(void) {
    FILE *f = create("union65.oxl");
    fputs("type U = Int", f);
    for (int i = 1; i < 65; i++) fputs(" | Int", f);
    fputs("\ntype V = Int | String", f);
    for (int i = 1; i < 40; i++) fputs(" | Int | String", f);
    fputs(" | Bool\nfn main() {\n  let u: U = 3\n  let v: V = true\n  print(\"{u} {v}\")\n}\n", f);
    finish(f);
    char *out;
    int st = cmd_run(&out, "cd '%s' && '%s' run union65.oxl", tmp, oxl);
    tap_ok(st == 0 && strcmp(out, "3 true\n") == 0, "65 times Int is Int; 81 members of 3 types are 3 (%d: %.200s)",
           st, out);
    free(out);

    f = create("union65d.oxl");
    fputs("type U = T0", f);
    for (int i = 1; i < 65; i++) fprintf(f, " | T%d", i);
    fputs("\n", f);
    for (int i = 0; i < 65; i++) fprintf(f, "type T%d {\n  a: Int\n}\n", i);
    finish(f);
    st = cmd_run(&out, "cd '%s' && '%s' check union65d.oxl", tmp, oxl);
    one_error("65 distinct members", st, out, "union65d.oxl:1:10:", "a union has at most 64 members");
    free(out);
}

static void test_names(void) {
    char *out;
    int st;
    FILE *f;
    mkdir_in("nul");
    f = create("nul/main.oxl");
    fputs("test \"a\\0b\" {\n  assert 1 == 1\n}\ntest \"a\\u{0}c\" {\n  assert 1 == 2\n}\n", f);
    finish(f);
    st = cmd_run(&out, "cd '%s' && '%s' check nul", tmp, oxl);
    tap_is_int(st, 1, "a NUL in a test name is an error");
    tap_is_int(count(out, ": error: a test name cannot contain a NUL character"), 2, "one for each such test (%.300s)",
               out);
    tap_ok(!strstr(out, "already exists"), "the two names are not taken for one (\"a\")");
    free(out);
    st = cmd_run(&out, "cd '%s' && OXL_CACHE_DIR='%s/cache' '%s' test nul", tmp, tmp, oxl);
    tap_ok(st != 0 && !strstr(out, "passed, 0 failed") && strstr(out, "NUL character"),
           "oxl test does not run a truncated name (%d: %.300s)", st, out);
    free(out);

    /* 20,000 tests: each name is checked against the others once */
    f = create("tests20k.oxl");
    for (int i = 0; i < 20000; i++) fprintf(f, "test \"t%d\" {\n  assert %d >= 0\n}\n", i, i);
    fputs("test \"t7\" {\n}\n", f);
    finish(f);
    st = cmd_run(&out, "cd '%s' && '%s' check tests20k.oxl", tmp, oxl);
    one_error("the 20,001st test repeats a name", st, out, "tests20k.oxl:60001:6:",
              "a test named \"t7\" already exists in this package");
    free(out);

    /* 80,000 roles, the last one twice, and a test listing 20,000 of them
     * with one twice: each name is looked up once */
    f = create("roles.oxl");
    fputs("service S {\n  rpc p() {\n  }\n}\ncluster c {\n", f);
    for (int i = 0; i < 80000; i++) fprintf(f, "  role r%d: S\n", i);
    fputs("  role r79999: S\n}\ntest sim \"t\" with cluster(nodes: 1, roles: [", f);
    for (int i = 0; i < 20000; i++) fprintf(f, "\"r%d\", ", i);
    fputs("\"r5\"]) {\n}\n", f);
    finish(f);
    st = cmd_run(&out, "cd '%s' && '%s' check roles.oxl", tmp, oxl);
    tap_is_int(st, 1, "80,000 roles: a role declared twice and one listed twice are errors");
    tap_is_int(count(out, ": error: "), 2, "two errors (%.300s)", out);
    tap_contains(out, "roles.oxl:80006:8: error: role 'r79999' is declared twice in cluster 'c'", "the role declared twice");
    tap_contains(out, "error: role \"r5\" is listed twice", "the role listed twice");
    free(out);
}

/* ---- -O2 and one huge function ---- */

static void huge_o2(void) {
    /* 8,000 straight-line statements are more LLVM instructions than -O2
     * optimizes in one function; 100 are not */
    for (int big = 0; big < 2; big++) {
        FILE *f = create(big ? "o2big.oxl" : "o2small.oxl");
        fputs("fn step(a: Int, b: Int) -> Int {\n  return (a * 3 + b) % 1000003\n}\n"
              "fn main() {\n  var x = 1\n  var s = \"\"\n",
              f);
        int n = big ? 8000 : 100;
        for (int i = 0; i < n; i++)
            fputs(i % 2 ? "  x = step(x, s.len())\n" : "  s = \"{x}.\"\n", f);
        fputs("  print(\"{x} {s}\")\n}\n", f);
        finish(f);
    }
    char *small, *big;
    /* (grouped: cmd_run joins the last command's stderr to its output) */
    int st_small =
        cmd_run(&small, "cd '%s' && { '%s' build -O2 o2small.oxl -o o2small.exe && ./o2small.exe; }", tmp, oxl);
    int st_big = cmd_run(&big, "cd '%s' && { '%s' build -O2 o2big.oxl -o o2big.exe && ./o2big.exe; }", tmp, oxl);
    tap_ok(st_small == 0 && !strstr(small, "note:"), "-O2 optimizes a function of 100 statements quietly (%.200s)",
           small);
    tap_ok(st_big == 0, "-O2 builds a function of 8,000 statements, and it runs (%d)", st_big);
    tap_contains(big, "oxl: note: -O2 leaves oxl.main.main unoptimized",
                 "and says that it leaves that function unoptimized");
    free(small);
    free(big);
}

/* ---- a frame larger than a task's stack ---- */

static void big_frame(void) {
    /* each binding and its interpolation's builder take stack slots of
     * their own at -O0: 36,000 of them are more than a task's 1 MiB */
    FILE *f = create("frame.oxl");
    fputs("fn big(x: Int) -> Int {\n", f);
    for (int i = 0; i < 36000; i++) fprintf(f, "  let v%d = \"{x}\"\n", i);
    fputs("  return v35999.len()\n}\nfn main() {\n  print(\"start\")\n  print(big(7))\n}\n", f);
    finish(f);
    char *out;
    int st = cmd_run(&out, "cd '%s' && '%s' build frame.oxl -o frame.exe && ./frame.exe", tmp, oxl);
    tap_is_int(st, 101, "a function whose frame outgrows the task's stack panics (status 101, not a crash)");
    tap_contains(out, "panic: stack overflow", "it says stack overflow");
    tap_contains(out, "start", "what ran before it was printed");
    free(out);
}

/* ---- one package, two spellings, one cache ---- */

static void spellings(void) {
    mkdir_in("spell/pkg/sub");
    mkdir_in("elsewhere");
    FILE *f = create("spell/pkg/main.oxl");
    fputs("use sub\nfn boom(n: Int) -> Int {\n  if n > 2 {\n    panic(\"too big: {n}\")\n  }\n  return n\n}\n"
          "test \"fails\" {\n  assert boom(5) == 5\n}\n"
          "test \"fails in sub\" {\n  assert sub.deep(5) == 5\n}\n",
          f);
    finish(f);
    f = create("spell/pkg/sub/sub.oxl");
    fputs("pub fn deep(n: Int) -> Int {\n  if n > 2 {\n    panic(\"deep: {n}\")\n  }\n  return n\n}\n", f);
    finish(f);
    char real[PATH_MAX], abs_pkg[PATH_MAX + 16];
    if (!realpath(tmp, real)) tap_bail("realpath %s", tmp);
    snprintf(abs_pkg, sizeof abs_pkg, "%s/spell/pkg", real);
    /* relative first, then absolute from another directory, then `.`: one
     * cache, so the last two are served the first one's binary */
    char *outs[3];
    cmd_run(&outs[0], "cd '%s/spell' && OXL_CACHE_DIR='%s/cache1' '%s' test pkg --no-fail-fast", tmp, tmp, oxl);
    cmd_run(&outs[1], "cd '%s/elsewhere' && OXL_CACHE_DIR='%s/cache1' '%s' test '%s' --no-fail-fast", tmp, tmp, oxl, abs_pkg);
    cmd_run(&outs[2], "cd '%s/spell/pkg' && OXL_CACHE_DIR='%s/cache1' '%s' test . --no-fail-fast", tmp, tmp, oxl);
    static const char *const how[3] = {"spelled pkg", "spelled absolutely, from elsewhere, from the cache",
                                       "spelled ., from the cache"};
    for (int i = 0; i < 3; i++) {
        tap_contains(outs[i], "\n  at main.oxl:4 (", "%s: the panic is at main.oxl:4, relative to the package", how[i]);
        tap_contains(outs[i], "\n  at sub/sub.oxl:3 (", "%s: the subpackage's at sub/sub.oxl:3", how[i]);
        free(outs[i]);
    }
    /* each spelling into a cache of its own builds the same binary */
    cmd_run(NULL, "cd '%s/spell' && OXL_CACHE_DIR='%s/cache2' '%s' test pkg", tmp, tmp, oxl);
    cmd_run(NULL, "cd '%s/elsewhere' && OXL_CACHE_DIR='%s/cache3' '%s' test '%s/'", tmp, tmp, oxl, abs_pkg);
    cmd_run(NULL, "cd '%s/spell/pkg' && OXL_CACHE_DIR='%s/cache4' '%s' test .", tmp, tmp, oxl);
    char *cmp;
    int st = cmd_run(&cmp, "cd '%s' && ls cache2/test-binaries cache3/test-binaries cache4/test-binaries && "
                           "cmp cache2/test-binaries/* cache3/test-binaries/* && "
                           "cmp cache2/test-binaries/* cache4/test-binaries/*", tmp);
    tap_ok(st == 0, "`pkg`, `/abs/pkg/` and `.` build byte-identical binaries (%.400s)", cmp);
    free(cmp);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: compile_limits_test OXL\n");
        return 2;
    }
    static char abs_oxl[PATH_MAX];
    if (!realpath(argv[1], abs_oxl)) tap_bail("no oxl at %s", argv[1]);
    oxl = abs_oxl;
    tmp = cmd_tempdir("limits");
    many_items();
    constants();
    unions();
    test_names();
    huge_o2();
    big_frame();
    spellings();
    cmd_remove_tree(tmp);
    free(tmp);
    return tap_done();
}
