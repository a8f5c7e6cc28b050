/* tr_progress.c: the progress line of the human report: `sim <name>:
 * 120/500 done, 0 failed, 812/s, ETA 1 s`, clamped to the terminal's width
 * (TIOCGWINSZ, else COLUMNS, else 80), counted in the columns a terminal
 * draws (a CJK character takes two), by shortening the name, and drawn
 * only where it can be redrawn in place: stdout a terminal whose TERM is
 * set and not `dumb`. */
#include "tr_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define TR_MIN_WIDTH 20
#define TR_MAX_WIDTH 1000

bool tr_progress_drawable(void) {
    const char *term = getenv("TERM");
    return term && *term && strcmp(term, "dumb") != 0;
}

int tr_term_width(int fd) {
    struct winsize ws;
    int w = 0;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) w = ws.ws_col;
    if (!w) {
        const char *c = getenv("COLUMNS");
        uint64_t v;
        if (c && tr_parse_u64(c, &v) && v > 0 && v <= TR_MAX_WIDTH) w = (int)v;
    }
    if (!w) w = 80;
    if (w < TR_MIN_WIDTH) w = TR_MIN_WIDTH;
    return w > TR_MAX_WIDTH ? TR_MAX_WIDTH : w;
}

/* The columns a terminal gives a code point: 2 for the East Asian Wide
 * and Fullwidth blocks (UAX #11: CJK, Hangul, kana, fullwidth forms, the
 * emoji pictographs), 0 for combining marks, joiners and variation
 * selectors, 1 for the rest. A table of blocks, not every wide symbol:
 * enough that a name in those scripts never overflows the line. */
static const struct { uint32_t lo, hi; unsigned char w; } col_ranges[] = {
    {0x0300, 0x036f, 0},   {0x0483, 0x0489, 0},   {0x0591, 0x05bd, 0},   {0x0610, 0x061a, 0},
    {0x064b, 0x065f, 0},   {0x0e31, 0x0e31, 0},   {0x0e34, 0x0e3a, 0},   {0x0e47, 0x0e4e, 0},
    {0x1100, 0x115f, 2},   {0x1160, 0x11ff, 0},   {0x1ab0, 0x1aff, 0},   {0x1dc0, 0x1dff, 0},
    {0x200b, 0x200f, 0},   {0x202a, 0x202e, 0},   {0x2060, 0x2064, 0},   {0x20d0, 0x20ff, 0},
    {0x231a, 0x231b, 2},   {0x2329, 0x232a, 2},   {0x23e9, 0x23ec, 2},   {0x2614, 0x2615, 2},
    {0x2648, 0x2653, 2},   {0x26a1, 0x26a1, 2},   {0x26bd, 0x26be, 2},   {0x2705, 0x2705, 2},
    {0x270a, 0x270b, 2},   {0x2728, 0x2728, 2},   {0x274c, 0x274c, 2},   {0x2753, 0x2755, 2},
    {0x2b1b, 0x2b1c, 2},   {0x2b50, 0x2b50, 2},   {0x2b55, 0x2b55, 2},   {0x2e80, 0x303e, 2},
    {0x3041, 0x33ff, 2},   {0x3400, 0x4dbf, 2},   {0x4e00, 0x9fff, 2},   {0xa000, 0xa4cf, 2},
    {0xa960, 0xa97f, 2},   {0xac00, 0xd7a3, 2},   {0xf900, 0xfaff, 2},   {0xfe00, 0xfe0f, 0},
    {0xfe10, 0xfe19, 2},   {0xfe20, 0xfe2f, 0},   {0xfe30, 0xfe6f, 2},   {0xfeff, 0xfeff, 0},
    {0xff00, 0xff60, 2},   {0xffe0, 0xffe6, 2},   {0x16fe0, 0x16fe4, 2}, {0x17000, 0x18cff, 2},
    {0x1b000, 0x1b2ff, 2}, {0x1f004, 0x1f004, 2}, {0x1f0cf, 0x1f0cf, 2}, {0x1f18e, 0x1f18e, 2},
    {0x1f191, 0x1f19a, 2}, {0x1f200, 0x1f251, 2}, {0x1f300, 0x1f64f, 2}, {0x1f680, 0x1f6ff, 2},
    {0x1f7e0, 0x1f7eb, 2}, {0x1f900, 0x1f9ff, 2}, {0x1fa70, 0x1faff, 2}, {0x20000, 0x2fffd, 2},
    {0x30000, 0x3fffd, 2}, {0xe0001, 0xe007f, 0}, {0xe0100, 0xe01ef, 0},
};

