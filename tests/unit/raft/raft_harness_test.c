/* raft_harness_test.c: the Raft harness's parts on their own: parameters
 * and options refused by name, the entry encoding and the disk layout with
 * recovery, the client wire, a healthy cluster, a restart that recovers,
 * describe, and each oracle against a state broken on purpose (a check
 * that cannot fail proves nothing). */
#include "raft_internal.h"
#include "raft_scenario.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

/* ---- parameters and options ---------------------------------------------------------------------- */
static void test_params(void) {
    raft_params p = raft_params_default(5);
    tap_ok(raft_params_check(&p) == NULL, "the default parameters are usable");
    tap_is_uint(p.members, 0x1f, "all five servers are members");
    raft_params q = p;
    q.servers = 0;
    tap_is_str(raft_params_check(&q), "servers must be 1..8", "0 servers is refused");
    q = p;
    q.servers = 9;
    tap_is_str(raft_params_check(&q), "servers must be 1..8", "9 servers is refused");
    q = p;
    q.members = 1u << 5;
    tap_is_str(raft_params_check(&q), "members must be a nonempty set of servers", "a member that is no server");
    q = p;
    q.election_max = q.election_min - 1;
    tap_is_str(raft_params_check(&q), "the election timeout range is empty", "an empty election range");
    q = p;
    q.heartbeat = q.election_min;
    tap_is_str(raft_params_check(&q), "heartbeats must come faster than elections", "slow heartbeats");
    q = p;
    q.batch = 0;
    tap_is_str(raft_params_check(&q), "batch must be 1..64", "batch 0");
    q = p;
    q.bugs = RAFT_BUG_BIT(7);
    tap_is_str(raft_params_check(&q), "unknown bug switch", "a bug switch that does not exist");
    for (int b = 1; b <= RAFT_BUG_COUNT; b++) {
        q = p;
        q.bugs = RAFT_BUG_BIT(b);
        tap_ok(raft_params_check(&q) == NULL && strcmp(raft_bug_name((raft_bug)b), "?") != 0,
               "bug switch %d (%s) is accepted and named", b, raft_bug_name((raft_bug)b));
    }
    tap_is_str(raft_bug_name((raft_bug)0), "?", "no bug 0");

    raft_scenario_options o = raft_scenario_chaos();
    tap_ok(raft_scenario_check(&o) == NULL, "the chaos scenario's options are usable");
    o.clients = 9;
    tap_is_str(raft_scenario_check(&o), "clients must be 0..8", "9 clients are refused");
    o = raft_scenario_chaos();
    o.keys = 0;
    tap_is_str(raft_scenario_check(&o), "keys must be 1..16", "0 keys are refused");
    oxl_world *w = oxl_world_new(NULL);
    tap_is_str(raft_scenario_run(w, &o), "raft scenario: keys must be 1..16", "a run with bad options says why");
    oxl_world_free(w);

    /* A checker that runs out of budget is reported, never a pass. */
    o = raft_scenario_chaos();
    o.faults = RAFT_FAULTS_NONE;
    o.checker_budget = 1;
    oxl_world_options wo = oxl_world_options_default(1);
    w = oxl_world_new(&wo);
    const char *f = raft_scenario_run(w, &o);
    tap_ok(f && strncmp(f, "undecided: ", 11) == 0, "a budget of one state leaves the history undecided: %.80s",
           f ? f : "(passed)");
    tap_contains(f, "budget of 1 states ran out", "the report says why");
    tap_contains(f, "cluster at", "and describes the cluster");
    oxl_world_free(w);
    o.checker_budget = 0;
    w = oxl_world_new(&wo);
    f = raft_scenario_run(w, &o);
    tap_ok(f == NULL, "with the default budget the same seed passes: %.80s", f ? f : "passed");
    oxl_world_free(w);
}

/* ---- the entry encoding and the disk -------------------------------------------------------------- */
typedef struct idle {
    oxl_process base;
} idle;
static void idle_start(oxl_process *self, oxl_ctx c) {}
static void idle_message(oxl_process *self, oxl_ctx c, oxl_node_id f, const void *d, size_t n) {}
static void idle_destroy(oxl_process *self) { free(self); }
static const oxl_process_ops idle_ops = {idle_start, idle_message, idle_destroy};
static oxl_process *idle_new(oxl_ctx c, void *arg) {
    idle *p = calloc(1, sizeof *p);
    p->base.ops = &idle_ops;
    return &p->base;
}

