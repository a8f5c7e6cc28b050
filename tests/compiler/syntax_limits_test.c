/* syntax_limits_test: inputs too big or too odd to commit, made here and
 * run through `oxl check`: 10,000 nested parentheses, blocks and types,
 * long chains, 1 MB lines, NUL bytes, invalid UTF-8, the error limit; and
 * the driver's usage errors and exit statuses.
 *
 *   syntax_limits_test OXL */
#define _XOPEN_SOURCE 700 /* realpath */
#include "tap.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char tmp[] = "/tmp/oxl-limits-XXXXXX";
static const char *oxl;

typedef struct buf {
    char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        while (b->n + n + 1 > b->cap) b->cap = b->cap ? b->cap * 2 : 4096;
        b->p = realloc(b->p, b->cap);
        if (!b->p) tap_bail("out of memory");
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}
static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }
static void rep(buf *b, const char *s, int times) {
    for (int i = 0; i < times; i++) puts_(b, s);
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return strdup("");
    buf b = {0};
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) put(&b, chunk, got);
    fclose(f);
    if (!b.p) return strdup("");
    return b.p;
}

typedef struct result {
    int status;
    char *out, *err;
    double seconds;
} result;

static void write_src(const char *name, const char *text, size_t len) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    FILE *f = fopen(path, "wb");
    if (!f) tap_bail("cannot write %s", path);
    fwrite(text, 1, len, f);
    fclose(f);
}

static double cpu_seconds(const struct rusage *u) {
    return (double)(u->ru_utime.tv_sec + u->ru_stime.tv_sec) +
           (double)(u->ru_utime.tv_usec + u->ru_stime.tv_usec) / 1e6;
}

/* Runs `cd tmp && [env] oxl args`. */
static result run(const char *env, const char *args) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && %s '%s' %s >out.txt 2>err.txt", tmp, env ? env : "", oxl, args);
    /* CPU time of the children, not wall time: a loaded machine slows
     * the wall clock, never the work a run does */
    struct rusage a, z;
    getrusage(RUSAGE_CHILDREN, &a);
    int st = system(cmd);
    getrusage(RUSAGE_CHILDREN, &z);
    result r;
    r.status = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    char path[512];
    snprintf(path, sizeof path, "%s/out.txt", tmp);
    r.out = slurp(path);
    snprintf(path, sizeof path, "%s/err.txt", tmp);
    r.err = slurp(path);
    r.seconds = cpu_seconds(&z) - cpu_seconds(&a);
    return r;
}

static void done(result *r) {
    free(r->out);
    free(r->err);
}

static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* One program that must fail with exactly one error containing `msg`, at
 * `where` ("file:line:col:"), within a few seconds. */
static void one_error(const char *what, const char *name, buf *src, const char *where, const char *msg) {
    write_src(name, src->p, src->n);
    char args[600];
    snprintf(args, sizeof args, "check --dump-ast %s", name);
    result r = run(NULL, args);
    bool ok = r.status == 1 && count(r.err, ": error: ") == 1 && strstr(r.err, msg) && strstr(r.err, where);
    if (!ok) tap_diag("status %d, stderr:\n%.2000s", r.status, r.err);
    tap_ok(ok, "%s: one error '%s' at %s (exit 1)", what, msg, where);
    tap_ok(r.seconds < 5.0, "%s: took %.2fs of CPU", what, r.seconds);
    done(&r);
    free(src->p);
    *src = (buf){0};
}

static void no_error(const char *what, const char *name, buf *src, double max_seconds) {
    write_src(name, src->p, src->n);
    char args[600];
    snprintf(args, sizeof args, "check --dump-ast %s", name);
    result r = run(NULL, args);
    if (r.status != 0) tap_diag("stderr:\n%.2000s", r.err);
    tap_ok(r.status == 0 && r.err[0] == '\0', "%s: parses without errors (exit %d)", what, r.status);
    tap_ok(r.seconds < max_seconds, "%s: took %.2fs of CPU (limit %.0fs)", what, r.seconds, max_seconds);
    done(&r);
    free(src->p);
    *src = (buf){0};
}

