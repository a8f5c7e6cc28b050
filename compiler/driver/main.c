/* main.c: the oxl command: `oxl check` (lex, parse and, when the
 * semantic stage is built in, check a package), `oxl build` and `oxl run`
 * (when code generation is built in), `oxl version`, `oxl help`.
 * Exit status: 0 no errors, 1 errors in the program, 2 usage error (bad
 * flag, missing or unreadable input), 3 internal compiler error. The only
 * exit() calls of the compiler are here. */
#include "base/base.h"
#include "lex/lex.h"
#include "parse/parse.h"
#ifdef OXL_HAVE_SEMA
#include "sema/sema.h"
#endif
#ifdef OXL_HAVE_CODEGEN
#include "codegen/codegen.h"
#include "driver/test_runner.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef OXL_HAVE_CODEGEN
#include <limits.h>
#endif

#ifndef OXL_VERSION
#define OXL_VERSION "0.0.0"
#endif
#ifndef OXL_STD_DIR
#define OXL_STD_DIR "std"
#endif

enum { EXIT_OK = 0, EXIT_ERRORS = 1, EXIT_USAGE = 2, EXIT_INTERNAL = 3 };

/* Limits of a package as the driver reads it. */
#define DRIVER_MAX_FILES 10000     /* .oxl files in one package directory */
#define DRIVER_MAX_PACKAGES 1000   /* packages loaded for one check */
#define DRIVER_MAX_PATH 4096

static const char usage_text[] =
    "usage: oxl <command> [arguments]\n"
    "\n"
    "commands:\n"
    "  check <package-dir | file.oxl> [options]\n"
    "                  parse and check a package (every .oxl file of the\n"
    "                  directory, in name order) or one file\n"
    "      --dump-tokens           print the tokens instead of checking\n"
    "      --dump-ast              print the syntax tree instead of checking\n"
    "      --color auto|always|never   color in diagnostics (default auto)\n"
    "  build <package-dir | file.oxl> [-o out] [-O2] [-c] [--emit-llvm] [-###]\n"
    "                  compile a package's fn main() to an executable\n"
    "                  (-c: an object only; --emit-llvm: textual LLVM IR)\n"
    "  run <package-dir | file.oxl> [-O2] [-###] [-- args]\n"
    "                  build to a temporary file, run it, exit with its status\n"
    "  test [package-dir] [options]\n"
    "                  build the package's test binary and run its unit and sim\n"
    "                  tests, each seed in a process of its own (docs/testing.md;\n"
    "                  exit status 0 pass, 1 failed, 2 usage, 3 not built,\n"
    "                  4 no test matched, 5 not deterministic)\n"
    "  version         print the version\n"
    "  help            print this help\n"
    "\n"
    "exit status: 0 no errors, 1 errors in the program, 2 usage error,\n"
    "3 internal compiler error. OXL_STD overrides the standard library root.\n";

static void usage_error(const char *fmt, const char *arg) {
    fputs("oxl: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (see 'oxl help')\n", stderr);
}

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

static bool ends_with_oxl(const char *name) {
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".oxl") == 0;
}

/* The .oxl files of a directory, sorted by name (so output does not depend
 * on the file system's order). Returns -1 when the directory cannot be
 * read, -2 when it has too many files. */
static int list_package(const char *dir, char ***out) {
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
        if (!ends_with_oxl(e->d_name)) continue;
        char path[DRIVER_MAX_PATH];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path) continue;
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
            fprintf(stderr, "oxl: cannot read '%s': %s\n", path, why);
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
    int n = list_package(dir, &paths);
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
    return isatty(fileno(stderr)) && !getenv("NO_COLOR") && !(term && strcmp(term, "dumb") == 0);
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

/* What `oxl build` and `oxl run` ask of a compilation (NULL for check). */
typedef struct build_req {
    const char *out;   /* executable to write */
    int opt_level;     /* 0 or 2 */
    bool emit_llvm;    /* write textual IR to out instead */
    bool obj_only;     /* -c: write the object to out, do not link */
    bool show_cmds;    /* -###: print each spawned command */
    bool run;          /* oxl run: build to a temporary file and run it */
    char **run_args;   /* the program's arguments (after --) */
    int run_nargs;
} build_req;

