/* paths.c: the runtime and standard library next to the oxl executable
 * (see paths.h and docs/oxl-build.md, "Installing"). */
#include "driver/paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool drv_self_dir(char *buf, size_t cap) {
    if (cap < 2) return false;
    ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
    if (n <= 0 || (size_t)n >= cap - 1) return false; /* error, or maybe truncated */
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (!slash) return false;
    if (slash == buf) slash[1] = '\0';
    else *slash = '\0';
    return true;
}

static bool is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

static bool is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* <exe dir>/<rel> into buf when it exists as a file (want_dir false) or a
 * directory (want_dir true). */
static bool beside_self(char *buf, size_t cap, const char *rel, bool want_dir) {
    char self[4096];
    if (!drv_self_dir(self, sizeof self)) return false;
    if ((size_t)snprintf(buf, cap, "%s/%s", self, rel) >= cap) return false;
    return want_dir ? is_dir(buf) : is_file(buf);
}

const char *drv_runtime_lib(char *buf, size_t cap, const char *fallback) {
    const char *env = getenv("OXL_RUNTIME");
    if (env && *env) {
        if (is_file(env)) return env;
        fprintf(stderr, "oxl: OXL_RUNTIME='%s' is not a readable file\n", env);
        return NULL;
    }
    if (beside_self(buf, cap, "runtime/liboxlrt.a", false)) return buf;
    if (beside_self(buf, cap, "../lib/oxl/liboxlrt.a", false)) return buf;
    return fallback;
}

const char *drv_std_root(char *buf, size_t cap, const char *fallback) {
    /* the build tree has the runtime beside oxl; its std is the source's */
    if (beside_self(buf, cap, "runtime/liboxlrt.a", false)) return fallback;
    if (beside_self(buf, cap, "../share/oxl/std", true)) return buf;
    return fallback;
}

const char *drv_include_dir(char *buf, size_t cap, const char *fallback) {
    if (beside_self(buf, cap, "runtime/liboxlrt.a", false)) return fallback;
    if (beside_self(buf, cap, "../include/oxl/oxl_rt.h", false)) {
        buf[strlen(buf) - strlen("/oxl_rt.h")] = '\0';
        return buf;
    }
    return fallback;
}
