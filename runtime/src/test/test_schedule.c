/* test_schedule.c: a sim test's schedule file in the test binary
 * (docs/test-binary.md, "Schedules"): OXL_SIM_SCHEDULE_IN replays one
 * (its decisions through the scripted policy, exactly its faults), and
 * OXL_SIM_SCHEDULE_OUT writes the run's own, every decision and every
 * fault that fired. Both files are read and written outside the run:
 * before it starts and after it ends, never while the fence is armed. */
#include "test_schedule.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_file(const char *path, size_t *len, char *why, size_t cap) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, cap, "%s", strerror(errno));
        return NULL;
    }
    size_t n = 0, size = 4096;
    char *buf = malloc(size);
    while (buf) {
        size_t got = fread(buf + n, 1, size - n, f);
        n += got;
        if (got == 0) break;
        if (n == size) {
            if (size > OXL_SCHEDULE_MAX_BYTES) {
                snprintf(why, cap, "larger than %u bytes", OXL_SCHEDULE_MAX_BYTES);
                free(buf);
                fclose(f);
                return NULL;
            }
            char *more = realloc(buf, size * 2);
            if (!more) free(buf);
            buf = more;
            size *= 2;
        }
    }
    bool bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        snprintf(why, cap, "%s", buf ? "a read error" : "out of memory");
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

static bool same_name(const char *a, const oxl_test_case *tc) {
    return strlen(a) == (size_t)tc->name_len && memcmp(a, tc->name, (size_t)tc->name_len) == 0;
}

int test_schedule_begin(test_schedule *ts, const oxl_test_case *tc, uint64_t seed, oxl_sched_options *opt) {
    memset(ts, 0, sizeof *ts);
    const char *in = getenv("OXL_SIM_SCHEDULE_IN");
    const char *out = getenv("OXL_SIM_SCHEDULE_OUT");
    if (in && !*in) in = NULL;
    if (out && !*out) out = NULL;
    ts->out_path = out;
    if (out) {
        opt->record_schedule = true;
        opt->record_faults = true;
    }
    if (!in) return 0;
    char why[256];
    size_t len;
    char *text = read_file(in, &len, why, sizeof why);
    if (!text) {
        fprintf(stderr, "error: OXL_SIM_SCHEDULE_IN='%s': cannot read it: %s\n", in, why);
        return 2;
    }
    bool ok = oxl_schedule_parse(text, len, &ts->in, why, sizeof why);
    free(text);
    if (!ok) {
        fprintf(stderr, "error: OXL_SIM_SCHEDULE_IN='%s' is not a schedule file: %s\n", in, why);
        return 2;
    }
    if (!same_name(ts->in.test, tc)) {
        fprintf(stderr, "error: OXL_SIM_SCHEDULE_IN='%s' is a schedule of the test '%s', not of '%.*s'\n", in,
                ts->in.test, (int)tc->name_len, tc->name);
        oxl_schedule_free(&ts->in);
        return 2;
    }
    if (ts->in.seed != seed) {
        fprintf(stderr, "error: OXL_SIM_SCHEDULE_IN='%s' is a schedule of seed %" PRIu64 ", not of OXL_TEST_SEED=%" PRIu64
                        "\n", in, ts->in.seed, seed);
        oxl_schedule_free(&ts->in);
        return 2;
    }
    ts->have_in = true;
    opt->policy = OXL_POLICY_SCRIPTED; /* the file's decisions, then FIFO past their end */
    opt->script = ts->in.decisions;
    opt->script_len = ts->in.ndecisions;
    opt->replay_faults = true;
    opt->faults = ts->in.faults;
    opt->nfaults = ts->in.nfaults;
    return 0;
}

int test_schedule_end(test_schedule *ts, const oxl_test_case *tc, uint64_t seed, const oxl_sched_result *r) {
    int status = 0;
    if (ts->out_path) {
        oxl_schedule s;
        memset(&s, 0, sizeof s);
        s.test = malloc((size_t)tc->name_len + 1);
        if (s.test) {
            memcpy(s.test, tc->name, (size_t)tc->name_len);
            s.test[tc->name_len] = 0;
        }
        s.seed = seed;
        s.decisions = r->schedule;
        s.ndecisions = r->schedule_len;
        /* what fired (of a replay: the listed faults that had their chance) */
        s.faults = r->faults;
        s.nfaults = r->nfaults;
        size_t len = 0;
        char *text = s.test ? oxl_schedule_format(&s, &len) : NULL;
        free(s.test);
        FILE *f = text ? fopen(ts->out_path, "wb") : NULL;
        bool ok = f && fwrite(text, 1, len, f) == len;
        if (f && fclose(f) != 0) ok = false;
        if (!ok) {
            fprintf(stderr, "error: OXL_SIM_SCHEDULE_OUT='%s': cannot write it: %s\n", ts->out_path,
                    text ? strerror(errno) : "out of memory");
            status = 2;
        }
        free(text);
    }
    if (ts->have_in) oxl_schedule_free(&ts->in);
    return status;
}