static int compile(const char *path, const char *color, bool dump_tok, bool dump_ast, const build_req *breq);


#ifdef OXL_HAVE_CODEGEN
#ifndef OXL_RUNTIME_LIB
#define OXL_RUNTIME_LIB "liboxlrt.a"
#endif

/* The runtime library: OXL_RUNTIME, else runtime/liboxlrt.a next to this
 * executable (the build tree's layout), else the path fixed at build time. */
static const char *runtime_lib(char *buf, size_t cap) {
    const char *env = getenv("OXL_RUNTIME");
    if (env && *env) return env;
    char self[DRIVER_MAX_PATH];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            if ((size_t)snprintf(buf, cap, "%s/runtime/liboxlrt.a", self) < cap && access(buf, R_OK) == 0) return buf;
        }
    }
    return OXL_RUNTIME_LIB;
}

/* A temporary file name (cc takes a file without a known suffix as linker
 * input, so objects need no ".o"); creates the file. */
static bool temp_path(char *buf, size_t cap, const char *suffix) {
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    if ((size_t)snprintf(buf, cap, "%s/oxl-%sXXXXXX", dir, suffix) >= cap) return false;
    int fd = mkstemp(buf);
    if (fd < 0) {
        fprintf(stderr, "oxl: cannot create a temporary file in '%s': %s\n", dir, strerror(errno));
        return false;
    }
    close(fd);
    return true;
}

/* Generates, emits and links (build) or also runs (run) the checked
 * package. Returns the exit status of the command. */
static int build_program(driver *dr, const sema_program *prog, const char *path, const build_req *breq) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    cg_module *m = cg_build(dr->diags, prog, base);
    if (!m) return diag_had_internal(dr->diags) ? EXIT_INTERNAL : EXIT_ERRORS;
    cg_optimize(m, breq->opt_level);
    char out_buf[DRIVER_MAX_PATH];
    const char *out = breq->out;
    if (!out && !breq->run) {
        /* the package directory's (or file's) name without .oxl */
        size_t len = strlen(base);
        if (len > 4 && strcmp(base + len - 4, ".oxl") == 0) len -= 4;
        if (len == 0 || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) snprintf(out_buf, sizeof out_buf, "a.out");
        else snprintf(out_buf, sizeof out_buf, "%.*s%s", (int)len, base,
                      breq->emit_llvm ? ".ll" : breq->obj_only ? ".o" : "");
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
    char obj[DRIVER_MAX_PATH], exe[DRIVER_MAX_PATH], rt[DRIVER_MAX_PATH];
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
    ok = ok && cg_link(obj, runtime_lib(rt, sizeof rt), out, breq->show_cmds);
    unlink(obj);
    if (!ok) {
        if (breq->run) unlink(exe);
        return EXIT_ERRORS;
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

static int cmd_build(int argc, char **argv, bool run) {
    build_req br = {0};
    br.run = run;
    const char *path = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (run && strcmp(a, "--") == 0) {
            br.run_args = argv + i + 1;
            br.run_nargs = argc - i - 1;
            break;
        } else if (!run && strcmp(a, "-o") == 0) {
            if (i + 1 >= argc) {
                usage_error("%s needs a file name", a);
                return EXIT_USAGE;
            }
            br.out = argv[++i];
        } else if (strcmp(a, "-O2") == 0) {
            br.opt_level = 2;
        } else if (strcmp(a, "-O0") == 0) {
            br.opt_level = 0;
        } else if (!run && strcmp(a, "-c") == 0) {
            br.obj_only = true;
        } else if (!run && strcmp(a, "--emit-llvm") == 0) {
            br.emit_llvm = true;
        } else if (strcmp(a, "-###") == 0) {
            br.show_cmds = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            usage_error(run ? "unknown option '%s' for 'oxl run'" : "unknown option '%s' for 'oxl build'", a);
            return EXIT_USAGE;
        } else if (path) {
            usage_error("one package directory or file only; '%s' is one too many", a);
            return EXIT_USAGE;
        } else {
            path = a;
        }
    }
    if (!path) {
        usage_error("%s", run ? "'oxl run' needs a package directory or a .oxl file"
                              : "'oxl build' needs a package directory or a .oxl file");
        return EXIT_USAGE;
    }
    return compile(path, "auto", false, false, &br);
}
#endif

static int cmd_check(int argc, char **argv) {
    const char *path = NULL, *color = "auto";
    bool dump_tok = false, dump_ast = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--dump-tokens") == 0) {
            dump_tok = true;
        } else if (strcmp(a, "--dump-ast") == 0) {
            dump_ast = true;
        } else if (strcmp(a, "--color") == 0 || strncmp(a, "--color=", 8) == 0) {
            if (a[7] == '=') {
                color = a + 8;
            } else if (i + 1 < argc) {
                color = argv[++i];
            } else {
                usage_error("%s needs a value: auto, always or never", a);
                return EXIT_USAGE;
            }
            if (strcmp(color, "auto") && strcmp(color, "always") && strcmp(color, "never")) {
                usage_error("--color takes auto, always or never, not '%s'", color);
                return EXIT_USAGE;
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            usage_error("unknown option '%s' for 'oxl check'", a);
            return EXIT_USAGE;
        } else if (path) {
            usage_error("'oxl check' takes one package directory or file; '%s' is one too many", a);
            return EXIT_USAGE;
        } else {
            path = a;
        }
    }
    if (!path) {
        usage_error("%s", "'oxl check' needs a package directory or a .oxl file");
        return EXIT_USAGE;
    }
    if (dump_tok && dump_ast) {
        usage_error("%s", "--dump-tokens and --dump-ast cannot be used together");
        return EXIT_USAGE;
    }
    return compile(path, color, dump_tok, dump_ast, NULL);
}

