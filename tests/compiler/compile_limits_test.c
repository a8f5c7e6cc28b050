/* compile_limits_test: programs too big or too odd to commit, made here and
 * run through `oxl check`, `oxl build` and `oxl test`: more top-level items
 * than the parser's first stack (257, and 100,000).
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
    cmd_remove_tree(tmp);
    free(tmp);
    return tap_done();
}