static void nesting(void) {
    buf b = {0};
    puts_(&b, "fn f() {\n  let x = ");
    rep(&b, "(", 10000);
    puts_(&b, "1");
    rep(&b, ")", 10000);
    puts_(&b, "\n}\n");
    one_error("10,000 nested parentheses", "parens.oxl", &b, "parens.oxl:2:", "too deeply nested");

    puts_(&b, "fn f() {\n");
    rep(&b, "if true {\n", 10000);
    rep(&b, "}\n", 10000);
    puts_(&b, "}\n");
    one_error("10,000 nested blocks", "blocks.oxl", &b, "blocks.oxl:", "too deeply nested");

    puts_(&b, "type T = ");
    rep(&b, "[", 10000);
    puts_(&b, "Int");
    rep(&b, "]", 10000);
    puts_(&b, "\n");
    one_error("10,000 nested list types", "types.oxl", &b, "types.oxl:1:", "too deeply nested");

    puts_(&b, "type T = ");
    rep(&b, "fn(", 5000);
    puts_(&b, "Int");
    rep(&b, ")", 5000);
    puts_(&b, "\n");
    one_error("5,000 nested function types", "fntypes.oxl", &b, "fntypes.oxl:1:", "too deeply nested");

    puts_(&b, "fn f() {\n  let x = ");
    rep(&b, "-", 10000);
    puts_(&b, "1\n}\n");
    one_error("10,000 unary minus", "unary.oxl", &b, "unary.oxl:2:", "too deeply nested");

    puts_(&b, "fn f() {\n  let x = 1");
    rep(&b, " + 1", 100000);
    puts_(&b, "\n}\n");
    one_error("a chain of 100,000 '+'", "chain.oxl", &b, "chain.oxl:2:", "too deeply nested");

    puts_(&b, "fn f() {\n  let x = a");
    rep(&b, ".b", 100000);
    puts_(&b, "\n}\n");
    one_error("a chain of 100,000 fields", "fields.oxl", &b, "fields.oxl:2:", "too deeply nested");

    puts_(&b, "fn f() {\n  if a {\n  }");
    rep(&b, " else if a {\n  }", 10000);
    puts_(&b, "\n}\n");
    one_error("10,000 else-if", "elseif.oxl", &b, "elseif.oxl:", "too deeply nested");

    puts_(&b, "fn f() {\n  let s = ");
    rep(&b, "\"{", 20);
    puts_(&b, "1");
    rep(&b, "}\"", 20);
    puts_(&b, "\n}\n");
    one_error("20 nested interpolations", "interp.oxl", &b, "interp.oxl:2:", "nested too deeply");

    /* just inside the limits */
    puts_(&b, "fn f() {\n  let x = ");
    rep(&b, "(", 200);
    puts_(&b, "1");
    rep(&b, ")", 200);
    puts_(&b, "\n}\n");
    no_error("200 nested parentheses", "parens200.oxl", &b, 5);

    puts_(&b, "fn f() {\n");
    rep(&b, "while true {\n", 200);
    rep(&b, "}\n", 200);
    puts_(&b, "}\n");
    no_error("200 nested blocks", "blocks200.oxl", &b, 5);

    puts_(&b, "fn f() {\n  let s = \"");
    rep(&b, "{a}-", 10000);
    puts_(&b, "\"\n}\n");
    no_error("10,000 interpolations in one string", "parts.oxl", &b, 5);

    puts_(&b, "type T = a");
    rep(&b, ".b", 100000);
    puts_(&b, "\n");
    no_error("a dotted type name of 100,001 parts", "dotted.oxl", &b, 5);
}

