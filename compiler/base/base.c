/* base.c: arenas, growable vectors, interned names, source files with
 * their line tables, and the diagnostics sink. Everything here is
 * deterministic: no addresses or hash orders reach the output. */
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

/* ---- arenas ---- */

/* Chunks start small (a tiny file should not cost a megabyte) and double
 * up to a cap; an allocation larger than a chunk gets a chunk of its own. */
#define ARENA_FIRST_CHUNK (16u << 10)
#define ARENA_MAX_CHUNK (1u << 20)

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
} arena_chunk;

struct base_arena {
    arena_chunk *head;
    size_t next_size;
    size_t bytes;
};

static void base_oom(void) {
    fputs("oxl: out of memory\n", stderr);
    abort();
}

base_arena *base_arena_new(void) {
    base_arena *a = calloc(1, sizeof *a);
    if (!a) base_oom();
    a->next_size = ARENA_FIRST_CHUNK;
    return a;
}

void base_arena_free(base_arena *a) {
    if (!a) return;
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    free(a);
}

void *base_alloc(base_arena *a, size_t size) {
    size = (size + 15u) & ~(size_t)15u;
    if (size == 0) size = 16;
    arena_chunk *c = a->head;
    if (!c || c->size - c->used < size) {
        size_t want = a->next_size;
        if (a->next_size < ARENA_MAX_CHUNK) a->next_size *= 2;
        if (size > want) want = size;
        /* calloc: fresh memory is zero, so allocations need no memset. */
        arena_chunk *n = calloc(1, sizeof *n + want);
        if (!n) base_oom();
        n->size = want;
        if (c && size > ARENA_MAX_CHUNK / 2 && c->size - c->used >= 256) {
            /* A big one-off block goes behind the current chunk so the
             * current chunk's free tail stays in use. */
            n->next = c->next;
            c->next = n;
            n->used = size;
            a->bytes += size;
            return n->data;
        }
        n->next = c;
        a->head = n;
        c = n;
    }
    void *p = c->data + c->used;
    c->used += size;
    a->bytes += size;
    return p;
}

