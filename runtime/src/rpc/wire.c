/* wire.c: the wire format of OxL values (docs/services.md, "Wire format").
 *
 * Pure code: no World, no scheduler, only the core runtime's objects. A
 * value is written by its type descriptor, bytes one by one (never a
 * struct or a pointer copied): Int, Duration and Instant as zigzag LEB128
 * varints, Bool as one byte 0 or 1, String and Bytes as a varint length and
 * the bytes, None as nothing, a list as a count and its elements, a map as
 * a count and key/value pairs in its order, a struct as its field count and
 * the fields in declaration order, a union as the member's index in its
 * descriptor and the member's value. The reader trusts nothing: every
 * count is checked against what is left, every tag and byte against its
 * type, and nesting is bounded. */
#include "rpc/rpc_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- bytes ---- */

void oxl_wire_buf_free(oxl_wire_buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* False when the buffer would pass the frame limit. */
bool rpc_buf_grow(oxl_wire_buf *b, size_t n) {
    if (n > OXL_RPC_MAX_FRAME || b->len > OXL_RPC_MAX_FRAME - n) return false;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n) cap *= 2;
        unsigned char *d = realloc(b->data, cap);
        if (!d) {
            fputs("oxl: out of memory\n", stderr);
            abort();
        }
        b->data = d;
        b->cap = cap;
    }
    return true;
}

bool rpc_put_uvarint_long(oxl_wire_buf *b, uint64_t v) {
    size_t n = 1;
    for (uint64_t x = v >> 7; x; x >>= 7) n++;
    if (!rpc_buf_room(b, n)) return false;
    unsigned char *d = b->data + b->len;
    for (; v >= 0x80; v >>= 7) *d++ = (unsigned char)(v | 0x80);
    *d = (unsigned char)v;
    b->len += n;
    return true;
}

static bool put_svarint(oxl_wire_buf *b, int64_t v) {
    return rpc_put_uvarint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); /* zigzag */
}

/* At most 10 bytes; the tenth may carry only the top bit; no overlong
 * forms (a zero continuation byte at the end), so each value has one
 * encoding. */
bool rpc_get_uvarint_long(const unsigned char **p, const unsigned char *end, uint64_t *v) {
    uint64_t x = 0;
    for (int i = 0; i < 10; i++) {
        if (*p >= end) return false;
        unsigned char byte = *(*p)++;
        if (i == 9 && byte > 1) return false;
        x |= (uint64_t)(byte & 0x7f) << (7 * i);
        if (!(byte & 0x80)) {
            if (i > 0 && byte == 0) return false;
            *v = x;
            return true;
        }
    }
    return false;
}

static bool get_svarint(const unsigned char **p, const unsigned char *end, int64_t *v) {
    uint64_t u;
    if (!rpc_get_uvarint(p, end, &u)) return false;
    *v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
    return true;
}

/* ---- errors ---- */

typedef struct wire_err {
    char *buf;
    size_t cap;
} wire_err;

static bool fail(wire_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(wire_err *e, const char *fmt, ...) {
    if (e->buf && e->cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->buf, e->cap, fmt, ap);
        va_end(ap);
    }
    return false;
}

static const char *tname(const oxl_type_desc *t) { return t && t->name ? t->name : "?"; }

/* ---- encoding ---- */

static bool encode(oxl_wire_buf *b, const oxl_type_desc *t, oxl_word v, int depth, wire_err *e);

static bool too_big(wire_err *e) {
    return fail(e, "the value does not fit in one message (%u bytes)", (unsigned)OXL_RPC_MAX_FRAME);
}

static bool encode_union(oxl_wire_buf *b, const oxl_type_desc *t, oxl_word v, int depth, wire_err *e) {
    const oxl_box *box = oxl_word_to_ptr(v);
    for (int64_t i = 0; i < t->n; i++) {
        const oxl_type_desc *m = t->items[i];
        bool is_none = m->kind == OXL_TD_NONE;
        if (box ? (!is_none && box->tag == t->tags[i]) : is_none) {
            if (!rpc_put_uvarint(b, (uint64_t)i)) return too_big(e);
            return box ? encode(b, m, box->word, depth + 1, e) : true;
        }
    }
    return fail(e, "a value of %s holds a member its type does not list (tag %lld)", tname(t),
                box ? (long long)box->tag : -1LL);
}

