/* base_test: the shared layer of the front end: arena, vectors, interned
 * names, line tables and the diagnostics sink's output. */
#define _XOPEN_SOURCE 700 /* open_memstream */
#include "base/base.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

/* __FILE__ of this test starts with the tree's absolute path under CMake */
#define PROJECT_DIR_MARK "/tests/compiler/"

/* Prints the sink into a string (freed by the caller). */
static char *printed(const diag_sink *d, bool color) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) tap_bail("open_memstream failed");
    diag_print(d, f, color);
    fclose(f);
    return buf;
}

static void arena(void) {
    base_arena *a = base_arena_new();
    bool aligned = true, zeroed = true;
    for (int i = 1; i < 3000; i++) {
        unsigned char *p = base_alloc(a, (size_t)(i % 97) + 1);
        if ((uintptr_t)p % 16) aligned = false;
        for (int k = 0; k < i % 97 + 1; k++)
            if (p[k]) zeroed = false;
        memset(p, 0xab, (size_t)(i % 97) + 1);
    }
    unsigned char *big = base_alloc(a, 5u << 20);
    for (size_t k = 0; k < (5u << 20); k += 4096)
        if (big[k]) zeroed = false;
    tap_ok(aligned, "allocations are 16-byte aligned");
    tap_ok(zeroed, "allocations are zeroed, small and large");
    tap_ok(base_arena_bytes(a) >= (5u << 20), "the arena counts its bytes (%zu)", base_arena_bytes(a));
    char *s = base_strndup(a, "hello world", 5);
    tap_is_str(s, "hello", "base_strndup copies n bytes and terminates");

    base_vec v = {0};
    for (intptr_t i = 0; i < 1000; i++) base_vec_push(a, &v, (void *)i);
    bool in_order = v.len == 1000;
    for (intptr_t i = 0; i < 1000 && in_order; i++) in_order = (intptr_t)v.items[i] == i;
    tap_ok(in_order && v.cap >= v.len, "a vector keeps 1000 items in order");

    base_names *n = base_names_new(a);
    const char *x1 = base_intern(n, "net", 3), *x2 = base_intern(n, "network", 3);
    const char *y = base_intern(n, "node", 4);
    tap_ok(x1 == x2 && strcmp(x1, "net") == 0, "equal text interns to one pointer");
    tap_ok(x1 != y, "different text interns apart");

    /* Bounded text: a cut is marked once, and later text cannot overflow. */
    char small[16];
    base_text t;
    base_text_init(&t, small, sizeof small);
    base_text_add(&t, "abc");
    base_text_add(&t, "defghijklmnopqrstuvwxyz");
    base_text_add(&t, "more after the cut");
    tap_is_str(small, "abcdefghijkl...", "base_text cuts at its capacity and marks the cut");
    tap_ok(t.full && t.len == 15, "and takes nothing after it");
    base_text_init(&t, small, sizeof small);
    base_text_add(&t, "0123456789abc");
    base_text_add(&t, "xyz");
    tap_is_str(small, "0123456789ab...", "a cut near the end overwrites the tail with the marker");
    bool stable = true;
    char name[32];
    const char *first[5000];
    for (int i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "name%d", i);
        first[i] = base_intern(n, name, strlen(name));
    }
    for (int i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "name%d", i);
        if (base_intern(n, name, strlen(name)) != first[i]) stable = false;
    }
    tap_ok(stable && base_intern(n, "net", 3) == x1, "names stay interned while the table grows");
    const char *empty = base_intern(n, "", 0);
    tap_ok(empty && empty[0] == '\0' && base_intern(n, "", 0) == empty, "the empty name interns too");
    base_arena_free(a);
}

static void positions(void) {
    diag_sink *d = diag_new();
    const char text[] = "ab\ncd\n\nlast";
    const base_source *s = diag_add_source(d, "p.oxl", text, sizeof text - 1);
    tap_is_uint(s->nlines, 4, "four lines (the last without a newline)");
    tap_ok(s->text != text && strcmp(s->text, text) == 0, "the sink keeps its own copy of the text");
    base_span at = {s->id, 4, 1};
    base_pos p = diag_position(d, at);
    tap_ok(p.line == 2 && p.col == 2, "offset 4 is line 2, column 2 (got %u:%u)", p.line, p.col);
    at.off = 6;
    p = diag_position(d, at);
    tap_ok(p.line == 3 && p.col == 1, "an empty line has column 1");
    at.off = (uint32_t)sizeof text - 1;
    p = diag_position(d, at);
    tap_ok(p.line == 4 && p.col == 5, "the end of the text is after its last column");
    tap_ok(diag_source(d, 7) == NULL, "an unknown file id has no source");
    diag_free(d);
}

