/* schedule_file.c: the schedule file's reader and writer (oxl_schedule.h,
 * docs/testing.md "The schedule file"). Text, one item a line:
 *
 *   oxl-schedule 1
 *   binary <64 hex digits>          (optional)
 *   test <name>
 *   seed <n>
 *   failure <site>\t<message prefix> (optional)
 *   decisions <n>
 *   <choice> <choice> ...            (up to 32 a line, n in all)
 *   faults <n>
 *   <kind> <ordinal> <at ns> <dur ns> <label>   (n lines)
 *   end
 *
 * Names, the failure and labels escape a backslash, tab, newline and other
 * control bytes (\\, \t, \n, \xNN). Only the C library: the test binary
 * and `oxl test` both compile this file. */
#include "oxl_schedule.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[OXL_FAULT_NKINDS] = {
    [OXL_FAULT_PARTITION] = "partition", [OXL_FAULT_BLOCK] = "block",         [OXL_FAULT_KILL] = "kill",
    [OXL_FAULT_RESTART] = "restart",     [OXL_FAULT_CRASH] = "crash",         [OXL_FAULT_DROP] = "drop",
    [OXL_FAULT_DUPLICATE] = "duplicate", [OXL_FAULT_REORDER] = "reorder",       [OXL_FAULT_WRITE_FAIL] = "write-fail",
    [OXL_FAULT_SYNC_FAIL] = "sync-fail", [OXL_FAULT_LOST_WRITES] = "lost-writes",
};

const char *oxl_fault_kind_name(oxl_fault_kind k) {
    return (unsigned)k < OXL_FAULT_NKINDS ? kind_names[k] : NULL;
}

oxl_fault_kind oxl_fault_kind_of(const char *name) {
    for (int k = 0; k < OXL_FAULT_NKINDS; k++)
        if (name && strcmp(name, kind_names[k]) == 0) return (oxl_fault_kind)k;
    return OXL_FAULT_NKINDS;
}

void oxl_schedule_free(oxl_schedule *s) {
    free(s->test);
    free(s->decisions);
    free(s->faults);
    free(s->failure);
    memset(s, 0, sizeof *s);
}

/* ---- reading ---- */

typedef struct reader {
    const char *p, *end;
    unsigned long line;
    char *err;
    size_t errcap;
} reader;

