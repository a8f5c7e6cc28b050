/* policy.c: the one ordering decision, which ready task runs next.
 *
 * The candidates are the ready tasks in the order they became ready. Every
 * policy returns an index into that list, and a recorded schedule is just
 * those indices, so any run can be replayed by the scripted policy. */
#include "sched_internal.h"

#include <stdlib.h>

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void sched_policy_init(oxl_sched *s) {
    sched_policy_state *p = &s->policy;
    p->kind = s->opt.policy;
    oxl_rng_seed(&p->rng, s->opt.seed, "sched");
    if (p->kind == OXL_POLICY_PCT) {
        int d = s->opt.pct_depth > 0 ? s->opt.pct_depth : 3;
        uint64_t k = s->opt.pct_steps > 0 ? s->opt.pct_steps : 1000;
        /* d-1 change points, uniform over the first k steps. */
        p->nchange = d - 1;
        p->change_points = sim_xcalloc((size_t)(p->nchange > 0 ? p->nchange : 1), sizeof *p->change_points);
        for (int i = 0; i < p->nchange; i++) p->change_points[i] = 1 + oxl_rng_below(&p->rng, k);
        qsort(p->change_points, (size_t)p->nchange, sizeof *p->change_points, cmp_u64);
        p->next_low = d - 1;
    }
}

void sched_policy_free(oxl_sched *s) { free(s->policy.change_points); }

void sched_policy_on_spawn(oxl_sched *s, oxl_task *t) {
    sched_policy_state *p = &s->policy;
    if (p->kind != OXL_POLICY_PCT) return;
    /* Initial priorities are random and all above d, where the lowered
     * priorities d-1, d-2, ... live. */
    int d = s->opt.pct_depth > 0 ? s->opt.pct_depth : 3;
    t->priority = d + (int64_t)(oxl_rng_next(&p->rng) >> 2);
}

void sched_policy_pct_step(oxl_sched *s) {
    sched_policy_state *p = &s->policy;
    /* At the i-th change point, the task that ran the step drops to a
     * priority below every task that has not dropped yet. */
    for (int i = 0; i < p->nchange; i++)
        if (p->change_points[i] == p->steps && s->last_run && s->last_run->state != TASK_DONE &&
            s->last_run->state != TASK_CANCELLED)
            s->last_run->priority = p->next_low--;
}

size_t sched_policy_pick(oxl_sched *s) {
    sched_policy_state *p = &s->policy;
    size_t n = s->nready;
    switch (p->kind) {
    case OXL_POLICY_FIFO: return 0;
    case OXL_POLICY_SCRIPTED: {
        if (p->script_pos >= s->opt.script_len || !s->opt.script) return 0; /* exhausted: FIFO */
        uint32_t c = s->opt.script[p->script_pos++];
        return c < n ? c : n - 1; /* an edited script may point past the end: clamp */
    }
    case OXL_POLICY_PCT: {
        size_t best = 0;
        for (size_t i = 1; i < n; i++)
            if (s->ready[i]->priority > s->ready[best]->priority ||
                (s->ready[i]->priority == s->ready[best]->priority && s->ready[i]->id < s->ready[best]->id))
                best = i;
        return best;
    }
    case OXL_POLICY_RANDOM: break;
    }
    return sched_policy_random(p, n);
}