static void printing(void) {
    diag_sink *d = diag_new();
    const char text[] = "fn main() {\n\tlet \xc3\xa9t\xc3\xa9 = frob(1)\n}\n";
    const base_source *s = diag_add_source(d, "dir/m.oxl", text, sizeof text - 1);
    const char *call = strstr(s->text, "frob");
    base_span at = {s->id, (uint32_t)(call - s->text), 7};
    diag_report(d, DIAG_ERROR, at, "unknown function '%s'", "frob");
    diag_report(d, DIAG_WARNING, (base_span){s->id, 0, 2}, "a warning");
    diag_report(d, DIAG_NOTE, (base_span){BASE_NO_FILE, 0, 0}, "a note without a place");
    DIAG_INTERNAL(d, "bad kind %d", 42);
    tap_is_uint(diag_errors(d), 2, "an error and an internal error count as errors");
    tap_is_uint(diag_warnings(d), 1, "one warning");
    tap_ok(diag_had_internal(d), "the internal error is remembered");
    char *out = printed(d, false);
    const char *want =
        "dir/m.oxl:2:14: error: unknown function 'frob'\n"
        "\tlet \xc3\xa9t\xc3\xa9 = frob(1)\n"
        "\t          ^~~~~~~\n"
        "dir/m.oxl:1:1: warning: a warning\n"
        "fn main() {\n"
        "^~\n"
        "oxl: note: a note without a place\n";
    tap_ok(strncmp(out, want, strlen(want)) == 0, "file:line:col, the line, a caret under the span (UTF-8 and a tab before it)");
    if (strncmp(out, want, strlen(want)) != 0) tap_diag("got:\n%s", out);
    const char *ice = strstr(out, "oxl: error: internal compiler error: bad kind 42 (compiler/");
    tap_ok(ice != NULL, "an internal error names the compiler's own file from compiler/ on");
    tap_ok(ice && strstr(ice, "(compiler/base_test.c:") != NULL && strstr(out, PROJECT_DIR_MARK) == NULL,
           "its path does not depend on where the tree is");
    free(out);
    out = printed(d, true);
    tap_ok(strstr(out, "\033[1;31merror:") && strstr(out, "\033[1;32m^~~~~~~\033[0m") && strstr(out, "\033[1;35mwarning:"),
           "colors: red errors, magenta warnings, a green caret");
    free(out);
    diag_free(d);

    /* a span past the end of its line stops at the line's end */
    d = diag_new();
    s = diag_add_source(d, "e.oxl", "ab\ncd\n", 6);
    diag_report(d, DIAG_ERROR, (base_span){s->id, 1, 10}, "long span");
    out = printed(d, false);
    tap_is_str(out, "e.oxl:1:2: error: long span\nab\n ^\n", "a span over the newline is cut at the line's end");
    free(out);
    diag_free(d);
}

static void limits(void) {
    diag_sink *d = diag_new();
    const base_source *s = diag_add_source(d, "l.oxl", "x\n", 2);
    for (int i = 0; i < BASE_MAX_ERRORS + 25; i++) diag_report(d, DIAG_ERROR, (base_span){s->id, 0, 1}, "e%d", i);
    diag_report(d, DIAG_WARNING, (base_span){s->id, 0, 1}, "late warning");
    tap_is_uint(diag_errors(d), BASE_MAX_ERRORS + 25, "every error is counted");
    char *out = printed(d, false);
    int shown = 0;
    for (const char *p = out; (p = strstr(p, ": error: ")); p++) shown++;
    tap_is_int(shown, BASE_MAX_ERRORS, "only the first %d are shown", BASE_MAX_ERRORS);
    tap_ok(strstr(out, "oxl: note: 25 more errors not shown (the limit is 100)") && !strstr(out, "late warning"),
           "then a note counts the rest, and later diagnostics are dropped");
    free(out);
    DIAG_INTERNAL(d, "after the limit");
    out = printed(d, false);
    tap_ok(strstr(out, "internal compiler error: after the limit") != NULL, "an internal error is shown even past the limit");
    free(out);
    diag_free(d);
}

int main(void) {
    arena();
    positions();
    printing();
    limits();
    return tap_done();
}
