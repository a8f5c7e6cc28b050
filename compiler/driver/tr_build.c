/* tr_build.c: `oxl test` with the driver's own test binary builder
 * (drv_build_test_binary, build.h) and the cache key's inputs as the driver
 * finds them: this executable, the runtime library and the std root. */
#include "test_runner.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build.h"
#include "paths.h"

#ifndef OXL_STD_DIR
#define OXL_STD_DIR "std"
#endif
#ifndef OXL_RUNTIME_LIB
#define OXL_RUNTIME_LIB "liboxlrt.a"
#endif

static int build_with_driver(void *ctx, const char *pkg, const char *out, bool show_commands, int opt_level) {
    (void)ctx;
    return drv_build_test_binary(pkg, out, show_commands, opt_level);
}

int tr_command(const char *argv0, int argc, char **argv) {
    static char self[PATH_MAX], rt[PATH_MAX + 32], std[PATH_MAX + 32];
    tr_hooks h;
    memset(&h, 0, sizeof h);
    h.build = build_with_driver;
    h.argv0 = argv0;
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        h.compiler_exe = self;
    }
    /* the cache key hashes what oxl build links and reads: the same
     * search (paths.h), environment first, then build tree or install */
    const char *env = getenv("OXL_RUNTIME");
    h.runtime_lib = env && *env ? env : drv_runtime_lib(rt, sizeof rt, OXL_RUNTIME_LIB);
    env = getenv("OXL_STD");
    h.std_root = env && *env ? env : drv_std_root(std, sizeof std, OXL_STD_DIR);
    return tr_main(argc, argv, &h);
}