static void test_storage(void) {
    raft_entry e = {.term = 7, .type = RAFT_ENTRY_COMMAND,
                    .cmd = {.op = RAFT_OP_CAS, .key = 3, .client = 9, .seq = 123456, .a = -5, .b = INT64_MAX}};
    unsigned char b[RAFT_ENTRY_BYTES];
    raft_entry_encode(&e, b);
    raft_entry back;
    tap_ok(raft_entry_decode(b, &back), "an encoded entry decodes");
    tap_ok(back.term == 7 && back.type == RAFT_ENTRY_COMMAND && back.cmd.op == RAFT_OP_CAS && back.cmd.key == 3 &&
               back.cmd.client == 9 && back.cmd.seq == 123456 && back.cmd.a == -5 && back.cmd.b == INT64_MAX,
           "every field comes back");
    tap_is_uint(raft_entry_hash(&back), raft_entry_hash(&e), "and the same hash");
    unsigned char bad[RAFT_ENTRY_BYTES];
    memcpy(bad, b, sizeof bad);
    bad[0] = bad[1] = bad[2] = bad[3] = 0;
    tap_ok(!raft_entry_decode(bad, &back), "term 0 is malformed");
    memcpy(bad, b, sizeof bad);
    bad[4] = 9;
    tap_ok(!raft_entry_decode(bad, &back), "an unknown entry type is malformed");
    memcpy(bad, b, sizeof bad);
    bad[5] = RAFT_OP_CONFIG;
    tap_ok(!raft_entry_decode(bad, &back), "a command entry with a config op is malformed");
    memcpy(bad, b, sizeof bad);
    bad[6] = RAFT_MAX_KEYS;
    tap_ok(!raft_entry_decode(bad, &back), "a key past the limit is malformed");
    raft_entry other = e;
    other.cmd.a = -6;
    tap_ok(raft_entry_hash(&other) != raft_entry_hash(&e), "entries that differ hash apart");
    tap_ok(raft_chain(raft_chain(0, 1), 2) != raft_chain(raft_chain(0, 2), 1), "the chain depends on order");

    oxl_world *w = oxl_world_new(NULL);
    oxl_world_add_node(w, "n0", idle_new, NULL);
    oxl_world_run(w);
    oxl_disk *d = oxl_world_disk(w, 0);
    raft_durable got;
    char why[96];
    tap_ok(raft_durable_read(d, &got, why, sizeof why), "an empty disk reads");
    tap_ok(got.term == 0 && got.vote == OXL_NO_NODE && got.last == 0, "as term 0, no vote, an empty log");
    raft_durable_free(&got);
    tap_is_int(raft_store_meta(d, 4, 2), OXL_DISK_OK, "term and vote stored");
    for (uint32_t i = 1; i <= 3; i++) {
        raft_entry x = {.term = i, .type = RAFT_ENTRY_NOOP};
        raft_store_entry(d, i, &x);
    }
    raft_entry x = {.term = 9, .type = RAFT_ENTRY_NOOP};
    raft_store_entry(d, 5, &x); /* past a hole: recovery stops at the hole */
    tap_ok(raft_durable_read(d, &got, why, sizeof why), "a written disk reads");
    tap_ok(got.term == 4 && got.vote == 2 && got.last == 3 && got.log[3].term == 3,
           "term 4, vote n2, entries 1..3 (recovery stops at the first missing index)");
    uint64_t chain = 0;
    for (uint32_t i = 1; i <= 3; i++) chain = raft_chain(chain, got.log[i].hash);
    tap_is_uint(got.log[3].chain, chain, "the recovered chain covers every entry");
    raft_durable_free(&got);
    tap_is_int(raft_store_drop(d, 3), OXL_DISK_OK, "the newest entry dropped");
    tap_ok(raft_durable_read(d, &got, why, sizeof why) && got.last == 2, "and gone after it");
    raft_durable_free(&got);
    oxl_disk_put(d, "log/00000002", "short", 5);
    tap_ok(!raft_durable_read(d, &got, why, sizeof why), "a malformed entry fails the read");
    tap_is_str(why, "log entry 2 is malformed", "naming the entry");
    raft_durable_free(&got);
    oxl_disk_put(d, "meta", "x", 1);
    tap_ok(!raft_durable_read(d, &got, why, sizeof why), "a malformed meta record fails the read");
    tap_is_str(why, "the meta record is not 8 bytes", "saying why");
    raft_durable_free(&got);
    oxl_world_free(w);
}