static int compile(const char *path, const char *color, bool dump_tok, bool dump_ast, const build_req *breq) {
    const char *std_root = getenv("OXL_STD");
    if (std_root && !is_dir(std_root)) {
        fprintf(stderr, "oxl: OXL_STD='%s' is not a directory\n", std_root);
        return EXIT_USAGE;
    }
    if (!std_root || !*std_root) std_root = OXL_STD_DIR;

    driver dr;
    memset(&dr, 0, sizeof dr);
    dr.std_root = std_root;
    char **paths = NULL;
    int n;
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "oxl: cannot open '%s': %s\n", path, strerror(errno));
        return EXIT_USAGE;
    }
    char trimmed[DRIVER_MAX_PATH];
    if (S_ISDIR(st.st_mode)) {
        /* "pkg/" names its files "pkg/a.oxl", not "pkg//a.oxl" */
        size_t len = strlen(path);
        while (len > 1 && path[len - 1] == '/') len--;
        if (len >= sizeof trimmed) {
            fprintf(stderr, "oxl: path too long: '%s'\n", path);
            return EXIT_USAGE;
        }
        memcpy(trimmed, path, len);
        trimmed[len] = '\0';
        path = trimmed;
        n = list_package(path, &paths);
        if (n == -1) {
            fprintf(stderr, "oxl: cannot read directory '%s': %s\n", path, strerror(errno));
            return EXIT_USAGE;
        }
        if (n == -2) {
            fprintf(stderr, "oxl: '%s' has more than %d .oxl files\n", path, DRIVER_MAX_FILES);
            return EXIT_USAGE;
        }
        if (n == 0) {
            free_list(paths, 0);
            fprintf(stderr, "oxl: no .oxl files in '%s'\n", path);
            return EXIT_USAGE;
        }
        snprintf(dr.pkg_root, sizeof dr.pkg_root, "%s", path);
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

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "check") == 0) return cmd_check(argc - 2, argv + 2);
#ifdef OXL_HAVE_CODEGEN
    if (strcmp(cmd, "build") == 0) return cmd_build(argc - 2, argv + 2, false);
    if (strcmp(cmd, "run") == 0) return cmd_build(argc - 2, argv + 2, true);
    if (strcmp(cmd, "test") == 0) return tr_command(argc - 2, argv + 2);
#endif
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        if (argc > 2) {
            usage_error("'oxl version' takes no arguments, not '%s'", argv[2]);
            return EXIT_USAGE;
        }
        printf("oxl %s\n", OXL_VERSION);
        return EXIT_OK;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    usage_error("unknown command '%s'", cmd);
    return EXIT_USAGE;
}
