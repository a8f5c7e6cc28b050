/* raft_harness.c: the Raft server: elections, replication with fast
 * back-off, commit, the key-value state machine with client sessions,
 * single-server membership change, and the six planted bugs (each behind
 * its own switch, each a line or two where the correct code decides). */
#include "raft_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- messages: a type byte, then little-endian fields ---------------------------------------------- */
enum { MSG_VOTE = 1, MSG_VOTE_REPLY, MSG_APPEND, MSG_APPEND_REPLY, MSG_REQUEST, MSG_RESPONSE };

/* vote:         type, term, last_index, last_term
 * vote reply:   type, term, granted
 * append:       type, term, prev_index, prev_term, commit, n, n entries
 * append reply: type, term, success, index (match, or conflict index), conflict_term
 * request:      type, seq, op, key, a, b
 * response:     type, seq, status, leader (int8), result */
#define VOTE_BYTES 13
#define VOTE_REPLY_BYTES 6
#define APPEND_HEADER 18
#define APPEND_REPLY_BYTES 14
#define RESPONSE_BYTES 15

_Static_assert(APPEND_HEADER + RAFT_MAX_BATCH * RAFT_ENTRY_BYTES == RAFT_MAX_MESSAGE, "the largest message");

/* ---- parameters and bug names --------------------------------------------------------------------- */
raft_params raft_params_default(int servers) {
    return (raft_params){
        .servers = servers,
        .members = servers > 0 && servers <= RAFT_MAX_SERVERS ? (1u << servers) - 1 : 0,
        .election_min = 150 * OXL_MS,
        .election_max = 300 * OXL_MS,
        .heartbeat = 50 * OXL_MS,
        .batch = 32,
        .bugs = 0,
    };
}

const char *raft_params_check(const raft_params *p) {
    if (p->servers < 1 || p->servers > RAFT_MAX_SERVERS) return "servers must be 1..8";
    if (p->members == 0 || (p->members >> p->servers) != 0) return "members must be a nonempty set of servers";
    if (p->election_min <= 0 || p->election_max < p->election_min) return "the election timeout range is empty";
    if (p->heartbeat <= 0 || p->heartbeat >= p->election_min) return "heartbeats must come faster than elections";
    if (p->batch < 1 || p->batch > RAFT_MAX_BATCH) return "batch must be 1..64";
    if (p->bugs >> (RAFT_BUG_COUNT + 1) || (p->bugs & 1)) return "unknown bug switch";
    return NULL;
}

const char *raft_bug_name(raft_bug b) {
    switch (b) {
    case RAFT_BUG_DOUBLE_VOTE: return "double-vote";
    case RAFT_BUG_NO_LOG_CHECK: return "no-log-check";
    case RAFT_BUG_UNSYNCED_VOTE: return "unsynced-vote";
    case RAFT_BUG_STALE_TERM: return "stale-term";
    case RAFT_BUG_OLD_TERM_COMMIT: return "old-term-commit";
    case RAFT_BUG_UNSYNCED_APPEND: return "unsynced-append";
    default: return "?";
    }
}

const char *raft_bug_what(raft_bug b) {
    switch (b) {
    case RAFT_BUG_DOUBLE_VOTE: return "a second vote in the same term";
    case RAFT_BUG_NO_LOG_CHECK: return "the log-freshness check on votes skipped";
    case RAFT_BUG_UNSYNCED_VOTE: return "term and vote not persisted before replying";
    case RAFT_BUG_STALE_TERM: return "stale-term messages accepted";
    case RAFT_BUG_OLD_TERM_COMMIT: return "entries of an earlier term committed by counting replicas";
    case RAFT_BUG_UNSYNCED_APPEND: return "an append acknowledged before it is synced";
    default: return "?";
    }
}

/* ---- small helpers ---------------------------------------------------------------------------------- */
static bool bug(const raft_server *s, raft_bug b) { return (s->cl->params.bugs & RAFT_BUG_BIT(b)) != 0; }
static uint32_t bit(oxl_node_id n) { return 1u << n; }
static int count(uint32_t set) { return raft_count(set); }
static int majority(uint32_t set) { return count(set) / 2 + 1; }
static oxl_node_id self_id(const raft_server *s) { return s->ctx.node; }
static oxl_disk *disk(const raft_server *s) { return oxl_ctx_disk(s->ctx); }
static void touch(raft_server *s) {
    s->version++;
    s->cl->changed |= bit(self_id(s));
}

