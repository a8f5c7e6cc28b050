/* harness.c: the runner tests' harness (harness.h). */
#define _GNU_SOURCE /* unshare */
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef FAKE_TESTBIN
#error FAKE_TESTBIN must name the fake test binary
#endif

char work[512], pkg[1024], state[1024], cache[1024], tmpd[1024];

/* ---- the hook: a builder that copies the fake test binary ---- */

static int fake_build(void *ctx, const char *p, const char *out, bool show, int opt) {
    (void)ctx;
    char log[TR_PATH];
    snprintf(log, sizeof log, "%s/builds", work);
    FILE *f = fopen(log, "a");
    if (f) {
        fprintf(f, "%s O%d\n", p, opt);
        fclose(f);
    }
    const char *st = getenv("FAKE_BUILD_STATUS");
    if (st && *st && strcmp(st, "0") != 0) {
        if (strcmp(st, "1") == 0) fprintf(stderr, "fake.oxl:1:1: error: a compile error\n");
        return atoi(st);
    }
    return tr_copy_file(FAKE_TESTBIN, out, 0755) ? 0 : 3;
}

char *slurp(const char *path) {
    size_t len;
    char *s = tr_read_all(path, 64u << 20, &len);
    return s ? s : tr_xstrdup("");
}

pid_t run_start(const char *const *env, const char *const *args, const char *tty) {
    return run_start_as("run", env, args, tty);
}

static bool write_proc(const char *path, const char *text) {
    int fd = open(path, O_WRONLY);
    if (fd < 0) return false;
    bool ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    return close(fd) == 0 && ok;
}

/* In a run's child: the cache directory on a tmpfs of its own, in a mount
 * namespace of the child's own ("SIZE" bytes; "ro": read-only, with its
 * test-binaries directory made first). False when the system allows no
 * such namespace. */
static bool private_cache(const char *spec) {
    uid_t uid = geteuid();
    gid_t gid = getegid();
    if (unshare(uid == 0 ? CLONE_NEWNS : CLONE_NEWUSER | CLONE_NEWNS) != 0) return false;
    if (uid != 0) {
        char map[64];
        snprintf(map, sizeof map, "%ld %ld 1\n", (long)uid, (long)uid);
        if (!write_proc("/proc/self/uid_map", map) || !write_proc("/proc/self/setgroups", "deny")) return false;
        snprintf(map, sizeof map, "%ld %ld 1\n", (long)gid, (long)gid);
        if (!write_proc("/proc/self/gid_map", map)) return false;
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return false;
    mkdir(cache, 0755);
    bool ro = strcmp(spec, "ro") == 0;
    char opts[64];
    snprintf(opts, sizeof opts, "size=%s", ro ? "1m" : spec);
    if (mount("tmpfs", cache, "tmpfs", 0, opts) != 0) return false;
    if (ro) {
        char sub[TR_PATH];
        snprintf(sub, sizeof sub, "%s/test-binaries", cache);
        mkdir(sub, 0755);
        if (mount(NULL, cache, NULL, MS_REMOUNT | MS_RDONLY, NULL) != 0) return false;
    }
    return true;
}

pid_t run_start_as(const char *tag, const char *const *env, const char *const *args, const char *tty) {
    char out[TR_PATH], err[TR_PATH];
    snprintf(out, sizeof out, "%s/%s.out", work, tag);
    snprintf(err, sizeof err, "%s/%s.err", work, tag);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int o = open(tty ? tty : out, tty ? O_RDWR : O_WRONLY | O_CREAT | O_TRUNC, 0644),
            e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(o, 1);
        dup2(e, 2);
        setenv("OXL_CACHE_DIR", cache, 1);
        setenv("FAKE_STATE_DIR", state, 1);
        setenv("TMPDIR", tmpd, 1);
        for (const char *const *v = env; v && *v; v++)
            if (strncmp(*v, "HARNESS_CACHE=", 14) == 0 && !private_cache(*v + 14)) _exit(HARNESS_NO_NAMESPACE);
        unsetenv("TEST_TOTAL_SHARDS");
        unsetenv("TEST_SHARD_INDEX");
        unsetenv("TEST_SHARD_STATUS_FILE");
        unsetenv("XML_OUTPUT_FILE");
        unsetenv("OXL_TEST_KEEP_BINARY");
        for (const char *const *v = env; v && *v; v++) {
            const char *eq = strchr(*v, '=');
            if (!eq) {
                unsetenv(*v);
                continue;
            }
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(eq - *v), *v);
            setenv(name, eq + 1, 1);
        }
        int argc = 0;
        char *argv[64];
        for (const char *const *a = args; a && *a && argc < 63; a++) argv[argc++] = (char *)*a;
        argv[argc] = NULL;
        tr_hooks h = {fake_build, NULL, FAKE_TESTBIN, NULL, NULL, NULL};
        int st = tr_main(argc, argv, &h);
        fflush(stdout);
        fflush(stderr);
        _exit(st);
    }
    return pid;
}

result run_finish(pid_t pid, double t0) { return run_finish_as("run", pid, t0); }