static void test_client_wire(void) {
    raft_command c = {.op = RAFT_OP_PUT, .key = 1, .seq = 5, .a = 42};
    unsigned char b[RAFT_REQUEST_BYTES];
    tap_is_uint(raft_encode_request(&c, b, sizeof b), RAFT_REQUEST_BYTES, "a request encodes");
    tap_is_uint(raft_encode_request(&c, b, sizeof b - 1), 0, "not into a short buffer");
    raft_response r;
    unsigned char resp[15] = {6};
    tap_ok(!raft_decode_response(resp, 14, &r), "a short response is refused");
    tap_ok(!raft_decode_response(b, sizeof b, &r), "a request is no response");
    resp[5] = 9;
    tap_ok(!raft_decode_response(resp, sizeof resp, &r), "an unknown status is refused");
    resp[5] = RAFT_OK;
    tap_ok(raft_decode_response(resp, sizeof resp, &r) && r.status == RAFT_OK, "a well-formed response decodes");
}

/* ---- a cluster built by hand, to break on purpose ------------------------------------------------------ */
typedef struct cluster {
    oxl_world *w;
    raft_cluster cl;
    raft_oracle *oracle;
    raft_clients *clients;
    oxl_history *h;
} cluster;

static void cluster_start(cluster *c, uint64_t seed) {
    oxl_world_options o = oxl_world_options_default(seed);
    c->w = oxl_world_new(&o);
    c->cl = (raft_cluster){.params = raft_params_default(5)};
    for (int n = 0; n < 5; n++) {
        char name[8];
        snprintf(name, sizeof name, "n%d", n);
        oxl_world_add_node(c->w, name, raft_server_new, &c->cl);
    }
    c->h = oxl_history_new();
    c->oracle = raft_oracle_new(c->w, &c->cl);
    c->clients = raft_clients_new(c->w, &c->cl, 2, 2, 20 * OXL_MS, 100 * OXL_MS, c->h);
}

static void cluster_free(cluster *c) {
    oxl_world_free(c->w);
    raft_clients_free(c->clients);
    raft_oracle_free(c->oracle);
    oxl_history_free(c->h);
}

static oxl_node_id leader_of(cluster *c) {
    for (oxl_node_id n = 0; n < 5; n++) {
        raft_server *s = raft_server_of(c->w, &c->cl, n);
        if (s && s->role == RAFT_LEADER) return n;
    }
    return OXL_NO_NODE;
}

static oxl_node_id follower_of(cluster *c, oxl_node_id not) {
    for (oxl_node_id n = 0; n < 5; n++)
        if (n != not && raft_server_of(c->w, &c->cl, n)) return n;
    return OXL_NO_NODE;
}

static void test_healthy_cluster(void) {
    cluster c;
    cluster_start(&c, 3);
    oxl_world_run_until(c.w, 3 * OXL_SEC);
    tap_ok(!oxl_world_failed(c.w), "a healthy cluster runs 3s without a failure: %s",
           oxl_world_failed(c.w) ? oxl_world_failure(c.w) : "none");
    oxl_node_id l = leader_of(&c);
    tap_ok(l != OXL_NO_NODE, "it elected a leader");
    tap_ok(raft_oracle_leaders(c.oracle) >= 1 && raft_oracle_leaders(c.oracle) <= 2,
           "in at most two elections (%llu)", (unsigned long long)raft_oracle_leaders(c.oracle));
    raft_server *ls = raft_server_of(c.w, &c.cl, l);
    tap_ok(ls && ls->commit > 50, "clients got entries committed (%u)", ls ? ls->commit : 0);
    tap_ok(raft_clients_completed(c.clients) > 50, "and answered (%llu operations)",
           (unsigned long long)raft_clients_completed(c.clients));
    int caught_up = 0;
    for (oxl_node_id n = 0; n < 5; n++) {
        raft_server *s = raft_server_of(c.w, &c.cl, n);
        caught_up += s && s->last >= ls->commit && s->log[ls->commit].chain == ls->log[ls->commit].chain;
    }
    tap_is_int(caught_up, 5, "every server holds the committed log");

    /* A follower restarts and recovers its durable state. */
    oxl_node_id f = follower_of(&c, l);
    raft_server *fs = raft_server_of(c.w, &c.cl, f);
    uint32_t term = fs->term, last = fs->last;
    uint64_t chain = fs->log[fs->last].chain;
    oxl_world_kill(c.w, f);
    char *d = raft_describe(c.w, &c.cl);
    tap_contains(d, "down; on disk: term", "describe reads a down server from its disk");
    free(d);
    oxl_world_restart(c.w, f);
    fs = raft_server_of(c.w, &c.cl, f);
    tap_ok(fs && fs->term == term && fs->last == last && fs->log[last].chain == chain,
           "a restarted follower recovers term %u and entries 1..%u", term, last);
    tap_ok(fs && fs->commit == 0 && fs->applied == 0 && fs->role == RAFT_FOLLOWER,
           "and starts as a follower with nothing applied");
    oxl_world_run_for(c.w, OXL_SEC);
    fs = raft_server_of(c.w, &c.cl, f);
    tap_ok(!oxl_world_failed(c.w) && fs->applied > 0, "it catches up and applies again (%u)", fs->applied);
    d = raft_describe(c.w, &c.cl);
    tap_contains(d, "leader term", "describe names the leader");
    tap_contains(d, "next/match:", "and its per-follower progress");
    tap_contains(d, "members n0,n1,n2,n3,n4", "and the configuration");
    tap_contains(d, "log 1..", "and the log ranges");
    free(d);
    cluster_free(&c);
}