static void log_changed(raft_server *s, uint32_t from) {
    if (from < s->log_dirty_from) s->log_dirty_from = from;
    touch(s);
}

raft_server *raft_server_of(oxl_world *w, const raft_cluster *cl, oxl_node_id n) {
    if (n < 0 || n >= cl->params.servers) return NULL;
    return (raft_server *)oxl_world_process(w, n);
}

/* ---- the log, on disk first and then in memory ---------------------------------------------------------- */
static bool log_reserve(raft_server *s, uint32_t index) {
    if (index < s->log_cap) return true;
    uint32_t cap = s->log_cap ? s->log_cap : 64;
    while (cap <= index) cap *= 2;
    raft_entry *g = realloc(s->log, (size_t)cap * sizeof *g);
    if (!g) return false;
    s->log = g;
    s->log_cap = cap;
    return true;
}

/* The latest configuration in the log, or the bootstrap one. */
static void find_config(raft_server *s) {
    s->members = s->cl->params.members;
    s->config_index = 0;
    for (uint32_t i = s->last; i > 0; i--)
        if (s->log[i].type == RAFT_ENTRY_CONFIG) {
            s->members = (uint32_t)s->log[i].cmd.a;
            s->config_index = i;
            return;
        }
}

/* Appends e at last+1: false when the disk write failed (nothing changed). */
static bool append_entry(raft_server *s, raft_entry e) {
    if (s->last >= RAFT_MAX_LOG) {
        oxl_ctx_fail(s->ctx, "log limit: more than %d entries", RAFT_MAX_LOG);
        return false;
    }
    if (!log_reserve(s, s->last + 1)) {
        oxl_ctx_fail(s->ctx, "out of memory growing the log");
        return false;
    }
    if (raft_store_entry(disk(s), s->last + 1, &e) != OXL_DISK_OK) return false;
    e.hash = raft_entry_hash(&e);
    e.chain = raft_chain(s->log[s->last].chain, e.hash);
    s->log[++s->last] = e;
    log_changed(s, s->last);
    if (e.type == RAFT_ENTRY_CONFIG) { /* a configuration takes effect when it is in the log */
        s->members = (uint32_t)e.cmd.a;
        s->config_index = s->last;
    }
    return true;
}

/* Drops the entries from index on, the newest first: false when a delete
 * failed (the entries below it stay). */
static bool truncate_from(raft_server *s, uint32_t index) {
    while (s->last >= index) {
        if (raft_store_drop(disk(s), s->last) != OXL_DISK_OK) return false;
        s->last--;
        log_changed(s, s->last + 1);
        if (s->synced > s->last) s->synced = s->last;
        if (s->config_index > s->last) find_config(s);
    }
    return true;
}

/* Records term and vote: false when the write failed (nothing changed). */
static bool set_term_vote(raft_server *s, uint32_t term, oxl_node_id vote) {
    if (term == s->term && vote == s->vote) return true;
    if (raft_store_meta(disk(s), term, vote) != OXL_DISK_OK) return false;
    s->term = term;
    s->vote = vote;
    touch(s);
    return true;
}

/* Makes every write so far durable: false when the sync failed. */
static bool sync_all(raft_server *s) {
    oxl_disk *d = disk(s);
    if (oxl_disk_unsynced(d) > 0 && oxl_disk_sync(d) != OXL_DISK_OK) return false;
    s->synced = s->last;
    return true;
}

/* ---- sending -------------------------------------------------------------------------------------------- */
static void send_vote(raft_server *s, oxl_node_id to) {
    unsigned char b[VOTE_BYTES];
    b[0] = MSG_VOTE;
    raft_put32(b + 1, s->term);
    raft_put32(b + 5, s->last);
    raft_put32(b + 9, s->log[s->last].term);
    oxl_ctx_send(s->ctx, to, b, sizeof b);
}

