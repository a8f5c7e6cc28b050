/* mem.c: runtime start-up, allocation, printing and panics. */
#include "core_internal.h"

#include "oxl_sched.h"
#include "sched/sched_internal.h"

#include <gc.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool core_initialised;

void oxl_rt_init(void) {
    if (core_initialised) return;
    core_initialised = true;
    GC_INIT();
    /* Full buffering even on a terminal: print output is flushed at exit
     * and before a panic. */
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    atexit(oxl_rt_flush);
}

void oxl_rt_flush(void) { fflush(stdout); }

/* The collector found no memory: the machine's limit, not a verdict on
 * the program (status 102, docs/scheduler.md). */
static _Noreturn void out_of_memory(size_t size) {
    oxl_rt_flush();
    oxl_exhausted_at("(runtime)", 0, "out of memory: the collector cannot find %zu bytes", size);
}

void *oxl_alloc(size_t size) {
    sched_gc_sync();
    void *p = GC_MALLOC(size ? size : 1);
    if (!p) out_of_memory(size);
    return p;
}

void *oxl_alloc_atomic(size_t size) {
    sched_gc_sync();
    void *p = GC_MALLOC_ATOMIC(size ? size : 1);
    if (!p) out_of_memory(size);
    return p;
}

void *oxl_alloc_root(size_t size) {
    sched_gc_sync();
    void *p = GC_MALLOC_UNCOLLECTABLE(size ? size : 1);
    if (!p) core_panic("(runtime)", 0, "out of memory");
    return p;
}

void oxl_free_root(void *p) {
    if (p) GC_FREE(p);
}

void core_panic(const char *file, int line, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    oxl_rt_flush();
    oxl_panic_at(file, line, "%s", buf);
}

void core_check_len(int64_t n, const char *file, int line) {
    if (n > OXL_MAX_LEN) core_panic(file, line, "length %" PRId64 " exceeds the limit (2^40)", n);
}

void core_check_range(int64_t from, int64_t to, int64_t len, const char *file, int line) {
    if (from < 0 || from > len) oxl_panic_index(file, line, from, len);
    if (to < 0 || to > len) oxl_panic_index(file, line, to, len);
    if (from > to) core_panic(file, line, "slice bounds out of range [%" PRId64 ":%" PRId64 "]", from, to);
}

void oxl_panic_overflow(const char *file, int line) { core_panic(file, line, "integer overflow"); }

void oxl_panic_div_zero(const char *file, int line) { core_panic(file, line, "division by zero"); }

void oxl_panic_index(const char *file, int line, int64_t i, int64_t len) {
    core_panic(file, line, "index out of range [%" PRId64 "] with length %" PRId64, i, len);
}

oxl_call_site oxl_extern_site;

void oxl_panic_msg(const char *file, int line, oxl_string msg) {
    oxl_rt_flush();
    /* The message may be long or hold NUL bytes: pass it by length. */
    oxl_panic_at(file, line, "%.*s", (int)(msg->len > INT32_MAX ? INT32_MAX : msg->len), msg->data);
}

void oxl_assert_fail(const char *file, int line, const char *expr_text, oxl_string msg) {
    oxl_rt_flush();
    if (msg)
        oxl_panic_at(file, line, "assertion failed: %s: %.*s", expr_text ? expr_text : "?",
                     (int)(msg->len > INT32_MAX ? INT32_MAX : msg->len), msg->data);
    oxl_panic_at(file, line, "assertion failed: %s", expr_text ? expr_text : "?");
}

void oxl_print(oxl_string s) {
    fwrite(s->data, 1, (size_t)s->len, stdout);
    putc('\n', stdout);
}

oxl_union oxl_box_new(int64_t tag, oxl_word word) {
    /* scanned memory: the word may point to another object */
    oxl_box *b = oxl_alloc(sizeof *b);
    b->tag = tag;
    b->word = word;
    return b;
}

void oxl_panic_union(const char *file, int line, const char *expected, const char *got) {
    core_panic(file, line, "union mismatch: expected %s, got %s", expected ? expected : "?", got ? got : "?");
}
