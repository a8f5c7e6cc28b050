/* raft_harness.h: a Raft server as a process of the simulation kernel
 * (oxl_sim.h), with a key-value state machine, and switches that plant six
 * known bugs. The whole interface of raft_harness.c, raft_storage.c and
 * raft_describe.c.
 *
 * What a server does (Ongaro's thesis, chapters 3 and 4):
 *  - leader election with a randomized timeout drawn from the node's own
 *    rng, one vote per term, the log-freshness check on votes, and a
 *    leader that ignores disruptive votes while it hears from a leader
 *    (thesis 4.2.3);
 *  - log replication with the consistency check and fast back-off (a
 *    rejection names the conflicting term and its first index);
 *  - commit of current-term entries by counting replicas, a no-op entry
 *    per new term so earlier entries commit too;
 *  - a key-value state machine (put, get, cas) with client sessions, so a
 *    retried command takes effect once;
 *  - single-server membership change (add or remove one server; one change
 *    at a time, only after the leader committed an entry of its term);
 *  - term, vote and log persisted on the node's simulated disk, synced
 *    before every message that depends on them, recovered at boot.
 *
 * Servers are the nodes 0..servers-1 of the world; clients are the nodes
 * after them and talk to servers with raft_encode_request and
 * raft_decode_response. Oracles (raft_scenario.h) read a server's state
 * through raft_server_of; nothing here checks itself. */
#ifndef RAFT_HARNESS_H
#define RAFT_HARNESS_H

#include "oxl_sim.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- limits ---------------------------------------------------------------------------------- */
#define RAFT_MAX_SERVERS 8          /* a member set is a bitmask of servers */
#define RAFT_MAX_CLIENTS 8
#define RAFT_MAX_NODES (RAFT_MAX_SERVERS + RAFT_MAX_CLIENTS) /* servers and clients of one world */
#define RAFT_MAX_KEYS 16            /* keys of the state machine: 0..RAFT_MAX_KEYS-1 */
#define RAFT_MAX_BATCH 64           /* entries per AppendEntries */
#define RAFT_MAX_LOG 60000          /* entries per log: one disk key each, under OXL_DISK_MAX_ENTRIES */
#define RAFT_ENTRY_BYTES 28         /* an encoded entry */
#define RAFT_MAX_MESSAGE (18 + RAFT_MAX_BATCH * RAFT_ENTRY_BYTES)

_Static_assert(RAFT_MAX_LOG + 1 < OXL_DISK_MAX_ENTRIES, "a log fits on a disk with its meta key");
_Static_assert(RAFT_MAX_MESSAGE <= OXL_SIM_MAX_MESSAGE, "an AppendEntries fits in a message");

/* ---- the planted bugs, one switch each --------------------------------------------------------- */
typedef enum raft_bug {
    RAFT_BUG_DOUBLE_VOTE = 1,     /* (1) a second vote in the same term */
    RAFT_BUG_NO_LOG_CHECK = 2,    /* (2) votes granted without the log-freshness check */
    RAFT_BUG_UNSYNCED_VOTE = 3,   /* (3) term and vote not persisted before replying */
    RAFT_BUG_STALE_TERM = 4,      /* (4) messages of an earlier term accepted as current */
    RAFT_BUG_OLD_TERM_COMMIT = 5, /* (5) entries of an earlier term committed by counting replicas */
    RAFT_BUG_UNSYNCED_APPEND = 6, /* (6) an append acknowledged before it is synced */
    RAFT_BUG_COUNT = 6,
} raft_bug;

#define RAFT_BUG_BIT(b) (1u << (b))
const char *raft_bug_name(raft_bug b); /* "double-vote", ...; "?" for others */
const char *raft_bug_what(raft_bug b); /* a sentence */

/* ---- parameters ------------------------------------------------------------------------------- */
typedef struct raft_params {
    int servers;              /* 1..RAFT_MAX_SERVERS: nodes 0..servers-1 */
    uint32_t members;         /* the bootstrap configuration: a bitmask of servers */
    oxl_dur_ns election_min;  /* election timeout, uniform in [min, max] per wait */
    oxl_dur_ns election_max;
    oxl_dur_ns heartbeat;     /* a leader's AppendEntries period */
    int batch;                /* entries per AppendEntries, 1..RAFT_MAX_BATCH */
    unsigned bugs;            /* RAFT_BUG_BIT(...) of the planted bugs */
} raft_params;

/* 5 servers, all members, elections in 150..300ms, heartbeats every 50ms. */
raft_params raft_params_default(int servers);
/* NULL when p is usable, else why not. */
const char *raft_params_check(const raft_params *p);

/* What every server of one world shares: its parameters, and the servers
 * whose state changed since an oracle last looked (a bitmask: a server
 * sets its bit when its role, term, vote, log, commit or applied index
 * changes, when it boots and when it is destroyed), and a count of boots
 * and destroys per server. Keep it alive as long as the world. */
typedef struct raft_cluster {
    raft_params params;
    uint32_t changed;
    /* per server, bumped at every boot and every destroy (crash or the
     * world's end): while it stands still the server is the same process
     * in the same incarnation */
    uint32_t epoch[RAFT_MAX_SERVERS];
} raft_cluster;

/* ---- the log and the state machine ----------------------------------------------------------- */
typedef enum raft_role { RAFT_FOLLOWER = 0, RAFT_CANDIDATE, RAFT_LEADER } raft_role;
typedef enum raft_entry_type { RAFT_ENTRY_NOOP = 1, RAFT_ENTRY_COMMAND, RAFT_ENTRY_CONFIG } raft_entry_type;
typedef enum raft_op { RAFT_OP_PUT = 1, RAFT_OP_GET, RAFT_OP_CAS, RAFT_OP_CONFIG } raft_op;

