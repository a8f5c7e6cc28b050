/* sim_counter: the example of docs/simulation.md, built so the guide's code
 * stays compilable. Two nodes gossip a counter under drops and a crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxl_sim.h"

typedef struct counter {
    oxl_process base;          /* first member */
    int64_t value;
} counter;

static void on_tick(oxl_process *self, oxl_ctx c, void *arg) {
    counter *p = (counter *)self;
    p->value++;
    oxl_ctx_broadcast(c, &p->value, sizeof p->value);
    oxl_ctx_set_timer(c, 150 * OXL_MS, on_tick, NULL);
}

static void start(oxl_process *self, oxl_ctx c) {
    counter *p = (counter *)self;
    const void *v; size_t n;                 /* recover durable state */
    if (oxl_disk_get(oxl_ctx_disk(c), "value", &v, &n) == OXL_DISK_OK && n == 8)
        memcpy(&p->value, v, 8);
    oxl_ctx_set_timer(c, 150 * OXL_MS, on_tick, NULL);
}

static void message(oxl_process *self, oxl_ctx c, oxl_node_id from,
                    const void *data, size_t len) {
    counter *p = (counter *)self;
    int64_t seen;
    if (len != 8) return;
    memcpy(&seen, data, 8);
    if (seen > p->value) {
        p->value = seen;
        oxl_disk_put(oxl_ctx_disk(c), "value", &seen, 8);
        if (oxl_disk_sync(oxl_ctx_disk(c)) != OXL_DISK_OK) return;  /* handle it */
    }
}

static void destroy(oxl_process *self) { free(self); }
static const oxl_process_ops counter_ops = {start, message, destroy};

static oxl_process *counter_new(oxl_ctx c, void *arg) {
    counter *p = calloc(1, sizeof *p);
    p->base.ops = &counter_ops;
    return &p->base;
}

int main(void) {
    oxl_world_options o = oxl_world_options_default(42);
    oxl_world *w = oxl_world_new(&o);
    oxl_node_id a = oxl_world_add_node(w, "a", counter_new, NULL);
    oxl_world_add_node(w, "b", counter_new, NULL);
    oxl_net_drop(w, 0.1);
    oxl_world_kill_after(w, a, 2 * OXL_SEC);
    oxl_world_restart_after(w, a, 3 * OXL_SEC);
    oxl_world_run_until(w, 10 * OXL_SEC);
    printf("%s, trace %016llx\n", oxl_world_failed(w) ? oxl_world_failure(w) : "ok",
           (unsigned long long)oxl_world_trace_hash(w));
    oxl_world_free(w);
}