result run_finish_as(const char *tag, pid_t pid, double t0) {
    char out[TR_PATH], err[TR_PATH];
    snprintf(out, sizeof out, "%s/%s.out", work, tag);
    snprintf(err, sizeof err, "%s/%s.err", work, tag);
    int st;
    waitpid(pid, &st, 0);
    result r;
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r.out = slurp(out);
    r.err = slurp(err);
    r.seconds = tr_now() - t0;
    return r;
}

result run_env(const char *const *env, const char *const *args) {
    double t0 = tr_now();
    return run_finish(run_start(env, args, NULL), t0);
}


void free_result(result *r) {
    free(r->out);
    free(r->err);
}

void show(const result *r) {
    tap_diag("status %d; stdout:\n%s\nstderr:\n%s", r->status, r->out, r->err);
}

void reset_state(void) {
    tr_remove_tree(state);
    mkdir(state, 0755);
}

char *read_log(void) {
    char p[TR_PATH];
    snprintf(p, sizeof p, "%s/log", state);
    return slurp(p);
}

int count_lines(const char *s, const char *prefix) {
    int n = 0;
    size_t pl = strlen(prefix);
    for (const char *p = s; *p;) {
        if (strncmp(p, prefix, pl) == 0) n++;
        const char *nl = strchr(p, '\n');
        if (!nl) break;
        p = nl + 1;
    }
    return n;
}

bool dir_empty(const char *path) {
    DIR *d = opendir(path);
    if (!d) return true;
    struct dirent *e;
    bool empty = true;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = false;
    closedir(d);
    return empty;
}

/* ---- a small JSON validator (one value per line) ---- */

static const char *js_ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    return p;
}

static const char *js_value(const char *p, int depth);

static const char *js_string(const char *p) {
    if (*p != '"') return NULL;
    for (p++; *p != '"'; p++) {
        if ((unsigned char)*p < 0x20) return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i]) return NULL;
                p += 4;
            } else if (!*p || !strchr("\"\\/bfnrt", *p)) return NULL;
        }
    }
    return p + 1;
}

static const char *js_value(const char *p, int depth) {
    if (depth > 64) return NULL;
    p = js_ws(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        bool obj = *p == '{';
        p = js_ws(p + 1);
        if (*p == close) return p + 1;
        for (;;) {
            if (obj) {
                p = js_string(js_ws(p));
                if (!p) return NULL;
                p = js_ws(p);
                if (*p != ':') return NULL;
                p++;
            }
            p = js_value(p, depth + 1);
            if (!p) return NULL;
            p = js_ws(p);
            if (*p == ',') {
                p++;
                continue;
            }
            if (*p == close) return p + 1;
            return NULL;
        }
    }
    if (*p == '"') return js_string(p);
    if (strncmp(p, "true", 4) == 0) return p + 4;
    if (strncmp(p, "false", 5) == 0) return p + 5;
    if (strncmp(p, "null", 4) == 0) return p + 4;
    char *end;
    strtod(p, &end);
    return end == p ? NULL : end;
}

/* Every line one JSON object; returns the number of lines, -1 if one is bad. */
int json_lines(const char *s) {
    int n = 0;
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        char *line = tr_xmalloc(len + 1);
        memcpy(line, s, len);
        line[len] = '\0';
        const char *e = line[0] == '{' ? js_value(line, 0) : NULL;
        bool ok = e && *js_ws(e) == '\0';
        if (!ok) tap_diag("bad JSON line: %s", line);
        free(line);
        if (!ok) return -1;
        n++;
        if (!nl) break;
        s = nl + 1;
    }
    return n;
}

/* ---- package and spec ---- */

void set_tests(const char *spec) { setenv("FAKE_TESTS", spec, 1); }

void write_pkg_file(const char *rel, const char *text) {
    char p[TR_PATH];
    snprintf(p, sizeof p, "%s/%s", pkg, rel);
    tr_write_file(p, text, strlen(text), 0644);
}

char *failures_file(void) {
    char p[TR_PATH];
    snprintf(p, sizeof p, "%s/oxl-test-failures.txt", pkg);
    if (access(p, F_OK) != 0) return NULL;
    return slurp(p);
}

void remove_failures(void) {
    char p[TR_PATH];
    snprintf(p, sizeof p, "%s/oxl-test-failures.txt", pkg);
    unlink(p);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Seeds run for test index idx, in increasing order, as "a,b,c" (parallel
 * runs log in any order). */
void seeds_run(const char *log, int idx, char *buf, size_t cap) {
    uint64_t seeds[512];
    size_t n = 0;
    for (const char *p = log; *p;) {
        int i;
        unsigned long long seed;
        if (sscanf(p, "%d %llu", &i, &seed) == 2 && i == idx && n < 512) seeds[n++] = seed;
        const char *nl = strchr(p, '\n');
        if (!nl) break;
        p = nl + 1;
    }
    qsort(seeds, n, sizeof *seeds, cmp_u64);
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < n; k++) {
        char num[24];
        snprintf(num, sizeof num, "%llu", (unsigned long long)seeds[k]);
        if (len + strlen(num) + 2 >= cap) break;
        if (len) buf[len++] = ',';
        strcpy(buf + len, num);
        len += strlen(num);
    }
}


