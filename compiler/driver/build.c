/* build.c: the compilation pipeline behind `oxl check`, `oxl build`,
 * `oxl run` and `oxl build --tests`: reading a package's files, loading
 * the packages it imports, semantic analysis, code generation, linking and
 * running. The only exit() calls of the compiler are in main.c. */
#include "driver/build.h"
#include "driver/paths.h"

#include "base/base.h"
#include "lex/lex.h"
#include "parse/parse.h"
#ifdef OXL_HAVE_SEMA
#include "sema/sema.h"
#endif
#ifdef OXL_HAVE_CODEGEN
#include "codegen/codegen.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef OXL_STD_DIR
#define OXL_STD_DIR "std"
#endif

/* The command the driver runs ("oxl test"), which its messages name. */
static const char *command_name = "oxl";
void drv_set_command(const char *name) { command_name = name; }

/* Limits of a package as the driver reads it. */
#define DRIVER_MAX_FILES 10000     /* .oxl files in one package directory */
#define DRIVER_MAX_PACKAGES 1000   /* packages loaded for one check */
#define DRIVER_MAX_PATH 4096

/* ---- reading sources ---- */

typedef enum read_status { READ_OK, READ_MISSING, READ_FAILED, READ_TOO_BIG } read_status;

/* Reads a whole file into a malloc'd buffer. errno is kept for messages. */
static read_status read_file(const char *path, char **text, size_t *len) {
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return errno == ENOENT ? READ_MISSING : READ_FAILED;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return READ_FAILED;
    }
    for (;;) {
        if (n == cap) {
            if (cap > BASE_MAX_SOURCE_BYTES) {
                free(buf);
                fclose(f);
                return READ_TOO_BIG;
            }
            char *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                fclose(f);
                return READ_FAILED;
            }
            buf = b;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        errno = EIO;
        return READ_FAILED;
    }
    if (n > BASE_MAX_SOURCE_BYTES) {
        free(buf);
        return READ_TOO_BIG;
    }
    *text = buf;
    *len = n;
    return READ_OK;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool ends_with(const char *name, const char *suffix) {
    size_t n = strlen(name), k = strlen(suffix);
    return n > k && strcmp(name + n - k, suffix) == 0;
}

/* The files of a directory whose names end in suffix (".oxl", or ".c" for
 * the C side of a package's extern fns), sorted by name (so output does not
 * depend on the file system's order). Returns -1 when the directory cannot
 * be read, -2 when it has too many files. */
static int list_package(const char *dir, const char *suffix, char ***out) {
    DIR *d = opendir(dir);
    *out = NULL;
    if (!d) return -1;
    int n = 0, cap = 16;
    char **names = malloc((size_t)cap * sizeof *names);
    if (!names) {
        closedir(d);
        return -1;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!ends_with(e->d_name, suffix)) continue;
        char path[DRIVER_MAX_PATH];
        /* Files of the current directory are named plainly ("case.oxl",
         * not "./case.oxl"), as the test table names them. */
        bool here = strcmp(dir, ".") == 0;
        if ((size_t)snprintf(path, sizeof path, "%s%s%s", here ? "" : dir, here ? "" : "/", e->d_name) >= sizeof path)
            continue;
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        if (n == DRIVER_MAX_FILES) {
            for (int i = 0; i < n; i++) free(names[i]);
            free(names);
            closedir(d);
            return -2;
        }
        if (n == cap) {
            cap *= 2;
            char **nn = realloc(names, (size_t)cap * sizeof *nn);
            if (!nn) break;
            names = nn;
        }
        names[n] = malloc(strlen(path) + 1);
        if (!names[n]) break;
        strcpy(names[n], path);
        n++;
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_names);
    *out = names;
    return n;
}

static void free_list(char **names, int n) {
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
}

/* ---- the compilation ---- */

typedef struct loaded_pkg {
    const char *dotted;
    bool found;
    base_vec files;
} loaded_pkg;

