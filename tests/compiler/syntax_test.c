/* syntax_test: runs `oxl check` over the syntax test programs of one
 * folder and prints TAP.
 *
 *   syntax_test OXL DIR tokens|ast [--update]
 *
 * For every DIR/x.oxl (in name order):
 *  - x.tok: `oxl check --dump-tokens x.oxl` must print exactly x.tok;
 *  - x.ast: `oxl check --dump-ast x.oxl` must print exactly x.ast;
 *  - `// error@COL: text` on a line: an error at that line and column whose
 *    message contains `text` (`// error@LINE:COL: text` names another line,
 *    for errors where no comment can follow). The program's errors must be
 *    exactly the expected ones, and oxl must exit 1. Without any, oxl must
 *    exit 0 and report no error.
 * Diagnostics come from the syntax stages only: a program with neither
 * golden runs with --dump-tokens (MODE tokens: lexer errors only) or
 * --dump-ast (MODE ast), and both skip semantic analysis.
 *
 * --update rewrites x.tok and x.ast from oxl's output (see
 * docs/oxl-check.md: review the diff before committing it). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "tap.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_EXPECT 64
#define MAX_FILES 1000

typedef struct expect {
    unsigned line, col;
    char text[256];
    bool seen;
} expect;

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        if (got == 0) break;
        n += got;
    }
    fclose(f);
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

static bool exists(const char *path) { return access(path, F_OK) == 0; }

/* Reads the `// error@...` annotations of a program. */
static int read_expects(const char *text, size_t len, expect *out) {
    int n = 0;
    unsigned line = 1;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        for (const char *q = p; q + 9 <= eol; q++) {
            if (memcmp(q, "// error@", 9) != 0) continue;
            unsigned a = 0, b = 0;
            int used = 0;
            expect e = {0};
            if (sscanf(q + 9, "%u:%u:%n", &a, &b, &used) == 2 && used) {
                e.line = a;
                e.col = b;
            } else if (sscanf(q + 9, "%u:%n", &a, &used) == 1 && used) {
                e.line = line;
                e.col = a;
            } else {
                continue;
            }
            const char *t = q + 9 + used;
            while (t < eol && *t == ' ') t++;
            size_t tl = (size_t)(eol - t);
            if (tl >= sizeof e.text) tl = sizeof e.text - 1;
            memcpy(e.text, t, tl);
            if (n < MAX_EXPECT) out[n++] = e;
            break;
        }
        p = eol + 1;
        line++;
    }
    return n;
}

/* Runs `cd dir && oxl check <flags> name` with stdout and stderr to files;
 * returns the exit status (-1 when it did not exit normally). */
static int run_oxl(const char *oxl, const char *dir, const char *flags, const char *name, const char *out,
                   const char *err) {
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' check %s '%s' >'%s' 2>'%s'", dir, oxl, flags, name, out, err);
    int st = system(cmd);
    if (st == -1 || !WIFEXITED(st)) return -1;
    return WEXITSTATUS(st);
}

static bool write_file(const char *path, const char *text, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    fwrite(text, 1, len, f);
    return fclose(f) == 0;
}

/* Compares expected and reported errors; reports each difference. */
static bool check_diags(const char *name, const char *err, expect *ex, int nex) {
    bool ok = true;
    char prefix[512];
    snprintf(prefix, sizeof prefix, "%s:", name);
    const char *p = err;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t ll = eol ? (size_t)(eol - p) : strlen(p);
        if (strncmp(p, prefix, strlen(prefix)) == 0) {
            unsigned line, col;
            int used = 0;
            const char *q = p + strlen(prefix);
            if (sscanf(q, "%u:%u: error: %n", &line, &col, &used) == 2 && used) {
                char msg[1024];
                size_t ml = ll - (size_t)(q + used - p);
                if (ml >= sizeof msg) ml = sizeof msg - 1;
                memcpy(msg, q + used, ml);
                msg[ml] = '\0';
                bool matched = false;
                for (int i = 0; i < nex && !matched; i++) {
                    if (!ex[i].seen && ex[i].line == line && ex[i].col == col && strstr(msg, ex[i].text)) {
                        ex[i].seen = true;
                        matched = true;
                    }
                }
                if (!matched) {
                    tap_diag("%s: unexpected error %u:%u: %s", name, line, col, msg);
                    ok = false;
                }
            }
        }
        if (!eol) break;
        p = eol + 1;
    }
    for (int i = 0; i < nex; i++) {
        if (!ex[i].seen) {
            tap_diag("%s: missing error %u:%u: %s", name, ex[i].line, ex[i].col, ex[i].text);
            ok = false;
        }
    }
    return ok;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void first_difference(const char *name, const char *got, const char *want) {
    unsigned line = 1;
    const char *g = got, *w = want;
    while (*g && *g == *w) {
        if (*g == '\n') line++;
        g++;
        w++;
    }
    const char *ge = strchr(g, '\n'), *we = strchr(w, '\n');
    tap_diag("%s: first difference at line %u", name, line);
    tap_diag("  got:  %.*s", (int)(ge ? ge - g : (long)strlen(g)), g);
    tap_diag("  want: %.*s", (int)(we ? we - w : (long)strlen(w)), w);
}