static bool fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(reader *r, const char *fmt, ...) {
    int n = snprintf(r->err, r->errcap, "line %lu: ", r->line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < r->errcap) vsnprintf(r->err + n, r->errcap - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

/* The next line without its newline; false at the end of the text. */
static bool next_line(reader *r, const char **s, size_t *n) {
    if (r->p >= r->end) return false;
    const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
    const char *e = nl ? nl : r->end;
    *s = r->p;
    *n = (size_t)(e - r->p);
    r->p = nl ? nl + 1 : r->end;
    r->line++;
    return true;
}

static bool need_line(reader *r, const char **s, size_t *n, const char *what) {
    if (next_line(r, s, n)) return true;
    r->line++;
    return fail(r, "the file ends before %s", what);
}

/* A decimal without sign or leading zeros, at most max. */
static bool parse_u64(const char *s, size_t n, uint64_t max, uint64_t *out) {
    if (n == 0 || n > 20 || (s[0] == '0' && n > 1)) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    if (v > max) return false;
    *out = v;
    return true;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Undoes the escapes into a NUL-terminated string of at most cap-1 bytes;
 * NULL when malformed. */
static char *unescape(const char *s, size_t n, size_t cap) {
    if (n >= cap * 4) return NULL;
    char *out = malloc(n + 1);
    if (!out) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f) goto bad;
        if (c != '\\') {
            out[k++] = (char)c;
            continue;
        }
        if (++i >= n) goto bad;
        if (s[i] == '\\') out[k++] = '\\';
        else if (s[i] == 't') out[k++] = '\t';
        else if (s[i] == 'n') out[k++] = '\n';
        else if (s[i] == 'x' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
            int v = hexval(s[i + 1]) * 16 + hexval(s[i + 2]);
            if (v == 0) goto bad;
            out[k++] = (char)v;
            i += 2;
        } else
            goto bad;
    }
    if (k >= cap) goto bad;
    out[k] = 0;
    return out;
bad:
    free(out);
    return NULL;
}

/* "word rest": true when the line starts with the word and a space. */
static bool keyword(const char *s, size_t n, const char *word, const char **rest, size_t *rn) {
    size_t w = strlen(word);
    if (n < w + 1 || memcmp(s, word, w) != 0 || s[w] != ' ') return false;
    *rest = s + w + 1;
    *rn = n - w - 1;
    return true;
}

/* Splits off the next space-separated field. */
static bool field(const char **s, size_t *n, const char **f, size_t *fn) {
    if (*n == 0) return false;
    const char *sp = memchr(*s, ' ', *n);
    *f = *s;
    *fn = sp ? (size_t)(sp - *s) : *n;
    if (*fn == 0) return false; /* two spaces, or one at the start: left for the caller to refuse */
    *s += *fn + (sp ? 1 : 0);
    *n -= *fn + (sp ? 1 : 0);
    return true;
}

static bool read_fault(reader *r, const char *s, size_t n, oxl_fault *f) {
    const char *w;
    size_t wn;
    char kind[16];
    uint64_t ord, at, dur;
    memset(f, 0, sizeof *f);
    if (!field(&s, &n, &w, &wn) || wn >= sizeof kind) return fail(r, "expected a fault: <kind> <ordinal> <at> <dur> <label>");
    memcpy(kind, w, wn);
    kind[wn] = 0;
    f->kind = oxl_fault_kind_of(kind);
    if (f->kind == OXL_FAULT_NKINDS) return fail(r, "'%s' is not a fault kind", kind);
    if (!field(&s, &n, &w, &wn) || !parse_u64(w, wn, UINT64_MAX, &ord)) return fail(r, "bad fault ordinal");
    if (!field(&s, &n, &w, &wn) || !parse_u64(w, wn, INT64_MAX, &at)) return fail(r, "bad fault time");
    if (!field(&s, &n, &w, &wn) || !parse_u64(w, wn, INT64_MAX, &dur)) return fail(r, "bad fault duration");
    f->ordinal = ord;
    f->at = (oxl_time_ns)at;
    f->dur = (oxl_dur_ns)dur;
    char *label = unescape(s, n, OXL_FAULT_LABEL_MAX);
    if (!label) return fail(r, "bad fault label (escapes \\\\ \\t \\n \\xNN, at most %d bytes)", OXL_FAULT_LABEL_MAX - 1);
    memcpy(f->label, label, strlen(label) + 1);
    free(label);
    return true;
}

static bool parse(reader *r, oxl_schedule *out) {
    const char *s, *rest;
    size_t n = 0, rn = 0;
    uint64_t v;
    if (!need_line(r, &s, &n, "its header") || n != strlen("oxl-schedule 1") || memcmp(s, "oxl-schedule ", 13) != 0)
        return fail(r, "not a schedule file: expected 'oxl-schedule %d'", OXL_SCHEDULE_VERSION);
    if (!parse_u64(s + 13, n - 13, 1000000, &v) || v != OXL_SCHEDULE_VERSION)
        return fail(r, "schedule format version '%.*s', this build reads version %d", (int)(n - 13), s + 13,
                    OXL_SCHEDULE_VERSION);
    if (!need_line(r, &s, &n, "the test")) return false;
    if (keyword(s, n, "binary", &rest, &rn)) {
        if (rn != 64) return fail(r, "the binary's identity must be 64 lowercase hex digits");
        for (size_t i = 0; i < 64; i++)
            if (hexval(rest[i]) < 0) return fail(r, "the binary's identity must be 64 lowercase hex digits");
        memcpy(out->binary, rest, 64);
        out->binary[64] = 0;
        if (!need_line(r, &s, &n, "the test")) return false;
    }
    if (!keyword(s, n, "test", &rest, &rn) || !(out->test = unescape(rest, rn, OXL_SCHEDULE_MAX_TEXT)))
        return fail(r, "expected 'test <name>'");
    if (!need_line(r, &s, &n, "the seed")) return false;
    if (!keyword(s, n, "seed", &rest, &rn) || !parse_u64(rest, rn, INT64_MAX, &out->seed))
        return fail(r, "expected 'seed <n>' (0 to 2^63-1)");
    if (!need_line(r, &s, &n, "the decisions")) return false;
    if (keyword(s, n, "failure", &rest, &rn)) {
        if (!(out->failure = unescape(rest, rn, OXL_SCHEDULE_MAX_TEXT))) return fail(r, "bad failure text");
        if (!need_line(r, &s, &n, "the decisions")) return false;
    }
    if (!keyword(s, n, "decisions", &rest, &rn) || !parse_u64(rest, rn, OXL_SCHEDULE_MAX_DECISIONS, &v))
        return fail(r, "expected 'decisions <n>' (at most %u)", OXL_SCHEDULE_MAX_DECISIONS);
    out->ndecisions = (size_t)v;
    out->decisions = malloc((out->ndecisions ? out->ndecisions : 1) * sizeof *out->decisions);
    if (!out->decisions) return fail(r, "out of memory");
    for (size_t k = 0; k < out->ndecisions;) {
        if (!need_line(r, &s, &n, "the last decision")) return false;
        size_t on_line = 0;
        const char *f;
        size_t fn;
        while (field(&s, &n, &f, &fn)) {
            if (k == out->ndecisions) return fail(r, "more decisions than the %zu announced", out->ndecisions);
            if (++on_line > 32) return fail(r, "more than 32 decisions on a line");
            if (!parse_u64(f, fn, UINT32_MAX, &v)) return fail(r, "'%.*s' is not a decision", (int)(fn < 32 ? fn : 32), f);
            out->decisions[k++] = (uint32_t)v;
        }
        if (n != 0 || on_line == 0) return fail(r, "a decisions line is numbers separated by one space");
    }
    if (!need_line(r, &s, &n, "the faults")) return false;
    if (!keyword(s, n, "faults", &rest, &rn) || !parse_u64(rest, rn, OXL_SCHEDULE_MAX_FAULTS, &v))
        return fail(r, "expected 'faults <n>' (at most %u)", OXL_SCHEDULE_MAX_FAULTS);
    out->nfaults = (size_t)v;
    out->faults = malloc((out->nfaults ? out->nfaults : 1) * sizeof *out->faults);
    if (!out->faults) return fail(r, "out of memory");
    for (size_t k = 0; k < out->nfaults; k++) {
        if (!need_line(r, &s, &n, "the last fault")) return false;
        if (!read_fault(r, s, n, &out->faults[k])) return false;
        for (size_t j = 0; j < k; j++)
            if (out->faults[j].kind == out->faults[k].kind && out->faults[j].ordinal == out->faults[k].ordinal)
                return fail(r, "the fault %s %" PRIu64 " is listed twice", oxl_fault_kind_name(out->faults[k].kind),
                            out->faults[k].ordinal);
    }
    if (!need_line(r, &s, &n, "'end'") || n != 3 || memcmp(s, "end", 3) != 0) return fail(r, "expected 'end'");
    if (r->p != r->end) {
        r->line++;
        return fail(r, "text after 'end'");
    }
    return true;
}

bool oxl_schedule_parse(const char *text, size_t len, oxl_schedule *out, char *err, size_t errcap) {
    memset(out, 0, sizeof *out);
    char dummy[8];
    reader r = {text, text + len, 0, errcap ? err : dummy, errcap ? errcap : sizeof dummy};
    if (len > OXL_SCHEDULE_MAX_BYTES) {
        snprintf(r.err, r.errcap, "the file is larger than %u bytes", OXL_SCHEDULE_MAX_BYTES);
        return false;
    }
    if (memchr(text, 0, len)) {
        snprintf(r.err, r.errcap, "the file holds a NUL byte: not a schedule file");
        return false;
    }
    if (parse(&r, out)) return true;
    oxl_schedule_free(out);
    return false;
}

/* ---- writing ---- */

static void put_escaped(FILE *f, const char *s) {
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\\') fputs("\\\\", f);
        else if (c == '\t') fputs("\\t", f);
        else if (c == '\n') fputs("\\n", f);
        else if (c < 0x20 || c == 0x7f) fprintf(f, "\\x%02x", c);
        else putc(c, f);
    }
}