static bool encode(oxl_wire_buf *b, const oxl_type_desc *t, oxl_word v, int depth, wire_err *e) {
    if (depth > OXL_WIRE_MAX_DEPTH)
        return fail(e, "the value is nested more than %d levels deep (a cycle?)", OXL_WIRE_MAX_DEPTH);
    switch ((oxl_td_kind)t->kind) {
    case OXL_TD_NONE: return true;
    case OXL_TD_INT:
    case OXL_TD_DURATION:
    case OXL_TD_INSTANT: return put_svarint(b, (int64_t)v) || too_big(e);
    case OXL_TD_BOOL: return rpc_put_u8(b, v ? 1 : 0) || too_big(e);
    case OXL_TD_STRING:
    case OXL_TD_BYTES: {
        oxl_string s = oxl_word_to_str(v);
        return (rpc_put_uvarint(b, (uint64_t)s->len) && rpc_put_bytes(b, s->data, (size_t)s->len)) || too_big(e);
    }
    case OXL_TD_LIST: {
        oxl_list l = oxl_word_to_ptr(v);
        if (!rpc_put_uvarint(b, (uint64_t)l->len)) return too_big(e);
        for (int64_t i = 0; i < l->len; i++)
            if (!encode(b, t->items[0], l->items[i], depth + 1, e)) return false;
        return true;
    }
    case OXL_TD_MAP: {
        oxl_map m = oxl_word_to_ptr(v);
        if (!rpc_put_uvarint(b, (uint64_t)oxl_map_len(m))) return too_big(e);
        int64_t pos = 0;
        oxl_word k, val;
        while (oxl_map_next(m, &pos, &k, &val))
            if (!encode(b, t->items[0], k, depth + 1, e) || !encode(b, t->items[1], val, depth + 1, e)) return false;
        return true;
    }
    case OXL_TD_STRUCT: {
        const oxl_word *fields = oxl_word_to_ptr(v);
        if (!rpc_put_uvarint(b, (uint64_t)t->n)) return too_big(e);
        for (int64_t i = 0; i < t->n; i++)
            if (!encode(b, t->items[i], fields[i], depth + 1, e)) return false;
        return true;
    }
    case OXL_TD_UNION: return encode_union(b, t, v, depth, e);
    }
    return fail(e, "type %s has no wire form (descriptor kind %lld)", tname(t), (long long)t->kind);
}

bool oxl_wire_encode(oxl_wire_buf *b, const oxl_type_desc *t, oxl_word v, char *err, size_t errcap) {
    wire_err e = {err, errcap};
    size_t start = b->len;
    if (encode(b, t, v, 0, &e)) return true;
    b->len = start; /* nothing half-written */
    return false;
}

/* ---- decoding ---- */

static bool decode(const unsigned char **p, const unsigned char *end, const oxl_type_desc *t, oxl_word *out,
                   int depth, wire_err *e);

static bool truncated(wire_err *e, const oxl_type_desc *t) { return fail(e, "truncated %s", tname(t)); }

/* A count of elements that each take at least min bytes: no more than what
 * is left could hold (elements of no bytes: no more than a frame's size). */
static bool get_count(const unsigned char **p, const unsigned char *end, size_t min, const oxl_type_desc *t,
                      int64_t *n, wire_err *e) {
    uint64_t c;
    if (!rpc_get_uvarint(p, end, &c)) return truncated(e, t);
    uint64_t left = (uint64_t)(end - *p);
    uint64_t most = min ? left / min : OXL_RPC_MAX_FRAME;
    if (c > most) return fail(e, "%s claims %llu elements, more than the %llu bytes left can hold", tname(t),
                              (unsigned long long)c, (unsigned long long)left);
    *n = (int64_t)c;
    return true;
}

/* The fewest bytes a value of t takes: 0 only for None. */
static size_t min_size(const oxl_type_desc *t) { return t->kind == OXL_TD_NONE ? 0 : 1; }

static oxl_map new_map(const oxl_type_desc *key) {
    switch ((oxl_td_kind)key->kind) {
    case OXL_TD_STRING: return oxl_map_new(OXL_KEY_STR);
    case OXL_TD_BYTES: return oxl_map_new(OXL_KEY_BYTES);
    case OXL_TD_BOOL: return oxl_map_new(OXL_KEY_BOOL);
    case OXL_TD_DURATION: return oxl_map_new(OXL_KEY_DURATION);
    case OXL_TD_INSTANT: return oxl_map_new(OXL_KEY_INSTANT);
    case OXL_TD_UNION: return oxl_map_new_union(key->str_tags, key->nstr_tags);
    default: return oxl_map_new(OXL_KEY_INT);
    }
}

