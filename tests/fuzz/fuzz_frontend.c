/* fuzz_frontend: the front end as a libFuzzer target: lexer and parser,
 * the AST dump and the diagnostics printer, and semantic analysis when it
 * is built in (on input that parses, as the driver does).
 *
 * Built two ways (tests/compiler/syntax.cmake):
 *  - fuzz_frontend with -DOXL_FUZZ=ON and clang: -fsanitize=fuzzer,address,undefined;
 *  - fuzz_frontend_replay (always): the same entry point under a tiny main
 *    that replays files and directories (the committed corpus), for ctest. */
#include "base/base.h"
#include "lex/lex.h"
#include "parse/parse.h"
#ifdef OXL_HAVE_SEMA
#include "sema/sema.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef OXL_HAVE_SEMA
/* Imports find nothing: the input is the whole program. */
static bool no_packages(void *ctx, const char *dotted, base_vec *files) { return false; }
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    diag_sink *d = diag_new();
    base_arena *a = base_arena_new();
    base_names *names = base_names_new(a);
    const base_source *src = diag_add_source(d, "fuzz.oxl", (const char *)data, size);

    /* the token stream alone, as --dump-tokens reads it */
    lex_state *L = lex_new(a, names, d, src);
    FILE *sink = fopen("/dev/null", "w");
    for (int i = 0; i < 1 << 22; i++) {
        lex_token t = lex_next(L);
        if (sink) lex_dump_token(d, &t, sink);
        if (t.kind == LEX_EOF) break;
    }

    ast_node *file = parse_source(a, names, d, src);
    if (sink) ast_dump(d, file, sink);
#ifdef OXL_HAVE_SEMA
    if (diag_errors(d) == 0) {
        base_vec files = {0};
        base_vec_push(a, &files, file);
        sema_loader loader = {no_packages, NULL};
        sema_options opt = {true, true};
        sema_check_package(a, names, d, &files, &loader, &opt);
    }
#endif
    if (sink) {
        diag_print(d, sink, true);
        fclose(sink);
    }
    if (diag_had_internal(d)) {
        /* an internal compiler error is a bug the fuzzer should report */
        diag_print(d, stderr, false);
        abort();
    }
    base_arena_free(a);
    diag_free(d);
    return 0;
}

#ifdef OXL_FUZZ_REPLAY
#include <dirent.h>
#include <sys/stat.h>

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz_frontend_replay: cannot read %s\n", path);
        return 1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf) return 1;
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int cmp(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

int main(int argc, char **argv) {
    int files = 0, failed = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "fuzz_frontend_replay: no such file %s\n", argv[i]);
            failed++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            failed += replay_file(argv[i]);
            files++;
            continue;
        }
        DIR *dir = opendir(argv[i]);
        if (!dir) {
            failed++;
            continue;
        }
        char **names = NULL;
        size_t count = 0;
        struct dirent *e;
        while ((e = readdir(dir))) {
            if (e->d_name[0] == '.') continue;
            names = realloc(names, (count + 1) * sizeof *names);
            names[count++] = strdup(e->d_name);
        }
        closedir(dir);
        qsort(names, count, sizeof *names, cmp);
        for (size_t k = 0; k < count; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], names[k]);
            failed += replay_file(path);
            files++;
            free(names[k]);
        }
        free(names);
    }
    /* every input ran to the end without a crash, a sanitizer report or an
     * internal compiler error (those abort before this line) */
    printf("fuzz_frontend_replay: %d passed, %d failed\n", files - failed, failed);
    return failed || files == 0 ? 1 : 0;
}
#endif