static void big_lines(void) {
    buf b = {0};
    puts_(&b, "fn f() {\n  let xs = [1");
    rep(&b, ", 1", 350000);
    puts_(&b, "]\n}\n");
    no_error("a 1 MB line (a list literal)", "mb_list.oxl", &b, 5);

    puts_(&b, "fn f() {\n  let s = \"");
    rep(&b, "0123456789abcdef", 65536);
    puts_(&b, "\"\n}\n");
    no_error("a 1 MB string literal", "mb_string.oxl", &b, 5);

    puts_(&b, "// ");
    rep(&b, "comment ", 131072);
    puts_(&b, "\nfn f() {}\n");
    no_error("a 1 MB comment line", "mb_comment.oxl", &b, 5);

    /* an error far along a long line: the excerpt is a window, not 1 MB */
    puts_(&b, "fn f() {\n  let xs = [1");
    rep(&b, ", 1", 100000);
    puts_(&b, ", )]\n}\n");
    write_src("mb_error.oxl", b.p, b.n);
    result r = run(NULL, "check --dump-ast mb_error.oxl");
    tap_ok(r.status == 1 && strstr(r.err, "mb_error.oxl:2:300016: error: unexpected ')'"),
           "an error at column 300016 of a long line is placed right");
    tap_ok(strlen(r.err) < 2000, "its excerpt is cut to a window (%zu bytes of stderr)", strlen(r.err));
    done(&r);
    free(b.p);
    b = (buf){0};
}

static void odd_bytes(void) {
    write_src("empty.oxl", "", 0);
    result r = run(NULL, "check --dump-ast empty.oxl");
    tap_ok(r.status == 0 && strcmp(r.out, "# empty.oxl\nFILE @1:1\n") == 0 && r.err[0] == '\0',
           "an empty file is an empty package file");
    done(&r);

    static const char nul[] = "fn f() {\n  let s = 1 \0 + 2\n}\n";
    write_src("nul.oxl", nul, sizeof nul - 1);
    r = run(NULL, "check --dump-tokens nul.oxl");
    tap_ok(r.status == 1 && strstr(r.err, "nul.oxl:2:13: error: NUL byte in source") && count(r.err, ": error: ") == 1,
           "a NUL byte inside the file is an error at its place");
    tap_ok(strstr(r.out, "2:15 PLUS") != NULL, "the lexer goes on after the NUL byte");
    done(&r);

    static const char nul_str[] = "fn f() {\n  let s = \"a\0b\"\n}\n";
    write_src("nul_str.oxl", nul_str, sizeof nul_str - 1);
    r = run(NULL, "check --dump-ast nul_str.oxl");
    tap_ok(r.status == 1 && strstr(r.err, "nul_str.oxl:2:13: error: NUL byte in source"),
           "a NUL byte inside a string is an error at its place");
    done(&r);

    static const char bad[] = "fn f() {\n  let s = \"ok \xff\xfe\"\n  // caf\xc3\xa9 \xc3\n  let t = 1 \x80\n}\n";
    write_src("utf8.oxl", bad, sizeof bad - 1);
    r = run(NULL, "check --dump-ast utf8.oxl");
    tap_ok(r.status == 1 && strstr(r.err, "utf8.oxl:2:15: error: invalid UTF-8 byte 0xff") &&
               strstr(r.err, "utf8.oxl:2:16: error: invalid UTF-8 byte 0xfe") &&
               strstr(r.err, "utf8.oxl:3:12: error: invalid UTF-8 byte 0xc3") &&
               strstr(r.err, "utf8.oxl:4:13: error: invalid UTF-8 byte 0x80") && count(r.err, ": error: ") == 4,
           "invalid UTF-8 in a string, a comment and code: one error each, at its byte");
    if (r.status != 1) tap_diag("%s", r.err);
    done(&r);

    /* a caret after multi-byte characters and tabs */
    static const char caret[] = "fn f() {\n\tlet s = \"\xc3\xa9\xc3\xa9\" + )\n}\n";
    write_src("caret.oxl", caret, sizeof caret - 1);
    r = run(NULL, "check --dump-ast caret.oxl");
    tap_ok(strstr(r.err, "caret.oxl:2:19: error: unexpected ')'") &&
               strstr(r.err, "\n\tlet s = \"\xc3\xa9\xc3\xa9\" + )\n\t               ^\n"),
           "the caret counts code points and keeps tabs");
    if (!strstr(r.err, "\t               ^\n")) tap_diag("%s", r.err);
    done(&r);

    buf b = {0};
    puts_(&b, "fn f() {\n");
    rep(&b, "  let = 1\n", 150);
    puts_(&b, "}\n");
    write_src("many.oxl", b.p, b.n);
    free(b.p);
    r = run(NULL, "check --dump-ast many.oxl");
    tap_ok(r.status == 1 && count(r.err, ": error: ") == 100 && strstr(r.err, "50 more errors not shown"),
           "150 errors: 100 shown, then a note of the 50 others");
    done(&r);
}