char *base_strndup(base_arena *a, const char *s, size_t n) {
    char *p = base_alloc(a, n + 1);
    if (n) memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

size_t base_arena_bytes(const base_arena *a) { return a->bytes; }

void base_vec_push(base_arena *a, base_vec *v, void *item) {
    if (v->len == v->cap) {
        if (v->cap >= UINT32_MAX / 2) base_oom();
        uint32_t cap = v->cap ? v->cap * 2 : 4;
        void **items = base_alloc(a, (size_t)cap * sizeof *items);
        if (v->len) memcpy(items, v->items, (size_t)v->len * sizeof *items);
        v->items = items;
        v->cap = cap;
    }
    v->items[v->len++] = item;
}

/* ---- interned names: open addressing, power-of-two table ---- */

typedef struct name_slot {
    const char *s;
    uint32_t len, hash;
} name_slot;

struct base_names {
    base_arena *arena;
    name_slot *slots;
    uint32_t cap, count;
};

static uint32_t name_hash(const char *s, size_t len) {
    /* FNV-1a: short identifiers dominate, and it is simple and stable. */
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

base_names *base_names_new(base_arena *a) {
    base_names *n = base_alloc(a, sizeof *n);
    n->arena = a;
    n->cap = 1024;
    n->slots = base_alloc(a, n->cap * sizeof *n->slots);
    return n;
}

static void names_grow(base_names *n) {
    if (n->cap >= (1u << 30)) base_oom();
    uint32_t cap = n->cap * 2;
    name_slot *slots = base_alloc(n->arena, (size_t)cap * sizeof *slots);
    for (uint32_t i = 0; i < n->cap; i++) {
        if (!n->slots[i].s) continue;
        uint32_t j = n->slots[i].hash & (cap - 1);
        while (slots[j].s) j = (j + 1) & (cap - 1);
        slots[j] = n->slots[i];
    }
    n->slots = slots;
    n->cap = cap;
}

const char *base_intern(base_names *n, const char *s, size_t len) {
    if (len > UINT32_MAX) base_oom();
    uint32_t h = name_hash(s, len);
    uint32_t mask = n->cap - 1;
    for (uint32_t j = h & mask;; j = (j + 1) & mask) {
        name_slot *e = &n->slots[j];
        if (!e->s) {
            e->s = base_strndup(n->arena, s, len);
            e->len = (uint32_t)len;
            e->hash = h;
            const char *r = e->s;
            if (++n->count * 4 > n->cap * 3) names_grow(n);
            return r;
        }
        if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0) return e->s;
    }
}

/* ---- diagnostics ---- */

/* Warnings and notes are capped too, so a pathological input cannot make
 * the sink grow without bound. */
#define DIAG_MAX_OTHER (BASE_MAX_ERRORS * 10)
/* A source line longer than this is shown as a window around the caret. */
#define DIAG_LINE_WINDOW 160

typedef struct diag_entry {
    diag_level level;
    bool internal;
    base_span at;
    const char *msg;
} diag_entry;

struct diag_sink {
    base_arena *arena;
    base_vec sources;   /* base_source* */
    base_vec entries;   /* diag_entry* */
    unsigned errors, warnings, others_kept;
    unsigned dropped_errors;
    bool had_internal;
    bool stopped;       /* the error limit was hit: later entries are dropped */
};

diag_sink *diag_new(void) {
    base_arena *a = base_arena_new();
    diag_sink *d = base_alloc(a, sizeof *d);
    d->arena = a;
    return d;
}

void diag_free(diag_sink *d) {
    if (d) base_arena_free(d->arena);
}

const base_source *diag_add_source(diag_sink *d, const char *path, const char *text, size_t len) {
    base_source *s = base_alloc(d->arena, sizeof *s);
    if (len > UINT32_MAX - 1) len = UINT32_MAX - 1; /* the driver enforces BASE_MAX_SOURCE_BYTES */
    s->id = d->sources.len;
    s->path = base_strndup(d->arena, path, strlen(path));
    s->text = base_strndup(d->arena, text, len);
    s->len = (uint32_t)len;
    uint32_t n = 1;
    for (const char *p = s->text, *end = s->text + len; (p = memchr(p, '\n', (size_t)(end - p))); p++) n++;
    s->line_starts = base_alloc(d->arena, (size_t)n * sizeof *s->line_starts);
    s->line_starts[0] = 0;
    uint32_t k = 1;
    for (const char *p = s->text, *end = s->text + len; (p = memchr(p, '\n', (size_t)(end - p))); p++)
        s->line_starts[k++] = (uint32_t)(p - s->text) + 1;
    s->nlines = n;
    base_vec_push(d->arena, &d->sources, s);
    return s;
}

const base_source *diag_source(const diag_sink *d, uint32_t file) {
    if (file >= d->sources.len) return NULL;
    return d->sources.items[file];
}

/* Index of the line holding byte `off` (0-based). */
static uint32_t line_index(const base_source *s, uint32_t off) {
    uint32_t lo = 0, hi = s->nlines;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->line_starts[mid] <= off) lo = mid;
        else hi = mid;
    }
    return lo;
}

base_pos diag_position(const diag_sink *d, base_span at) {
    base_pos p = {0, 0};
    const base_source *s = diag_source(d, at.file);
    if (!s) return p;
    uint32_t off = at.off > s->len ? s->len : at.off;
    uint32_t li = line_index(s, off);
    p.line = li + 1;
    p.col = off - s->line_starts[li] + 1;
    return p;
}

static void diag_add(diag_sink *d, diag_level level, bool internal, base_span at, const char *msg) {
    if (level == DIAG_ERROR) {
        d->errors++;
        if (d->stopped) {
            d->dropped_errors++;
            return;
        }
        if (d->errors == BASE_MAX_ERRORS) d->stopped = true;
    } else {
        if (level == DIAG_WARNING) d->warnings++;
        if (d->stopped || d->others_kept >= DIAG_MAX_OTHER) return;
        d->others_kept++;
    }
    diag_entry *e = base_alloc(d->arena, sizeof *e);
    e->level = level;
    e->internal = internal;
    e->at = at;
    e->msg = msg;
    base_vec_push(d->arena, &d->entries, e);
}