static bool decode(const unsigned char **p, const unsigned char *end, const oxl_type_desc *t, oxl_word *out,
                   int depth, wire_err *e) {
    if (depth > OXL_WIRE_MAX_DEPTH) return fail(e, "a value nested more than %d levels deep", OXL_WIRE_MAX_DEPTH);
    switch ((oxl_td_kind)t->kind) {
    case OXL_TD_NONE: *out = 0; return true;
    case OXL_TD_INT:
    case OXL_TD_DURATION:
    case OXL_TD_INSTANT: {
        int64_t v;
        if (!get_svarint(p, end, &v)) return fail(e, "truncated or overlong %s", tname(t));
        *out = (oxl_word)v;
        return true;
    }
    case OXL_TD_BOOL: {
        uint8_t v;
        if (!rpc_get_u8(p, end, &v)) return truncated(e, t);
        if (v > 1) return fail(e, "Bool byte %u is neither 0 nor 1", v);
        *out = v;
        return true;
    }
    case OXL_TD_STRING:
    case OXL_TD_BYTES: {
        int64_t n;
        if (!get_count(p, end, 1, t, &n, e)) return false;
        int64_t bad;
        if (t->kind == OXL_TD_STRING && !oxl_utf8_valid(*p, n, &bad))
            return fail(e, "String with invalid UTF-8 at byte %lld", (long long)bad);
        *out = oxl_word_from_str(oxl_str_from_lit((const char *)*p, n));
        *p += n;
        return true;
    }
    case OXL_TD_LIST: {
        int64_t n;
        if (!get_count(p, end, min_size(t->items[0]), t, &n, e)) return false;
        oxl_list l = oxl_list_new(n);
        for (int64_t i = 0; i < n; i++) {
            oxl_word w;
            if (!decode(p, end, t->items[0], &w, depth + 1, e)) return false;
            oxl_list_push(l, w, "(rpc)", 0);
        }
        *out = oxl_word_from_ptr(l);
        return true;
    }
    case OXL_TD_MAP: {
        int64_t n;
        if (!get_count(p, end, min_size(t->items[0]) + min_size(t->items[1]), t, &n, e)) return false;
        oxl_map m = new_map(t->items[0]);
        for (int64_t i = 0; i < n; i++) {
            oxl_word k, v;
            if (!decode(p, end, t->items[0], &k, depth + 1, e) || !decode(p, end, t->items[1], &v, depth + 1, e))
                return false;
            if (oxl_map_has(m, k)) return fail(e, "%s has a key twice", tname(t));
            oxl_map_set(m, k, v, "(rpc)", 0);
        }
        *out = oxl_word_from_ptr(m);
        return true;
    }
    case OXL_TD_STRUCT: {
        uint64_t n;
        if (!rpc_get_uvarint(p, end, &n)) return truncated(e, t);
        if (n != (uint64_t)t->n)
            return fail(e, "%s with %llu fields, not %lld", tname(t), (unsigned long long)n, (long long)t->n);
        oxl_word *fields = oxl_alloc((size_t)(t->n ? t->n : 1) * sizeof *fields);
        for (int64_t i = 0; i < t->n; i++)
            if (!decode(p, end, t->items[i], &fields[i], depth + 1, e)) return false;
        *out = oxl_word_from_ptr(fields);
        return true;
    }
    case OXL_TD_UNION: {
        uint64_t i;
        if (!rpc_get_uvarint(p, end, &i)) return truncated(e, t);
        if (i >= (uint64_t)t->n) return fail(e, "%s has no member %llu", tname(t), (unsigned long long)i);
        const oxl_type_desc *m = t->items[i];
        if (m->kind == OXL_TD_NONE) {
            *out = 0;
            return true;
        }
        oxl_word w;
        if (!decode(p, end, m, &w, depth + 1, e)) return false;
        *out = oxl_word_from_ptr(oxl_box_new(t->tags[i], w));
        return true;
    }
    }
    return fail(e, "type %s has no wire form (descriptor kind %lld)", tname(t), (long long)t->kind);
}

bool oxl_wire_decode(const unsigned char **p, const unsigned char *end, const oxl_type_desc *t, oxl_word *out,
                     char *err, size_t errcap) {
    wire_err e = {err, errcap};
    return decode(p, end, t, out, 0, &e);
}
