/* core_arith_test: checked Int arithmetic, panics, assert, print, the
 * allocation functions and panics inside a scheduler run. */
#include "core_test_util.h"

#include "oxl_sched.h"

#include <gc.h>

#define F "a.oxl"

static void test_arith(void) {
    tap_is_int(oxl_add(2, 3, F, 1), 5, "add");
    tap_is_int(oxl_add(INT64_MAX - 1, 1, F, 1), INT64_MAX, "add to max");
    tap_is_int(oxl_sub(2, 3, F, 1), -1, "sub");
    tap_is_int(oxl_sub(INT64_MIN + 1, 1, F, 1), INT64_MIN, "sub to min");
    tap_is_int(oxl_mul(-4, 5, F, 1), -20, "mul");
    tap_is_int(oxl_mul(INT64_MIN, 1, F, 1), INT64_MIN, "mul min by 1");
    tap_is_int(oxl_div(7, 2, F, 1), 3, "div truncates");
    tap_is_int(oxl_div(-7, 2, F, 1), -3, "div truncates toward zero");
    tap_is_int(oxl_div(INT64_MIN, 1, F, 1), INT64_MIN, "min / 1");
    tap_is_int(oxl_rem(7, 3, F, 1), 1, "rem");
    tap_is_int(oxl_rem(-7, 3, F, 1), -1, "rem takes the sign of the dividend");
    tap_is_int(oxl_rem(INT64_MIN, -1, F, 1), 0, "min %% -1 is 0");
    tap_is_int(oxl_neg(5, F, 1), -5, "neg");
    tap_is_int(oxl_neg(INT64_MAX, F, 1), -INT64_MAX, "neg max");

    CT_PANICS(oxl_add(INT64_MAX, 1, F, 10), F, 10, "integer overflow");
    CT_PANICS(oxl_add(INT64_MIN, -1, F, 11), F, 11, "integer overflow");
    CT_PANICS(oxl_sub(INT64_MIN, 1, F, 12), F, 12, "integer overflow");
    CT_PANICS(oxl_mul(INT64_MAX / 2 + 1, 2, F, 13), F, 13, "integer overflow");
    CT_PANICS(oxl_mul(INT64_MIN, -1, F, 14), F, 14, "integer overflow");
    CT_PANICS(oxl_div(INT64_MIN, -1, F, 15), F, 15, "integer overflow");
    CT_PANICS(oxl_div(1, 0, F, 16), F, 16, "division by zero");
    CT_PANICS(oxl_rem(1, 0, F, 17), F, 17, "division by zero");
    CT_PANICS(oxl_neg(INT64_MIN, F, 18), F, 18, "integer overflow");
}

static void test_panics(void) {
    CT_PANICS(oxl_panic_msg("m.oxl", 3, S("boom")), "m.oxl", 3, "boom");
    CT_PANICS(oxl_panic_msg("m.oxl", 4, S("")), "m.oxl", 4, "");
    CT_PANICS(oxl_assert_fail("m.oxl", 5, "x > 0", NULL), "m.oxl", 5, "assertion failed: x > 0");
    CT_PANICS(oxl_assert_fail("m.oxl", 6, "a == b", S("sums differ")), "m.oxl", 6,
              "assertion failed: a == b: sums differ");
    CT_PANICS(oxl_panic_overflow("m.oxl", 7), "m.oxl", 7, "integer overflow");
    CT_PANICS(oxl_panic_div_zero("m.oxl", 8), "m.oxl", 8, "division by zero");
    CT_PANICS(oxl_panic_index("m.oxl", 9, 5, 3), "m.oxl", 9, "index out of range [5] with length 3");
    CT_PANICS(oxl_list_new(OXL_MAX_LEN + 1), "(runtime)", 0, "length 1099511627777 exceeds the limit (2^40)");

    /* Output printed before a panic comes out first, and the panic text is
     * on stderr only. */
    ct_child c;
    if (ct_fork(&c)) {
        oxl_print(S("before"));
        oxl_panic_msg("m.oxl", 20, S("after"));
    }
    ct_wait(&c);
    tap_is_str(c.out, "before\n", "print before a panic is flushed");
    tap_is_str(c.err, "panic: after\n  at m.oxl:20\n", "then the panic");
    tap_is_int(c.status, 101, "status 101");
}