typedef struct driver {
    base_arena *arena;
    base_names *names;
    diag_sink *diags;
    const char *std_root;
    char pkg_root[DRIVER_MAX_PATH];
    loaded_pkg *pkgs;
    int npkgs, cap_pkgs;
    bool io_error; /* an input of the checked package could not be read */
    bool pkg_is_dir; /* a package directory, not a single file */
} driver;

/* Registers and parses one file; false (with a message) when unreadable. */
static bool parse_file(driver *dr, const char *path, base_vec *files, bool report_to_sink) {
    char *text;
    size_t len;
    read_status st = read_file(path, &text, &len);
    if (st != READ_OK) {
        const char *why = st == READ_TOO_BIG ? "larger than the 64 MiB limit" : strerror(errno);
        if (report_to_sink) {
            base_span none = {BASE_NO_FILE, 0, 0};
            diag_report(dr->diags, DIAG_ERROR, none, "cannot read '%s': %s", path, why);
        } else {
            fprintf(stderr, "%s: cannot read '%s': %s\n", command_name, path, why);
        }
        return false;
    }
    const base_source *src = diag_add_source(dr->diags, path, text, len);
    free(text);
    base_vec_push(dr->arena, files, parse_source(dr->arena, dr->names, dr->diags, src));
    return true;
}

#ifdef OXL_HAVE_SEMA
/* sema_loader.load: std.x.y is <std root>/x/y; any other dotted path is a
 * directory under the checked package's root. Each package is read once. */
static bool driver_load(void *ctx, const char *dotted, base_vec *files) {
    driver *dr = ctx;
    for (int i = 0; i < dr->npkgs; i++) {
        if (strcmp(dr->pkgs[i].dotted, dotted) == 0) {
            for (uint32_t k = 0; k < dr->pkgs[i].files.len; k++)
                base_vec_push(dr->arena, files, dr->pkgs[i].files.items[k]);
            return dr->pkgs[i].found;
        }
    }
    if (dr->npkgs == DRIVER_MAX_PACKAGES) {
        DIAG_INTERNAL(dr->diags, "more than %d packages imported", DRIVER_MAX_PACKAGES);
        return false;
    }
    if (dr->npkgs == dr->cap_pkgs) {
        dr->cap_pkgs = dr->cap_pkgs ? dr->cap_pkgs * 2 : 8;
        loaded_pkg *p = realloc(dr->pkgs, (size_t)dr->cap_pkgs * sizeof *p);
        if (!p) {
            fputs("oxl: out of memory\n", stderr);
            abort();
        }
        dr->pkgs = p;
    }
    loaded_pkg *pkg = &dr->pkgs[dr->npkgs++];
    memset(pkg, 0, sizeof *pkg);
    pkg->dotted = base_strndup(dr->arena, dotted, strlen(dotted));

    char dir[DRIVER_MAX_PATH];
    const char *rest = dotted;
    const char *root = dr->pkg_root;
    if (strncmp(dotted, "std", 3) == 0 && (dotted[3] == '.' || dotted[3] == '\0')) {
        root = dr->std_root;
        rest = dotted[3] ? dotted + 4 : "";
    }
    size_t k = (size_t)snprintf(dir, sizeof dir, "%s%s", root, *rest ? "/" : "");
    for (const char *p = rest; *p && k + 1 < sizeof dir; p++) dir[k++] = *p == '.' ? '/' : *p;
    if (k + 1 >= sizeof dir) return false;
    dir[k] = '\0';

    char **paths;
    int n = list_package(dir, ".oxl", &paths);
    if (n <= 0) {
        if (n == -2) {
            base_span none = {BASE_NO_FILE, 0, 0};
            diag_report(dr->diags, DIAG_ERROR, none, "package '%s' has more than %d files", dotted, DRIVER_MAX_FILES);
        }
        free_list(paths, n > 0 ? n : 0);
        return false;
    }
    for (int i = 0; i < n; i++) parse_file(dr, paths[i], &pkg->files, true);
    free_list(paths, n);
    pkg->found = true;
    for (uint32_t i = 0; i < pkg->files.len; i++) base_vec_push(dr->arena, files, pkg->files.items[i]);
    return true;
}
#endif