int main(int argc, char **argv) {
    if (argc < 4 || (strcmp(argv[3], "tokens") && strcmp(argv[3], "ast"))) {
        fprintf(stderr, "usage: syntax_test OXL DIR tokens|ast [--update]\n");
        return 2;
    }
    const char *error_flags = strcmp(argv[3], "tokens") == 0 ? "--dump-tokens" : "--dump-ast";
    /* oxl runs inside DIR: make both paths absolute */
    char oxl_abs[4096], dir_abs[4096];
    if (!realpath(argv[1], oxl_abs) || !realpath(argv[2], dir_abs)) tap_bail("cannot find %s or %s", argv[1], argv[2]);
    const char *oxl = oxl_abs, *dir = dir_abs;
    bool update = argc > 4 && strcmp(argv[4], "--update") == 0;
    char tmp[] = "/tmp/oxl-syntax-XXXXXX";
    if (!mkdtemp(tmp)) tap_bail("mkdtemp failed");
    char out[600], err[600];
    snprintf(out, sizeof out, "%s/out", tmp);
    snprintf(err, sizeof err, "%s/err", tmp);

    DIR *d = opendir(dir);
    if (!d) tap_bail("cannot open %s", dir);
    char *names[MAX_FILES];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < MAX_FILES) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".oxl") == 0) names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    if (n == 0) tap_bail("no .oxl programs in %s", dir);

    for (int i = 0; i < n; i++) {
        char path[8192], stem[512];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        snprintf(stem, sizeof stem, "%.*s", (int)(strlen(names[i]) - 4), names[i]);
        size_t len;
        char *src = slurp(path, &len);
        if (!src) {
            tap_ok(false, "%s: readable", names[i]);
            continue;
        }
        expect ex[MAX_EXPECT];
        int nex = read_expects(src, len, ex);
        free(src);
        int want_status = nex ? 1 : 0;
        static const char *const kinds[2][2] = {{"tok", "--dump-tokens"}, {"ast", "--dump-ast"}};
        bool any = false;
        for (int k = 0; k < 2; k++) {
            char golden[8800];
            snprintf(golden, sizeof golden, "%s/%s.%s", dir, stem, kinds[k][0]);
            if (!exists(golden)) continue;
            any = true;
            int st = run_oxl(oxl, dir, kinds[k][1], names[i], out, err);
            char *got = slurp(out, NULL), *errs = slurp(err, NULL);
            char *want = NULL;
            if (update) {
                /* the golden file becomes the output: nothing to compare */
                if (write_file(golden, got, strlen(got)))
                    tap_skip("--update rewrote it", "%s: %s matches %s.%s", names[i], kinds[k][1], stem,
                             kinds[k][0]);
                else
                    tap_ok(false, "%s: --update cannot write %s.%s", names[i], stem, kinds[k][0]);
            } else {
                want = slurp(golden, NULL);
                bool same = want && strcmp(got, want) == 0;
                if (!same && want) first_difference(names[i], got, want);
                tap_ok(same, "%s: %s matches %s.%s", names[i], kinds[k][1], stem, kinds[k][0]);
            }
            expect copy[MAX_EXPECT];
            memcpy(copy, ex, sizeof ex);
            bool diags = check_diags(names[i], errs, copy, nex);
            tap_ok(diags && st == want_status, "%s: %s reports %d expected error(s), exit %d (got %d)", names[i],
                   kinds[k][1], nex, want_status, st);
            free(got);
            free(errs);
            free(want);
        }
        if (!any) {
            if (!nex) {
                tap_ok(false, "%s: has no golden (.tok/.ast) and no '// error@' annotation", names[i]);
                continue;
            }
            int st = run_oxl(oxl, dir, error_flags, names[i], out, err);
            char *errs = slurp(err, NULL);
            bool diags = check_diags(names[i], errs, ex, nex);
            tap_ok(diags && st == 1, "%s: reports exactly its %d expected error(s), exit 1 (got %d)", names[i], nex, st);
            free(errs);
        }
    }
    for (int i = 0; i < n; i++) free(names[i]);
    unlink(out);
    unlink(err);
    rmdir(tmp);
    return tap_done();
}
