/* tr_progress.c: the progress line of the human report: `sim <name>:
 * 120/500 done, 0 failed, 812/s, ETA 1 s`, clamped to the terminal's width
 * (TIOCGWINSZ, else COLUMNS, else 80) by shortening the name, and drawn
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

/* Bytes of the first cols columns of s (a column per UTF-8 character). */
static size_t cols_prefix(const char *s, size_t cols, size_t *used) {
    size_t i = 0, c = 0;
    while (s[i] && c < cols) {
        i++;
        while (((unsigned char)s[i] & 0xc0) == 0x80) i++;
        c++;
    }
    *used = c;
    return i;
}

static size_t cols_of(const char *s) {
    size_t c;
    cols_prefix(s, (size_t)-1, &c);
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
    size_t room = (size_t)width - 1, tcols = cols_of(tail), used;
    if (tcols + 4 > room) { /* no room for a name: the counts alone */
        size_t n = cols_prefix(tail + 2, room, &used);
        tr_buf_add(b, tail + 2, n);
        return;
    }
    size_t wcols = cols_of(what);
    if (wcols + tcols <= room) {
        tr_buf_puts(b, what);
    } else {
        size_t n = cols_prefix(what, room - tcols - 3, &used);
        tr_buf_add(b, what, n);
        tr_buf_puts(b, "...");
    }
    tr_buf_puts(b, tail);
}