static void send_vote_reply(raft_server *s, oxl_node_id to, bool granted) {
    unsigned char b[VOTE_REPLY_BYTES];
    b[0] = MSG_VOTE_REPLY;
    raft_put32(b + 1, s->term);
    b[5] = granted;
    oxl_ctx_send(s->ctx, to, b, sizeof b);
}

static void send_append(raft_server *s, oxl_node_id to) {
    unsigned char b[RAFT_MAX_MESSAGE];
    raft_progress *p = &s->peer[to];
    if (p->next < 1) p->next = 1;
    if (p->next > s->last + 1) p->next = s->last + 1;
    uint32_t prev = p->next - 1, n = s->last - prev;
    if (n > (uint32_t)s->cl->params.batch) n = (uint32_t)s->cl->params.batch;
    b[0] = MSG_APPEND;
    raft_put32(b + 1, s->term);
    raft_put32(b + 5, prev);
    raft_put32(b + 9, s->log[prev].term);
    raft_put32(b + 13, s->commit);
    b[17] = (unsigned char)n;
    for (uint32_t k = 0; k < n; k++) raft_entry_encode(&s->log[prev + 1 + k], b + APPEND_HEADER + k * RAFT_ENTRY_BYTES);
    oxl_ctx_send(s->ctx, to, b, APPEND_HEADER + n * RAFT_ENTRY_BYTES);
    s->appended_at[to] = oxl_ctx_now(s->ctx);
    if (n) s->inflight[to] = true;
}

static void send_append_reply(raft_server *s, oxl_node_id to, bool success, uint32_t index, uint32_t conflict_term) {
    unsigned char b[APPEND_REPLY_BYTES];
    b[0] = MSG_APPEND_REPLY;
    raft_put32(b + 1, s->term);
    b[5] = success;
    raft_put32(b + 6, index);
    raft_put32(b + 10, conflict_term);
    oxl_ctx_send(s->ctx, to, b, sizeof b);
}

static void respond(raft_server *s, oxl_node_id client, uint32_t seq, raft_status status, int64_t result) {
    unsigned char b[RESPONSE_BYTES];
    b[0] = MSG_RESPONSE;
    raft_put32(b + 1, seq);
    b[5] = (unsigned char)status;
    b[6] = (unsigned char)(int8_t)(status == RAFT_NOT_LEADER ? s->leader : OXL_NO_NODE);
    raft_put64(b + 7, (uint64_t)result);
    oxl_ctx_send(s->ctx, client, b, sizeof b);
}

static void replicate_to_all(raft_server *s) {
    for (oxl_node_id p = 0; p < s->cl->params.servers; p++)
        if (p != self_id(s)) send_append(s, p);
}

/* ---- roles and timers ------------------------------------------------------------------------------------ */
static void on_election_timer(oxl_process *self, oxl_ctx c, void *arg);
static void on_heartbeat(oxl_process *self, oxl_ctx c, void *arg);

/* A new randomized timeout, drawn from the node's rng: at boot and at every
 * election it starts (so two servers that split a vote part ways). */
static void draw_timeout(raft_server *s) {
    const raft_params *p = &s->cl->params;
    s->election_timeout = oxl_rng_range(oxl_ctx_rng(s->ctx), p->election_min, p->election_max);
}

/* The election waits one timeout from now (a leader was heard, a vote
 * granted). */
static void reset_election(raft_server *s) { s->election_deadline = oxl_ctx_now(s->ctx) + s->election_timeout; }

static void become_follower(raft_server *s, oxl_node_id leader) {
    if (s->role == RAFT_LEADER) {
        oxl_ctx_cancel_timer(s->ctx, s->heartbeat_timer);
        s->heartbeat_timer = 0;
        reset_election(s);
    }
    s->role = RAFT_FOLLOWER;
    s->leader = leader;
    s->votes = 0;
    touch(s);
}

/* A newer term seen: adopt it, with no vote, as a follower. */
static bool adopt_term(raft_server *s, uint32_t term, oxl_node_id leader) {
    if (!set_term_vote(s, term, OXL_NO_NODE)) return false;
    become_follower(s, leader);
    return true;
}

