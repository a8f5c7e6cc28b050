/* str.c: immutable UTF-8 strings, Bytes, the interpolation builder and the
 * natural text forms of Int, Bool and Duration. */
#include "core_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

struct oxl_str_obj *core_str_alloc(int64_t len) {
    core_check_len(len, "(runtime)", 0);
    struct oxl_str_obj *s = oxl_alloc_atomic(sizeof(struct oxl_str_obj) + (size_t)len + 1);
    s->len = len;
    s->data[len] = '\0';
    return s;
}

static oxl_string core_str_make(const void *bytes, int64_t len) {
    struct oxl_str_obj *s = core_str_alloc(len);
    if (len) memcpy(s->data, bytes, (size_t)len);
    return s;
}

oxl_string oxl_str_from_cstr(const char *s) { return core_str_make(s, (int64_t)strlen(s)); }

oxl_string oxl_str_from_lit(const char *bytes, int64_t len) { return core_str_make(bytes, len); }

bool oxl_utf8_valid(const void *p, int64_t len, int64_t *bad_offset) {
    const unsigned char *b = p;
    int64_t i = 0;
    while (i < len) {
        unsigned c = b[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        int n;          /* continuation bytes */
        unsigned lo = 0x80, hi = 0xBF; /* range of the first continuation byte */
        if (c >= 0xC2 && c <= 0xDF) {
            n = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            if (c == 0xE0) lo = 0xA0;      /* overlong */
            else if (c == 0xED) hi = 0x9F; /* surrogates */
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            if (c == 0xF0) lo = 0x90;      /* overlong */
            else if (c == 0xF4) hi = 0x8F; /* above U+10FFFF */
        } else {
            goto bad; /* continuation byte, C0/C1 overlong, F5..FF */
        }
        if (len - i <= n) goto bad; /* truncated */
        if (b[i + 1] < lo || b[i + 1] > hi) goto bad;
        for (int k = 2; k <= n; k++)
            if ((b[i + k] & 0xC0) != 0x80) goto bad;
        i += n + 1;
    }
    return true;
bad:
    if (bad_offset) *bad_offset = i;
    return false;
}

oxl_string oxl_str_from_bytes(const void *bytes, int64_t len, const char *file, int line) {
    core_check_len(len, file, line);
    int64_t bad;
    if (!oxl_utf8_valid(bytes, len, &bad)) core_panic(file, line, "invalid UTF-8 at byte offset %" PRId64, bad);
    return core_str_make(bytes, len);
}

int64_t oxl_str_count_chars(oxl_string s) {
    int64_t n = 0;
    for (int64_t i = 0; i < s->len; i++)
        if (((unsigned char)s->data[i] & 0xC0) != 0x80) n++;
    return n;
}

oxl_string oxl_str_concat(oxl_string a, oxl_string b) {
    if (b->len == 0) return a;
    if (a->len == 0) return b;
    struct oxl_str_obj *s = core_str_alloc(a->len + b->len);
    memcpy(s->data, a->data, (size_t)a->len);
    memcpy(s->data + a->len, b->data, (size_t)b->len);
    return s;
}

bool oxl_str_eq(oxl_string a, oxl_string b) {
    return a == b || (a->len == b->len && memcmp(a->data, b->data, (size_t)a->len) == 0);
}

int oxl_str_cmp(oxl_string a, oxl_string b) {
    int64_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->data, b->data, (size_t)n) : 0;
    if (c) return c < 0 ? -1 : 1;
    return a->len < b->len ? -1 : a->len > b->len ? 1 : 0;
}

/* First offset >= from where sub occurs in s, or -1. */
static int64_t core_str_find(oxl_string s, oxl_string sub, int64_t from) {
    if (sub->len == 0) return from <= s->len ? from : -1;
    int64_t last = s->len - sub->len;
    unsigned char first = (unsigned char)sub->data[0];
    for (int64_t i = from; i <= last; i++) {
        const char *p = memchr(s->data + i, first, (size_t)(last - i + 1));
        if (!p) return -1;
        i = p - s->data;
        if (memcmp(p, sub->data, (size_t)sub->len) == 0) return i;
    }
    return -1;
}