char *oxl_schedule_format(const oxl_schedule *s, size_t *len) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) return NULL;
    fprintf(f, "oxl-schedule %d\n", OXL_SCHEDULE_VERSION);
    if (s->binary[0]) fprintf(f, "binary %s\n", s->binary);
    fputs("test ", f);
    put_escaped(f, s->test ? s->test : "");
    fprintf(f, "\nseed %" PRIu64 "\n", s->seed);
    if (s->failure) {
        fputs("failure ", f);
        put_escaped(f, s->failure);
        putc('\n', f);
    }
    fprintf(f, "decisions %zu\n", s->ndecisions);
    for (size_t i = 0; i < s->ndecisions; i++)
        fprintf(f, "%" PRIu32 "%c", s->decisions[i], (i % 32 == 31 || i + 1 == s->ndecisions) ? '\n' : ' ');
    fprintf(f, "faults %zu\n", s->nfaults);
    for (size_t i = 0; i < s->nfaults; i++) {
        const oxl_fault *ft = &s->faults[i];
        const char *kn = oxl_fault_kind_name(ft->kind);
        fprintf(f, "%s %" PRIu64 " %" PRId64 " %" PRId64 " ", kn ? kn : "?", ft->ordinal, ft->at < 0 ? 0 : ft->at,
                ft->dur < 0 ? 0 : ft->dur);
        char label[OXL_FAULT_LABEL_MAX];
        memcpy(label, ft->label, sizeof label);
        label[sizeof label - 1] = 0;
        put_escaped(f, label);
        putc('\n', f);
    }
    fputs("end\n", f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}
