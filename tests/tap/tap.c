#include "tap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    int run;
    int failed;
    int planned; /* -1 = no plan printed yet */
    bool header;
} tap = {0, 0, -1, false};

static void tap_header(void) {
    if (!tap.header) {
        printf("TAP version 13\n");
        tap.header = true;
    }
}

void tap_plan(int n) {
    tap_header();
    tap.planned = n;
    printf("1..%d\n", n);
    fflush(stdout);
}

static bool tap_vreport(bool cond, const char *fmt, va_list ap) {
    tap_header();
    tap.run++;
    if (!cond) tap.failed++;
    printf("%s %d - ", cond ? "ok" : "not ok", tap.run);
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    return cond;
}

bool tap_ok(bool cond, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    bool r = tap_vreport(cond, fmt, ap);
    va_end(ap);
    return r;
}

bool tap_is_int(int64_t got, int64_t want, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    bool r = tap_vreport(got == want, fmt, ap);
    va_end(ap);
    if (!r) tap_diag("  got: %lld\n  want: %lld", (long long)got, (long long)want);
    return r;
}

bool tap_is_uint(uint64_t got, uint64_t want, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    bool r = tap_vreport(got == want, fmt, ap);
    va_end(ap);
    if (!r) tap_diag("  got: %llu\n  want: %llu", (unsigned long long)got, (unsigned long long)want);
    return r;
}

bool tap_is_str(const char *got, const char *want, const char *fmt, ...) {
    bool same = (got == NULL && want == NULL) ||
                (got != NULL && want != NULL && strcmp(got, want) == 0);
    va_list ap;
    va_start(ap, fmt);
    bool r = tap_vreport(same, fmt, ap);
    va_end(ap);
    if (!r)
        tap_diag("  got: %s%s%s\n  want: %s%s%s", got ? "'" : "", got ? got : "NULL", got ? "'" : "",
                 want ? "'" : "", want ? want : "NULL", want ? "'" : "");
    return r;
}

bool tap_contains(const char *haystack, const char *needle, const char *fmt, ...) {
    bool found = haystack != NULL && needle != NULL && strstr(haystack, needle) != NULL;
    va_list ap;
    va_start(ap, fmt);
    bool r = tap_vreport(found, fmt, ap);
    va_end(ap);
    if (!r) tap_diag("  '%s'\n  does not contain '%s'", haystack ? haystack : "NULL", needle ? needle : "NULL");
    return r;
}

void tap_skip(const char *why, const char *fmt, ...) {
    tap_header();
    tap.run++;
    printf("ok %d - ", tap.run);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf(" # SKIP %s\n", why);
    fflush(stdout);
}

/* Each line of a diagnostic gets its own '#' so multi-line text stays TAP. */
void tap_diag(const char *fmt, ...) {
    char buf[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    tap_header();
    const char *line = buf;
    for (;;) {
        const char *nl = strchr(line, '\n');
        int len = nl ? (int)(nl - line) : (int)strlen(line);
        printf("# %.*s\n", len, line);
        if (!nl) break;
        line = nl + 1;
    }
    fflush(stdout);
}

void tap_bail(const char *fmt, ...) {
    tap_header();
    printf("Bail out! ");
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    exit(1);
}

int tap_failures(void) { return tap.failed; }

int tap_done(void) {
    if (tap.planned < 0) tap_plan(tap.run);
    if (tap.run == 0) {
        printf("# no test ran\n");
        return 1;
    }
    if (tap.planned >= 0 && tap.planned != tap.run) {
        printf("# planned %d tests but ran %d\n", tap.planned, tap.run);
        return 1;
    }
    if (tap.failed) printf("# failed %d of %d\n", tap.failed, tap.run);
    fflush(stdout);
    return tap.failed ? 1 : 0;
}