static void apply_committed(raft_server *s);

/* Commits the highest index a majority of the configuration holds, if it
 * is of the current term (earlier ones commit with it). */
static void advance_commit(raft_server *s) {
    uint32_t matches[RAFT_MAX_SERVERS];
    int n = 0;
    for (oxl_node_id p = 0; p < s->cl->params.servers; p++) {
        if (!(s->members & bit(p))) continue;
        uint32_t m = p == self_id(s) ? s->synced : s->peer[p].match;
        int k = n++;
        while (k > 0 && matches[k - 1] < m) { /* descending */
            matches[k] = matches[k - 1];
            k--;
        }
        matches[k] = m;
    }
    if (n == 0) return;
    uint32_t index = matches[majority(s->members) - 1];
    if (index > s->last) index = s->last;
    if (index <= s->commit) return;
    if (s->log[index].term != s->term && !bug(s, RAFT_BUG_OLD_TERM_COMMIT)) return;
    s->commit = index;
    touch(s);
    apply_committed(s);
}

static void become_leader(raft_server *s) {
    s->role = RAFT_LEADER;
    s->leader = self_id(s);
    s->leader_contact = oxl_ctx_now(s->ctx);
    touch(s);
    for (oxl_node_id p = 0; p < RAFT_MAX_SERVERS; p++) {
        s->peer[p] = (raft_progress){.next = s->last + 1, .match = 0};
        s->inflight[p] = false;
    }
    memset(s->proposed, 0, sizeof s->proposed);
    for (uint32_t i = s->applied + 1; i <= s->last; i++) {
        const raft_entry *e = &s->log[i];
        if (e->type != RAFT_ENTRY_NOOP && e->cmd.seq > s->proposed[e->cmd.client]) s->proposed[e->cmd.client] = e->cmd.seq;
    }
    /* A no-op of the new term, so that earlier entries can commit with it. */
    append_entry(s, (raft_entry){.term = s->term, .type = RAFT_ENTRY_NOOP});
    sync_all(s);
    advance_commit(s);
    replicate_to_all(s);
    s->heartbeat_timer = oxl_ctx_set_timer(s->ctx, s->cl->params.heartbeat, on_heartbeat, NULL);
}

/* Notes a vote about to be sent out, for the oracle that checks it
 * survives a crash. */
static void promise(raft_server *s, oxl_node_id to) {
    s->promised_term = s->term;
    s->promised_to = to;
    touch(s);
}

/* A candidate asks again the members that have not answered: a lost
 * request or reply must not cost the election. */
static void on_vote_retry(oxl_process *self, oxl_ctx c, void *arg) {
    raft_server *s = (raft_server *)self;
    if (s->role != RAFT_CANDIDATE || s->term != (uint32_t)(uintptr_t)arg) return;
    for (oxl_node_id p = 0; p < s->cl->params.servers; p++)
        if (p != self_id(s) && (s->members & bit(p)) && !(s->votes & bit(p))) send_vote(s, p);
    oxl_ctx_set_timer(c, s->cl->params.heartbeat, on_vote_retry, arg);
}

static void start_election(raft_server *s) {
    draw_timeout(s);
    reset_election(s);
    if (!(s->members & bit(self_id(s)))) return; /* not a member: it does not campaign */
    if (!set_term_vote(s, s->term + 1, self_id(s))) return;
    s->role = RAFT_CANDIDATE;
    s->leader = OXL_NO_NODE;
    s->votes = bit(self_id(s));
    touch(s);
    /* The requests carry the new term and the vote for itself: durable first. */
    if (!bug(s, RAFT_BUG_UNSYNCED_VOTE) && !sync_all(s)) return;
    if (count(s->votes & s->members) >= majority(s->members)) {
        become_leader(s);
        return;
    }
    promise(s, self_id(s));
    for (oxl_node_id p = 0; p < s->cl->params.servers; p++)
        if (p != self_id(s) && (s->members & bit(p))) send_vote(s, p);
    oxl_ctx_set_timer(s->ctx, s->cl->params.heartbeat, on_vote_retry, (void *)(uintptr_t)s->term);
}

