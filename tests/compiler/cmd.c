/* cmd.c: see cmd.h. */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include "cmd.h"

#include "tap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

int cmd_run(char **out, const char *fmt, ...) {
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(cmd, sizeof cmd - 8, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof cmd - 8) tap_bail("command too long");
    strcat(cmd, " 2>&1");
    fflush(stdout);
    FILE *p = popen(cmd, "r");
    if (!p) {
        if (out) *out = strdup("");
        return -1;
    }
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    if (!buf) tap_bail("out of memory");
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += got;
        if (cap - len < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
            if (!buf) tap_bail("out of memory");
        }
    }
    buf[len] = '\0';
    int st = pclose(p);
    if (out) *out = buf;
    else free(buf);
    if (st == -1) return -1;
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return -1;
}

void cmd_write(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) tap_bail("cannot write %s", path);
}

bool cmd_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

char *cmd_tempdir(const char *tag) {
    const char *t = getenv("TMPDIR");
    if (!t || !*t) t = "/tmp";
    size_t n = strlen(t) + strlen(tag) + 32;
    char *p = malloc(n);
    if (!p) tap_bail("out of memory");
    snprintf(p, n, "%s/oxl-%s-XXXXXX", t, tag);
    if (!mkdtemp(p)) tap_bail("cannot make a temporary directory %s", p);
    return p;
}

void cmd_remove_tree(const char *path) {
    if (cmd_run(NULL, "rm -rf '%s'", path) != 0) tap_diag("could not remove %s", path);
}
