/* fence_trip.c: the failure of a fenced call: its message, with the C
 * caller's file:line found by addr2line in the program's debug information,
 * and the panic that ends the run. Linked only with the wrappers (fence.c
 * is its one user), so it may call __real_ functions. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include "fence/fence.h"
#include "oxl_rt.h"
#include "oxl_sched.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define FENCE_WHERE_MAX 4096 /* bytes of addr2line's answer read */

extern char **environ;
int __real_posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                        const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);

static const char *const fence_advice[] = {
    [FENCE_CLOCK] = "use std.time: time in a simulation is virtual (C: oxl_std_time_now)",
    [FENCE_SLEEP] = "use std.time.sleep: time in a simulation is virtual (C: oxl_std_time_sleep)",
    [FENCE_RANDOM] = "use sim.rand(), the seed's own stream (C: oxl_rand)",
    [FENCE_FILE] = "files are outside the simulation (a node's state belongs on its simulated disk)",
    [FENCE_NET] = "real sockets are outside the simulation, whose network is simulated",
    [FENCE_THREAD] = "use spawn: tasks run on the deterministic scheduler, threads do not",
    [FENCE_PROCESS] = "processes are outside the simulation",
    [FENCE_ENV] = "the environment is outside the simulation (pass the value in from OxL)",
    [FENCE_PID] = "process ids differ from run to run (use sim.seed() or a node's name)",
};

const char *fence_quote(char buf[FENCE_QUOTE_MAX], const char *s) {
    if (!s) return strcpy(buf, "NULL");
    size_t n = 0;
    buf[n++] = '"';
    for (size_t i = 0; s[i] && n < FENCE_QUOTE_MAX - 8; i++) {
        if (i == 200) {
            memcpy(buf + n, "...", 3);
            n += 3;
            break;
        }
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            buf[n++] = '\\';
            buf[n++] = (char)c;
        } else if (c < 0x20 || c == 0x7f) {
            n += (size_t)snprintf(buf + n, 5, "\\x%02x", c);
        } else {
            buf[n++] = (char)c;
        }
    }
    buf[n++] = '"';
    buf[n] = '\0';
    return buf;
}

/* ---- where the call came from ---- */

typedef struct fence_object {
    uintptr_t addr;  /* in */
    uintptr_t bias;  /* out: the object's load bias */
    char path[4096]; /* out: "" for the program itself */
    bool found;
} fence_object;

static int find_object(struct dl_phdr_info *info, size_t size, void *arg) {
    fence_object *o = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && o->addr >= lo && o->addr < lo + ph->p_memsz) {
            o->bias = info->dlpi_addr;
            snprintf(o->path, sizeof o->path, "%s", info->dlpi_name ? info->dlpi_name : "");
            o->found = true;
            return 1;
        }
    }
    return 0;
}

/* Runs `addr2line -f -e exe 0x<offset>` and reads its two lines (function,
 * file:line) into out. False when it could not run or said nothing. */
static bool addr2line(const char *exe, uintptr_t offset, char *out, size_t cap) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    char hex[32];
    snprintf(hex, sizeof hex, "0x%jx", (uintmax_t)offset);
    char *argv[] = {"addr2line", "-f", "-e", (char *)exe, hex, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = __real_posix_spawnp(&pid, "addr2line", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    size_t n = 0;
    if (rc == 0) {
        for (;;) {
            ssize_t got = read(fds[0], out + n, cap - 1 - n);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) break;
            n += (size_t)got;
            if (n == cap - 1) break;
        }
    }
    close(fds[0]);
    out[n] = '\0';
    if (rc != 0) return false;
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return n > 0;
}

/* " called from wallclock.c:8 (in f)" or less, as far as it is known. */
static void describe_caller(const void *caller, char *out, size_t cap) {
    out[0] = '\0';
    fence_object o = {.addr = (uintptr_t)caller};
    if (!caller || !dl_iterate_phdr(find_object, &o) || !o.found) return;
    char exe[4096];
    if (o.path[0]) {
        snprintf(exe, sizeof exe, "%s", o.path);
    } else {
        ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (k <= 0) return;
        exe[k] = '\0';
    }
    char answer[FENCE_WHERE_MAX];
    /* the return address is past the call: one byte back is in it */
    if (!addr2line(exe, o.addr - o.bias - 1, answer, sizeof answer)) return;
    char *fn = answer, *nl = strchr(answer, '\n');
    if (!nl) return;
    *nl = '\0';
    char *file = nl + 1;
    file[strcspn(file, "\n")] = '\0';
    char *disc = strstr(file, " (discriminator");
    if (disc) *disc = '\0';
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    bool known_file = strncmp(base, "??", 2) != 0;
    bool known_line = known_file && !strstr(base, ":0") && !strstr(base, ":?");
    bool known_fn = strcmp(fn, "??") != 0 && *fn;
    if (known_file) {
        char shown[512];
        snprintf(shown, sizeof shown, "%.200s", base);
        if (!known_line) shown[strcspn(shown, ":")] = '\0';
        if (known_fn)
            snprintf(out, cap, " called from %.200s (in %.200s)", shown, fn);
        else
            snprintf(out, cap, " called from %.200s", shown);
    } else if (known_fn) {
        snprintf(out, cap, " called from %.200s", fn);
    }
}

void fence_trip(fence_kind kind, const void *caller, const char *call, ...) {
    /* the report's own calls (addr2line) must pass */
    oxl_fence_allow_begin();
    char what[1536], where[1024];
    va_list ap;
    va_start(ap, call);
    vsnprintf(what, sizeof what, call, ap);
    va_end(ap);
    describe_caller(caller, where, sizeof where);
    oxl_fence_allow_end();
    /* the OxL line of the extern call that led here */
    oxl_call_site site = oxl_extern_caller("(C code)");
    oxl_panic_at(site.file, site.line, "fence: %s%s inside a simulation; %s", what, where, fence_advice[kind]);
}