static bool want_color(const char *mode) {
    if (strcmp(mode, "always") == 0) return true;
    if (strcmp(mode, "never") == 0) return false;
    const char *term = getenv("TERM");
    const char *no_color = getenv("NO_COLOR"); /* no-color.org: set and not empty, as oxl test reads it */
    return isatty(fileno(stderr)) && !(no_color && *no_color) && !(term && strcmp(term, "dumb") == 0);
}

static void dump_tokens(driver *dr, const base_source *src) {
    base_arena *scratch = base_arena_new();
    lex_state *L = lex_new(scratch, dr->names, dr->diags, src);
    for (;;) {
        lex_token t = lex_next(L);
        lex_dump_token(dr->diags, &t, stdout);
        if (t.kind == LEX_EOF) break;
    }
    base_arena_free(scratch);
}

#ifdef OXL_HAVE_CODEGEN
#ifndef OXL_RUNTIME_LIB
#define OXL_RUNTIME_LIB "liboxlrt.a"
#endif
#ifndef OXL_FENCE_LINK_FLAG
#error "OXL_FENCE_LINK_FLAG: the fence's -Wl,--wrap= flag (runtime/CMakeLists.txt) is not defined"
#endif

/* The runtime library: see driver/paths.h (NULL when OXL_RUNTIME is bad). */
static const char *runtime_lib(char *buf, size_t cap) { return drv_runtime_lib(buf, cap, OXL_RUNTIME_LIB); }

/* A temporary file name (cc takes a file without a known suffix as linker
 * input, so objects need no ".o"); creates the file. */
static bool temp_path(char *buf, size_t cap, const char *suffix) {
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    if ((size_t)snprintf(buf, cap, "%s/oxl-%sXXXXXX", dir, suffix) >= cap) return false;
    int fd = mkstemp(buf);
    if (fd < 0) {
        fprintf(stderr, "%s: cannot create a temporary file in '%s': %s\n", command_name, dir, strerror(errno));
        return false;
    }
    close(fd);
    return true;
}

/* Generates, emits and links (build) or also runs (run) the checked
 * package. Returns the exit status of the command. */
