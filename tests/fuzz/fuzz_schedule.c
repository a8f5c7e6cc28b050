/* fuzz_schedule: the schedule file's reader (runtime/src/sim/
 * schedule_file.c) as a libFuzzer target. The reader may refuse the
 * bytes, with a message that names a line; it must never crash, and a
 * schedule it accepts must write out as text it reads back to the same
 * schedule, which writes out as the same text again.
 *
 * Built as fuzz_schedule_replay (always, ctest fuzz_schedule_smoke over
 * tests/fuzz/schedule_corpus/) and, with -DOXL_FUZZ=ON and clang, as the
 * libFuzzer target fuzz_schedule. */
#include "oxl_schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok, const char *what) {
    if (ok) return;
    fprintf(stderr, "fuzz_schedule: %s\n", what);
    abort();
}

static bool same(const oxl_schedule *a, const oxl_schedule *b) {
    if (strcmp(a->binary, b->binary) || strcmp(a->test, b->test) || a->seed != b->seed) return false;
    if ((a->failure == NULL) != (b->failure == NULL) || (a->failure && strcmp(a->failure, b->failure))) return false;
    if (a->ndecisions != b->ndecisions || a->nfaults != b->nfaults) return false;
    if (a->ndecisions && memcmp(a->decisions, b->decisions, a->ndecisions * sizeof *a->decisions)) return false;
    for (size_t i = 0; i < a->nfaults; i++) {
        const oxl_fault *x = &a->faults[i], *y = &b->faults[i];
        if (x->kind != y->kind || x->ordinal != y->ordinal || x->at != y->at || x->dur != y->dur ||
            strcmp(x->label, y->label))
            return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    oxl_schedule s, t;
    char err[256];
    err[0] = 0;
    if (!oxl_schedule_parse((const char *)data, size, &s, err, sizeof err)) {
        check(strncmp(err, "line ", 5) == 0 || strstr(err, "NUL") || strstr(err, "larger"),
              "a refusal that names no line");
        return 0;
    }
    size_t len, len2;
    char *text = oxl_schedule_format(&s, &len);
    check(text != NULL, "an accepted schedule does not write out");
    check(oxl_schedule_parse(text, len, &t, err, sizeof err), "what it wrote it cannot read back");
    check(same(&s, &t), "what it read back is another schedule");
    char *text2 = oxl_schedule_format(&t, &len2);
    check(text2 && len2 == len && memcmp(text, text2, len) == 0, "written twice, the text differs");
    free(text);
    free(text2);
    oxl_schedule_free(&s);
    oxl_schedule_free(&t);
    return 0;
}
