/* test_explore.c: the in-process explorer of a test binary
 * (docs/test-binary.md, "Explore mode"): one long-lived process runs sim
 * seed after sim seed, for `oxl test --in-process`. Plain POSIX C with no
 * runtime dependency, like test_serve.c, so the runner's fake test binary
 * explores with the same loop.
 *
 * Requests (fd 0), one line each: `<index>\t<seed>`. Answers (fd 1), one
 * line each, in order: `done <seed> <status> <trace> <usec>` with the
 * exit status an exec'd run of that seed would have and its trace hash
 * (16 hex digits), or `error <message>` for a malformed request. What the
 * runs print goes to the explorer's stderr. The process dies with its
 * parent, and ends at the end of its input. */
#include "test_serve.h"

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define EXPLORE_LINE 256  /* an answer, at most */
#define EXPLORE_IN 65536  /* requests read at once */
#define EXPLORE_OUT 65536 /* answers written at once */

static int64_t mono_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* A decimal without sign or leading zeros, up to 2^63-1. */
static bool parse_u63(const char *s, const char *end, uint64_t *out) {
    if (s == end || end - s > 19 || (s[0] == '0' && end - s > 1)) return false;
    uint64_t v = 0;
    for (const char *p = s; p < end; p++) {
        if (*p < '0' || *p > '9') return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (v > (uint64_t)INT64_MAX) return false;
    *out = v;
    return true;
}

/* The answers' buffer: one write each, and requests read in chunks. */
typedef struct outbuf {
    char s[EXPLORE_OUT];
    size_t len;
} outbuf;

static bool flush_out(outbuf *o) {
    for (size_t done = 0; done < o->len;) {
        ssize_t w = write(1, o->s + done, o->len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        done += (size_t)w;
    }
    o->len = 0;
    return true;
}

static bool say(outbuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool say(outbuf *o, const char *fmt, ...) {
    if (o->len + EXPLORE_LINE > sizeof o->s && !flush_out(o)) return false;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->s + o->len, sizeof o->s - o->len, fmt, ap);
    va_end(ap);
    if (n > 0) o->len += (size_t)n < sizeof o->s - o->len ? (size_t)n : sizeof o->s - o->len - 1;
    return true;
}

/* One request line (without its newline): answered into o. */
static bool take(outbuf *o, char *line, int (*run_seed)(void *, uint64_t, uint64_t, uint64_t *), void *ctx) {
    char *tab = strchr(line, '\t');
    uint64_t index, seed;
    if (!tab || !parse_u63(line, tab, &index) || !parse_u63(tab + 1, line + strlen(line), &seed))
        return say(o, "error malformed request: expected <index> TAB <seed>\n");
    uint64_t trace = 0;
    int64_t t0 = mono_us();
    int status = run_seed(ctx, index, seed, &trace);
    fflush(stderr); /* the runs' output, in order */
    return say(o, "done %" PRIu64 " %d %016" PRIx64 " %lld\n", seed, status, trace, (long long)(mono_us() - t0));
}

int oxl_test_explore(int (*run_seed)(void *ctx, uint64_t index, uint64_t seed, uint64_t *trace), void *ctx) {
    /* nothing of it outlives the runner: it learns of its death as SIGKILL */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    static char in[EXPLORE_IN];
    static outbuf o;
    size_t len = 0;
    bool skipping = false;
    for (;;) {
        ssize_t n = read(0, in + len, sizeof in - 1 - len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        len += (size_t)n;
        char *p = in, *nl;
        while ((nl = memchr(p, '\n', len - (size_t)(p - in)))) {
            *nl = '\0';
            if (skipping) skipping = false;
            /* each answer out before the next seed runs: one that crashes
             * the explorer costs only itself */
            else if (!take(&o, p, run_seed, ctx) || !flush_out(&o)) return 3;
            p = nl + 1;
        }
        len -= (size_t)(p - in);
        memmove(in, p, len);
        if (len == sizeof in - 1) {
            if (!skipping && !say(&o, "error malformed request: longer than %d bytes\n", (int)sizeof in - 2)) return 3;
            skipping = true;
            len = 0;
        }
        if (!flush_out(&o)) return 3; /* the runner is gone */
    }
    if (len && !skipping) say(&o, "error malformed request: the input ended inside a line\n");
    return flush_out(&o) ? 0 : 3;
}
