/* raft_scenario.h: a Raft cluster under faults, checked. The whole
 * interface of raft_scenario.c, raft_oracle.c and raft_client.c.
 *
 * One run (a sweep body, one seed):
 *  1. servers n0..n{S-1} and clients c0..c{C-1} join the world; the
 *     oracles below are added as invariants, checked after every event;
 *  2. a fault schedule is drawn from the world's fault stream
 *     (oxl_world_rng) for the chaos phase: partitions, one-way blocks,
 *     kills and restarts, drops, duplicates, latency changes, clock skew,
 *     disk faults and membership changes (which faults depends on the
 *     profile);
 *  3. clients issue put/get/cas to whichever server they believe leads,
 *     retrying until they get an answer, and record every operation in an
 *     oxl_history;
 *  4. liveness: the faults are healed (network, skew, disks, dead servers
 *     restarted) and clients stop starting operations; within
 *     liveness_limit of virtual time a leader must hold a majority and
 *     every pending operation must complete, or the seed fails "not live";
 *  5. end of run: the live members' state machines agree, and the history
 *     is linearizable per key (oxl_check_register, with a budget; an
 *     undecided key fails the seed as "undecided", never a pass).
 *
 * The oracles, six invariants (names as failures show them):
 *  - "election safety": at most one leader per term, ever;
 *  - "log matching": two logs with an entry of the same index and term
 *    hold the same entries up to it (compared by hash chain);
 *  - "leader completeness": a leader of term T holds every entry committed
 *    in a term before T;
 *  - "state-machine safety": no index is applied as two different entries;
 *  - "committed entries never lost": a committed entry stays on a majority
 *    of the configuration that committed it, counting a down server by what
 *    its disk kept through the crash, and no server's committed prefix
 *    changes;
 *  - "votes survive crashes": a server that sent out a vote in term T
 *    (granted it, or asked for itself) comes back from a crash at term T
 *    with that vote, or at a later term: the persistence election safety
 *    rests on, checked where it breaks instead of waiting for a second
 *    leader to win with a forgotten vote.
 * Every failure text ends with describe(cluster) (raft_describe). */
#ifndef RAFT_SCENARIO_H
#define RAFT_SCENARIO_H

#include "raft_harness.h"

typedef enum raft_faults {
    RAFT_FAULTS_NONE = 0,  /* no faults: a healthy cluster */
    RAFT_FAULTS_CHAOS,     /* every kind of fault, and membership changes */
    RAFT_FAULTS_BENCH,     /* three partition windows, a restart in about half the seeds, 2% drop and duplication */
} raft_faults;

/* Counts over the seeds a scenario ran (for diagnostics and benches). */
typedef struct raft_run_stats {
    uint64_t seeds, events, ops, leaders, crashes, partitions, config_changes, entries;
} raft_run_stats;

typedef struct raft_scenario_options {
    raft_params raft;          /* servers, timing, planted bugs */
    int clients;               /* 0..RAFT_MAX_CLIENTS */
    int keys;                  /* 1..RAFT_MAX_KEYS */
    raft_faults faults;
    oxl_dur_ns chaos;          /* the fault phase */
    oxl_dur_ns liveness_limit; /* after healing: a leader and every pending op within this */
    oxl_dur_ns think_max;      /* a client waits uniform [0, think_max] between ops */
    oxl_dur_ns attempt;        /* a client retries an unanswered request after this */
    uint64_t checker_budget;   /* search states per key (0 = the checker's default) */
    raft_run_stats *stats;     /* added to when not NULL */
} raft_scenario_options;

/* The test sweep's: 5 servers, 3 clients on 3 keys, RAFT_FAULTS_CHAOS for
 * 10s, liveness within 10s. */
raft_scenario_options raft_scenario_chaos(void);
/* The bench's (bench/raft_sweep.c): 5 servers, 1 client, RAFT_FAULTS_BENCH
 * for 10s, liveness within 10s. */
raft_scenario_options raft_scenario_bench(void);
/* NULL when usable, else why not. */
const char *raft_scenario_check(const raft_scenario_options *o);

/* An oxl_sweep_body: arg is a raft_scenario_options. Returns NULL, or the
 * failure followed by describe(cluster). A failure's first words name what
 * caught it: "invariant '<name>' violated", "not live", "not
 * linearizable", "undecided", "end of run". */
const char *raft_scenario_run(oxl_world *w, void *arg);

/* ---- the parts (raft_oracle.c, raft_client.c) ------------------------------------------------------ */
typedef struct raft_oracle raft_oracle;
/* Adds the six invariants to w. Free after the world stops running. */
raft_oracle *raft_oracle_new(oxl_world *w, raft_cluster *cl);
void raft_oracle_free(raft_oracle *o);
uint64_t raft_oracle_leaders(const raft_oracle *o); /* leaders elected so far */
uint32_t raft_oracle_committed(const raft_oracle *o); /* the highest committed index */

typedef struct raft_clients raft_clients;
/* Adds clients c0..c{n-1} to w (nodes after the servers), recording into h. */
raft_clients *raft_clients_new(oxl_world *w, const raft_cluster *cl, int n, int keys, oxl_dur_ns think_max,
                               oxl_dur_ns attempt, oxl_history *h);
void raft_clients_free(raft_clients *c);
/* No new operations from now on; pending ones go on until answered. */
void raft_clients_drain(raft_clients *c);
/* Operations invoked and not yet answered (including membership changes). */
int raft_clients_pending(const raft_clients *c);
uint64_t raft_clients_completed(const raft_clients *c);
/* The oldest pending operation, as text (for "not live"), or "none". */
void raft_clients_describe_pending(oxl_world *w, const raft_clients *c, char *buf, size_t cap);
/* Asks client 0 to change the membership to `members` (as its next
 * operation). False when there is no client to ask or the clients drain. */
bool raft_clients_change_members(oxl_world *w, raft_clients *c, uint32_t members);

#endif