static const char *diag_format(diag_sink *d, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) return "(unprintable message)";
    char *buf = base_alloc(d->arena, (size_t)n + 1);
    vsnprintf(buf, (size_t)n + 1, fmt, ap);
    return buf;
}

void diag_vreport(diag_sink *d, diag_level level, base_span at, const char *fmt, va_list ap) {
    diag_add(d, level, false, at, diag_format(d, fmt, ap));
}

void diag_report(diag_sink *d, diag_level level, base_span at, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(d, level, at, fmt, ap);
    va_end(ap);
}

void diag_internal(diag_sink *d, const char *cfile, int cline, const char *fmt, ...) {
    /* __FILE__ is an absolute path under CMake: keep it from "compiler/"
     * on, so the message is the same on every machine. */
    const char *rel = cfile, *p = cfile;
    while ((p = strstr(p, "compiler/"))) rel = p++;
    va_list ap;
    va_start(ap, fmt);
    const char *msg = diag_format(d, fmt, ap);
    va_end(ap);
    size_t n = strlen(msg) + strlen(rel) + 64;
    char *full = base_alloc(d->arena, n);
    snprintf(full, n, "internal compiler error: %s (%s:%d)", msg, rel, cline);
    base_span none = {BASE_NO_FILE, 0, 0};
    d->had_internal = true;
    /* Always kept, even past the error limit: it is the one that matters. */
    bool stopped = d->stopped;
    d->stopped = false;
    diag_add(d, DIAG_ERROR, true, none, full);
    d->stopped = stopped || d->stopped;
}

unsigned diag_errors(const diag_sink *d) { return d->errors; }
unsigned diag_warnings(const diag_sink *d) { return d->warnings; }
bool diag_had_internal(const diag_sink *d) { return d->had_internal; }

/* Length of the UTF-8 sequence starting at p (at most n bytes), or 0 when
 * it is not a valid one. */
static int utf8_len(const unsigned char *p, size_t n) {
    unsigned c = p[0];
    if (c < 0x80) return 1;
    int len;
    unsigned min;
    if (c >= 0xc2 && c <= 0xdf) len = 2, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef) len = 3, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4) len = 4, min = 0x10000;
    else return 0;
    if ((size_t)len > n) return 0;
    unsigned cp = c & (0x7fu >> len);
    for (int i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return len;
}

/* Writes the bytes [b, e) of a source line for display: tabs stay tabs,
 * other control bytes and invalid UTF-8 become one visible character each,
 * so the caret line (one character per code point) stays aligned. */
static void put_display(FILE *out, const unsigned char *b, const unsigned char *e) {
    while (b < e) {
        int n = utf8_len(b, (size_t)(e - b));
        if (n == 0) {
            fputc('?', out);
            b++;
        } else if (n == 1) {
            unsigned c = *b++;
            fputc(c == '\t' || (c >= 0x20 && c != 0x7f) ? (int)c : ' ', out);
        } else {
            fwrite(b, 1, (size_t)n, out);
            b += n;
        }
    }
}

/* Writes padding for [b, e): a tab for a tab, a space for any other code point. */
static void put_padding(FILE *out, const unsigned char *b, const unsigned char *e) {
    while (b < e) {
        int n = utf8_len(b, (size_t)(e - b));
        fputc(*b == '\t' ? '\t' : ' ', out);
        b += n ? n : 1;
    }
}

static size_t count_points(const unsigned char *b, const unsigned char *e) {
    size_t k = 0;
    while (b < e) {
        int n = utf8_len(b, (size_t)(e - b));
        b += n ? n : 1;
        k++;
    }
    return k;
}

/* Moves p back to the start of the code point it is in (at most 3 bytes). */
static const unsigned char *point_start(const unsigned char *lo, const unsigned char *p) {
    for (int i = 0; i < 3 && p > lo && (*p & 0xc0) == 0x80; i++) p--;
    return p;
}

