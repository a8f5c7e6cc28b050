/* tr_jsonread.c: a reader of one JSON value (RFC 8259), for --merge's
 * shard reports: objects, arrays, strings (escapes and \u pairs as
 * UTF-8), numbers (their text kept, so a 64-bit seed reads exactly),
 * true, false and null. Depth and size are limited; an error says where. */
#include "tr_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define JSON_DEPTH 32

typedef struct jp {
    const char *s, *end;
    const char *err;
    size_t at;
} jp;

static void ws(jp *p) {
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')) p->s++;
}

static tr_jv *jv_new(int kind) {
    tr_jv *v = tr_xmalloc(sizeof *v);
    memset(v, 0, sizeof *v);
    v->kind = kind;
    return v;
}

static bool fail(jp *p, const char *why, const char *start) {
    if (!p->err) {
        p->err = why;
        p->at = (size_t)(p->s - start);
    }
    return false;
}

static void put_utf8(tr_buf *b, unsigned long c) {
    char u[4];
    size_t n;
    if (c < 0x80) u[0] = (char)c, n = 1;
    else if (c < 0x800) u[0] = (char)(0xc0 | c >> 6), u[1] = (char)(0x80 | (c & 0x3f)), n = 2;
    else if (c < 0x10000)
        u[0] = (char)(0xe0 | c >> 12), u[1] = (char)(0x80 | (c >> 6 & 0x3f)), u[2] = (char)(0x80 | (c & 0x3f)), n = 3;
    else
        u[0] = (char)(0xf0 | c >> 18), u[1] = (char)(0x80 | (c >> 12 & 0x3f)), u[2] = (char)(0x80 | (c >> 6 & 0x3f)),
        u[3] = (char)(0x80 | (c & 0x3f)), n = 4;
    tr_buf_add(b, u, n);
}

static bool hex4(jp *p, unsigned long *c) {
    if (p->end - p->s < 4) return false;
    *c = 0;
    for (int i = 0; i < 4; i++) {
        char h = p->s[i];
        int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
        if (d < 0) return false;
        *c = *c << 4 | (unsigned long)d;
    }
    p->s += 4;
    return true;
}

static bool str(jp *p, const char *start, char **out) {
    p->s++; /* the quote */
    tr_buf b = {0};
    tr_buf_add(&b, "", 0);
    while (p->s < p->end && *p->s != '"') {
        unsigned char c = (unsigned char)*p->s;
        if (c < 0x20) {
            tr_buf_free(&b);
            return fail(p, "a control character in a string", start);
        }
        if (c != '\\') {
            tr_buf_add(&b, p->s++, 1);
            continue;
        }
        p->s++;
        if (p->s >= p->end) break;
        char e = *p->s++;
        unsigned long u;
        switch (e) {
        case '"': tr_buf_add(&b, "\"", 1); break;
        case '\\': tr_buf_add(&b, "\\", 1); break;
        case '/': tr_buf_add(&b, "/", 1); break;
        case 'b': tr_buf_add(&b, "\b", 1); break;
        case 'f': tr_buf_add(&b, "\f", 1); break;
        case 'n': tr_buf_add(&b, "\n", 1); break;
        case 'r': tr_buf_add(&b, "\r", 1); break;
        case 't': tr_buf_add(&b, "\t", 1); break;
        case 'u':
            if (!hex4(p, &u)) {
                tr_buf_free(&b);
                return fail(p, "a bad \\u escape", start);
            }
            if (u >= 0xd800 && u < 0xdc00) {
                unsigned long lo;
                if (p->end - p->s >= 6 && p->s[0] == '\\' && p->s[1] == 'u' && (p->s += 2, hex4(p, &lo)) &&
                    lo >= 0xdc00 && lo < 0xe000)
                    u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
                else u = 0xfffd;
            } else if (u >= 0xdc00 && u < 0xe000) {
                u = 0xfffd;
            }
            put_utf8(&b, u);
            break;
        default: tr_buf_free(&b); return fail(p, "a bad escape in a string", start);
        }
    }
    if (p->s >= p->end) {
        tr_buf_free(&b);
        return fail(p, "a string without its closing quote", start);
    }
    p->s++;
    *out = b.s;
    return true;
}

static tr_jv *value(jp *p, const char *start, int depth);