static int build_program(driver *dr, const sema_program *prog, const char *path, const drv_build_req *breq) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    cg_module *m = breq->tests ? cg_build_tests(dr->diags, prog, base, dr->pkg_root) : cg_build(dr->diags, prog, base);
    if (!m) return diag_had_internal(dr->diags) ? EXIT_INTERNAL : EXIT_ERRORS;
    if (!cg_optimize(m, breq->opt_level)) {
        cg_free(m);
        return EXIT_INTERNAL;
    }
    char out_buf[DRIVER_MAX_PATH];
    const char *out = breq->out;
    if (!out && !breq->run) {
        /* the package directory's (or file's) name without .oxl */
        size_t len = strlen(base);
        if (len > 4 && strcmp(base + len - 4, ".oxl") == 0) len -= 4;
        if (len == 0 || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) snprintf(out_buf, sizeof out_buf, "a.out");
        else snprintf(out_buf, sizeof out_buf, "%.*s%s", (int)len, base,
                      breq->emit_llvm ? ".ll" : breq->obj_only ? ".o" : breq->tests ? ".test" : "");
        out = out_buf;
    }
    if (breq->emit_llvm) {
        bool ok = cg_write_ir(m, out ? out : "/dev/stdout");
        cg_free(m);
        return ok ? EXIT_OK : EXIT_USAGE;
    }
    if (breq->obj_only) {
        bool ok = cg_write_object(m, out);
        cg_free(m);
        return ok ? EXIT_OK : EXIT_USAGE;
    }
    char rt[DRIVER_MAX_PATH];
    const char *rt_lib = runtime_lib(rt, sizeof rt);
    if (!rt_lib) {
        cg_free(m);
        return EXIT_USAGE;
    }
    char obj[DRIVER_MAX_PATH], exe[DRIVER_MAX_PATH];
    if (!temp_path(obj, sizeof obj, "o-")) {
        cg_free(m);
        return EXIT_USAGE;
    }
    bool ok = cg_write_object(m, obj);
    cg_free(m);
    if (breq->run) {
        if (!temp_path(exe, sizeof exe, "x-")) {
            unlink(obj);
            return EXIT_USAGE;
        }
        out = exe;
    }
    /* A package directory's .c files implement its own extern fns. */
    char **c_files = NULL;
    int nc = dr->pkg_is_dir ? list_package(dr->pkg_root, ".c", &c_files) : 0;
    if (nc < 0) {
        fprintf(stderr, "%s: cannot list the C files of '%s'\n", command_name, dr->pkg_root);
        ok = false;
        nc = 0;
    }
    char inc[DRIVER_MAX_PATH];
    /* A test binary gets the fence's wrappers (docs/testing.md, "The
     * fence"), and its C files no sibling calls, so a fenced call in tail
     * position still names its own caller; `oxl build` and `oxl run` link
     * without either. It is linked with immediate binding too: every
     * symbol is bound once, at the exec of its fork server, not lazily
     * again in each forked seed (a lookup and a written page per first
     * call of a library function, per seed). And it is linked statically:
     * a fork copies and an exit tears down each mapping of the process,
     * and the dynamic loader's own and every library's five cost a served
     * seed a fifth of its time (docs/testing.md, "Cost per seed"). */
    static const char *const fence_flags[] = {"-fno-optimize-sibling-calls", OXL_FENCE_LINK_FLAG, "-Wl,-z,now", NULL};
    ok = ok && cg_link(obj, (const char *const *)c_files, nc, drv_include_dir(inc, sizeof inc, OXL_INCLUDE_DIR), rt_lib,
                       breq->tests ? fence_flags : NULL, breq->tests, out, breq->show_cmds);
    free_list(c_files, nc);
    unlink(obj);
    if (!ok) {
        if (breq->run) unlink(exe);
        /* for a test binary the program was fine: the toolchain failed */
        return breq->tests ? EXIT_INTERNAL : EXIT_ERRORS;
    }
    if (!breq->run) return EXIT_OK;
    char **argv = malloc(((size_t)breq->run_nargs + 2) * sizeof *argv);
    if (!argv) {
        unlink(exe);
        return EXIT_INTERNAL;
    }
    argv[0] = exe;
    for (int i = 0; i < breq->run_nargs; i++) argv[i + 1] = breq->run_args[i];
    argv[breq->run_nargs + 1] = NULL;
    int st = cg_spawn_wait(argv, breq->show_cmds);
    free(argv);
    unlink(exe);
    return st < 0 ? EXIT_USAGE : st;
}
#endif