bool oxl_str_contains(oxl_string s, oxl_string sub) { return core_str_find(s, sub, 0) >= 0; }

bool oxl_str_starts_with(oxl_string s, oxl_string prefix) {
    return prefix->len <= s->len && memcmp(s->data, prefix->data, (size_t)prefix->len) == 0;
}

bool oxl_str_ends_with(oxl_string s, oxl_string suffix) {
    return suffix->len <= s->len &&
           memcmp(s->data + s->len - suffix->len, suffix->data, (size_t)suffix->len) == 0;
}

oxl_list oxl_str_split(oxl_string s, oxl_string sep) {
    oxl_list out = oxl_list_new(0);
    if (sep->len == 0) {
        int64_t i = 0;
        while (i < s->len) {
            int64_t j = i + 1;
            while (j < s->len && ((unsigned char)s->data[j] & 0xC0) == 0x80) j++;
            oxl_list_push(out, oxl_word_from_str(core_str_make(s->data + i, j - i)), "(runtime)", 0);
            i = j;
        }
        return out;
    }
    int64_t start = 0;
    for (;;) {
        int64_t at = core_str_find(s, sep, start);
        if (at < 0) break;
        oxl_list_push(out, oxl_word_from_str(core_str_make(s->data + start, at - start)), "(runtime)", 0);
        start = at + sep->len;
    }
    oxl_list_push(out, oxl_word_from_str(core_str_make(s->data + start, s->len - start)), "(runtime)", 0);
    return out;
}

static bool core_is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

oxl_string oxl_str_trim(oxl_string s) {
    int64_t a = 0, b = s->len;
    while (a < b && core_is_space((unsigned char)s->data[a])) a++;
    while (b > a && core_is_space((unsigned char)s->data[b - 1])) b--;
    if (a == 0 && b == s->len) return s;
    return core_str_make(s->data + a, b - a);
}

static oxl_string core_str_map_case(oxl_string s, char from_lo, char from_hi, int delta) {
    int64_t i = 0;
    while (i < s->len && !(s->data[i] >= from_lo && s->data[i] <= from_hi)) i++;
    if (i == s->len) return s; /* nothing to change */
    struct oxl_str_obj *r = core_str_alloc(s->len);
    memcpy(r->data, s->data, (size_t)s->len);
    for (; i < s->len; i++)
        if (r->data[i] >= from_lo && r->data[i] <= from_hi) r->data[i] = (char)(r->data[i] + delta);
    return r;
}

oxl_string oxl_str_to_upper(oxl_string s) { return core_str_map_case(s, 'a', 'z', 'A' - 'a'); }

oxl_string oxl_str_to_lower(oxl_string s) { return core_str_map_case(s, 'A', 'Z', 'a' - 'A'); }

oxl_string oxl_str_sub(oxl_string s, int64_t from, int64_t to, const char *file, int line) {
    core_check_range(from, to, s->len, file, line);
    if ((from < s->len && ((unsigned char)s->data[from] & 0xC0) == 0x80) ||
        (to < s->len && ((unsigned char)s->data[to] & 0xC0) == 0x80))
        core_panic(file, line, "substring [%" PRId64 ":%" PRId64 "] splits a UTF-8 sequence", from, to);
    if (from == 0 && to == s->len) return s;
    return core_str_make(s->data + from, to - from);
}

/* A 64-bit multiplicative hash over 8-byte words with a fixed seed, then the
 * splitmix64 finaliser. Deterministic across runs and machines of one
 * endianness. */
uint64_t oxl_str_hash(oxl_string s) {
    const uint64_t k = UINT64_C(0x9E3779B97F4A7C15);
    uint64_t h = UINT64_C(0x6A09E667F3BCC909) ^ ((uint64_t)s->len * k);
    const unsigned char *p = (const unsigned char *)s->data;
    int64_t n = s->len;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    for (int64_t i = 0; i < n; i++) w |= (uint64_t)p[i] << (8 * i);
    return core_mix64((h ^ w) * k);
}

/* ---- Bytes ---- */

oxl_bytes oxl_str_bytes(oxl_string s) { return s; }

int64_t oxl_bytes_at(oxl_bytes b, int64_t i, const char *file, int line) {
    if ((uint64_t)i >= (uint64_t)b->len) oxl_panic_index(file, line, i, b->len);
    return (unsigned char)b->data[i];
}

