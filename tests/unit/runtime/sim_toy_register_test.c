/* sim_toy_register_test: the ABD register passes a 500-seed sweep under
 * drops, duplicates, reordering, partitions, crashes and disk errors, and
 * every deliberately buggy variant is caught, by the linearizability
 * checker or by an invariant, with a failure that reproduces.
 * OXL_SIM_SEEDS / OXL_SIM_FIRST_SEED / OXL_SIM_SEED change the seeds. */
#include "sim_toy_register.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static oxl_sweep_report sweep(abd_variant v, const oxl_sweep_options *base) {
    abd_config cfg = abd_config_default(v);
    oxl_sweep_options o = *base;
    o.world.trace_messages = false; /* long sweeps: the hash still covers faults */
    oxl_sweep_report r;
    oxl_sweep(abd_scenario, &cfg, &o, &r);
    return r;
}

int main(void) {
    oxl_sweep_options o = oxl_sweep_options_default(1, 500);
    o.rerun = "OXL_SIM_SEED={seed} tests/sim_toy_register_test";
    if (!oxl_sweep_options_from_env(&o)) tap_bail("bad seed environment");

    oxl_sweep_report r = sweep(ABD_CORRECT, &o);
    tap_is_uint(r.failed, 0, "correct ABD passes %llu seeds", (unsigned long long)r.run);
    if (r.failed) {
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        oxl_sweep_report_print(&r, m);
        fclose(m);
        tap_diag("%s", buf);
        free(buf);
    }
    oxl_sweep_report_free(&r);

    struct {
        abd_variant v;
        const char *caught_by;
    } bugs[] = {
        {ABD_BUG_NO_WRITE_BACK, "not linearizable: key "},
        {ABD_BUG_EARLY_ACK, "not linearizable: key "},
        {ABD_BUG_UNSYNCED_ACK, "invariant 'acked stores are durable' violated: replica "},
    };
    for (size_t i = 0; i < sizeof bugs / sizeof bugs[0]; i++) {
        o.stop_at_first = false;
        r = sweep(bugs[i].v, &o);
        tap_ok(r.failed > 0, "'%s' is caught (%llu of %llu seeds fail)", abd_variant_name(bugs[i].v),
               (unsigned long long)r.failed, (unsigned long long)r.run);
        if (r.failed) {
            const oxl_sweep_failure *f = &r.failures[0];
            tap_ok(strncmp(f->reason, bugs[i].caught_by, strlen(bugs[i].caught_by)) == 0,
                   "seed %llu: the failure names the violation", (unsigned long long)f->seed);
            tap_diag("first failing seed %llu: %s", (unsigned long long)f->seed, f->reason);
            bool all_reproduced = true;
            for (uint64_t k = 0; k < r.failed; k++) all_reproduced = all_reproduced && r.failures[k].reproduced;
            tap_ok(all_reproduced, "every failing seed reproduces with the same trace hash");
        }
        oxl_sweep_report_free(&r);
    }
    return tap_done();
}