/* How many processes of the log ran as "fork" (a child of the server)
 * and as "exec"; seed (or -1 for any) selects lines of test idx. */
/* The parent pid of each "fork" line of the log, and how many lines
 * name it. */
static int server_uses(const char *log, long ppid) {
    int n = 0;
    for (const char *p = log; *p;) {
        int i;
        char sd[32], dir[TR_PATH], rep[8], via[8];
        long pid, pgid, pp;
        if (sscanf(p, "%d %31s %ld %ld %4095s %7s %7s %ld", &i, sd, &pid, &pgid, dir, rep, via, &pp) == 8 &&
            strcmp(via, "fork") == 0 && pp == ppid)
            n++;
        const char *nl = strchr(p, '\n');
        if (!nl) break;
        p = nl + 1;
    }
    return n;
}

void count_via(const char *log, int idx, long seed, int *shared_n, int *own_n, int *exec_n) {
    *shared_n = *own_n = *exec_n = 0;
    for (const char *p = log; *p;) {
        int i;
        char sd[32], dir[TR_PATH], rep[8], via[8];
        long pid, pgid, ppid;
        if (sscanf(p, "%d %31s %ld %ld %4095s %7s %7s %ld", &i, sd, &pid, &pgid, dir, rep, via, &ppid) == 8 &&
            i == idx && (seed < 0 || atol(sd) == seed)) {
            if (strcmp(via, "fork") != 0) ++*exec_n;
            else if (server_uses(log, ppid) > 1) ++*shared_n;
            else ++*own_n;
        }
        const char *nl = strchr(p, '\n');
        if (!nl) break;
        p = nl + 1;
    }
}

/* Fork servers of this work directory still running (argv: <binary in
 * the cache> --serve). */
/* A file of /proc, which says it is empty (st_size 0) and is read to its
 * end instead; its length into *len. NULL when it cannot be opened. */
char *read_proc(const char *path, size_t *len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    tr_buf b = {0};
    tr_buf_add(&b, "", 0);
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) tr_buf_add(&b, buf, (size_t)n);
    close(fd);
    if (len) *len = b.len;
    return b.s;
}

int servers_left(void) {
    DIR *d = opendir("/proc");
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        char p[300];
        snprintf(p, sizeof p, "/proc/%s/cmdline", e->d_name);
        size_t len;
        char *c = read_proc(p, &len);
        if (!c) continue;
        if (len > strlen(c) + 1 && strncmp(c, cache, strlen(cache)) == 0 && strcmp(c + strlen(c) + 1, "--serve") == 0 &&
            alive(atol(e->d_name))) {
            n++;
        }
        free(c);
    }
    closedir(d);
    return n;
}

/* JSON lines without their "seconds" fields (times differ run to run)
 * and "processes" (under -j 2 a seed after a failure may or may not have
 * started before it). */
char *without_timing(const char *s) {
    tr_buf b = {0};
    for (const char *p = s; *p;) {
        const char *q = strstr(p, "\"seconds\":"), *q2 = strstr(p, "\"processes\":");
        if (!q || (q2 && q2 < q)) q = q2;
        if (!q) {
            tr_buf_puts(&b, p);
            break;
        }
        tr_buf_add(&b, p, (size_t)(q - p));
        p = q + 1;
        while (*p && *p != ',' && *p != '}') p++;
    }
    return b.s ? b.s : tr_xstrdup("");
}

bool alive(long pid) {
    char p[64];
    snprintf(p, sizeof p, "/proc/%ld/stat", pid);
    char *s = read_proc(p, NULL);
    if (!s) return false;
    char *rp = strrchr(s, ')');
    bool z = rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
    free(s);
    return !z;
}

int count_builds(void) {
    char p[TR_PATH];
    snprintf(p, sizeof p, "%s/builds", work);
    char *s = slurp(p);
    int n = count_lines(s, "");
    free(s);
    return n;
}

void harness_init(const char *name) {
    const char *base = getenv("TMPDIR");
    snprintf(work, sizeof work, "%s/oxl-%s-XXXXXX", base && *base ? base : "/tmp", name);
    if (!mkdtemp(work)) tap_bail("cannot create a work directory");
    snprintf(pkg, sizeof pkg, "%s/pkg", work);
    snprintf(state, sizeof state, "%s/state", work);
    snprintf(cache, sizeof cache, "%s/cache", work);
    snprintf(tmpd, sizeof tmpd, "%s/tmp", work);
    mkdir(pkg, 0755);
    mkdir(tmpd, 0755);
    char sub[TR_PATH];
    snprintf(sub, sizeof sub, "%s/sub", pkg);
    mkdir(sub, 0755);
    write_pkg_file("a.oxl", "// a package\n");
    write_pkg_file("sub/b.oxl", "// a subpackage\n");
}

int harness_done(void) {
    if (tap_failures() == 0) tr_remove_tree(work);
    else tap_diag("work directory kept: %s", work);
    return tap_done();
}