static tr_jv *object(jp *p, const char *start, int depth) {
    tr_jv *v = jv_new(TR_JV_OBJECT);
    p->s++;
    ws(p);
    if (p->s < p->end && *p->s == '}') {
        p->s++;
        return v;
    }
    for (;;) {
        ws(p);
        char *key = NULL;
        if (p->s >= p->end || *p->s != '"' || !str(p, start, &key)) {
            fail(p, "an object key that is not a string", start);
            tr_jv_free(v);
            return NULL;
        }
        ws(p);
        if (p->s >= p->end || *p->s != ':') {
            free(key);
            fail(p, "no ':' after an object key", start);
            tr_jv_free(v);
            return NULL;
        }
        p->s++;
        tr_jv *m = value(p, start, depth + 1);
        if (!m) {
            free(key);
            tr_jv_free(v);
            return NULL;
        }
        v->keys = tr_xrealloc(v->keys, (v->n + 1) * sizeof *v->keys);
        v->items = tr_xrealloc(v->items, (v->n + 1) * sizeof *v->items);
        v->keys[v->n] = key;
        v->items[v->n++] = m;
        ws(p);
        if (p->s < p->end && *p->s == ',') {
            p->s++;
            continue;
        }
        if (p->s < p->end && *p->s == '}') {
            p->s++;
            return v;
        }
        fail(p, "no ',' or '}' after an object member", start);
        tr_jv_free(v);
        return NULL;
    }
}

static tr_jv *array(jp *p, const char *start, int depth) {
    tr_jv *v = jv_new(TR_JV_ARRAY);
    p->s++;
    ws(p);
    if (p->s < p->end && *p->s == ']') {
        p->s++;
        return v;
    }
    for (;;) {
        tr_jv *m = value(p, start, depth + 1);
        if (!m) {
            tr_jv_free(v);
            return NULL;
        }
        v->items = tr_xrealloc(v->items, (v->n + 1) * sizeof *v->items);
        v->items[v->n++] = m;
        ws(p);
        if (p->s < p->end && *p->s == ',') {
            p->s++;
            continue;
        }
        if (p->s < p->end && *p->s == ']') {
            p->s++;
            return v;
        }
        fail(p, "no ',' or ']' after an array element", start);
        tr_jv_free(v);
        return NULL;
    }
}

static tr_jv *value(jp *p, const char *start, int depth) {
    ws(p);
    if (depth > JSON_DEPTH) {
        fail(p, "nested too deep", start);
        return NULL;
    }
    if (p->s >= p->end) {
        fail(p, "the text ends where a value should be", start);
        return NULL;
    }
    char c = *p->s;
    if (c == '{') return object(p, start, depth);
    if (c == '[') return array(p, start, depth);
    if (c == '"') {
        char *s;
        if (!str(p, start, &s)) return NULL;
        tr_jv *v = jv_new(TR_JV_STRING);
        v->str = s;
        return v;
    }
    static const struct {
        const char *word;
        int kind;
    } words[] = {{"true", TR_JV_TRUE}, {"false", TR_JV_FALSE}, {"null", TR_JV_NULL}};
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(words[i].word);
        if ((size_t)(p->end - p->s) >= n && memcmp(p->s, words[i].word, n) == 0) {
            p->s += n;
            return jv_new(words[i].kind);
        }
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        const char *b = p->s;
        if (*p->s == '-') p->s++;
        if (p->s >= p->end || !(*p->s >= '0' && *p->s <= '9')) {
            fail(p, "a bad number", start);
            return NULL;
        }
        while (p->s < p->end && ((*p->s >= '0' && *p->s <= '9') || *p->s == '.' || *p->s == 'e' || *p->s == 'E' ||
                                 *p->s == '+' || *p->s == '-'))
            p->s++;
        tr_jv *v = jv_new(TR_JV_NUMBER);
        v->str = tr_xmalloc((size_t)(p->s - b) + 1);
        memcpy(v->str, b, (size_t)(p->s - b));
        v->str[p->s - b] = '\0';
        char *end;
        errno = 0;
        v->num = strtod(v->str, &end);
        if (*end || errno) {
            tr_jv_free(v);
            fail(p, "a bad number", start);
            return NULL;
        }
        return v;
    }
    fail(p, "not a JSON value", start);
    return NULL;
}

tr_jv *tr_jv_parse(const char *s, size_t n, char *why, size_t cap) {
    jp p = {s, s + n, NULL, 0};
    tr_jv *v = value(&p, s, 0);
    if (v) {
        ws(&p);
        if (p.s != p.end) {
            fail(&p, "text after the value", s);
            tr_jv_free(v);
            v = NULL;
        }
    }
    if (!v) snprintf(why, cap, "%s (at byte %zu)", p.err ? p.err : "not JSON", p.at + 1);
    return v;
}

void tr_jv_free(tr_jv *v) {
    if (!v) return;
    for (size_t i = 0; i < v->n; i++) {
        tr_jv_free(v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
    free(v);
}

const tr_jv *tr_jv_get(const tr_jv *o, const char *key) {
    if (!o || o->kind != TR_JV_OBJECT) return NULL;
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->keys[i], key) == 0) return o->items[i];
    return NULL;
}

const char *tr_jv_str(const tr_jv *o, const char *key) {
    const tr_jv *v = tr_jv_get(o, key);
    return v && v->kind == TR_JV_STRING ? v->str : NULL;
}

bool tr_jv_u64(const tr_jv *o, const char *key, uint64_t *out) {
    const tr_jv *v = tr_jv_get(o, key);
    return v && v->kind == TR_JV_NUMBER && tr_parse_u64(v->str, out);
}