static void on_election_timer(oxl_process *self, oxl_ctx c, void *arg) {
    raft_server *s = (raft_server *)self;
    oxl_time_ns now = oxl_ctx_now(c);
    if (s->role != RAFT_LEADER && now >= s->election_deadline) start_election(s);
    oxl_dur_ns wait = s->election_deadline - now;
    if (s->role == RAFT_LEADER || wait <= 0) wait = s->cl->params.election_min;
    oxl_ctx_set_timer(c, wait, on_election_timer, NULL);
}

static void on_heartbeat(oxl_process *self, oxl_ctx c, void *arg) {
    raft_server *s = (raft_server *)self;
    if (s->role != RAFT_LEADER) return;
    s->leader_contact = oxl_ctx_now(c);
    /* Retry what a disk error stopped: the term's no-op, a sync. */
    if (s->log[s->last].term != s->term) append_entry(s, (raft_entry){.term = s->term, .type = RAFT_ENTRY_NOOP});
    if (s->synced < s->last && sync_all(s)) advance_commit(s);
    /* A follower that got an AppendEntries within half a period needs no
     * heartbeat yet (under load, replication is the heartbeat); entries in
     * flight are sent again after a whole period without an answer. */
    oxl_dur_ns period = s->cl->params.heartbeat;
    oxl_time_ns now = oxl_ctx_now(c);
    for (oxl_node_id p = 0; p < s->cl->params.servers; p++) {
        if (p == self_id(s)) continue;
        oxl_dur_ns since = now - s->appended_at[p]; /* negative: the clock went back */
        if (since < 0 || since >= (s->inflight[p] ? period : period / 2)) send_append(s, p);
    }
    s->heartbeat_timer = oxl_ctx_set_timer(c, s->cl->params.heartbeat, on_heartbeat, NULL);
}

/* ---- the state machine --------------------------------------------------------------------------------------- */
static int64_t kv_apply(raft_server *s, const raft_command *c) {
    int64_t *v = &s->kv[c->key];
    switch (c->op) {
    case RAFT_OP_PUT: *v = c->a; return 0;
    case RAFT_OP_GET: return *v;
    case RAFT_OP_CAS:
        if (*v != c->a) return 0;
        *v = c->b;
        return 1;
    default: return 1; /* a configuration took effect when it was appended */
    }
}

static void apply_committed(raft_server *s) {
    uint32_t upto = s->commit < s->last ? s->commit : s->last;
    while (s->applied < upto) {
        uint32_t i = ++s->applied;
        const raft_entry *e = &s->log[i];
        if (i >= s->applied_cap) {
            uint32_t cap = s->applied_cap ? s->applied_cap * 2 : 64;
            uint64_t *g = realloc(s->applied_hash, (size_t)cap * sizeof *g);
            if (!g) {
                oxl_ctx_fail(s->ctx, "out of memory applying entry %u", i);
                return;
            }
            s->applied_hash = g;
            s->applied_cap = cap;
        }
        s->applied_hash[i] = e->hash;
        touch(s);
        if (e->type == RAFT_ENTRY_NOOP) continue;
        /* A client's commands take effect once, in seq order: a retry that
         * made it into the log twice answers with the first result. */
        raft_session *ss = &s->sessions[e->cmd.client];
        if (e->cmd.seq > ss->seq) {
            ss->result = kv_apply(s, &e->cmd);
            ss->seq = e->cmd.seq;
        }
        if (s->role == RAFT_LEADER && e->cmd.seq == ss->seq) respond(s, e->cmd.client, ss->seq, RAFT_OK, ss->result);
    }
    /* A leader removed from the configuration leaves once the change commits. */
    if (s->role == RAFT_LEADER && s->config_index <= s->commit && !(s->members & bit(self_id(s))))
        become_follower(s, OXL_NO_NODE);
}