/* ---- the builder ---- */

void oxl_sb_init(oxl_sb *b) {
    b->buf = NULL;
    b->len = 0;
    b->cap = 0;
}

static void core_sb_reserve(oxl_sb *b, int64_t more) {
    int64_t need = b->len + more;
    core_check_len(need, "(runtime)", 0);
    if (need <= b->cap) return;
    int64_t cap = b->cap ? b->cap * 2 : 32;
    while (cap < need) cap *= 2;
    /* the buffer is the data of the string oxl_sb_finish will return, so
     * finishing does not copy (the collector follows the interior pointer) */
    struct oxl_str_obj *obj = oxl_alloc_atomic(sizeof(struct oxl_str_obj) + (size_t)cap + 1);
    if (b->len) memcpy(obj->data, b->buf, (size_t)b->len);
    b->buf = obj->data;
    b->cap = cap;
}

void oxl_sb_lit(oxl_sb *b, const char *bytes, int64_t len) {
    core_sb_reserve(b, len);
    if (len) memcpy(b->buf + b->len, bytes, (size_t)len);
    b->len += len;
}

void oxl_sb_str(oxl_sb *b, oxl_string s) { oxl_sb_lit(b, s->data, s->len); }

/* Decimal digits by hand, not snprintf: interpolating an Int is on the
 * hot path of many a protocol (labels, keys), and printf's machinery was
 * a sixth of an in-process bank seed. The magnitude is taken unsigned, so
 * INT64_MIN needs no case of its own. */
char *core_u64_dec(char *end, uint64_t m) {
    do {
        *--end = (char)('0' + m % 10);
        m /= 10;
    } while (m);
    return end;
}

void oxl_sb_int(oxl_sb *b, int64_t v) {
    char tmp[24];
    char *end = tmp + sizeof tmp;
    char *p = core_u64_dec(end, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
    if (v < 0) *--p = '-';
    oxl_sb_lit(b, p, (int)(end - p));
}

void oxl_sb_bool(oxl_sb *b, bool v) {
    if (v) oxl_sb_lit(b, "true", 4);
    else oxl_sb_lit(b, "false", 5);
}

void oxl_sb_none(oxl_sb *b) { oxl_sb_lit(b, "none", 4); }

/* Days since 1970-01-01 to a civil date (proleptic Gregorian), counted in
 * 400-year eras of 146097 days with years starting in March. */
static void core_civil(int64_t days, int64_t *y, int *mo, int *d) {
    days += 719468;
    int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    int64_t doe = days - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *mo = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*mo <= 2);
}

void oxl_sb_instant(oxl_sb *b, int64_t unix_ns) {
    int64_t secs = unix_ns / 1000000000, ns = unix_ns % 1000000000;
    if (ns < 0) {
        ns += 1000000000;
        secs--;
    }
    int64_t days = secs / 86400, rem = secs % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    int64_t y;
    int mo, d;
    core_civil(days, &y, &mo, &d);
    char buf[64];
    int n = snprintf(buf, sizeof buf, "%04" PRId64 "-%02d-%02dT%02d:%02d:%02d", y, mo, d, (int)(rem / 3600),
                     (int)(rem / 60 % 60), (int)(rem % 60));
    if (ns) {
        char frac[16];
        snprintf(frac, sizeof frac, ".%09" PRId64, ns);
        size_t k = strlen(frac);
        while (k > 2 && frac[k - 1] == '0') frac[--k] = 0; /* ns != 0: a digit stays */
        n += snprintf(buf + n, sizeof buf - (size_t)n, "%s", frac);
    }
    buf[n++] = 'Z';
    oxl_sb_lit(b, buf, n);
}

void oxl_sb_bytes(oxl_sb *b, oxl_bytes v) {
    static const char hex[] = "0123456789abcdef";
    oxl_sb_lit(b, "0x", 2);
    for (int64_t i = 0; i < v->len; i++) {
        unsigned char c = (unsigned char)v->data[i];
        char two[2] = {hex[c >> 4], hex[c & 15]};
        oxl_sb_lit(b, two, 2);
    }
}

