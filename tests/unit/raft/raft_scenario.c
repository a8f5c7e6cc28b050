/* raft_scenario.c: one seed of a Raft cluster under faults: the fault
 * schedule drawn from the world's fault stream, the chaos phase, the
 * liveness phase, and the end-of-run checks (see raft_scenario.h). */
#include "raft_scenario.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SETTLE_STEP (50 * OXL_MS) /* the liveness phase checks its goal this often */

raft_scenario_options raft_scenario_chaos(void) {
    return (raft_scenario_options){
        .raft = raft_params_default(5),
        .clients = 3,
        .keys = 3,
        .faults = RAFT_FAULTS_CHAOS,
        .chaos = 10 * OXL_SEC,
        .liveness_limit = 10 * OXL_SEC,
        .think_max = 30 * OXL_MS,
        .attempt = 100 * OXL_MS,
    };
}

raft_scenario_options raft_scenario_bench(void) {
    raft_scenario_options o = raft_scenario_chaos();
    o.clients = 1;
    o.keys = 2;
    o.faults = RAFT_FAULTS_BENCH;
    return o;
}

const char *raft_scenario_check(const raft_scenario_options *o) {
    const char *why = raft_params_check(&o->raft);
    if (why) return why;
    if (o->clients < 0 || o->clients > RAFT_MAX_CLIENTS) return "clients must be 0..8";
    if (o->keys < 1 || o->keys > RAFT_MAX_KEYS) return "keys must be 1..16";
    if (o->faults < RAFT_FAULTS_NONE || o->faults > RAFT_FAULTS_BENCH) return "unknown fault profile";
    if (o->chaos < 0 || o->liveness_limit <= 0) return "the chaos and liveness phases need lengths";
    if (o->think_max < 0 || o->attempt <= 0) return "client timing must be positive";
    return NULL;
}

/* ---- one run's shared state ---------------------------------------------------------------------------- */
#define RUN_MAX_FAULTS 25 /* faults a chaos schedule draws, at most */
#define RUN_MAX_STORMS RUN_MAX_FAULTS /* restart storms and leader churns per run: room for all */

typedef struct run run;

/* A restart storm's own state: its run and when it ends. */
typedef struct storm {
    run *r;
    oxl_time_ns until;
    uint32_t term;      /* leader churn: the newest term whose leader it crashes */
    oxl_node_id target; /* and that leader */
} storm;

struct run {
    const raft_scenario_options *opt;
    raft_cluster cluster;
    oxl_world *w;
    raft_clients *clients;
    raft_run_stats stats;
    oxl_dur_ns base_latency_max;
    double base_drop, base_dup, base_reorder;
    storm storms[RUN_MAX_STORMS];
    int nstorms;
};

/* ---- faults: every draw from the world's fault stream ----------------------------------------------------- */
static oxl_rng *faults(run *r) { return oxl_world_rng(r->w); }
static int servers(const run *r) { return r->cluster.params.servers; }

/* A live leader, if some server believes it is one (the newest term wins). */
static oxl_node_id current_leader(run *r) {
    oxl_node_id best = OXL_NO_NODE;
    uint32_t term = 0;
    for (oxl_node_id n = 0; n < servers(r); n++) {
        const raft_server *s = raft_server_of(r->w, &r->cluster, n);
        if (s && s->role == RAFT_LEADER && s->term >= term) {
            best = n;
            term = s->term;
        }
    }
    return best;
}

/* A server: the leader half of the time when there is one. */
static oxl_node_id victim(run *r) {
    oxl_node_id leader = current_leader(r);
    if (leader != OXL_NO_NODE && oxl_rng_chance(faults(r), 0.5)) return leader;
    return (oxl_node_id)oxl_rng_below(faults(r), (uint64_t)servers(r));
}

/* The faults' durations end before the chaos phase does. */
static oxl_dur_ns window(run *r, oxl_dur_ns lo, oxl_dur_ns hi) {
    oxl_dur_ns d = oxl_rng_range(faults(r), lo, hi), left = r->opt->chaos - oxl_world_now(r->w) - OXL_MS;
    return d < left ? d : (left > OXL_MS ? left : OXL_MS);
}