static void test_print(void) {
    ct_child c;
    if (ct_fork(&c)) {
        oxl_print(S("hello, wörld"));
        oxl_print(S(""));
        oxl_print(oxl_str_from_lit("a\0b", 3));
        exit(0); /* atexit flush */
    }
    ct_wait(&c);
    tap_ok(memcmp(c.out, "hello, wörld\n\na\0b\n", 19) == 0, "print writes text and newlines, flushed at exit");
    tap_is_str(c.err, "", "nothing on stderr");
    tap_is_int(c.status, 0, "status 0");
}

static void test_alloc(void) {
    int64_t *p = oxl_alloc(64);
    bool zero = true;
    for (int i = 0; i < 8; i++) zero = zero && p[i] == 0;
    tap_ok(zero, "oxl_alloc zeroes");
    tap_ok(oxl_alloc(0) != NULL, "oxl_alloc(0) is not NULL");
    char *a = oxl_alloc_atomic(100);
    memset(a, 'x', 100);
    tap_ok(a[99] == 'x' && GC_base(a) != NULL, "oxl_alloc_atomic gives collected memory");
    oxl_rt_init(); /* idempotent */

    /* Out of memory ends the run as a resource exhausted (102), never NULL. */
    ct_child c;
    if (ct_fork(&c)) {
        GC_set_max_heap_size(64 << 20);
        void *q = oxl_alloc((size_t)1 << 30);
        _exit(q ? 0 : 2);
    }
    ct_wait(&c);
    tap_is_int(c.status, 102, "out of memory: status 102, a resource exhausted");
    tap_contains(c.err, "resource exhausted: out of memory: the collector cannot find 1073741824 bytes\n  at (runtime):0\n",
                 "out of memory: its report");
    if (ct_fork(&c)) {
        GC_set_max_heap_size(64 << 20);
        void *q = oxl_alloc_atomic((size_t)1 << 30);
        _exit(q ? 0 : 2);
    }
    ct_wait(&c);
    tap_is_int(c.status, 102, "out of memory (atomic): status 102");
    tap_contains(c.err, "resource exhausted: out of memory", "out of memory (atomic): its report");
}

/* Inside a scheduler run, a panic ends the run instead of the process. */
static void *overflow_task(void *arg) {
    (void)arg;
    return (void *)(intptr_t)oxl_add(INT64_MAX, 1, "t.oxl", 42);
}

static void *assert_task(void *arg) {
    (void)arg;
    oxl_assert_fail("t.oxl", 43, "ok", NULL);
}

static void test_sched(void) {
    oxl_sched_options opt;
    oxl_sched_options_default(&opt, 1);
    opt.trace_messages = false;
    oxl_sched_result r = oxl_sched_run(overflow_task, NULL, &opt);
    tap_is_int(r.status, OXL_SCHED_PANICKED, "overflow in a task: run panicked, process goes on");
    tap_contains(r.report ? r.report : "", "panic: integer overflow\n  at t.oxl:42", "report names the panic");
    oxl_sched_result_free(&r);
    r = oxl_sched_run(assert_task, NULL, &opt);
    tap_is_int(r.status, OXL_SCHED_PANICKED, "assert in a task: run panicked");
    tap_contains(r.report ? r.report : "", "panic: assertion failed: ok\n  at t.oxl:43", "report names the assert");
    oxl_sched_result_free(&r);
}

int main(void) {
    oxl_rt_init();
    test_arith();
    test_panics();
    test_print();
    test_alloc();
    test_sched();
    return tap_done();
}
