/* std_time_test.c: std.time's sleep, called from C outside any run of the
 * scheduler, panics at its caller's line (status 101): std.time checks
 * for a task only through oxl_sleep_at, which must name the OxL line the
 * generated code stored in oxl_extern_site, or "(std.time)" without one. */
#define _POSIX_C_SOURCE 200809L
#include "oxl_rt.h"
#include "oxl_sched.h"
#include "oxl_std_time.h"
#include "tap.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs fn in a child; its stderr into buf, its wait status returned. */
static int in_child(void (*fn)(void), char *buf, size_t cap) {
    int out[2];
    if (pipe(out) != 0) tap_bail("pipe");
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) tap_bail("fork");
    if (pid == 0) {
        close(out[0]);
        dup2(out[1], 2);
        fn();
        _exit(0); /* not reached when fn panics */
    }
    close(out[1]);
    size_t n = 0;
    ssize_t k;
    while (n + 1 < cap && (k = read(out[0], buf + n, cap - 1 - n)) > 0) n += (size_t)k;
    buf[n] = '\0';
    close(out[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0) {
    }
    return st;
}

static void sleep_from_oxl_line(void) {
    oxl_extern_site = (oxl_call_site){"ticker.oxl", 7};
    oxl_std_time_sleep(OXL_MS);
}

static void sleep_from_c(void) {
    oxl_extern_site = (oxl_call_site){NULL, 0};
    oxl_std_time_sleep(OXL_MS);
}

static void c_api_sleep(void) { oxl_sleep_at(OXL_MS, "client.c", 42); }

int main(void) {
    char buf[4096];
    int st = in_child(sleep_from_oxl_line, buf, sizeof buf);
    tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 101, "std.time's sleep outside a run: status 101 (%d)", st);
    tap_ok(strstr(buf, "sleep outside a task") && strstr(buf, "ticker.oxl:7"),
           "a panic naming the OxL caller's line: %s", buf);

    st = in_child(sleep_from_c, buf, sizeof buf);
    tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 101 && strstr(buf, "sleep outside a task") && strstr(buf, "(std.time)"),
           "without a call site, the panic names std.time: %s", buf);

    st = in_child(c_api_sleep, buf, sizeof buf);
    tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 101 && strstr(buf, "sleep outside a task") && strstr(buf, "client.c:42"),
           "oxl_sleep_at from C outside a run: the same panic at its line: %s", buf);
    return tap_done();
}