static void fault_partition(oxl_world *w, void *arg) {
    run *r = arg;
    oxl_node_id a[RAFT_MAX_NODES], b[RAFT_MAX_NODES];
    size_t na = 0, nb = 0;
    /* A random split of the servers into two nonempty sides; each client
     * lands on a side too. */
    uint64_t split = 1 + oxl_rng_below(faults(r), (UINT64_C(1) << servers(r)) - 2);
    for (oxl_node_id n = 0; n < oxl_world_node_count(w); n++) {
        bool side = n < servers(r) ? (split >> n) & 1 : oxl_rng_chance(faults(r), 0.5);
        if (side)
            a[na++] = n;
        else
            b[nb++] = n;
    }
    oxl_net_partition(w, a, na, b, nb, window(r, 100 * OXL_MS, 1500 * OXL_MS));
    r->stats.partitions++;
}

static void fault_isolate(oxl_world *w, void *arg) {
    run *r = arg;
    oxl_net_isolate(w, victim(r), window(r, 100 * OXL_MS, 1500 * OXL_MS));
    r->stats.partitions++;
}

static void fault_block(oxl_world *w, void *arg) {
    run *r = arg;
    oxl_node_id from = victim(r), to = (oxl_node_id)oxl_rng_below(faults(r), (uint64_t)servers(r) - 1);
    if (to >= from) to++;
    oxl_net_block_for(w, from, to, window(r, 100 * OXL_MS, 1000 * OXL_MS));
    r->stats.partitions++;
}

static void fault_crash(oxl_world *w, void *arg) {
    run *r = arg;
    oxl_node_id n = victim(r);
    if (!oxl_world_is_up(w, n)) return;
    /* From a quick reboot to a long outage. */
    oxl_dur_ns down = oxl_rng_chance(faults(r), 0.5) ? window(r, OXL_MS, 30 * OXL_MS) : window(r, 50 * OXL_MS, 1500 * OXL_MS);
    oxl_world_crash_for(w, n, down);
    r->stats.crashes++;
}

/* A restart storm: for a while, a server (the leader half of the time)
 * crashes every few tens of milliseconds and comes back quickly, so that
 * elections overlap crashes, as in a rolling restart gone wrong. */
static void storm_step(oxl_world *w, void *arg) {
    storm *st = arg;
    run *r = st->r;
    if (oxl_world_now(w) >= st->until) return;
    oxl_node_id n = victim(r);
    if (oxl_world_is_up(w, n)) {
        oxl_world_crash_for(w, n, window(r, OXL_MS, 40 * OXL_MS));
        r->stats.crashes++;
    }
    oxl_world_after(w, oxl_rng_range(faults(r), 10, 80) * OXL_MS, "restart storm", storm_step, st);
}

/* Leader churn: for a while, every new leader is cut off and crashed at
 * once or within 60ms of its election (an isolation also loses what it
 * has in flight) and comes back soon after, so that entries of several
 * terms pile up, barely replicated, at the ends of the logs: the situation
 * of figure 8 in the Raft paper. It shares the storms' state: its run, its
 * end, the newest term whose leader it hit, and that leader. */
static void churn_hit(oxl_world *w, void *arg) {
    storm *st = arg;
    run *r = st->r;
    if (!oxl_world_is_up(w, st->target) || oxl_world_now(w) >= r->opt->chaos - OXL_MS) return;
    oxl_net_isolate(w, st->target, window(r, 20 * OXL_MS, 500 * OXL_MS));
    r->stats.partitions++;
    oxl_world_crash_for(w, st->target, window(r, 5 * OXL_MS, 200 * OXL_MS));
    r->stats.crashes++;
}

static void churn_step(oxl_world *w, void *arg) {
    storm *st = arg;
    run *r = st->r;
    if (oxl_world_now(w) >= st->until) return;
    oxl_node_id leader = current_leader(r);
    if (leader != OXL_NO_NODE) {
        const raft_server *s = raft_server_of(w, &r->cluster, leader);
        if (s->term > st->term) { /* a new leader */
            st->term = s->term;
            st->target = leader;
            if (oxl_rng_chance(faults(r), 0.5))
                churn_hit(w, st);
            else
                oxl_world_after(w, oxl_rng_range(faults(r), 1, 60) * OXL_MS, "leader churn", churn_hit, st);
        }
    }
    oxl_world_after(w, oxl_rng_range(faults(r), 1, 8) * OXL_MS, "leader churn", churn_step, st);
}

static void fault_churn(oxl_world *w, void *arg) {
    run *r = arg;
    assert(r->nstorms < RUN_MAX_STORMS);
    storm *st = &r->storms[r->nstorms++];
    *st = (storm){.r = r, .until = oxl_world_now(w) + window(r, 300 * OXL_MS, 4000 * OXL_MS)};
    churn_step(w, st);
}

