/* core_str_test: strings, UTF-8 validation, Bytes, the builder and the text
 * forms of Int, Bool and Duration. */
#include "core_test_util.h"

#include <gc/gc.h>
#include <inttypes.h>
#include <string.h>

#define F "s.oxl"

static bool valid(const char *bytes, int64_t len, int64_t *bad) { return oxl_utf8_valid(bytes, len, bad); }

static void test_utf8(void) {
    int64_t bad = -1;
    tap_ok(valid("", 0, NULL), "empty is valid");
    tap_ok(valid("abc", 3, NULL), "ASCII");
    tap_ok(valid("a\0b", 3, NULL), "NUL is valid");
    tap_ok(valid("\xC2\x80", 2, NULL), "U+0080");
    tap_ok(valid("\xDF\xBF", 2, NULL), "U+07FF");
    tap_ok(valid("\xE0\xA0\x80", 3, NULL), "U+0800");
    tap_ok(valid("\xED\x9F\xBF", 3, NULL), "U+D7FF");
    tap_ok(valid("\xEE\x80\x80", 3, NULL), "U+E000");
    tap_ok(valid("\xEF\xBF\xBF", 3, NULL), "U+FFFF");
    tap_ok(valid("\xF0\x90\x80\x80", 4, NULL), "U+10000");
    tap_ok(valid("\xF4\x8F\xBF\xBF", 4, NULL), "U+10FFFF");
    tap_ok(valid("h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80", 15, NULL), "mixed");

    struct { const char *b; int64_t len, at; const char *what; } cases[] = {
        {"\x80", 1, 0, "lone continuation byte"},
        {"ab\xBF", 3, 2, "continuation byte after ASCII"},
        {"\xC0\x80", 2, 0, "overlong NUL (C0 80)"},
        {"\xC1\xBF", 2, 0, "overlong (C1)"},
        {"\xE0\x80\x80", 3, 0, "overlong 3-byte NUL"},
        {"\xE0\x9F\xBF", 3, 0, "overlong 3-byte U+07FF"},
        {"\xF0\x80\x80\x80", 4, 0, "overlong 4-byte"},
        {"\xF0\x8F\xBF\xBF", 4, 0, "overlong 4-byte U+FFFF"},
        {"\xED\xA0\x80", 3, 0, "surrogate U+D800"},
        {"\xED\xBF\xBF", 3, 0, "surrogate U+DFFF"},
        {"x\xED\xB0\x80", 4, 1, "low surrogate after x"},
        {"\xF4\x90\x80\x80", 4, 0, "above U+10FFFF"},
        {"\xF5\x80\x80\x80", 4, 0, "F5 lead"},
        {"\xFF", 1, 0, "FF"},
        {"\xFE", 1, 0, "FE"},
        {"\xC3", 1, 0, "truncated 2-byte"},
        {"ab\xE2\x82", 4, 2, "truncated 3-byte"},
        {"\xF0\x9F\x98", 3, 0, "truncated 4-byte"},
        {"\xE2\x28\xA1", 3, 0, "bad second byte"},
        {"\xE2\x82\x28", 3, 0, "bad third byte"},
        {"\xF0\x9F\x98\x28", 4, 0, "bad fourth byte"},
        {"ok\xC3\xA9\xC3", 5, 4, "truncated after a valid char"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bad = -1;
        tap_ok(!valid(cases[i].b, cases[i].len, &bad), "invalid: %s", cases[i].what);
        tap_is_int(bad, cases[i].at, "offset: %s", cases[i].what);
    }

    oxl_string s = oxl_str_from_bytes("h\xC3\xA9", 3, F, 1);
    tap_is_int(oxl_str_len(s), 3, "checked constructor accepts valid text");
    tap_is_int(oxl_str_from_bytes("", 0, F, 1)->len, 0, "empty");
    CT_PANICS(oxl_str_from_bytes("ab\xED\xA0\x80", 5, F, 30), F, 30, "invalid UTF-8 at byte offset 2");
    CT_PANICS(oxl_str_from_bytes("\xC0\x80", 2, F, 31), F, 31, "invalid UTF-8 at byte offset 0");
    CT_PANICS(oxl_str_from_bytes("abc", OXL_MAX_LEN + 1, F, 32), F, 32, "length 1099511627777 exceeds the limit (2^40)");
}

static void test_basic(void) {
    oxl_string s = S("héllo");
    tap_is_int(oxl_str_len(s), 6, "len counts bytes");
    tap_is_int(oxl_str_count_chars(s), 5, "count_chars counts code points");
    tap_is_int(oxl_str_count_chars(S("😀a")), 2, "count_chars with a 4-byte char");
    tap_is_str(oxl_str_cstr(s), "héllo", "cstr");
    tap_ok(s->data[s->len] == '\0', "NUL-terminated");
    oxl_string lit = oxl_str_from_lit("a\0b", 3);
    tap_is_int(oxl_str_len(lit), 3, "literal with NUL");
    tap_ok(lit->data[3] == '\0' && lit->data[1] == '\0', "literal bytes kept");

    tap_is_str(oxl_str_cstr(oxl_str_concat(S("ab"), S("cd"))), "abcd", "concat");
    tap_is_str(oxl_str_cstr(oxl_str_concat(S(""), S("cd"))), "cd", "concat empty left");
    tap_is_str(oxl_str_cstr(oxl_str_concat(S("ab"), S(""))), "ab", "concat empty right");

    tap_ok(oxl_str_eq(S("abc"), S("abc")), "eq by content");
    tap_ok(!oxl_str_eq(S("abc"), S("abd")), "ne");
    tap_ok(!oxl_str_eq(S("abc"), S("ab")), "ne by length");
    tap_ok(oxl_str_eq(lit, oxl_str_from_lit("a\0b", 3)), "eq across NUL");
    tap_ok(!oxl_str_eq(lit, oxl_str_from_lit("a\0c", 3)), "ne after NUL");
    tap_is_int(oxl_str_cmp(S("a"), S("b")), -1, "cmp <");
    tap_is_int(oxl_str_cmp(S("b"), S("a")), 1, "cmp >");
    tap_is_int(oxl_str_cmp(S("ab"), S("ab")), 0, "cmp =");
    tap_is_int(oxl_str_cmp(S("ab"), S("abc")), -1, "prefix sorts first");
    tap_is_int(oxl_str_cmp(S(""), S("a")), -1, "empty sorts first");
    tap_is_int(oxl_str_cmp(S("Z"), S("a")), -1, "bytewise: Z < a");
    tap_is_int(oxl_str_cmp(S("é"), S("z")), 1, "bytewise: non-ASCII after ASCII");

    tap_ok(oxl_str_contains(S("hello"), S("ell")), "contains");
    tap_ok(oxl_str_contains(S("hello"), S("")), "contains empty");
    tap_ok(oxl_str_contains(S(""), S("")), "empty contains empty");
    tap_ok(!oxl_str_contains(S("hello"), S("elo")), "not contains");
    tap_ok(!oxl_str_contains(S("he"), S("hello")), "longer needle");
    tap_ok(oxl_str_contains(S("aaab"), S("aab")), "overlapping start");
    tap_ok(oxl_str_contains(S("xyz"), S("z")), "at the end");
    tap_ok(oxl_str_starts_with(S("hello"), S("he")), "startsWith");
    tap_ok(oxl_str_starts_with(S("hello"), S("")), "startsWith empty");
    tap_ok(!oxl_str_starts_with(S("hello"), S("el")), "not startsWith");
    tap_ok(!oxl_str_starts_with(S("he"), S("hello")), "startsWith longer");
    tap_ok(oxl_str_ends_with(S("hello"), S("llo")), "endsWith");
    tap_ok(oxl_str_ends_with(S("hello"), S("")), "endsWith empty");
    tap_ok(!oxl_str_ends_with(S("hello"), S("ll")), "not endsWith");
    tap_ok(!oxl_str_ends_with(S("lo"), S("hello")), "endsWith longer");

    tap_is_str(oxl_str_cstr(oxl_str_trim(S(" \t\n\v\f\rab c \r\n"))), "ab c", "trim");
    tap_is_str(oxl_str_cstr(oxl_str_trim(S("   "))), "", "trim all space");
    tap_is_str(oxl_str_cstr(oxl_str_trim(S("x"))), "x", "trim nothing");
    tap_is_str(oxl_str_cstr(oxl_str_trim(S("\xC2\xA0x"))), "\xC2\xA0x", "trim leaves non-ASCII space");
    tap_is_str(oxl_str_cstr(oxl_str_to_upper(S("abz ÀéQ1"))), "ABZ ÀéQ1", "toUpper is ASCII only");
    tap_is_str(oxl_str_cstr(oxl_str_to_lower(S("ABZ Éa1"))), "abz Éa1", "toLower is ASCII only");
    tap_is_str(oxl_str_cstr(oxl_str_to_upper(S("123"))), "123", "toUpper nothing to do");
    oxl_string low = S("abc");
    oxl_string up = oxl_str_to_upper(low);
    tap_is_str(oxl_str_cstr(low), "abc", "toUpper leaves the original");
    tap_is_str(oxl_str_cstr(up), "ABC", "toUpper result");

    uint64_t h1 = oxl_str_hash(S("hello world, longer than eight")), h2 = oxl_str_hash(S("hello world, longer than eight"));
    tap_ok(h1 == h2, "hash by content");
    tap_ok(oxl_str_hash(S("a")) != oxl_str_hash(S("b")), "hash differs");
    tap_ok(oxl_str_hash(S("")) != oxl_str_hash(oxl_str_from_lit("\0", 1)), "hash sees length");
    tap_is_uint(oxl_str_hash(S("oxl")), oxl_str_hash(S("oxl")), "hash stable");
}

static const char *item(oxl_list l, int64_t i) { return oxl_str_cstr(oxl_word_to_str(oxl_list_at(l, i, F, 0))); }

static void test_split_sub(void) {
    oxl_list l = oxl_str_split(S("a,b,,c"), S(","));
    tap_is_int(oxl_list_len(l), 4, "split count");
    tap_is_str(item(l, 0), "a", "split 0");
    tap_is_str(item(l, 2), "", "split empty field");
    tap_is_str(item(l, 3), "c", "split 3");
    l = oxl_str_split(S(""), S(","));
    tap_ok(oxl_list_len(l) == 1 && strcmp(item(l, 0), "") == 0, "split of empty gives [\"\"]");
    l = oxl_str_split(S(",x,"), S(","));
    tap_ok(oxl_list_len(l) == 3 && !strcmp(item(l, 0), "") && !strcmp(item(l, 1), "x") && !strcmp(item(l, 2), ""),
           "split with separators at both ends");
    l = oxl_str_split(S("a::b::c"), S("::"));
    tap_ok(oxl_list_len(l) == 3 && !strcmp(item(l, 2), "c"), "split by a longer separator");
    l = oxl_str_split(S("aé😀"), S(""));
    tap_ok(oxl_list_len(l) == 3 && !strcmp(item(l, 1), "é") && !strcmp(item(l, 2), "😀"),
           "split by empty: code points");
    l = oxl_str_split(S("abc"), S("x"));
    tap_ok(oxl_list_len(l) == 1 && !strcmp(item(l, 0), "abc"), "split without a match");

    oxl_string s = S("héllo");
    tap_is_str(oxl_str_cstr(oxl_str_sub(s, 0, 1, F, 1)), "h", "sub");
    tap_is_str(oxl_str_cstr(oxl_str_sub(s, 1, 3, F, 1)), "é", "sub of a 2-byte char");
    tap_is_str(oxl_str_cstr(oxl_str_sub(s, 3, 6, F, 1)), "llo", "sub to the end");
    tap_is_str(oxl_str_cstr(oxl_str_sub(s, 6, 6, F, 1)), "", "empty sub at the end");
    tap_is_str(oxl_str_cstr(oxl_str_sub(s, 0, 6, F, 1)), "héllo", "whole");
    CT_PANICS(oxl_str_sub(s, 0, 7, F, 40), F, 40, "index out of range [7] with length 6");
    CT_PANICS(oxl_str_sub(s, -1, 2, F, 41), F, 41, "index out of range [-1] with length 6");
    CT_PANICS(oxl_str_sub(s, 3, 2, F, 42), F, 42, "slice bounds out of range [3:2]");
    CT_PANICS(oxl_str_sub(s, 2, 3, F, 43), F, 43, "substring [2:3] splits a UTF-8 sequence");
    CT_PANICS(oxl_str_sub(s, 0, 2, F, 44), F, 44, "substring [0:2] splits a UTF-8 sequence");

    oxl_bytes b = oxl_str_bytes(s);
    tap_is_int(oxl_bytes_len(b), 6, "bytes len");
    tap_is_int(oxl_bytes_at(b, 1, F, 1), 0xC3, "bytes[1]");
    tap_is_int(oxl_bytes_at(b, 5, F, 1), 'o', "bytes[5]");
    CT_PANICS(oxl_bytes_at(b, 6, F, 45), F, 45, "index out of range [6] with length 6");
    CT_PANICS(oxl_bytes_at(b, -1, F, 46), F, 46, "index out of range [-1] with length 6");
}

static const char *dur(int64_t ns) { return oxl_str_cstr(oxl_dur_to_str(ns)); }

static void test_format(void) {
    tap_is_str(oxl_str_cstr(oxl_int_to_str(0)), "0", "int 0");
    tap_is_str(oxl_str_cstr(oxl_int_to_str(-42)), "-42", "int -42");
    tap_is_str(oxl_str_cstr(oxl_int_to_str(INT64_MIN)), "-9223372036854775808", "int min");
    tap_is_str(oxl_str_cstr(oxl_int_to_str(INT64_MAX)), "9223372036854775807", "int max");
    /* every power of ten and its neighbours, both signs, and a spread of
     * others, as printf writes them */
    int wrong = 0, checked = 0;
    char want[32];
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (int i = 0; i < 2000; i++) {
        int64_t v;
        if (i < 19 * 6) {
            int64_t p = 1;
            for (int k = 0; k < i / 6; k++) p *= 10;
            int64_t near[6] = {p - 1, p, p + 1, -(p - 1), -p, -(p + 1)};
            v = near[i % 6];
        } else {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            v = (int64_t)(x >> (i % 64));
            if (i % 2 && v != INT64_MIN) v = -v;
        }
        snprintf(want, sizeof want, "%" PRId64, v);
        wrong += strcmp(oxl_str_cstr(oxl_int_to_str(v)), want) != 0;
        checked++;
    }
    tap_is_int(wrong, 0, "%d ints written as printf writes them", checked);
    tap_is_str(oxl_str_cstr(oxl_bool_to_str(true)), "true", "true");
    tap_is_str(oxl_str_cstr(oxl_bool_to_str(false)), "false", "false");

    tap_is_str(dur(0), "0s", "dur 0");
    tap_is_str(dur(5), "5ns", "dur ns");
    tap_is_str(dur(999), "999ns", "dur 999ns");
    tap_is_str(dur(1000), "1us", "dur 1us");
    tap_is_str(dur(1500), "1.5us", "dur 1.5us");
    tap_is_str(dur(300000000), "300ms", "dur 300ms");
    tap_is_str(dur(1234567), "1.234567ms", "dur fractional ms");
    tap_is_str(dur(1000000000), "1s", "dur 1s");
    tap_is_str(dur(1500000000), "1.5s", "dur 1.5s");
    tap_is_str(dur(INT64_C(90000000000)), "1m30s", "dur 1m30s");
    tap_is_str(dur(INT64_C(60000000000)), "1m0s", "dur 1m0s");
    tap_is_str(dur(INT64_C(3600000000000)), "1h0m0s", "dur 1h");
    tap_is_str(dur(INT64_C(3723000000001)), "1h2m3.000000001s", "dur h m s ns");
    tap_is_str(dur(-2000000000), "-2s", "dur negative");
    tap_is_str(dur(INT64_MIN), "-2562047h47m16.854775808s", "dur min");
    tap_is_str(dur(INT64_MAX), "2562047h47m16.854775807s", "dur max");

    oxl_sb b;
    oxl_sb_init(&b);
    tap_is_str(oxl_str_cstr(oxl_sb_finish(&b)), "", "empty builder");
    oxl_sb_init(&b);
    oxl_sb_lit(&b, "seed ", 5);
    oxl_sb_int(&b, 7);
    oxl_sb_lit(&b, " ok=", 4);
    oxl_sb_bool(&b, true);
    oxl_sb_lit(&b, " ", 1);
    oxl_sb_bool(&b, false);
    oxl_sb_lit(&b, " after ", 7);
    oxl_sb_dur(&b, 1500000000);
    oxl_sb_lit(&b, " v=", 3);
    oxl_sb_none(&b);
    oxl_sb_lit(&b, " ", 1);
    oxl_sb_str(&b, S("é"));
    oxl_string s = oxl_sb_finish(&b);
    tap_is_str(oxl_str_cstr(s), "seed 7 ok=true false after 1.5s v=none é", "interpolation");
    tap_is_int(oxl_str_len(s), 41, "interpolation length");
    oxl_sb_init(&b);
    for (int i = 0; i < 10000; i++) oxl_sb_int(&b, i % 10);
    s = oxl_sb_finish(&b);
    tap_ok(s->len == 10000 && s->data[9999] == '9' && s->data[10000] == '\0', "builder grows");
    /* the builder's only reference to its text is the pointer into the
     * string it becomes: collections while it grows must keep it */
    oxl_sb_init(&b);
    for (int i = 0; i < 2000; i++) {
        oxl_sb_lit(&b, "abcdefghij", 10);
        if (i % 100 == 0) GC_gcollect();
        for (int k = 0; k < 20; k++) (void)oxl_alloc_atomic(4096); /* garbage that reuses freed blocks */
    }
    s = oxl_sb_finish(&b);
    bool same = s->len == 20000;
    for (int64_t i = 0; same && i < s->len; i++) same = s->data[i] == "abcdefghij"[i % 10];
    tap_ok(same, "a builder's text survives collections as it grows");
    oxl_sb_init(&b);
    oxl_sb_lit(&b, "x", 1);
    oxl_string one = oxl_sb_finish(&b);
    oxl_sb_lit(&b, "y", 1); /* finish left the builder fresh: a new buffer */
    tap_ok(strcmp(oxl_str_cstr(one), "x") == 0 && strcmp(oxl_str_cstr(oxl_sb_finish(&b)), "y") == 0,
           "a finished string does not change when the builder is used again");
}

int main(void) {
    oxl_rt_init();
    test_utf8();
    test_basic();
    test_split_sub();
    test_format();
    return tap_done();
}
