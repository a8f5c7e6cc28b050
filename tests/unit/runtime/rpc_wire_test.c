/* rpc_wire_test: the wire format of OxL values. Generated types (every
 * kind, nested) with generated values round-trip, encode to the same
 * bytes again, and every strict prefix of an encoding is refused; flipped
 * bytes never crash the reader; hand-made frames check each refusal and
 * the documented layout. */
#include "oxl_rpc.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- generated types ---- */

#define MAX_TYPES 4096
static oxl_type_desc types[MAX_TYPES];
static const oxl_type_desc *items[MAX_TYPES * 4];
static int64_t tags[MAX_TYPES * 4];
static size_t ntypes, nitems, ntags;

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static uint64_t below(uint64_t n) { return n ? next() % n : 0; }

static oxl_type_desc *new_type(int64_t kind, const char *name) {
    if (ntypes == MAX_TYPES) tap_bail("too many generated types");
    oxl_type_desc *t = &types[ntypes++];
    *t = (oxl_type_desc){.kind = kind, .name = name};
    return t;
}

static const oxl_type_desc *scalar(int64_t kind) {
    static const char *const names[] = {"None", "Int", "Bool", "String", "Bytes", "Duration", "Instant"};
    return new_type(kind, names[kind]);
}

static const oxl_type_desc *gen_type(int depth);

/* A union of distinct scalar members plus maybe a struct, None sometimes. */
static const oxl_type_desc *gen_union(int depth) {
    oxl_type_desc *t = new_type(OXL_TD_UNION, "union");
    size_t first = nitems, first_tag = ntags, ntags_end;
    bool used[OXL_TD_INSTANT + 1] = {0};
    int n = 2 + (int)below(3);
    for (int i = 0; i < n; i++) {
        int64_t k = (int64_t)below(OXL_TD_INSTANT + 1);
        if (used[k]) continue;
        used[k] = true;
        items[nitems] = scalar(k);
        tags[ntags] = 100 + k; /* a member's tag: its type id */
        nitems++, ntags++;
    }
    if (depth > 0 && below(2)) {
        size_t at = nitems++, tag_at = ntags++; /* reserved before gen_type takes more */
        tags[tag_at] = 1000 + (int64_t)ntypes;   /* a tag no scalar member has */
        ntags_end = ntags;
        items[at] = gen_type(depth - 1);
    } else {
        ntags_end = ntags;
    }
    t->n = (int64_t)(ntags_end - first_tag);
    t->items = &items[first];
    t->tags = &tags[first_tag];
    return t;
}

static const oxl_type_desc *gen_type(int depth) {
    int64_t k = depth > 0 ? (int64_t)below(OXL_TD_UNION + 1) : (int64_t)below(OXL_TD_INSTANT + 1);
    if (k <= OXL_TD_INSTANT) return scalar(k);
    if (k == OXL_TD_LIST) {
        oxl_type_desc *t = new_type(OXL_TD_LIST, "list");
        t->n = 1;
        t->items = &items[nitems];
        nitems++;
        items[nitems - 1] = gen_type(depth - 1);
        return t;
    }
    if (k == OXL_TD_MAP) {
        oxl_type_desc *t = new_type(OXL_TD_MAP, "map");
        static const int64_t key_kinds[] = {OXL_TD_INT, OXL_TD_STRING, OXL_TD_BOOL, OXL_TD_BYTES, OXL_TD_DURATION};
        t->n = 2;
        t->items = &items[nitems];
        nitems += 2;
        ((const oxl_type_desc **)t->items)[0] = scalar(key_kinds[below(5)]);
        ((const oxl_type_desc **)t->items)[1] = gen_type(depth - 1);
        return t;
    }
    if (k == OXL_TD_STRUCT) {
        oxl_type_desc *t = new_type(OXL_TD_STRUCT, "Rec");
        int n = (int)below(4);
        t->n = n;
        t->items = &items[nitems];
        nitems += (size_t)n;
        for (int i = 0; i < n; i++) ((const oxl_type_desc **)t->items)[i] = gen_type(depth - 1);
        return t;
    }
    return gen_union(depth - 1);
}