static void fault_storm(oxl_world *w, void *arg) {
    run *r = arg;
    assert(r->nstorms < RUN_MAX_STORMS);
    storm *st = &r->storms[r->nstorms++];
    *st = (storm){.r = r, .until = oxl_world_now(w) + window(r, 300 * OXL_MS, 2000 * OXL_MS)};
    storm_step(w, st);
}

static void restore_latency(oxl_world *w, void *arg) {
    run *r = arg;
    oxl_net_latency(w, OXL_MS, r->base_latency_max);
}

static void fault_slow(oxl_world *w, void *arg) {
    run *r = arg;
    oxl_net_latency(w, OXL_MS, oxl_rng_range(faults(r), 20, 80) * OXL_MS);
    oxl_world_after(w, window(r, 100 * OXL_MS, 1000 * OXL_MS), "restore latency", restore_latency, r);
}

static void restore_loss(oxl_world *w, void *arg) {
    run *r = arg;
    oxl_net_drop(w, r->base_drop);
    oxl_net_duplicate(w, r->base_dup);
}

static void fault_loss(oxl_world *w, void *arg) {
    run *r = arg;
    if (oxl_rng_chance(faults(r), 0.5))
        oxl_net_drop(w, 0.1 + 0.3 * oxl_rng_unit(faults(r)));
    else
        oxl_net_duplicate(w, 0.1 + 0.2 * oxl_rng_unit(faults(r)));
    oxl_world_after(w, window(r, 100 * OXL_MS, 1000 * OXL_MS), "restore loss", restore_loss, r);
}

static void fault_skew(oxl_world *w, void *arg) {
    run *r = arg;
    oxl_world_set_clock_skew(w, victim(r), oxl_rng_range(faults(r), -1000, 1000) * OXL_MS);
}

static void restore_disk(oxl_world *w, void *arg) {
    run *r = arg;
    for (oxl_node_id n = 0; n < servers(r); n++) oxl_world_set_disk_fail_rate(w, n, 0, 0);
}

static void fault_disk(oxl_world *w, void *arg) {
    run *r = arg;
    oxl_world_set_disk_fail_rate(w, victim(r), 0.05 * oxl_rng_unit(faults(r)), 0.2 * oxl_rng_unit(faults(r)));
    oxl_world_after(w, window(r, 100 * OXL_MS, 1500 * OXL_MS), "restore disks", restore_disk, r);
}

static void fault_membership(oxl_world *w, void *arg) {
    run *r = arg;
    oxl_node_id leader = current_leader(r);
    if (leader == OXL_NO_NODE) return;
    const raft_server *s = raft_server_of(w, &r->cluster, leader);
    uint32_t all = (1u << servers(r)) - 1, members = s->members;
    oxl_node_id n = (oxl_node_id)oxl_rng_below(faults(r), (uint64_t)servers(r));
    /* Remove one of a full house (never below three), else add one back. */
    uint32_t want = members == all && __builtin_popcount(members) > 3 ? members & ~(1u << n) : all;
    if (want == members) return;
    if (raft_clients_change_members(w, r->clients, want)) r->stats.config_changes++;
}

typedef void (*fault_fn)(oxl_world *, void *);

static void plan_chaos(run *r) {
    oxl_rng *rng = faults(r);
    /* Mostly one entry per AppendEntries: then a new leader's old entries
     * reach a follower before its own do, the schedule figure 8 needs;
     * larger batches the rest of the time. */
    static const int batches[] = {1, 1, 1, 8, 32};
    r->cluster.params.batch = batches[oxl_rng_below(rng, sizeof batches / sizeof batches[0])];
    r->base_latency_max = oxl_rng_range(rng, 2, 15) * OXL_MS;
    r->base_drop = 0.03 * oxl_rng_unit(rng);
    r->base_dup = 0.03 * oxl_rng_unit(rng);
    r->base_reorder = 0.05 * oxl_rng_unit(rng);
    oxl_net_latency(r->w, OXL_MS, r->base_latency_max);
    oxl_net_drop(r->w, r->base_drop);
    oxl_net_duplicate(r->w, r->base_dup);
    oxl_net_reorder(r->w, r->base_reorder);
    static const struct {
        fault_fn fn;
        const char *label;
        int weight;
    } kinds[] = {
        {fault_partition, "partition", 3}, {fault_isolate, "isolate", 3}, {fault_block, "one-way block", 2},
        {fault_crash, "crash", 6},         {fault_slow, "slow network", 1}, {fault_loss, "lossy network", 2},
        {fault_skew, "clock skew", 1},     {fault_disk, "disk faults", 2},  {fault_membership, "membership change", 2},
        {fault_storm, "restart storm", 2}, {fault_churn, "leader churn", 10},
    };
    int total = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) total += kinds[k].weight;
    int n = (int)oxl_rng_range(rng, 10, RUN_MAX_FAULTS);
    for (int i = 0; i < n; i++) {
        int pick = (int)oxl_rng_below(rng, (uint64_t)total);
        size_t k = 0;
        while (pick >= kinds[k].weight) pick -= kinds[k++].weight;
        oxl_world_at(r->w, oxl_rng_range(rng, 0, r->opt->chaos - OXL_MS), kinds[k].label, kinds[k].fn, r);
    }
}