/* ---- handling messages ------------------------------------------------------------------------------------------ */
static void on_vote(raft_server *s, oxl_node_id from, uint32_t term, uint32_t last_index, uint32_t last_term) {
    if (term > s->term) {
        /* A server that hears from a leader ignores a disruptive candidate
         * for the minimum election timeout (thesis 4.2.3). */
        oxl_dur_ns since = oxl_ctx_now(s->ctx) - s->leader_contact; /* negative: its clock went back */
        bool heard = s->role == RAFT_LEADER ||
                     (s->leader != OXL_NO_NODE && since >= 0 && since < s->cl->params.election_min);
        if (heard) return;
        if (!adopt_term(s, term, OXL_NO_NODE)) return;
    }
    bool granted = false;
    if (term == s->term) {
        bool free = s->vote == OXL_NO_NODE || s->vote == from || bug(s, RAFT_BUG_DOUBLE_VOTE);
        uint32_t my_last_term = s->log[s->last].term;
        bool fresh = last_term > my_last_term || (last_term == my_last_term && last_index >= s->last) ||
                     bug(s, RAFT_BUG_NO_LOG_CHECK);
        if (free && fresh && set_term_vote(s, term, from)) {
            granted = true;
            reset_election(s);
        }
    }
    /* The reply promises the vote: durable first. */
    if (!bug(s, RAFT_BUG_UNSYNCED_VOTE) && !sync_all(s)) return;
    if (granted) promise(s, from);
    send_vote_reply(s, from, granted);
}

static void on_vote_reply(raft_server *s, oxl_node_id from, uint32_t term, bool granted) {
    if (term > s->term) {
        adopt_term(s, term, OXL_NO_NODE);
        return;
    }
    if (term != s->term || s->role != RAFT_CANDIDATE || !granted || !(s->members & bit(from))) return;
    s->votes |= bit(from);
    if (count(s->votes & s->members) >= majority(s->members)) become_leader(s);
}

static void on_append(raft_server *s, oxl_node_id from, uint32_t term, const unsigned char *b, size_t len) {
    if (len < APPEND_HEADER) return;
    uint32_t prev = raft_get32(b + 5), prev_term = raft_get32(b + 9), leader_commit = raft_get32(b + 13), n = b[17];
    if (len != APPEND_HEADER + (size_t)n * RAFT_ENTRY_BYTES || n > RAFT_MAX_BATCH) return;
    if (term < s->term) { /* a deposed leader: tell it the newer term */
        send_append_reply(s, from, false, 0, 0);
        return;
    }
    if (term > s->term) {
        if (!adopt_term(s, term, from)) return;
    } else if (s->role != RAFT_FOLLOWER) {
        become_follower(s, from);
    }
    s->leader = from;
    s->leader_contact = oxl_ctx_now(s->ctx);
    reset_election(s);

    bool ok = true;
    uint32_t index = 0, conflict_term = 0;
    if (prev > s->last) { /* too short: back off to its end */
        ok = false;
        index = s->last + 1;
    } else if (s->log[prev].term != prev_term) { /* back off past the whole conflicting term */
        ok = false;
        conflict_term = s->log[prev].term;
        index = prev;
        while (index > 1 && s->log[index - 1].term == conflict_term) index--;
    }
    if (ok) {
        for (uint32_t k = 0; k < n; k++) {
            raft_entry e;
            if (!raft_entry_decode(b + APPEND_HEADER + k * RAFT_ENTRY_BYTES, &e)) {
                oxl_ctx_trace(s->ctx, "raft: malformed entry from %d dropped", (int)from);
                return;
            }
            uint32_t at = prev + 1 + k;
            if (at <= s->last) {
                if (s->log[at].term == e.term) continue; /* the same entry (log matching) */
                if (!truncate_from(s, at)) return;
            }
            if (!append_entry(s, e)) return;
        }
        index = prev + n;
    }
    /* The reply acknowledges the term and, on success, the entries:
     * durable first. */
    if (!(ok && n > 0 && bug(s, RAFT_BUG_UNSYNCED_APPEND)) && !sync_all(s)) return;
    if (ok && leader_commit > s->commit) {
        uint32_t upto = leader_commit < index ? leader_commit : index;
        if (upto > s->commit) {
            s->commit = upto;
            touch(s);
            apply_committed(s);
        }
    }
    send_append_reply(s, from, ok, index, conflict_term);
}

