/* fuzz_frontend: the front end as a libFuzzer target: lexer and parser,
 * the AST dump and the diagnostics printer, and semantic analysis when it
 * is built in (on input that parses, as the driver does).
 *
 * Built two ways (tests/compiler/syntax.cmake):
 *  - fuzz_frontend with -DOXL_FUZZ=ON and clang: -fsanitize=fuzzer,address,undefined;
 *  - fuzz_frontend_replay (always): the same entry point under the main of
 *    fuzz_replay.c, which replays the committed corpus, for ctest. */
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