int drv_compile(const char *path, const char *color, bool dump_tok, bool dump_ast, const drv_build_req *breq) {
    const char *std_root = getenv("OXL_STD");
    if (std_root && !is_dir(std_root)) {
        fprintf(stderr, "%s: OXL_STD='%s' is not a directory\n", command_name, std_root);
        return EXIT_USAGE;
    }
    char std_buf[DRIVER_MAX_PATH];
    if (!std_root || !*std_root) std_root = drv_std_root(std_buf, sizeof std_buf, OXL_STD_DIR);

    driver dr;
    memset(&dr, 0, sizeof dr);
    dr.std_root = std_root;
    char **paths = NULL;
    int n;
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "%s: cannot open '%s': %s\n", command_name, path, strerror(errno));
        return EXIT_USAGE;
    }
    char trimmed[DRIVER_MAX_PATH];
    if (S_ISDIR(st.st_mode)) {
        /* "pkg/" names its files "pkg/a.oxl", not "pkg//a.oxl" */
        size_t len = strlen(path);
        while (len > 1 && path[len - 1] == '/') len--;
        if (len >= sizeof trimmed) {
            fprintf(stderr, "%s: path too long: '%s'\n", command_name, path);
            return EXIT_USAGE;
        }
        memcpy(trimmed, path, len);
        trimmed[len] = '\0';
        path = trimmed;
        n = list_package(path, ".oxl", &paths);
        if (n == -1) {
            fprintf(stderr, "%s: cannot read directory '%s': %s\n", command_name, path, strerror(errno));
            return EXIT_USAGE;
        }
        if (n == -2) {
            fprintf(stderr, "%s: '%s' has more than %d .oxl files\n", command_name, path, DRIVER_MAX_FILES);
            return EXIT_USAGE;
        }
        if (n == 0) {
            free_list(paths, 0);
            fprintf(stderr, "%s: no .oxl files in '%s' (not a package directory)\n", command_name, path);
            return EXIT_USAGE;
        }
        snprintf(dr.pkg_root, sizeof dr.pkg_root, "%s", path);
        dr.pkg_is_dir = true;
    } else {
        n = 1;
        paths = malloc(sizeof *paths);
        if (!paths || !(paths[0] = malloc(strlen(path) + 1))) {
            fputs("oxl: out of memory\n", stderr);
            return EXIT_INTERNAL;
        }
        strcpy(paths[0], path);
        const char *slash = strrchr(path, '/');
        if (slash) snprintf(dr.pkg_root, sizeof dr.pkg_root, "%.*s", (int)(slash - path), path);
        else snprintf(dr.pkg_root, sizeof dr.pkg_root, ".");
        if (!dr.pkg_root[0]) snprintf(dr.pkg_root, sizeof dr.pkg_root, "/");
    }

    dr.arena = base_arena_new();
    dr.names = base_names_new(dr.arena);
    dr.diags = diag_new();
    base_vec files = {0};
    int status = EXIT_OK;
    for (int i = 0; i < n; i++) {
        if (dump_tok) {
            char *text;
            size_t len;
            read_status rs = read_file(paths[i], &text, &len);
            if (rs != READ_OK) {
                fprintf(stderr, "oxl: cannot read '%s': %s\n", paths[i],
                        rs == READ_TOO_BIG ? "larger than the 64 MiB limit" : strerror(errno));
                dr.io_error = true;
                continue;
            }
            const base_source *src = diag_add_source(dr.diags, paths[i], text, len);
            free(text);
            printf("# %s\n", paths[i]);
            dump_tokens(&dr, src);
            continue;
        }
        if (!parse_file(&dr, paths[i], &files, false)) {
            dr.io_error = true;
            continue;
        }
        if (dump_ast) {
            printf("# %s\n", paths[i]);
            ast_dump(dr.diags, files.items[files.len - 1], stdout);
        }
    }
    free_list(paths, n);

#ifdef OXL_HAVE_SEMA
    /* Like Go, type checking waits for a package that parses: a syntax
     * error leaves partial trees whose semantic errors would be noise. */
    if (!dump_tok && !dump_ast && !dr.io_error && diag_errors(dr.diags) == 0) {
        sema_loader loader = {driver_load, &dr};
        sema_options opt = {true, true};
        sema_program *prog = sema_check_package(dr.arena, dr.names, dr.diags, &files, &loader, &opt);
        if (!prog) {
            DIAG_INTERNAL(dr.diags, "%s", "semantic analysis ran out of memory");
        }
#ifdef OXL_HAVE_CODEGEN
        else if (breq && diag_errors(dr.diags) == 0) {
            int bs = build_program(&dr, prog, path, breq);
            if (bs != EXIT_OK) status = bs;
        }
#endif
    }
#endif

    fflush(stdout);
    diag_print(dr.diags, stderr, want_color(color));
    if (diag_had_internal(dr.diags)) status = EXIT_INTERNAL;
    else if (dr.io_error) status = EXIT_USAGE;
    else if (diag_errors(dr.diags)) status = EXIT_ERRORS;
    diag_free(dr.diags);
    base_arena_free(dr.arena);
    free(dr.pkgs);
    return status;
}

int drv_build_test_binary(const char *pkg_path, const char *out_path, bool show_commands, int opt_level) {
#ifdef OXL_HAVE_CODEGEN
    drv_build_req br = {0};
    br.tests = true;
    br.out = out_path;
    br.show_cmds = show_commands;
    br.opt_level = opt_level;
    return drv_compile(pkg_path, "auto", false, false, &br);
#else
    (void)pkg_path;
    (void)out_path;
    (void)show_commands;
    (void)opt_level;
    fputs("oxl: this oxl was built without code generation: it cannot build test binaries\n", stderr);
    return EXIT_INTERNAL;
#endif
}