/* ---- generated values ---- */

static oxl_word gen_value(const oxl_type_desc *t, int depth) {
    switch ((oxl_td_kind)t->kind) {
    case OXL_TD_NONE: return 0;
    case OXL_TD_INT:
    case OXL_TD_DURATION:
    case OXL_TD_INSTANT: {
        static const int64_t edges[] = {0, 1, -1, 63, 64, -64, -65, 127, 128, INT64_MAX, INT64_MIN, 1 << 20};
        return (oxl_word)(below(3) ? edges[below(12)] : (int64_t)next());
    }
    case OXL_TD_BOOL: return below(2);
    case OXL_TD_STRING: {
        static const char *const texts[] = {"", "a", "héllo", "\xF0\x9F\x98\x80 smile", "with\0nul", "long text here"};
        size_t i = below(6);
        return oxl_word_from_str(oxl_str_from_lit(texts[i], i == 4 ? 8 : (int64_t)strlen(texts[i])));
    }
    case OXL_TD_BYTES: {
        unsigned char raw[40];
        size_t n = below(sizeof raw);
        for (size_t i = 0; i < n; i++) raw[i] = (unsigned char)next();
        return oxl_word_from_str(oxl_str_from_lit((const char *)raw, (int64_t)n));
    }
    case OXL_TD_LIST: {
        oxl_list l = oxl_list_new(0);
        int n = depth > 6 ? 0 : (int)below(5);
        for (int i = 0; i < n; i++) oxl_list_push(l, gen_value(t->items[0], depth + 1), __FILE__, __LINE__);
        return oxl_word_from_ptr(l);
    }
    case OXL_TD_MAP: {
        const oxl_type_desc *kt = t->items[0];
        oxl_map m = oxl_map_new(kt->kind == OXL_TD_STRING ? OXL_KEY_STR
                                : kt->kind == OXL_TD_BYTES ? OXL_KEY_BYTES
                                : kt->kind == OXL_TD_BOOL ? OXL_KEY_BOOL
                                : kt->kind == OXL_TD_DURATION ? OXL_KEY_DURATION
                                                              : OXL_KEY_INT);
        int n = depth > 6 ? 0 : (int)below(5);
        for (int i = 0; i < n; i++) oxl_map_set(m, gen_value(kt, depth + 1), gen_value(t->items[1], depth + 1), __FILE__, __LINE__);
        return oxl_word_from_ptr(m);
    }
    case OXL_TD_STRUCT: {
        oxl_word *f = oxl_alloc((size_t)(t->n ? t->n : 1) * sizeof *f);
        for (int64_t i = 0; i < t->n; i++) f[i] = gen_value(t->items[i], depth + 1);
        return oxl_word_from_ptr(f);
    }
    case OXL_TD_UNION: {
        int64_t i = (int64_t)below((uint64_t)t->n);
        if (t->items[i]->kind == OXL_TD_NONE) return 0;
        return oxl_word_from_ptr(oxl_box_new(t->tags[i], gen_value(t->items[i], depth + 1)));
    }
    }
    return 0;
}