static void plan_bench(run *r) {
    oxl_rng *rng = faults(r);
    r->base_latency_max = 5 * OXL_MS;
    r->base_drop = 0.02;
    r->base_dup = 0.02;
    oxl_net_latency(r->w, OXL_MS, r->base_latency_max);
    oxl_net_drop(r->w, r->base_drop);
    oxl_net_duplicate(r->w, r->base_dup);
    for (int i = 0; i < 3; i++)
        oxl_world_at(r->w, oxl_rng_range(rng, 0, r->opt->chaos - OXL_MS), "partition", fault_partition, r);
    if (oxl_rng_chance(rng, 0.5))
        oxl_world_at(r->w, oxl_rng_range(rng, 0, r->opt->chaos - OXL_MS), "crash", fault_crash, r);
}

/* ---- the liveness phase ------------------------------------------------------------------------------------- */
static void heal(run *r) {
    oxl_world *w = r->w;
    oxl_net_heal(w);
    oxl_net_latency(w, OXL_MS, 5 * OXL_MS);
    oxl_net_drop(w, 0);
    oxl_net_duplicate(w, 0);
    oxl_net_reorder(w, 0);
    for (oxl_node_id n = 0; n < servers(r); n++) {
        oxl_world_set_clock_skew(w, n, 0);
        oxl_world_set_disk_fail_rate(w, n, 0, 0);
        if (!oxl_world_is_up(w, n)) oxl_world_restart(w, n);
    }
    raft_clients_drain(r->clients);
}

/* A leader that a majority of its configuration follows, or OXL_NO_NODE. */
static oxl_node_id settled_leader(run *r) {
    oxl_node_id l = current_leader(r);
    if (l == OXL_NO_NODE) return l;
    const raft_server *ls = raft_server_of(r->w, &r->cluster, l);
    int following = 0;
    for (oxl_node_id n = 0; n < servers(r); n++) {
        const raft_server *s = raft_server_of(r->w, &r->cluster, n);
        if (s && (ls->members & (1u << n)) && s->term == ls->term && (n == l || s->leader == l)) following++;
    }
    return following >= __builtin_popcount(ls->members) / 2 + 1 ? l : OXL_NO_NODE;
}

/* Every live member has applied all the leader committed. */
static bool caught_up(run *r, oxl_node_id leader) {
    const raft_server *ls = raft_server_of(r->w, &r->cluster, leader);
    for (oxl_node_id n = 0; n < servers(r); n++) {
        const raft_server *s = raft_server_of(r->w, &r->cluster, n);
        if (s && (ls->members & (1u << n)) && s->applied < ls->commit) return false;
    }
    return ls->applied == ls->commit;
}

/* ---- end of run ---------------------------------------------------------------------------------------------- */
/* The members' state machines agree once they applied the same prefix. */
static const char *replicas_agree(run *r, oxl_node_id leader) {
    const raft_server *ls = raft_server_of(r->w, &r->cluster, leader);
    for (oxl_node_id n = 0; n < servers(r); n++) {
        const raft_server *s = raft_server_of(r->w, &r->cluster, n);
        if (!s || s == ls || s->applied != ls->applied) continue;
        for (int k = 0; k < RAFT_MAX_KEYS; k++)
            if (s->kv[k] != ls->kv[k])
                return oxl_world_strf(r->w, "end of run: %s and %s applied %u entries but hold %" PRId64 " and %" PRId64
                                            " for key %d",
                                      oxl_world_node_name(r->w, leader), oxl_world_node_name(r->w, n), s->applied,
                                      ls->kv[k], s->kv[k], k);
    }
    return NULL;
}

