/* core_mem_test: 1 GB of short-lived strings and lists must not grow the
 * process beyond 200 MB: the collector reclaims them. */
#include "core_test_util.h"

#include <gc.h>

#define F "mem.oxl"

static int64_t rss_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    if (!f) return -1;
    if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
    fclose(f);
    return resident < 0 ? -1 : (int64_t)resident * sysconf(_SC_PAGESIZE);
}

int main(void) {
    oxl_rt_init();
    const int64_t goal = INT64_C(1) << 30;
    int64_t allocated = 0, max_rss = 0, checks = 0;
    oxl_list keep = oxl_list_new(64); /* a small live window */
    for (int i = 0; i < 64; i++) oxl_list_push(keep, 0, F, 1);
    oxl_string chunk = oxl_str_from_cstr("0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz!!");
    int64_t iter = 0;
    bool contents_ok = true;
    while (allocated < goal) {
        /* A string of ~1.2 KB built by concatenation and the builder. */
        oxl_sb b;
        oxl_sb_init(&b);
        for (int k = 0; k < 16; k++) oxl_sb_str(&b, chunk);
        oxl_sb_int(&b, iter);
        oxl_string s = oxl_str_concat(oxl_sb_finish(&b), chunk);
        allocated += 2 * s->len + 2048; /* builder buffers and the copy */
        /* A list of 64 words holding pointers to small strings. */
        oxl_list l = oxl_list_new(0);
        for (int k = 0; k < 64; k++) oxl_list_push(l, oxl_word_from_str(s), F, 1);
        oxl_list_push(l, oxl_word_from_str(oxl_int_to_str(iter)), F, 1);
        allocated += 128 * 8 + 64;
        oxl_list_set(keep, iter % 64, oxl_word_from_ptr(l), F, 1);
        if (iter % 4096 == 0) {
            int64_t r = rss_bytes();
            if (r > max_rss) max_rss = r;
            checks++;
            oxl_list old = oxl_word_to_ptr(oxl_list_at(keep, (iter + 1) % 64, F, 1));
            if (old && oxl_str_len(oxl_word_to_str(oxl_list_at(old, 0, F, 1))) < 16 * 74) contents_ok = false;
        }
        iter++;
    }
    int64_t r = rss_bytes();
    if (r > max_rss) max_rss = r;
    tap_diag("allocated %lld MB in %lld iterations; max RSS %lld MB; GC heap %zu MB; %zu collections",
             (long long)(allocated >> 20), (long long)iter, (long long)(max_rss >> 20),
             GC_get_heap_size() >> 20, (size_t)GC_get_gc_no());
    tap_ok(allocated >= goal, "allocated at least 1 GB");
    tap_ok(max_rss > 0 && max_rss < 200 * (INT64_C(1) << 20), "RSS stayed under 200 MB (max %lld MB, %lld checks)",
           (long long)(max_rss >> 20), (long long)checks);
    tap_ok(contents_ok, "live objects were kept intact");
    return tap_done();
}