/* ---- single-server membership change --------------------------------------------------------------- */
static void test_membership(void) {
    cluster c;
    cluster_start(&c, 11);
    oxl_world_run_until(c.w, 2 * OXL_SEC);
    oxl_node_id l = leader_of(&c);
    tap_ok(l != OXL_NO_NODE, "a leader to change the membership under");
    /* Two servers at once is refused. */
    raft_clients_change_members(c.w, c.clients, 0x1f & ~(3u << (l == 0 ? 1 : 0)));
    oxl_world_run_for(c.w, 500 * OXL_MS);
    raft_server *ls = raft_server_of(c.w, &c.cl, leader_of(&c));
    tap_ok(ls && ls->members == 0x1f && ls->config_index == 0, "a change of two servers is refused");
    /* Removing the leader itself: it leaves once the change commits. */
    uint32_t without = 0x1f & ~(1u << l);
    raft_clients_change_members(c.w, c.clients, without);
    oxl_world_run_for(c.w, 2 * OXL_SEC);
    tap_ok(!oxl_world_failed(c.w), "the change runs without a failure: %s",
           oxl_world_failed(c.w) ? oxl_world_failure(c.w) : "none");
    oxl_node_id l2 = leader_of(&c);
    raft_server *old = raft_server_of(c.w, &c.cl, l), *now = raft_server_of(c.w, &c.cl, l2);
    tap_ok(l2 != OXL_NO_NODE && l2 != l, "the removed leader stepped down and %s leads",
           l2 == OXL_NO_NODE ? "nobody" : oxl_world_node_name(c.w, l2));
    tap_ok(now && now->members == without && now->config_index > 0 && now->commit >= now->config_index,
           "the new configuration is committed");
    tap_ok(old && old->members == without && old->role == RAFT_FOLLOWER, "the removed server knows it was removed");
    uint64_t done = raft_clients_completed(c.clients);
    oxl_world_run_for(c.w, OXL_SEC);
    tap_ok(raft_clients_completed(c.clients) > done + 20, "four servers go on serving clients");
    /* And back. */
    raft_clients_change_members(c.w, c.clients, 0x1f);
    oxl_world_run_for(c.w, 2 * OXL_SEC);
    now = raft_server_of(c.w, &c.cl, leader_of(&c));
    tap_ok(now && now->members == 0x1f && now->commit >= now->config_index, "the server is added back");
    old = raft_server_of(c.w, &c.cl, l);
    tap_ok(old && now && old->last >= now->commit && old->log[now->commit].chain == now->log[now->commit].chain,
           "and has caught up");
    tap_ok(!oxl_world_failed(c.w), "no invariant broke: %s", oxl_world_failed(c.w) ? oxl_world_failure(c.w) : "none");
    cluster_free(&c);
}

/* ---- the oracles, each against a state broken on purpose ------------------------------------------------- */
typedef struct breakage {
    cluster *c;
    int kind;
} breakage;

enum { BREAK_TWO_LEADERS, BREAK_LOG, BREAK_APPLY, BREAK_COMPLETENESS, BREAK_DURABLE, BREAK_VOTE };