static const char *with_description(run *r, const char *failure) {
    char *d = raft_describe(r->w, &r->cluster);
    const char *text = oxl_world_strf(r->w, "%s\n  cluster at %.3fs:\n%s", failure, (double)oxl_world_now(r->w) / 1e9,
                                      d ? d : "  (no description: out of memory)\n");
    free(d);
    return text;
}

const char *raft_scenario_run(oxl_world *w, void *arg) {
    const raft_scenario_options *opt = arg;
    const char *bad = raft_scenario_check(opt);
    if (bad) return oxl_world_strf(w, "raft scenario: %s", bad);
    run r = {.opt = opt, .cluster = {.params = opt->raft}, .w = w};
    for (int n = 0; n < opt->raft.servers; n++) {
        char name[16];
        snprintf(name, sizeof name, "n%d", n);
        oxl_world_add_node(w, name, raft_server_new, &r.cluster);
    }
    oxl_history *h = oxl_history_new();
    raft_oracle *oracle = raft_oracle_new(w, &r.cluster);
    r.clients = raft_clients_new(w, &r.cluster, opt->clients, opt->keys, opt->think_max, opt->attempt, h);
    if (!h || !oracle || !r.clients) {
        oxl_history_free(h);
        raft_oracle_free(oracle);
        raft_clients_free(r.clients);
        return "raft scenario: out of memory";
    }
    if (opt->faults == RAFT_FAULTS_CHAOS) plan_chaos(&r);
    if (opt->faults == RAFT_FAULTS_BENCH) plan_bench(&r);

    const char *failure = NULL;
    oxl_world_run_until(w, opt->chaos);
    if (!oxl_world_failed(w)) {
        heal(&r);
        oxl_time_ns limit = oxl_world_now(w) + opt->liveness_limit;
        oxl_node_id leader = OXL_NO_NODE;
        while (!oxl_world_failed(w)) {
            leader = settled_leader(&r);
            if (leader != OXL_NO_NODE && raft_clients_pending(r.clients) == 0 && caught_up(&r, leader)) break;
            if (oxl_world_now(w) >= limit) {
                char pending[256];
                raft_clients_describe_pending(w, r.clients, pending, sizeof pending);
                failure = oxl_world_strf(w, "not live: %.1fs after the faults healed, %s; %d operations pending, the oldest: %s",
                                         (double)opt->liveness_limit / 1e9,
                                         leader == OXL_NO_NODE ? "no leader holds a majority"
                                                               : "the members have not caught up",
                                         raft_clients_pending(r.clients), pending);
                break;
            }
            oxl_world_run_for(w, SETTLE_STEP);
        }
        if (!failure && !oxl_world_failed(w)) failure = replicas_agree(&r, leader);
    }
    if (!failure && !oxl_world_failed(w)) {
        oxl_lin_result lin = oxl_check_register(h, 0, opt->checker_budget);
        if (lin.verdict == OXL_LIN_VIOLATION)
            failure = oxl_world_strf(w, "%s", lin.report);
        else if (lin.verdict == OXL_LIN_UNKNOWN) /* reported, never a pass */
            failure = lin.report && strncmp(lin.report, "undecided: ", 11) == 0
                          ? oxl_world_strf(w, "%s", lin.report)
                          : oxl_world_strf(w, "undecided: %s", lin.report ? lin.report : "the checker gave no verdict");
        oxl_lin_result_free(&lin);
    }
    if (oxl_world_failed(w) && !failure) failure = oxl_world_failure(w);
    if (failure) failure = with_description(&r, failure);

    r.stats.seeds = 1;
    r.stats.events = oxl_world_event_count(w);
    r.stats.ops = raft_clients_completed(r.clients);
    r.stats.leaders = raft_oracle_leaders(oracle);
    r.stats.entries = raft_oracle_committed(oracle);
    if (opt->stats) {
        raft_run_stats *t = opt->stats;
        t->seeds += r.stats.seeds;
        t->events += r.stats.events;
        t->ops += r.stats.ops;
        t->leaders += r.stats.leaders;
        t->crashes += r.stats.crashes;
        t->partitions += r.stats.partitions;
        t->config_changes += r.stats.config_changes;
        t->entries += r.stats.entries;
    }
    /* The world outlives this frame but runs no more events: its
     * processes and invariants never touch what is freed here. */
    raft_clients_free(r.clients);
    raft_oracle_free(oracle);
    oxl_history_free(h);
    return failure;
}