static unsigned cp_cols(uint32_t c) {
    size_t lo = 0, hi = sizeof col_ranges / sizeof *col_ranges;
    while (lo < hi) { /* the ranges are sorted and disjoint */
        size_t mid = (lo + hi) / 2;
        if (c > col_ranges[mid].hi) lo = mid + 1;
        else if (c < col_ranges[mid].lo) hi = mid;
        else return col_ranges[mid].w;
    }
    return 1;
}

/* The code point at s and its length in bytes; a byte that starts no
 * whole UTF-8 sequence is one column of its own (a terminal shows one
 * replacement character). */
static size_t utf8_next(const char *s, uint32_t *cp) {
    const unsigned char *u = (const unsigned char *)s;
    size_t n = u[0] < 0x80 ? 1 : (u[0] >> 5) == 6 ? 2 : (u[0] >> 4) == 14 ? 3 : (u[0] >> 3) == 30 ? 4 : 0;
    if (n == 0) {
        *cp = 0xfffd;
        return 1;
    }
    uint32_t c = n == 1 ? u[0] : u[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((u[i] & 0xc0) != 0x80) {
            *cp = 0xfffd;
            return 1;
        }
        c = c << 6 | (u[i] & 0x3f);
    }
    *cp = c;
    return n;
}

size_t tr_display_cols_prefix(const char *s, size_t cols, size_t *used) {
    size_t i = 0, c = 0;
    while (s[i]) {
        uint32_t cp;
        size_t n = utf8_next(s + i, &cp);
        unsigned w = cp_cols(cp);
        if (c + w > cols) break;
        c += w;
        i += n;
    }
    *used = c;
    return i;
}

size_t tr_display_cols(const char *s) {
    size_t c;
    tr_display_cols_prefix(s, (size_t)-1, &c);
    return c;
}

static void seconds_text(char *buf, size_t cap, double s) {
    if (s < 10) {
        snprintf(buf, cap, "%.1f s", s);
        return;
    }
    long t = s > 1e9 ? 1000000000L : (long)(s + 0.5);
    if (t < 120) snprintf(buf, cap, "%ld s", t);
    else if (t < 3600) snprintf(buf, cap, "%ldm%02lds", t / 60, t % 60);
    else snprintf(buf, cap, "%ldh%02ldm", t / 3600, t / 60 % 60);
}

void tr_progress_text(tr_buf *b, int width, const char *what, uint64_t done, uint64_t total, uint64_t failed,
                      double elapsed) {
    char tail[160], rate[40] = "", eta[48] = "";
    if (elapsed > 0.2 && done > 0) {
        double per = (double)done / elapsed;
        snprintf(rate, sizeof rate, ", %.0f/s", per);
        char t[24];
        seconds_text(t, sizeof t, (double)(total > done ? total - done : 0) / per);
        snprintf(eta, sizeof eta, ", ETA %s", t);
    }
    snprintf(tail, sizeof tail, ": %" PRIu64 "/%" PRIu64 " done, %" PRIu64 " failed%s%s", done, total, failed, rate,
             eta);
    /* one column free: a line as wide as the terminal wraps on some */
    size_t room = (size_t)width - 1, tcols = tr_display_cols(tail), used;
    if (tcols + 4 > room) { /* no room for a name: the counts alone */
        size_t n = tr_display_cols_prefix(tail + 2, room, &used);
        tr_buf_add(b, tail + 2, n);
        return;
    }
    size_t wcols = tr_display_cols(what);
    if (wcols + tcols <= room) {
        tr_buf_puts(b, what);
    } else {
        size_t n = tr_display_cols_prefix(what, room - tcols - 3, &used);
        tr_buf_add(b, what, n);
        tr_buf_puts(b, "...");
    }
    tr_buf_puts(b, tail);
}