static void driver(void) {
    write_src("ok.oxl", "fn main() {}\n", 13);
    result r = run(NULL, "version");
    tap_ok(r.status == 0 && strncmp(r.out, "oxl ", 4) == 0, "oxl version");
    done(&r);
    r = run(NULL, "help");
    tap_ok(r.status == 0 && strstr(r.out, "usage: oxl"), "oxl help");
    done(&r);
    r = run(NULL, "");
    tap_ok(r.status == 2 && strstr(r.err, "usage: oxl"), "oxl without a command: usage, exit 2");
    done(&r);
    r = run(NULL, "frobnicate");
    tap_ok(r.status == 2 && strstr(r.err, "unknown command 'frobnicate'"), "an unknown command: exit 2");
    done(&r);
    r = run(NULL, "check --frob ok.oxl");
    tap_ok(r.status == 2 && strstr(r.err, "unknown option '--frob'"), "an unknown flag is named: exit 2");
    done(&r);
    r = run(NULL, "check ok.oxl --color purple");
    tap_ok(r.status == 2 && strstr(r.err, "--color takes auto, always or never, not 'purple'"), "a bad --color: exit 2");
    done(&r);
    r = run(NULL, "check ok.oxl --color");
    tap_ok(r.status == 2 && strstr(r.err, "needs a value"), "--color without a value: exit 2");
    done(&r);
    r = run(NULL, "check");
    tap_ok(r.status == 2 && strstr(r.err, "needs a package directory or a .oxl file"), "check without a path: exit 2");
    done(&r);
    r = run(NULL, "check ok.oxl ok.oxl");
    tap_ok(r.status == 2 && strstr(r.err, "one too many"), "check with two paths: exit 2");
    done(&r);
    r = run(NULL, "check ok.oxl --dump-ast --dump-tokens");
    tap_ok(r.status == 2 && strstr(r.err, "cannot be used together"), "both dumps: exit 2");
    done(&r);
    r = run(NULL, "check missing.oxl");
    tap_ok(r.status == 2 && strstr(r.err, "cannot open 'missing.oxl'"), "a missing file: exit 2");
    done(&r);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/emptydir", tmp);
    mkdir(dir, 0755);
    r = run(NULL, "check emptydir");
    tap_ok(r.status == 2 && strstr(r.err, "no .oxl files in 'emptydir'"), "a directory without .oxl files: exit 2");
    done(&r);
    /* Files no one can read, root included (which reads a mode-0 file):
     * a socket, which open() refuses, and /proc/self/mem, whose first page
     * (address 0, never mapped) fails the read itself. */
    char path[600];
    snprintf(path, sizeof path, "%s/sock.oxl", tmp);
    int sock = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sun.sun_path) tap_bail("%s is too long for a socket", path);
    memcpy(sun.sun_path, path, strlen(path) + 1);
    if (sock < 0 || bind(sock, (struct sockaddr *)&sun, sizeof sun) != 0) tap_bail("cannot make a socket at %s", path);
    r = run(NULL, "check sock.oxl");
    tap_ok(r.status == 2 && strstr(r.err, "oxl check: cannot read 'sock.oxl': No such device or address"),
           "a file open() refuses (a socket): exit 2, named with the reason");
    if (r.status != 2) tap_diag("status %d: %s", r.status, r.err);
    done(&r);
    close(sock);
    snprintf(path, sizeof path, "%s/mem.oxl", tmp);
    if (symlink("/proc/self/mem", path) != 0) tap_bail("cannot link %s", path);
    r = run(NULL, "check mem.oxl");
    tap_ok(r.status == 2 && strstr(r.err, "oxl check: cannot read 'mem.oxl': Input/output error"),
           "a file whose read fails (/proc/self/mem): exit 2, named with the reason");
    if (r.status != 2) tap_diag("status %d: %s", r.status, r.err);
    done(&r);
    /* and, for a user the permission bits stop, a mode-0 file */
    write_src("noread.oxl", "fn main() {}\n", 13);
    snprintf(path, sizeof path, "%s/noread.oxl", tmp);
    chmod(path, 0);
    if (access(path, R_OK) == 0) {
        tap_skip("running as a user who reads every file (the two checks above hold for root)",
                 "a mode-0 file: exit 2");
    } else {
        r = run(NULL, "check noread.oxl");
        tap_ok(r.status == 2 && strstr(r.err, "cannot read 'noread.oxl': Permission denied"), "a mode-0 file: exit 2");
        done(&r);
    }
    r = run("OXL_STD=/nonexistent/std", "check ok.oxl");
    tap_ok(r.status == 2 && strstr(r.err, "OXL_STD='/nonexistent/std' is not a directory"), "a bad OXL_STD: exit 2");
    done(&r);
    r = run(NULL, "check ok.oxl --color=never");
    tap_ok(r.status == 0 && r.err[0] == '\0', "a valid file: exit 0, nothing printed");
    done(&r);

    write_src("bad.oxl", "fn main() {\n  let x = )\n}\n", 26);
    r = run(NULL, "check bad.oxl --color always");
    tap_ok(r.status == 1 && strstr(r.err, "\033[1;31merror:") && strstr(r.err, "\033[1;32m^"),
           "--color always colors the error and the caret");
    done(&r);
    r = run(NULL, "check bad.oxl --color never");
    tap_ok(r.status == 1 && !strchr(r.err, '\033') &&
               strcmp(r.err, "bad.oxl:2:11: error: unexpected ')'; expected expression\n  let x = )\n          ^\n") == 0,
           "--color never: plain file:line:col, source line and caret");
    if (r.status != 1) tap_diag("%s", r.err);
    done(&r);

    /* a package directory: files in name order */
    snprintf(dir, sizeof dir, "%s/pkg", tmp);
    mkdir(dir, 0755);
    write_src("pkg/b.oxl", "fn b() { let = 1 }\n", 19);
    write_src("pkg/a.oxl", "fn a() { let = 1 }\n", 19);
    write_src("pkg/notes.txt", "not OxL\n", 8);
    r = run(NULL, "check pkg --dump-ast");
    const char *a = strstr(r.err, "pkg/a.oxl:1:14"), *b = strstr(r.err, "pkg/b.oxl:1:14");
    const char *da = strstr(r.out, "# pkg/a.oxl"), *db = strstr(r.out, "# pkg/b.oxl");
    tap_ok(r.status == 1 && a && b && a < b && da && db && da < db,
           "a package directory is read in file name order");
    done(&r);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: syntax_limits_test OXL\n");
        return 2;
    }
    static char oxl_abs[4096];
    if (!realpath(argv[1], oxl_abs)) tap_bail("cannot find %s", argv[1]);
    oxl = oxl_abs;
    if (!mkdtemp(tmp)) tap_bail("mkdtemp failed");
    nesting();
    big_lines();
    odd_bytes();
    driver();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' && rm -rf '%s'", tmp, tmp);
    if (system(cmd) != 0) tap_diag("could not remove %s", tmp);
    return tap_done();
}