void oxl_sb_quoted(oxl_sb *b, oxl_string s) {
    oxl_sb_lit(b, "\"", 1);
    int64_t run = 0; /* start of the bytes not yet copied */
    for (int64_t i = 0; i < s->len; i++) {
        unsigned char c = (unsigned char)s->data[i];
        const char *esc = NULL;
        char hex[8];
        if (c == '"') esc = "\\\"";
        else if (c == '\\') esc = "\\\\";
        else if (c == '{') esc = "\\{"; /* reads back as a literal */
        else if (c == '\n') esc = "\\n";
        else if (c == '\t') esc = "\\t";
        else if (c == '\r') esc = "\\r";
        else if (c < 0x20 || c == 0x7f) {
            snprintf(hex, sizeof hex, "\\u{%x}", c);
            esc = hex;
        }
        if (!esc) continue;
        oxl_sb_lit(b, s->data + run, i - run);
        oxl_sb_lit(b, esc, (int64_t)strlen(esc));
        run = i + 1;
    }
    oxl_sb_lit(b, s->data + run, s->len - run);
    oxl_sb_lit(b, "\"", 1);
}

/* Writes v / 10^prec with the fraction's trailing zeros (and a bare '.')
 * dropped: 1500, 3 -> "1.5". */
static int core_fmt_frac(char *out, uint64_t v, int prec) {
    uint64_t p10 = 1;
    for (int i = 0; i < prec; i++) p10 *= 10;
    int n = sprintf(out, "%" PRIu64, v / p10);
    uint64_t frac = v % p10;
    if (frac) {
        char digits[24];
        sprintf(digits, "%0*" PRIu64, prec, frac);
        int d = prec;
        while (d > 0 && digits[d - 1] == '0') d--;
        out[n++] = '.';
        memcpy(out + n, digits, (size_t)d);
        n += d;
        out[n] = '\0';
    }
    return n;
}

void oxl_sb_dur(oxl_sb *b, int64_t ns) {
    char tmp[64];
    int n = 0;
    uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    if (ns < 0) tmp[n++] = '-';
    if (u == 0) {
        n += sprintf(tmp + n, "0s");
    } else if (u < 1000) {
        n += sprintf(tmp + n, "%" PRIu64 "ns", u);
    } else if (u < 1000000) {
        n += core_fmt_frac(tmp + n, u, 3);
        n += sprintf(tmp + n, "us");
    } else if (u < UINT64_C(1000000000)) {
        n += core_fmt_frac(tmp + n, u, 6);
        n += sprintf(tmp + n, "ms");
    } else {
        uint64_t sec_ns = u % UINT64_C(60000000000);
        uint64_t mins = u / UINT64_C(60000000000);
        if (mins >= 60) n += sprintf(tmp + n, "%" PRIu64 "h", mins / 60);
        if (mins > 0) n += sprintf(tmp + n, "%" PRIu64 "m", mins % 60);
        n += core_fmt_frac(tmp + n, sec_ns, 9);
        n += sprintf(tmp + n, "s");
    }
    oxl_sb_lit(b, tmp, n);
}

oxl_string oxl_sb_finish(oxl_sb *b) {
    oxl_string s;
    if (!b->buf || b->cap > 2 * b->len + 64) {
        /* nothing appended, or more slack than text: an exact copy */
        s = core_str_make(b->buf ? b->buf : "", b->len);
    } else {
        struct oxl_str_obj *obj = (struct oxl_str_obj *)(b->buf - offsetof(struct oxl_str_obj, data));
        obj->len = b->len;
        obj->data[b->len] = '\0';
        s = obj;
    }
    oxl_sb_init(b);
    return s;
}

oxl_string oxl_int_to_str(int64_t v) {
    oxl_sb b;
    oxl_sb_init(&b);
    oxl_sb_int(&b, v);
    return oxl_sb_finish(&b);
}

oxl_string oxl_bool_to_str(bool v) { return v ? oxl_str_from_lit("true", 4) : oxl_str_from_lit("false", 5); }

oxl_string oxl_dur_to_str(int64_t ns) {
    oxl_sb b;
    oxl_sb_init(&b);
    oxl_sb_dur(&b, ns);
    return oxl_sb_finish(&b);
}