static void rechain(raft_server *s, uint32_t from) {
    for (uint32_t i = from; i <= s->last; i++) s->log[i].chain = raft_chain(s->log[i - 1].chain, s->log[i].hash);
}

/* What the harness does on every change, which the oracle relies on. */
static void mark(cluster *c, oxl_node_id n) {
    raft_server *s = raft_server_of(c->w, &c->cl, n);
    if (s) s->version++;
    c->cl.changed |= 1u << n;
}

static void break_it(oxl_world *w, void *arg) {
    breakage *b = arg;
    cluster *c = b->c;
    oxl_node_id l = leader_of(c), f = follower_of(c, l);
    raft_server *ls = raft_server_of(w, &c->cl, l), *fs = raft_server_of(w, &c->cl, f);
    switch (b->kind) {
    case BREAK_TWO_LEADERS: /* a follower declares itself leader of the leader's term */
        fs->term = ls->term;
        fs->role = RAFT_LEADER;
        break;
    case BREAK_LOG: { /* a follower's entry changes under the same index and term */
        uint32_t i = fs->last;
        fs->log[i].cmd.a ^= 1;
        fs->log[i].hash = raft_entry_hash(&fs->log[i]);
        rechain(fs, i);
        fs->log_dirty_from = i;
        break;
    }
    case BREAK_APPLY: /* a follower reboots and will apply other entries than its log's (chains stay) */
        oxl_world_restart(w, f);
        fs = raft_server_of(w, &c->cl, f);
        for (uint32_t i = 1; i <= fs->last; i++) fs->log[i].hash ^= 1;
        break;
    case BREAK_COMPLETENESS: /* a follower leads a newer term with a log cut short */
        fs->last = fs->commit > 2 ? fs->commit / 2 : 1;
        fs->commit = fs->applied = 0;
        fs->term = ls->term + 1;
        fs->role = RAFT_LEADER;
        fs->log_dirty_from = fs->last + 1;
        break;
    case BREAK_DURABLE: /* three servers lose their logs from disk and crash */
        for (oxl_node_id n = 0, hit = 0; n < 5 && hit < 3; n++) {
            if (n == l) continue;
            oxl_disk *d = oxl_world_disk(w, n);
            for (uint32_t i = 1; i <= RAFT_MAX_LOG && raft_store_drop(d, i) == OXL_DISK_OK; i++) {
            }
            oxl_disk_sync(d);
            oxl_world_kill(w, n);
            hit++;
        }
        break;
    case BREAK_VOTE: /* a follower claims it voted in a later term (and crashes soon) */
        fs->promised_term = fs->term + 3;
        fs->promised_to = l;
        break;
    }
    mark(c, f);
}

static void crash_follower_later(oxl_world *w, void *arg) {
    breakage *b = arg;
    oxl_node_id f = follower_of(b->c, leader_of(b->c));
    oxl_world_crash_for(w, f, 10 * OXL_MS);
}

static void test_oracles_fail(void) {
    static const struct {
        int kind;
        const char *caught;
    } cases[] = {
        {BREAK_TWO_LEADERS, "invariant 'election safety' violated: "},
        {BREAK_LOG, "invariant 'log matching' violated: "},
        {BREAK_APPLY, "invariant 'state-machine safety' violated: "},
        {BREAK_COMPLETENESS, "invariant 'leader completeness' violated: "},
        {BREAK_DURABLE, "invariant 'committed entries never lost' violated: "},
        {BREAK_VOTE, "invariant 'votes survive crashes' violated: "},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cluster c;
        cluster_start(&c, 5);
        oxl_world_run_until(c.w, 2 * OXL_SEC);
        breakage b = {&c, cases[k].kind};
        oxl_world_at(c.w, oxl_world_now(c.w), "break", break_it, &b);
        if (cases[k].kind == BREAK_VOTE)
            oxl_world_at(c.w, oxl_world_now(c.w) + 5 * OXL_MS, "crash", crash_follower_later, &b);
        oxl_world_run_until(c.w, 4 * OXL_SEC);
        const char *f = oxl_world_failure(c.w);
        tap_ok(f && strncmp(f, cases[k].caught, strlen(cases[k].caught)) == 0, "a broken state is caught: %s",
               f ? f : "(nothing caught)");
        cluster_free(&c);
    }
}

int main(void) {
    test_params();
    test_storage();
    test_client_wire();
    test_healthy_cluster();
    test_membership();
    test_oracles_fail();
    return tap_done();
}
