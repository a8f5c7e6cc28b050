/* core_union_test: the union box (oxl_box_new, oxl_union_tag,
 * oxl_union_unbox) and the "union mismatch" panic, which no valid OxL
 * program reaches: sema proves every narrowing (is, == none, match), so a
 * wrong tag can only come from C code that builds a box by hand. The
 * compiler still emits the check (cg_coerce), and this test shows the
 * runtime half works; the formatters of Instant, Bytes and quoted strings
 * are checked here too, and maps keyed by unions. */
#include "core_test_util.h"

#define F "u.oxl"

enum { TAG_NONE = 2, TAG_INT = 3, TAG_STRING = 5 };

static oxl_string fmt_instant(int64_t ns) {
    oxl_sb b;
    oxl_sb_init(&b);
    oxl_sb_instant(&b, ns);
    return oxl_sb_finish(&b);
}

static oxl_string fmt_quoted(const char *s) {
    oxl_sb b;
    oxl_sb_init(&b);
    oxl_sb_quoted(&b, S(s));
    return oxl_sb_finish(&b);
}

int main(void) {
    oxl_rt_init();
    oxl_union i = oxl_box_new(TAG_INT, 42);
    oxl_union s = oxl_box_new(TAG_STRING, W("hi"));
    tap_is_int(oxl_union_tag(i, TAG_NONE), TAG_INT, "tag of a boxed Int");
    tap_is_int(oxl_union_tag(NULL, TAG_NONE), TAG_NONE, "none (NULL) has the None tag");
    tap_is_int((int64_t)oxl_union_unbox(i, TAG_INT, "Int", "Int", F, 1), 42, "unbox the right member");
    tap_is_str(oxl_str_cstr(oxl_word_to_str(oxl_union_unbox(s, TAG_STRING, "String", "String", F, 2))), "hi",
               "unbox a String member");
    tap_ok(i != oxl_box_new(TAG_INT, 42), "every box is a new object");
    CT_PANICS(oxl_union_unbox(s, TAG_INT, "Int", "String", F, 7), F, 7, "union mismatch: expected Int, got String");
    CT_PANICS(oxl_union_unbox(NULL, TAG_INT, "Int", "None", F, 8), F, 8, "union mismatch: expected Int, got None");
    CT_PANICS(oxl_panic_union(F, 9, "Int | Bool", "String"), F, 9, "union mismatch: expected Int | Bool, got String");

    tap_is_str(oxl_str_cstr(fmt_instant(0)), "1970-01-01T00:00:00Z", "the Unix epoch");
    tap_is_str(oxl_str_cstr(fmt_instant(INT64_C(1767225600000000000))), "2026-01-01T00:00:00Z", "2026");
    tap_is_str(oxl_str_cstr(fmt_instant(INT64_C(1767225601500000000))), "2026-01-01T00:00:01.5Z", "a fraction");
    tap_is_str(oxl_str_cstr(fmt_instant(INT64_C(951782400000000001))), "2000-02-29T00:00:00.000000001Z",
               "a leap day and one nanosecond");
    tap_is_str(oxl_str_cstr(fmt_instant(-1)), "1969-12-31T23:59:59.999999999Z", "before the epoch");
    tap_is_str(oxl_str_cstr(fmt_quoted("a\"b\\c{d}\n\x01")), "\"a\\\"b\\\\c\\{d}\\n\\u{1}\"", "quoted string");
    /* a map keyed by union values: by tag and value, never by address */
    static const int64_t str_tags[] = {TAG_STRING};
    oxl_map um = oxl_map_new_union(str_tags, 1);
    oxl_map_set(um, oxl_word_from_ptr(oxl_box_new(TAG_STRING, W("k"))), 1, F, 10);
    oxl_map_set(um, oxl_word_from_ptr(oxl_box_new(TAG_INT, 7)), 2, F, 11);
    oxl_map_set(um, 0, 3, F, 12); /* none */
    oxl_map_set(um, oxl_word_from_ptr(oxl_box_new(TAG_STRING, W("k"))), 4, F, 13);
    tap_is_int(oxl_map_len(um), 3, "equal boxes are one key");
    tap_is_int((int64_t)oxl_map_at(um, oxl_word_from_ptr(oxl_box_new(TAG_STRING, W("k"))), F, 14), 4,
               "a String member is found by content");
    tap_is_int((int64_t)oxl_map_at(um, 0, F, 15), 3, "none is a key");
    tap_ok(!oxl_map_has(um, oxl_word_from_ptr(oxl_box_new(TAG_NONE + 100, 7))), "another tag is another key");
    CT_PANICS(oxl_map_at(um, oxl_word_from_ptr(oxl_box_new(TAG_INT, 8)), F, 16), F, 16, "key not found: 8");
    CT_PANICS(oxl_map_at(um, oxl_word_from_ptr(oxl_box_new(TAG_STRING, W("q"))), F, 17), F, 17, "key not found: q");
    oxl_map_remove(um, 0, NULL);
    CT_PANICS(oxl_map_at(um, 0, F, 18), F, 18, "key not found: none");

    oxl_sb b;
    oxl_sb_init(&b);
    oxl_sb_bytes(&b, oxl_str_bytes(S("\x01\xff" "A")));
    tap_is_str(oxl_str_cstr(oxl_sb_finish(&b)), "0x01ff41", "bytes in hex");
    return tap_done();
}