/* A client's command. put: a = value; cas: a = expected, b = new; config:
 * a = the new member set. client is the client's node id, seq its
 * command number (a session: each client's commands apply once, in order). */
typedef struct raft_command {
    uint8_t op, key, client;
    uint32_t seq;
    int64_t a, b;
} raft_command;

typedef struct raft_entry {
    uint32_t term;
    uint8_t type;        /* raft_entry_type */
    raft_command cmd;    /* COMMAND and CONFIG */
    uint64_t hash;       /* of this entry's term, type and command */
    uint64_t chain;      /* of this entry and every one before it */
} raft_entry;

typedef struct raft_session {
    uint32_t seq;        /* the last command applied for this client */
    int64_t result;      /* and its result */
} raft_session;

typedef struct raft_progress {
    uint32_t next, match; /* the leader's view of one follower */
} raft_progress;

/* A server. Durable fields mirror the disk: they change only after the
 * write that records them succeeded. */
typedef struct raft_server {
    oxl_process base;
    raft_cluster *cl;
    oxl_ctx ctx;
    /* durable */
    uint32_t term;
    oxl_node_id vote;            /* OXL_NO_NODE: none in this term */
    raft_entry *log;             /* log[1..last]; log[0] is a sentinel of term 0 */
    uint32_t last, log_cap;
    /* volatile */
    raft_role role;
    oxl_node_id leader;          /* the leader it believes in, or OXL_NO_NODE */
    uint32_t commit, applied;
    uint32_t members;            /* the latest configuration in the log */
    uint32_t config_index;       /* its entry, 0 for the bootstrap one */
    uint32_t votes;              /* a candidate's granted votes, a bitmask */
    uint32_t synced;             /* a leader's entries known durable */
    raft_progress peer[RAFT_MAX_SERVERS];
    oxl_time_ns appended_at[RAFT_MAX_SERVERS]; /* a leader's last AppendEntries to each (own clock) */
    bool inflight[RAFT_MAX_SERVERS];  /* entries sent to it and not answered yet */
    uint32_t proposed[RAFT_MAX_NODES]; /* a leader's newest seq in its log, per client */
    oxl_dur_ns election_timeout; /* the current randomized timeout */
    oxl_time_ns election_deadline;
    oxl_time_ns leader_contact;  /* when it last heard from a leader (own clock) */
    oxl_timer_id heartbeat_timer;
    /* the state machine */
    int64_t kv[RAFT_MAX_KEYS];
    raft_session sessions[RAFT_MAX_NODES];
    uint64_t *applied_hash;      /* [1..applied]: the entry applied at each index */
    uint32_t applied_cap;
    /* for oracles */
    uint32_t promised_term;      /* the newest vote it sent out: granted to a candidate, */
    oxl_node_id promised_to;     /* or asked for itself; a boot must remember it */
    uint64_t version;            /* bumped when role, term, vote, log, commit or applied change */
    uint32_t log_dirty_from;     /* lowest index changed since an oracle last reset it */
} raft_server;

/* The process factory of a server; arg is the raft_cluster. */
oxl_process *raft_server_new(oxl_ctx ctx, void *cluster);
/* The live server process of node n, or NULL (down, or not a server). */
raft_server *raft_server_of(oxl_world *w, const raft_cluster *cl, oxl_node_id n);

/* ---- durable state, as the storage layer reads it (raft_storage.c) ------------------------------- */
typedef struct raft_durable {
    uint32_t term;
    oxl_node_id vote;
    raft_entry *log; /* malloc'd, [1..last] */
    uint32_t last;
} raft_durable;

/* Reads a server's state from its disk (what a boot recovers). False, with
 * why the disk is unreadable in why, when it cannot. Free out either way. */
bool raft_durable_read(oxl_disk *d, raft_durable *out, char *why, size_t cap);
void raft_durable_free(raft_durable *d);
/* The hash chain of an entry after `prev`: what log matching compares. */
uint64_t raft_entry_hash(const raft_entry *e);
uint64_t raft_chain(uint64_t prev, uint64_t entry_hash);

/* ---- clients ------------------------------------------------------------------------------------ */
typedef enum raft_status { RAFT_OK = 1, RAFT_NOT_LEADER, RAFT_REFUSED } raft_status;

typedef struct raft_response {
    uint32_t seq;
    uint8_t status;        /* raft_status */
    oxl_node_id leader;    /* NOT_LEADER: the leader it believes in, or OXL_NO_NODE */
    int64_t result;        /* OK: get -> value, cas -> 1 swapped / 0 not, config -> 1 */
} raft_response;

#define RAFT_REQUEST_BYTES 23
/* Encodes a request (cmd.client is filled in by the server from the sender). */
size_t raft_encode_request(const raft_command *cmd, unsigned char *buf, size_t cap);
bool raft_decode_response(const void *data, size_t len, raft_response *out);

/* ---- describe ----------------------------------------------------------------------------------- */
/* Every server: role, term, vote, commit, applied, log range with terms,
 * configuration, and a leader's next/match per follower; down servers from
 * their disk. malloc'd text, several lines. */
char *raft_describe(oxl_world *w, const raft_cluster *cl);
/* "n0,n2,n3": the members of a bitmask. */
void raft_format_members(oxl_world *w, uint32_t members, char *buf, size_t cap);

#endif