static void on_append_reply(raft_server *s, oxl_node_id from, uint32_t term, bool success, uint32_t index,
                            uint32_t conflict_term) {
    if (term > s->term) {
        adopt_term(s, term, OXL_NO_NODE);
        return;
    }
    if (term != s->term || s->role != RAFT_LEADER) return;
    raft_progress *p = &s->peer[from];
    s->inflight[from] = false;
    if (success) {
        if (index > s->last) index = s->last;
        if (index <= p->match) return; /* old news: a duplicate or a late reply */
        p->match = index;
        if (p->next <= index) p->next = index + 1;
        advance_commit(s);
        if (s->role == RAFT_LEADER && p->next <= s->last) send_append(s, from);
        return;
    }
    uint32_t next = index;
    if (conflict_term) {
        /* Past its own entries of that term, if it has any. */
        uint32_t j = s->last;
        while (j > 0 && s->log[j].term > conflict_term) j--;
        if (j > 0 && s->log[j].term == conflict_term) next = j + 1;
    }
    if (next <= p->match) next = p->match + 1;
    if (next < 1) next = 1;
    if (next > s->last + 1) next = s->last + 1;
    if (next >= p->next) return; /* a stale rejection */
    p->next = next;
    send_append(s, from);
}

static void on_request(raft_server *s, oxl_node_id from, const unsigned char *b, size_t len) {
    if (len != RAFT_REQUEST_BYTES || from < 0 || from >= RAFT_MAX_NODES) return;
    raft_command cmd = {.op = b[5], .key = b[6], .client = (uint8_t)from, .seq = raft_get32(b + 1),
                        .a = (int64_t)raft_get64(b + 7), .b = (int64_t)raft_get64(b + 15)};
    if (cmd.op < RAFT_OP_PUT || cmd.op > RAFT_OP_CONFIG || cmd.key >= RAFT_MAX_KEYS || cmd.seq == 0) {
        oxl_ctx_trace(s->ctx, "raft: malformed request from %d dropped", (int)from);
        return;
    }
    if (s->role != RAFT_LEADER) {
        respond(s, from, cmd.seq, RAFT_NOT_LEADER, 0);
        return;
    }
    raft_session *ss = &s->sessions[from];
    if (cmd.seq <= ss->seq) { /* applied already; answer the latest again */
        if (cmd.seq == ss->seq) respond(s, from, cmd.seq, RAFT_OK, ss->result);
        return;
    }
    if (cmd.seq <= s->proposed[from]) return; /* in the log: answered when it applies */
    if (cmd.op == RAFT_OP_CONFIG) {
        uint32_t to = (uint32_t)cmd.a, servers = (1u << s->cl->params.servers) - 1;
        /* One server at a time, one change at a time, and only once an
         * entry of this term committed (so no older change is pending). */
        bool allowed = cmd.a > 0 && cmd.a <= (int64_t)servers && (to & ~servers) == 0 && count(to ^ s->members) == 1 &&
                       s->config_index <= s->commit && s->log[s->commit].term == s->term;
        if (!allowed) {
            respond(s, from, cmd.seq, RAFT_REFUSED, 0);
            return;
        }
    }
    raft_entry e = {.term = s->term, .type = cmd.op == RAFT_OP_CONFIG ? RAFT_ENTRY_CONFIG : RAFT_ENTRY_COMMAND,
                    .cmd = cmd};
    if (!append_entry(s, e)) return; /* the client retries */
    s->proposed[from] = cmd.seq;
    if (sync_all(s)) advance_commit(s);
    /* Followers that were up to date get it now; the others are catching up. */
    for (oxl_node_id p = 0; p < s->cl->params.servers; p++)
        if (p != self_id(s) && s->peer[p].next == s->last && !s->inflight[p]) send_append(s, p);
}

