/* base.h: what every compiler stage shares: arenas, interned names, source
 * files and the diagnostics sink. Prefixes: base_ (arena, names, sources),
 * diag_ (diagnostics). No stage exits the process: errors go to the sink,
 * and the driver reads it. */
#ifndef OXL_BASE_H
#define OXL_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GNUC__)
#define BASE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define BASE_PRINTF(f, a)
#endif

/* ---- limits (a limit on everything) ---- */
#define BASE_MAX_SOURCE_BYTES (64u << 20) /* one file */
#define BASE_MAX_NESTING 256              /* parentheses, blocks, types: deeper is "too deeply nested" */
#define BASE_MAX_ERRORS 100               /* the sink stops recording after this many errors */

/* ---- arenas: compiler data lives until the compilation ends ---- */
typedef struct base_arena base_arena;
base_arena *base_arena_new(void);
void base_arena_free(base_arena *a);
void *base_alloc(base_arena *a, size_t size);          /* zeroed, 16-byte aligned; aborts on OOM */
char *base_strndup(base_arena *a, const char *s, size_t n);
size_t base_arena_bytes(const base_arena *a);

/* ---- growable arrays of pointers, in an arena ---- */
typedef struct base_vec {
    void **items;
    uint32_t len, cap;
} base_vec;
void base_vec_push(base_arena *a, base_vec *v, void *item);

/* ---- bounded text: messages built in a fixed buffer ---- */
typedef struct base_text {
    char *buf;
    size_t cap, len; /* buf holds len bytes and a NUL; cap >= 4 */
    bool full;       /* truncated: ends in "..." and takes nothing more */
} base_text;
void base_text_init(base_text *t, char *buf, size_t cap);
/* Appends s; what does not fit is cut and marked with "...". */
void base_text_add(base_text *t, const char *s);

/* ---- interned names: equal text <=> equal pointer ---- */
typedef struct base_names base_names;
base_names *base_names_new(base_arena *a);
const char *base_intern(base_names *n, const char *s, size_t len);

/* ---- source files ---- */
typedef struct base_source {
    uint32_t id;          /* index in the sink's table */
    const char *path;     /* as given on the command line or found in the package */
    const char *text;     /* NUL-terminated copy; may contain other NULs (reported by the lexer) */
    uint32_t len;
    uint32_t *line_starts; /* byte offset of each line */
    uint32_t nlines;
} base_source;

/* A place in a source: byte offset and length. Line and column are derived
 * on demand; columns are 1-based and count bytes, as gcc and Go do. */
typedef struct base_span {
    uint32_t file, off, len;
} base_span;

/* A span's file for a diagnostic that has no place in any source (added
 * with the syntax front end: diag_print shows "oxl: error: ..."). */
#define BASE_NO_FILE UINT32_MAX

typedef struct base_pos {
    uint32_t line, col;
} base_pos;

/* ---- diagnostics ---- */
typedef enum diag_level { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } diag_level;

typedef struct diag_sink diag_sink;
diag_sink *diag_new(void);
void diag_free(diag_sink *d);
/* Registers a source (copied into the sink's arena). */
const base_source *diag_add_source(diag_sink *d, const char *path, const char *text, size_t len);
const base_source *diag_source(const diag_sink *d, uint32_t file);
base_pos diag_position(const diag_sink *d, base_span at);

void diag_report(diag_sink *d, diag_level level, base_span at, const char *fmt, ...) BASE_PRINTF(4, 5);
void diag_vreport(diag_sink *d, diag_level level, base_span at, const char *fmt, va_list ap);
/* A bug in the compiler, reported as such with the compiler's own place. */
void diag_internal(diag_sink *d, const char *cfile, int cline, const char *fmt, ...) BASE_PRINTF(4, 5);
#define DIAG_INTERNAL(d, ...) diag_internal((d), __FILE__, __LINE__, __VA_ARGS__)

unsigned diag_errors(const diag_sink *d);
unsigned diag_warnings(const diag_sink *d);
bool diag_had_internal(const diag_sink *d);

/* Prints every diagnostic in the order reported:
 *   path:line:col: error: message
 *      <the source line>
 *      ^~~~ (a caret under the span)
 * color when `color` is true. */
void diag_print(const diag_sink *d, FILE *out, bool color);

#endif
