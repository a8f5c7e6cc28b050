/* abd_register_demo: sweeps the ABD register and its buggy variants over
 * seeds under faults and says what the simulation found.
 *   abd_register_demo [correct|no-write-back|early-ack|unsynced-ack|all]
 * Seeds: OXL_SIM_SEEDS (default 500), OXL_SIM_FIRST_SEED, OXL_SIM_SEED.
 * Exit status: 0 when the correct register passes and every buggy variant
 * asked for is caught; 1 otherwise; 2 on bad usage. */
#include "sim_toy_register.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct {
    const char *name;
    abd_variant variant;
} variants[] = {
    {"correct", ABD_CORRECT},
    {"no-write-back", ABD_BUG_NO_WRITE_BACK},
    {"early-ack", ABD_BUG_EARLY_ACK},
    {"unsynced-ack", ABD_BUG_UNSYNCED_ACK},
};
enum { NVARIANTS = sizeof variants / sizeof variants[0] };

static double wall_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* the demo's own timing, outside any world */
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool run_variant(int i, const oxl_sweep_options *base) {
    abd_config cfg = abd_config_default(variants[i].variant);
    oxl_sweep_options o = *base;
    char rerun[128];
    snprintf(rerun, sizeof rerun, "OXL_SIM_SEED={seed} build/examples/abd_register_demo %s", variants[i].name);
    o.rerun = rerun;
    o.stop_at_first = variants[i].variant != ABD_CORRECT; /* one caught seed is the finding */
    double t0 = wall_seconds();
    oxl_sweep_report r;
    oxl_sweep(abd_scenario, &cfg, &o, &r);
    double dt = wall_seconds() - t0;
    printf("== ABD register, %s (%s): %llu seeds in %.2fs\n", variants[i].name, abd_variant_name(variants[i].variant),
           (unsigned long long)r.run, dt);
    oxl_sweep_report_print(&r, stdout);
    bool good = variants[i].variant == ABD_CORRECT ? r.failed == 0 : r.failed > 0;
    if (variants[i].variant == ABD_CORRECT)
        printf("verdict: %s\n\n", good ? "passes every seed" : "FAILS: the correct register broke");
    else
        printf("verdict: %s\n\n", good ? "bug caught" : "MISSED: the sweep did not catch this bug");
    oxl_sweep_report_free(&r);
    return good;
}

int main(int argc, char **argv) {
    const char *which = argc > 1 ? argv[1] : "all";
    oxl_sweep_options o = oxl_sweep_options_default(1, 500);
    o.world.trace_messages = true; /* cheap at this size, and the tails show the messages */
    if (!oxl_sweep_options_from_env(&o)) return 2;
    bool all_good = true, matched = false;
    for (int i = 0; i < NVARIANTS; i++) {
        if (strcmp(which, "all") != 0 && strcmp(which, variants[i].name) != 0) continue;
        matched = true;
        all_good = run_variant(i, &o) && all_good;
    }
    if (!matched) {
        fprintf(stderr, "abd_register_demo: unknown variant '%s' (correct, no-write-back, early-ack, unsynced-ack, all)\n",
                which);
        return 2;
    }
    printf("%s\n", all_good ? "demo: the simulation passed the correct register and caught every bug"
                            : "demo: UNEXPECTED RESULT (see above)");
    return all_good ? 0 : 1;
}