static void server_message(oxl_process *self, oxl_ctx c, oxl_node_id from, const void *data, size_t len) {
    raft_server *s = (raft_server *)self;
    const unsigned char *b = data;
    if (len < 1) return;
    if (b[0] == MSG_REQUEST) {
        on_request(s, from, b, len);
        return;
    }
    if (from < 0 || from >= s->cl->params.servers || from == self_id(s) || len < 5) return;
    uint32_t term = raft_get32(b + 1);
    if (term < s->term && bug(s, RAFT_BUG_STALE_TERM)) term = s->term; /* planted: the old term passes */
    switch (b[0]) {
    case MSG_VOTE:
        if (len == VOTE_BYTES) on_vote(s, from, term, raft_get32(b + 5), raft_get32(b + 9));
        break;
    case MSG_VOTE_REPLY:
        if (len == VOTE_REPLY_BYTES) on_vote_reply(s, from, term, b[5] != 0);
        break;
    case MSG_APPEND: on_append(s, from, term, b, len); break;
    case MSG_APPEND_REPLY:
        if (len == APPEND_REPLY_BYTES) on_append_reply(s, from, term, b[5] != 0, raft_get32(b + 6), raft_get32(b + 10));
        break;
    default: oxl_ctx_trace(c, "raft: message of unknown type %d from %d dropped", b[0], (int)from); break;
    }
}

/* ---- boot and recovery ------------------------------------------------------------------------------------------------ */
static void server_start(oxl_process *self, oxl_ctx c) {
    raft_server *s = (raft_server *)self;
    s->cl->epoch[c.node]++;
    raft_durable d;
    char why[96];
    if (!raft_durable_read(oxl_ctx_disk(c), &d, why, sizeof why)) {
        raft_durable_free(&d);
        oxl_ctx_fail(c, "cannot recover its state: %s", why);
        return;
    }
    s->term = d.term;
    s->vote = d.vote;
    s->last = d.last;
    s->log = d.log; /* taken over: the log starts as what the disk holds */
    s->log_cap = s->last + 64;
    raft_entry *g = realloc(s->log, (size_t)s->log_cap * sizeof *g);
    if (!g) {
        oxl_ctx_fail(c, "out of memory recovering %u entries", s->last);
        return;
    }
    s->log = g;
    s->synced = s->last;
    find_config(s);
    log_changed(s, 1);
    draw_timeout(s);
    reset_election(s);
    oxl_ctx_set_timer(c, s->election_deadline - oxl_ctx_now(c), on_election_timer, NULL);
}

static void server_destroy(oxl_process *self) {
    raft_server *s = (raft_server *)self;
    s->cl->changed |= bit(self_id(s)); /* a crash, or the world's end */
    s->cl->epoch[self_id(s)]++;
    free(s->log);
    free(s->applied_hash);
    free(s);
}

static const oxl_process_ops server_ops = {server_start, server_message, server_destroy};

oxl_process *raft_server_new(oxl_ctx ctx, void *cluster) {
    raft_server *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->base.ops = &server_ops;
    s->cl = cluster;
    s->ctx = ctx;
    s->vote = OXL_NO_NODE;
    s->leader = OXL_NO_NODE;
    s->promised_to = OXL_NO_NODE;
    s->log_dirty_from = 1;
    return &s->base;
}

/* ---- the client side of the wire ---------------------------------------------------------------------------------------- */
size_t raft_encode_request(const raft_command *cmd, unsigned char *b, size_t cap) {
    if (cap < RAFT_REQUEST_BYTES) return 0;
    b[0] = MSG_REQUEST;
    raft_put32(b + 1, cmd->seq);
    b[5] = cmd->op;
    b[6] = cmd->key;
    raft_put64(b + 7, (uint64_t)cmd->a);
    raft_put64(b + 15, (uint64_t)cmd->b);
    return RAFT_REQUEST_BYTES;
}

bool raft_decode_response(const void *data, size_t len, raft_response *out) {
    const unsigned char *b = data;
    if (len != RESPONSE_BYTES || b[0] != MSG_RESPONSE) return false;
    out->seq = raft_get32(b + 1);
    out->status = b[5];
    out->leader = (int8_t)b[6];
    out->result = (int64_t)raft_get64(b + 7);
    return out->status >= RAFT_OK && out->status <= RAFT_REFUSED;
}
