/* paths.h: where the driver finds the runtime library and the standard
 * library: the environment (OXL_RUNTIME, OXL_STD) first, then the build
 * tree or the installed layout around the running executable, then the
 * paths fixed when oxl was built. Prefix: drv_. */
#ifndef OXL_DRIVER_PATHS_H
#define OXL_DRIVER_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* The directory of the running executable (/proc/self/exe); false when it
 * cannot be read or does not fit. */
bool drv_self_dir(char *buf, size_t cap);

/* The runtime library (liboxlrt.a): OXL_RUNTIME when set (NULL, with a
 * message on stderr, when it is not a readable file), else
 * <exe dir>/runtime/liboxlrt.a (the build tree), else
 * <exe dir>/../lib/oxl/liboxlrt.a (installed), else fallback. */
const char *drv_runtime_lib(char *buf, size_t cap, const char *fallback);

/* The standard library root when OXL_STD is not set: in the build tree
 * the fallback (the source tree's std/), else <exe dir>/../share/oxl/std
 * when it is a directory (installed), else the fallback. */
const char *drv_std_root(char *buf, size_t cap, const char *fallback);

/* The runtime's public headers, for a package's C files: installed,
 * <exe dir>/../include/oxl when it has oxl_rt.h, else fallback (the source
 * tree's runtime/include). */
const char *drv_include_dir(char *buf, size_t cap, const char *fallback);

#endif