static bool same(const oxl_type_desc *t, oxl_word a, oxl_word b) {
    switch ((oxl_td_kind)t->kind) {
    case OXL_TD_NONE: return true;
    case OXL_TD_INT:
    case OXL_TD_DURATION:
    case OXL_TD_INSTANT:
    case OXL_TD_BOOL: return a == b;
    case OXL_TD_STRING:
    case OXL_TD_BYTES: return oxl_str_eq(oxl_word_to_str(a), oxl_word_to_str(b));
    case OXL_TD_LIST: {
        oxl_list x = oxl_word_to_ptr(a), y = oxl_word_to_ptr(b);
        if (x->len != y->len) return false;
        for (int64_t i = 0; i < x->len; i++)
            if (!same(t->items[0], x->items[i], y->items[i])) return false;
        return true;
    }
    case OXL_TD_MAP: {
        oxl_map x = oxl_word_to_ptr(a), y = oxl_word_to_ptr(b);
        if (oxl_map_len(x) != oxl_map_len(y)) return false;
        int64_t px = 0, py = 0;
        oxl_word kx, vx, ky, vy;
        while (oxl_map_next(x, &px, &kx, &vx)) { /* same keys in the same order */
            if (!oxl_map_next(y, &py, &ky, &vy)) return false;
            if (!same(t->items[0], kx, ky) || !same(t->items[1], vx, vy)) return false;
        }
        return true;
    }
    case OXL_TD_STRUCT: {
        const oxl_word *x = oxl_word_to_ptr(a), *y = oxl_word_to_ptr(b);
        for (int64_t i = 0; i < t->n; i++)
            if (!same(t->items[i], x[i], y[i])) return false;
        return true;
    }
    case OXL_TD_UNION: {
        const oxl_box *x = oxl_word_to_ptr(a), *y = oxl_word_to_ptr(b);
        if (!x || !y) return x == y;
        if (x->tag != y->tag) return false;
        for (int64_t i = 0; i < t->n; i++)
            if (t->tags[i] == x->tag) return same(t->items[i], x->word, y->word);
        return false;
    }
    }
    return false;
}

static bool decodes(const unsigned char *data, size_t len, const oxl_type_desc *t, oxl_word *out) {
    const unsigned char *p = data;
    char err[256];
    return oxl_wire_decode(&p, data + len, t, out, err, sizeof err) && p == data + len;
}

static bool has_map(const oxl_type_desc *t, int depth) {
    if (t->kind == OXL_TD_MAP || depth > 16) return true;
    for (int64_t i = 0; i < t->n; i++)
        if (has_map(t->items[i], depth + 1)) return true;
    return false;
}