static void print_excerpt(const diag_sink *d, FILE *out, bool color, base_span at) {
    const base_source *s = diag_source(d, at.file);
    if (!s) return;
    uint32_t off = at.off > s->len ? s->len : at.off;
    uint32_t li = line_index(s, off);
    const unsigned char *text = (const unsigned char *)s->text;
    const unsigned char *ls = text + s->line_starts[li];
    const unsigned char *le = li + 1 < s->nlines ? text + s->line_starts[li + 1] - 1 : text + s->len;
    if (le > ls && le[-1] == '\r') le--;
    const unsigned char *caret = text + off;
    if (caret > le) caret = le;
    /* A very long line is shown as a window around the caret. */
    const unsigned char *ws = ls, *we = le;
    bool cut_left = false, cut_right = false;
    if (le - ls > DIAG_LINE_WINDOW) {
        if (caret - ls > DIAG_LINE_WINDOW / 2) {
            ws = point_start(ls, caret - DIAG_LINE_WINDOW / 2);
            cut_left = true;
        }
        if (le - ws > DIAG_LINE_WINDOW) {
            we = point_start(ws, ws + DIAG_LINE_WINDOW);
            cut_right = true;
        }
        if (caret > we) caret = we;
    }
    if (cut_left) fputs("...", out);
    put_display(out, ws, we);
    if (cut_right) fputs("...", out);
    fputc('\n', out);
    if (cut_left) fputs("   ", out);
    put_padding(out, ws, caret);
    const unsigned char *end = text + (at.off > s->len ? s->len : at.off) + at.len;
    if (end > we) end = we;
    size_t tildes = end > caret ? count_points(caret, end) : 1;
    if (color) fputs("\033[1;32m", out);
    fputc('^', out);
    for (size_t i = 1; i < tildes; i++) fputc('~', out);
    if (color) fputs("\033[0m", out);
    fputc('\n', out);
}

void diag_print(const diag_sink *d, FILE *out, bool color) {
    static const char *const names[] = {"error", "warning", "note"};
    static const char *const colors[] = {"\033[1;31m", "\033[1;35m", "\033[1;36m"};
    for (uint32_t i = 0; i < d->entries.len; i++) {
        const diag_entry *e = d->entries.items[i];
        const base_source *s = diag_source(d, e->at.file);
        if (color) fputs("\033[1m", out);
        if (s) {
            base_pos p = diag_position(d, e->at);
            fprintf(out, "%s:%u:%u: ", s->path, p.line, p.col);
        } else {
            fputs("oxl: ", out);
        }
        if (color) fputs(colors[e->level], out);
        fprintf(out, "%s:", names[e->level]);
        if (color) fputs("\033[0m\033[1m", out);
        fprintf(out, " %s", e->msg);
        if (color) fputs("\033[0m", out);
        fputc('\n', out);
        if (s && !e->internal) print_excerpt(d, out, color, e->at);
    }
    if (d->dropped_errors)
        fprintf(out, "oxl: note: %u more error%s not shown (the limit is %u)\n", d->dropped_errors,
                d->dropped_errors == 1 ? "" : "s", (unsigned)BASE_MAX_ERRORS);
}

/* ---- bounded text ---- */

void base_text_init(base_text *t, char *buf, size_t cap) {
    t->buf = buf;
    t->cap = cap;
    t->len = 0;
    t->full = false;
    buf[0] = '\0';
}

void base_text_add(base_text *t, const char *s) {
    if (t->full) return;
    size_t n = strlen(s), room = t->cap - 1 - t->len;
    if (n > room) { /* cut, leaving room for the marker */
        if (room >= 3) {
            memcpy(t->buf + t->len, s, room - 3);
            t->len += room - 3;
        } else {
            t->len = t->cap - 4; /* the marker overwrites the tail */
        }
        memcpy(t->buf + t->len, "...", 4);
        t->len += 3;
        t->full = true;
        return;
    }
    memcpy(t->buf + t->len, s, n + 1);
    t->len += n;
}
