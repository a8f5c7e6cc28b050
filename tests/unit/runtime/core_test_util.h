/* core_test_util.h: helpers for the core runtime's TAP tests: run a
 * statement in a forked child and check its exit status and output. */
#ifndef OXL_CORE_TEST_UTIL_H
#define OXL_CORE_TEST_UTIL_H

#include "oxl_rt.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct ct_child {
    pid_t pid;
    int out_fd, err_fd;
    int status;     /* exit status, or 1000 + signal */
    char out[8192]; /* captured stdout */
    char err[8192]; /* captured stderr */
} ct_child;

static inline void ct_read_all(int fd, char *buf, size_t cap) {
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r <= 0) break;
        n += (size_t)r;
        if (n == cap - 1) {
            char sink[512];
            while (read(fd, sink, sizeof sink) > 0) {}
            break;
        }
    }
    buf[n] = '\0';
    close(fd);
}

/* Returns true in the child (stdout and stderr go to pipes), false in the
 * parent. */
static inline bool ct_fork(ct_child *c) {
    int o[2], e[2];
    fflush(stdout);
    fflush(stderr);
    if (pipe(o) || pipe(e)) tap_bail("pipe failed");
    c->pid = fork();
    if (c->pid < 0) tap_bail("fork failed");
    if (c->pid == 0) {
        dup2(o[1], 1);
        dup2(e[1], 2);
        close(o[0]), close(o[1]), close(e[0]), close(e[1]);
        return true;
    }
    close(o[1]), close(e[1]);
    c->out_fd = o[0];
    c->err_fd = e[0];
    return false;
}

static inline void ct_wait(ct_child *c) {
    ct_read_all(c->out_fd, c->out, sizeof c->out);
    ct_read_all(c->err_fd, c->err, sizeof c->err);
    int st = 0;
    waitpid(c->pid, &st, 0);
    c->status = WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* Runs stmt in a child; checks exit status 101 and that stderr is exactly
 * "panic: <msg>\n  at <file>:<line>\n". */
#define CT_PANICS(stmt, file, line, msg)                                                          \
    do {                                                                                          \
        ct_child ct_c_;                                                                           \
        if (ct_fork(&ct_c_)) {                                                                    \
            stmt;                                                                                 \
            fflush(stdout);                                                                       \
            _exit(0);                                                                             \
        }                                                                                         \
        ct_wait(&ct_c_);                                                                          \
        char ct_want_[1024];                                                                      \
        snprintf(ct_want_, sizeof ct_want_, "panic: %s\n  at %s:%d\n", (msg), (file), (line));    \
        tap_is_int(ct_c_.status, 101, "%s: exit status 101", #stmt);                               \
        tap_is_str(ct_c_.err, ct_want_, "%s: panic text", #stmt);                                  \
    } while (0)

static inline oxl_string S(const char *s) { return oxl_str_from_cstr(s); }
static inline oxl_word W(const char *s) { return oxl_word_from_str(oxl_str_from_cstr(s)); }

#endif