/* Two encodings hold the same bytes. */
static bool same_bytes(const oxl_wire_buf *a, const oxl_wire_buf *b) {
    return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

static void round_trips(void) {
    int values = 0, prefixes = 0, refused = 0, roundtrip = 0, again = 0, flips = 0, equal = 0, pairs = 0, agree = 0;
    for (int round = 0; round < 400; round++) {
        ntypes = nitems = ntags = 0;
        const oxl_type_desc *t = gen_type(4);
        for (int k = 0; k < 5; k++) {
            oxl_word v = gen_value(t, 0);
            oxl_wire_buf b = {0};
            char err[256];
            if (!oxl_wire_encode(&b, t, v, err, sizeof err)) {
                tap_diag("encode failed: %s", err);
                continue;
            }
            values++;
            oxl_word back;
            if (decodes(b.data, b.len, t, &back) && same(t, v, back)) roundtrip++;
            if (oxl_wire_equal(t, v, back) && oxl_wire_equal(t, back, v)) equal++;
            if (!has_map(t, 0)) { /* without maps (whose order == ignores) equal means equal bytes */
                oxl_word w = gen_value(t, 0);
                oxl_wire_buf bw = {0};
                if (oxl_wire_encode(&bw, t, w, err, sizeof err)) {
                    pairs++;
                    if (oxl_wire_equal(t, v, w) == same_bytes(&b, &bw)) agree++;
                }
                oxl_wire_buf_free(&bw);
            }
            oxl_wire_buf b2 = {0};
            if (oxl_wire_encode(&b2, t, back, err, sizeof err) && b2.len == b.len &&
                (b.len == 0 || memcmp(b2.data, b.data, b.len) == 0)) /* an empty buffer has no data */
                again++;
            oxl_wire_buf_free(&b2);
            for (size_t cut = 0; cut < b.len; cut++) { /* every strict prefix */
                prefixes++;
                const unsigned char *p = b.data;
                oxl_word junk;
                if (!oxl_wire_decode(&p, b.data + cut, t, &junk, err, sizeof err)) refused++;
            }
            for (int f = 0; f < 8 && b.len; f++) { /* a flipped byte: any verdict, never a crash */
                unsigned char *c = malloc(b.len);
                memcpy(c, b.data, b.len);
                c[below(b.len)] ^= (unsigned char)(1u << below(8));
                oxl_word junk;
                decodes(c, b.len, t, &junk);
                free(c);
                flips++;
            }
            oxl_wire_buf_free(&b);
        }
    }
    tap_ok(values > 1500, "%d generated values encoded", values);
    tap_is_int(roundtrip, values, "every value decodes to an equal value");
    tap_is_int(again, values, "every decoded value encodes to the same bytes");
    tap_is_int(equal, values, "every value == its decoded copy (oxl_wire_equal), both ways");
    tap_ok(pairs > 500 && agree == pairs, "%d of %d pairs of values without maps: == exactly when their bytes agree",
           agree, pairs);
    tap_is_int(refused, prefixes, "every strict prefix (%d) is refused as truncated", prefixes);
    tap_ok(flips > 0, "%d corrupted encodings read without a crash", flips);
}

/* ---- the documented layout and each refusal ---- */

static const oxl_type_desc d_none = {.kind = OXL_TD_NONE, .name = "None"};
static const oxl_type_desc d_int = {.kind = OXL_TD_INT, .name = "Int"};
static const oxl_type_desc d_bool = {.kind = OXL_TD_BOOL, .name = "Bool"};
static const oxl_type_desc d_str = {.kind = OXL_TD_STRING, .name = "String"};
static const oxl_type_desc *const list_int_items[] = {&d_int};
static const oxl_type_desc d_list_int = {.kind = OXL_TD_LIST, .n = 1, .items = list_int_items, .name = "[Int]"};
static const oxl_type_desc *const list_none_items[] = {&d_none};
static const oxl_type_desc d_list_none = {.kind = OXL_TD_LIST, .n = 1, .items = list_none_items, .name = "[None]"};
static const oxl_type_desc *const map_items[] = {&d_str, &d_int};
static const oxl_type_desc d_map = {.kind = OXL_TD_MAP, .n = 2, .items = map_items, .name = "Map[String, Int]"};
static const oxl_type_desc *const opt_items[] = {&d_none, &d_int};
static const int64_t opt_tags[] = {2, 3};
static const oxl_type_desc d_opt = {.kind = OXL_TD_UNION, .n = 2, .items = opt_items, .tags = opt_tags, .name = "Int?"};
static const oxl_type_desc *const rec_items[] = {&d_int, &d_str};
static const oxl_type_desc d_rec = {.kind = OXL_TD_STRUCT, .n = 2, .items = rec_items, .name = "Order"};

static void check_bytes(const oxl_type_desc *t, oxl_word v, const char *want, size_t n, const char *what) {
    oxl_wire_buf b = {0};
    char err[128];
    bool ok = oxl_wire_encode(&b, t, v, err, sizeof err);
    tap_ok(ok && b.len == n && memcmp(b.data, want, n) == 0, "layout: %s", what);
    oxl_wire_buf_free(&b);
}

static void refuses(const oxl_type_desc *t, const char *bytes, size_t n, const char *needle, const char *what) {
    const unsigned char *p = (const unsigned char *)bytes;
    char err[256] = "";
    oxl_word out;
    bool ok = oxl_wire_decode(&p, p + n, t, &out, err, sizeof err);
    tap_ok(!ok, "refused: %s", what);
    tap_contains(err, needle, "  the reason names it (%s)", err);
}

static void layout(void) {
    check_bytes(&d_int, 0, "\x00", 1, "Int 0 is one zero byte");
    check_bytes(&d_int, (oxl_word)(int64_t)-1, "\x01", 1, "Int -1 is zigzag 1");
    check_bytes(&d_int, 64, "\x80\x01", 2, "Int 64 is zigzag 128 in two LEB128 bytes");
    check_bytes(&d_bool, 1, "\x01", 1, "Bool true is 1");
    check_bytes(&d_str, oxl_word_from_str(oxl_str_from_cstr("ab")), "\x02" "ab", 3, "String: length then bytes");
    oxl_list l = oxl_list_new(2);
    oxl_list_push(l, 1, __FILE__, __LINE__);
    oxl_list_push(l, 2, __FILE__, __LINE__);
    check_bytes(&d_list_int, oxl_word_from_ptr(l), "\x02\x02\x04", 3, "[1, 2]: count then elements");
    check_bytes(&d_opt, 0, "\x00", 1, "none in Int?: member 0, nothing more");
    check_bytes(&d_opt, oxl_word_from_ptr(oxl_box_new(3, 5)), "\x01\x0a", 2, "5 in Int?: member 1, then 5");
    oxl_word *rec = oxl_alloc(2 * sizeof *rec);
    rec[0] = 7;
    rec[1] = oxl_word_from_str(oxl_str_from_cstr("x"));
    check_bytes(&d_rec, oxl_word_from_ptr(rec), "\x02\x0e\x01x", 4, "a struct: field count then fields");

    refuses(&d_bool, "\x02", 1, "neither 0 nor 1", "a Bool byte of 2");
    refuses(&d_str, "\x02\xff\xfe", 3, "UTF-8", "a String of invalid UTF-8");
    refuses(&d_str, "\x05" "ab", 3, "more than", "a String longer than the frame");
    refuses(&d_int, "\x80\x00", 2, "overlong", "an overlong varint");
    refuses(&d_int, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 10, "overlong", "a varint past 64 bits");
    refuses(&d_opt, "\x02", 1, "no member 2", "a union member index past its members");
    refuses(&d_rec, "\x03\x00\x00\x00", 4, "3 fields", "a struct with the wrong field count");
    refuses(&d_map, "\x02\x01k\x00\x01k\x02", 7, "key twice", "a map with a key twice");
    refuses(&d_list_none, "\xff\xff\xff\x7f", 4, "more than", "a list of None claiming 268 M elements");
    refuses(&d_list_int, "\xff\xff\x03", 3, "more than", "a list claiming more elements than bytes");

    /* depth: a list nested past the limit is refused on both sides */
    oxl_type_desc chain[OXL_WIRE_MAX_DEPTH + 3];
    const oxl_type_desc *chain_items[OXL_WIRE_MAX_DEPTH + 3];
    chain[0] = d_int;
    for (int i = 1; i < OXL_WIRE_MAX_DEPTH + 3; i++) {
        chain_items[i] = &chain[i - 1];
        chain[i] = (oxl_type_desc){.kind = OXL_TD_LIST, .n = 1, .items = &chain_items[i], .name = "[...]"};
    }
    oxl_word v = 1;
    for (int i = 1; i < OXL_WIRE_MAX_DEPTH + 3; i++) {
        oxl_list one = oxl_list_new(1);
        oxl_list_push(one, v, __FILE__, __LINE__);
        v = oxl_word_from_ptr(one);
    }
    oxl_wire_buf b = {0};
    char err[256] = "";
    tap_ok(!oxl_wire_encode(&b, &chain[OXL_WIRE_MAX_DEPTH + 2], v, err, sizeof err), "a value nested %d deep is not sent",
           OXL_WIRE_MAX_DEPTH + 2);
    tap_contains(err, "nested", "  the reason says so");
    tap_is_uint(b.len, 0, "  and nothing half-written stays in the buffer");
    unsigned char deep[OXL_WIRE_MAX_DEPTH + 4];
    memset(deep, 1, sizeof deep);
    const unsigned char *p = deep;
    oxl_word out;
    tap_ok(!oxl_wire_decode(&p, deep + sizeof deep, &chain[OXL_WIRE_MAX_DEPTH + 2], &out, err, sizeof err),
           "a frame nested past the limit is refused");
    oxl_wire_buf_free(&b);
}

/* == by hand: a map's order does not count, a cycle ends, a long chain
 * does not deepen the C stack. */
static const oxl_type_desc d_node;
static const oxl_type_desc *const node_opt_items[] = {&d_none, &d_node};
static const int64_t node_opt_tags[] = {1, 50};
static const oxl_type_desc d_node_opt = {.kind = OXL_TD_UNION, .n = 2, .items = node_opt_items,
                                         .tags = node_opt_tags, .name = "Node?"};
static const oxl_type_desc *const node_items[] = {&d_int, &d_node_opt};
static const oxl_type_desc d_node = {.kind = OXL_TD_STRUCT, .n = 2, .items = node_items, .name = "Node"};

static oxl_word node(int64_t v, oxl_word next) {
    oxl_word *f = oxl_alloc(2 * sizeof *f);
    f[0] = (oxl_word)v;
    f[1] = next ? oxl_word_from_ptr(oxl_box_new(50, next)) : 0;
    return oxl_word_from_ptr(f);
}

static void equality(void) {
    oxl_map a = oxl_map_new(OXL_KEY_STR), b = oxl_map_new(OXL_KEY_STR);
    oxl_map_set(a, oxl_word_from_str(oxl_str_from_cstr("x")), 1, __FILE__, __LINE__);
    oxl_map_set(a, oxl_word_from_str(oxl_str_from_cstr("y")), 2, __FILE__, __LINE__);
    oxl_map_set(b, oxl_word_from_str(oxl_str_from_cstr("y")), 2, __FILE__, __LINE__);
    oxl_map_set(b, oxl_word_from_str(oxl_str_from_cstr("x")), 1, __FILE__, __LINE__);
    tap_ok(oxl_wire_equal(&d_map, oxl_word_from_ptr(a), oxl_word_from_ptr(b)), "maps: == ignores the order");
    oxl_map_set(b, oxl_word_from_str(oxl_str_from_cstr("x")), 3, __FILE__, __LINE__);
    tap_ok(!oxl_wire_equal(&d_map, oxl_word_from_ptr(a), oxl_word_from_ptr(b)), "maps: a value differs");
    /* rings a = 1 -> a, b = 1 -> 1 -> b: equal; c = 1 -> 2 -> c: not */
    oxl_word ra = node(1, 0), rb = node(1, 0), rb2 = node(1, rb), rc = node(1, 0), rc2 = node(2, rc);
    ((oxl_word *)oxl_word_to_ptr(ra))[1] = oxl_word_from_ptr(oxl_box_new(50, ra));
    ((oxl_word *)oxl_word_to_ptr(rb))[1] = oxl_word_from_ptr(oxl_box_new(50, rb2));
    ((oxl_word *)oxl_word_to_ptr(rc))[1] = oxl_word_from_ptr(oxl_box_new(50, rc2));
    tap_ok(oxl_wire_equal(&d_node, ra, rb), "cycles: two rings of 1s are equal");
    tap_ok(!oxl_wire_equal(&d_node, ra, rc), "cycles: a ring of 1s is not a ring of 1, 2");
    oxl_word x = 0, y = 0;
    for (int i = 0; i < 1000000; i++) {
        x = node(i, x);
        y = node(i, y);
    }
    tap_ok(oxl_wire_equal(&d_node, x, y), "a chain of a million nodes compares without deepening the stack");
    ((oxl_word *)oxl_word_to_ptr(y))[0] = 5;
    tap_ok(!oxl_wire_equal(&d_node, x, y), "...and a difference at its head is found");
}

int main(void) {
    oxl_rt_init();
    layout();
    round_trips();
    equality();
    return tap_done();
}
