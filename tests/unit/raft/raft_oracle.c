/* raft_oracle.c: the six Raft invariants, checked after every event.
 *
 * Checking every log in full after every event would cost more than the
 * protocol, so the oracle keeps its own record of what it has seen and
 * looks only at what changed: a server bumps its version whenever its role,
 * term, vote, log, commit or applied index changes and marks the lowest log
 * index it changed; a crash or restart shows as a new incarnation. The
 * record is global and never forgets:
 *  - the leader of every term;
 *  - the hash chain of every (index, term) any log ever held: a chain
 *    covers the entry and all before it, so equal chains mean equal
 *    prefixes (a 64-bit hash: a collision would hide a violation with
 *    probability 2^-64 per pair);
 *  - per committed index its chain and the earliest term it was known
 *    committed in, and the configuration that committed the newest one;
 *  - per applied index the entry applied.
 * One World invariant hook brings the record up to date after every event,
 * noting any violation, and reports the first of the six that broke under
 * its own name. Servers mark
 * themselves in raft_cluster.changed, so an event that changed nothing
 * costs one load. */
#include "raft_internal.h"
#include "raft_scenario.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { INV_ELECTION, INV_MATCHING, INV_COMPLETENESS, INV_STATE_MACHINE, INV_NEVER_LOST, INV_VOTES, INV_COUNT };

static const char *const invariant_names[INV_COUNT] = {
    "election safety",      "log matching",  "leader completeness", "state-machine safety", "committed entries never lost",
    "votes survive crashes",
};

typedef struct view {
    raft_server *srv; /* the live process, NULL when down: a process
                         changes only at a boot or a crash, which mark it */
    uint32_t epoch;   /* raft_cluster.epoch when srv, up and incarnation were read */
    bool up;
    uint32_t incarnation;
    uint64_t version;
    uint32_t registered; /* log entries 1..registered entered into the (index, term) table */
    uint32_t committed;  /* commit index last seen */
    uint32_t applied;    /* applied entries 1..applied checked */
    uint64_t *durable;   /* a down server: the chains its disk kept, [1..durable_last] */
    uint32_t durable_last, durable_cap;
    uint32_t promised_term; /* the newest vote it sent out, in any incarnation */
    oxl_node_id promised_to;
} view;

typedef struct pair_slot {
    uint64_t key; /* index << 32 | term; 0 = empty */
    uint64_t chain;
    int8_t node;  /* the first server seen holding it */
} pair_slot;

struct raft_oracle {
    oxl_world *w;
    raft_cluster *cl;
    view v[RAFT_MAX_SERVERS];
    int8_t *leader_of;        /* [term]: the leader, or -1 */
    uint32_t terms_cap;
    uint64_t leaders;
    pair_slot *pairs;         /* open addressing */
    size_t pairs_cap, pairs_len;
    uint64_t *committed_chain; /* [1..committed] */
    uint32_t *commit_term;     /* [1..committed]: the earliest term it was known committed in */
    uint32_t committed, committed_cap;
    uint32_t commit_members;   /* the configuration that committed the newest entry */
    uint64_t *applied_hash;    /* [1..applied] */
    int8_t *applied_by;
    uint32_t applied, applied_cap;
    bool committed_grew;       /* this event: the committed record changed */
    bool holders_changed;      /* this event: a crash, a boot, or a log changed at or below the committed end */
    const char *why[INV_COUNT];
};

uint64_t raft_oracle_leaders(const raft_oracle *o) { return o->leaders; }
uint32_t raft_oracle_committed(const raft_oracle *o) { return o->committed; }

static const char *name(const raft_oracle *o, oxl_node_id n) { return oxl_world_node_name(o->w, n); }

/* Notes a violation (the first one per invariant counts). */
#define FOUND(o, inv, ...)                                               \
    do {                                                                 \
        if (!(o)->why[inv]) (o)->why[inv] = oxl_world_strf((o)->w, __VA_ARGS__); \
    } while (0)

static void *grow(void *p, uint32_t *cap, uint32_t need, size_t size) {
    if (need < *cap) return p;
    uint32_t c = *cap ? *cap : 256;
    while (c <= need) c *= 2;
    unsigned char *g = realloc(p, (size_t)c * size);
    if (!g) {
        fputs("raft oracle: out of memory\n", stderr);
        abort();
    }
    memset(g + (size_t)*cap * size, 0, (size_t)(c - *cap) * size);
    *cap = c;
    return g;
}

/* ---- election safety --------------------------------------------------------------------------------------- */
static void see_leader(raft_oracle *o, oxl_node_id n, uint32_t term) {
    if (term >= o->terms_cap) {
        uint32_t old = o->terms_cap;
        o->leader_of = grow(o->leader_of, &o->terms_cap, term, 1);
        memset(o->leader_of + old, -1, o->terms_cap - old);
    }
    if (o->leader_of[term] == n) return;
    if (o->leader_of[term] >= 0) {
        FOUND(o, INV_ELECTION, "%s and %s are both leaders of term %u", name(o, o->leader_of[term]), name(o, n), term);
        return;
    }
    o->leader_of[term] = (int8_t)n;
    o->leaders++;
}

/* ---- log matching ------------------------------------------------------------------------------------------- */
static size_t pair_hash(uint64_t key) {
    /* splitmix64's finalizer: index and term both reach the low bits */
    key ^= key >> 30;
    key *= UINT64_C(0xbf58476d1ce4e5b9);
    key ^= key >> 27;
    key *= UINT64_C(0x94d049bb133111eb);
    return (size_t)(key ^ (key >> 31));
}

static void pairs_grow(raft_oracle *o) {
    size_t cap = o->pairs_cap ? o->pairs_cap * 2 : 1024;
    pair_slot *g = calloc(cap, sizeof *g);
    if (!g) {
        fputs("raft oracle: out of memory\n", stderr);
        abort();
    }
    for (size_t i = 0; i < o->pairs_cap; i++) {
        if (!o->pairs[i].key) continue;
        size_t j = pair_hash(o->pairs[i].key) & (cap - 1);
        while (g[j].key) j = (j + 1) & (cap - 1);
        g[j] = o->pairs[i];
    }
    free(o->pairs);
    o->pairs = g;
    o->pairs_cap = cap;
}

static void see_entry(raft_oracle *o, oxl_node_id n, uint32_t index, const raft_entry *e) {
    if ((o->pairs_len + 1) * 2 > o->pairs_cap) pairs_grow(o);
    uint64_t key = (uint64_t)index << 32 | e->term;
    size_t mask = o->pairs_cap - 1, j = pair_hash(key) & mask;
    for (; o->pairs[j].key; j = (j + 1) & mask) {
        if (o->pairs[j].key != key) continue;
        if (o->pairs[j].chain != e->chain)
            FOUND(o, INV_MATCHING, "%s and %s both hold an entry at index %u of term %u, but their logs differ up to it",
                  name(o, o->pairs[j].node), name(o, n), index, e->term);
        return;
    }
    o->pairs[j] = (pair_slot){.key = key, .chain = e->chain, .node = (int8_t)n};
    o->pairs_len++;
}

/* ---- commits and applies -------------------------------------------------------------------------------------- */
static void see_commit(raft_oracle *o, oxl_node_id n, const raft_server *s, uint32_t from, uint32_t to) {
    for (uint32_t i = from; i <= to; i++) {
        const raft_entry *e = &s->log[i];
        if (i <= o->committed) {
            if (o->committed_chain[i] != e->chain) {
                FOUND(o, INV_NEVER_LOST, "%s commits index %u as an entry of term %u, but another entry was committed there",
                      name(o, n), i, e->term);
                return;
            }
            if (s->term < o->commit_term[i]) {
                o->commit_term[i] = s->term;
                o->committed_grew = true;
            }
            continue;
        }
        if (i >= o->committed_cap) {
            uint32_t cap = o->committed_cap;
            o->committed_chain = grow(o->committed_chain, &o->committed_cap, i, sizeof *o->committed_chain);
            o->commit_term = grow(o->commit_term, &cap, i, sizeof *o->commit_term);
        }
        o->committed = i;
        o->committed_chain[i] = e->chain;
        o->commit_term[i] = s->term;
        o->committed_grew = true;
        o->commit_members = s->members;
    }
}

static void see_applied(raft_oracle *o, oxl_node_id n, const raft_server *s, uint32_t from, uint32_t to) {
    for (uint32_t i = from; i <= to; i++) {
        if (i <= o->applied) {
            if (o->applied_hash[i] != s->applied_hash[i])
                FOUND(o, INV_STATE_MACHINE, "%s and %s applied different entries at index %u", name(o, o->applied_by[i]),
                      name(o, n), i);
            continue;
        }
        uint32_t cap = o->applied_cap;
        o->applied_hash = grow(o->applied_hash, &o->applied_cap, i, sizeof *o->applied_hash);
        o->applied_by = grow(o->applied_by, &cap, i, 1);
        o->applied = i;
        o->applied_hash[i] = s->applied_hash[i];
        o->applied_by[i] = (int8_t)n;
    }
}

/* A down server: what its disk kept, read once per crash. */
static void load_durable(raft_oracle *o, oxl_node_id n) {
    view *v = &o->v[n];
    v->durable_last = 0;
    raft_durable d;
    char why[96];
    if (raft_durable_read(oxl_world_disk(o->w, n), &d, why, sizeof why)) {
        v->durable = grow(v->durable, &v->durable_cap, d.last, sizeof *v->durable);
        for (uint32_t i = 1; i <= d.last; i++) v->durable[i] = d.log[i].chain;
        v->durable_last = d.last;
    }
    raft_durable_free(&d); /* an unreadable disk fails the boot, where it shows */
}

/* ---- bringing the record up to date ---------------------------------------------------------------------------- */
static void observe_server(raft_oracle *o, oxl_node_id n, raft_server *s) {
    view *v = &o->v[n];
    /* The log: register what changed. */
    uint32_t from = s->log_dirty_from < v->registered + 1 ? s->log_dirty_from : v->registered + 1;
    if (from <= o->committed) o->holders_changed = true;
    for (uint32_t i = from; i <= s->last; i++) see_entry(o, n, i, &s->log[i]);
    v->registered = s->last;
    /* A committed prefix must never change under the server. */
    uint32_t upto = s->commit < s->last ? s->commit : s->last;
    if (s->log_dirty_from <= upto && upto <= o->committed && o->committed_chain[upto] != s->log[upto].chain)
        FOUND(o, INV_NEVER_LOST, "%s replaced committed entries at or below index %u", name(o, n), upto);
    if (s->commit > s->last)
        FOUND(o, INV_NEVER_LOST, "%s's commit index %u is past the end of its log (%u)", name(o, n), s->commit, s->last);
    s->log_dirty_from = UINT32_MAX;
    if (s->role == RAFT_LEADER) see_leader(o, n, s->term);
    if (upto > v->committed) see_commit(o, n, s, v->committed + 1, upto);
    v->committed = upto;
    if (s->applied > v->applied) {
        see_applied(o, n, s, v->applied + 1, s->applied);
        v->applied = s->applied;
    }
}

/* The leaders hold what earlier terms committed; a majority of the
 * committing configuration holds the newest committed entry. Only what
 * this event may have changed is looked at: the servers in `changed`, all
 * leaders when the committed record grew, the holders after a crash, a
 * boot, a commit or a change to a committed part of a log. */
static void check_cluster(raft_oracle *o, uint32_t changed) {
    int servers = o->cl->params.servers;
    uint32_t c = o->committed;
    if (c == 0) return;
    for (oxl_node_id n = 0; n < servers; n++) {
        if (!o->committed_grew && !(changed & (1u << n))) continue;
        const raft_server *s = o->v[n].srv;
        if (!s || s->role != RAFT_LEADER) continue;
        /* The newest index committed in a term before the leader's: commit
         * terms do not decrease along the log, so a binary search finds it,
         * and its chain covers everything below. */
        uint32_t lo = 0, hi = c;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo + 1) / 2;
            if (o->commit_term[mid] < s->term)
                lo = mid;
            else
                hi = mid - 1;
        }
        if (lo == 0) continue;
        if (s->last < lo || s->log[lo].chain != o->committed_chain[lo])
            FOUND(o, INV_COMPLETENESS, "%s leads term %u without entry %u, committed in term %u", name(o, n), s->term, lo,
                  o->commit_term[lo]);
    }
    if (!o->committed_grew && !o->holders_changed) return;
    int holders = 0;
    uint32_t members = o->commit_members, who = 0;
    for (oxl_node_id n = 0; n < servers; n++) {
        if (!(members & (1u << n))) continue;
        const view *v = &o->v[n];
        const raft_server *s = v->srv;
        bool holds = s ? s->last >= c && s->log[c].chain == o->committed_chain[c]
                       : v->durable_last >= c && v->durable[c] == o->committed_chain[c];
        if (holds) {
            holders++;
            who |= 1u << n;
        }
    }
    if (holders < raft_count(members) / 2 + 1) {
        char held[RAFT_MAX_SERVERS * (OXL_SIM_NAME_MAX + 1) + 8], of[sizeof held];
        raft_format_members(o->w, who, held, sizeof held);
        raft_format_members(o->w, members, of, sizeof of);
        FOUND(o, INV_NEVER_LOST, "committed entry %u is held by %s only, not a majority of %s (down servers count by their disk)",
              c, holders ? held : "no server", of);
    }
}

/* A server that sent out a vote in term T comes back from a crash at term
 * T with that vote, or later. */
static void check_promise(raft_oracle *o, oxl_node_id n, const raft_server *s) {
    const view *v = &o->v[n];
    if (v->promised_term == 0) return;
    if (s->term > v->promised_term || (s->term == v->promised_term && s->vote == v->promised_to)) return;
    FOUND(o, INV_VOTES, "%s voted for %s in term %u, but came back from a crash at term %u voting for %s", name(o, n),
          name(o, v->promised_to), v->promised_term, s->term, s->vote == OXL_NO_NODE ? "nobody" : name(o, s->vote));
}

static void observe(raft_oracle *o) {
    uint32_t dirty = o->cl->changed;
    if (!dirty) return; /* most events change no server's state */
    o->cl->changed = 0;
    uint32_t changed = 0;
    o->committed_grew = o->holders_changed = false;
    for (uint32_t left = dirty; left; left &= left - 1) {
        oxl_node_id n = __builtin_ctz(left);
        if (n >= o->cl->params.servers) break;
        view *v = &o->v[n];
        if (o->cl->epoch[n] != v->epoch) { /* a boot or a destroy since the last look */
            v->epoch = o->cl->epoch[n];
            bool up = oxl_world_is_up(o->w, n);
            uint32_t inc = oxl_world_incarnation(o->w, n);
            if (up != v->up || inc != v->incarnation) {
                /* A crash or a boot: everything is looked at again. */
                v->up = up;
                v->incarnation = inc;
                v->registered = v->committed = v->applied = 0;
                v->version = UINT64_MAX;
                if (!up) load_durable(o, n);
                changed |= 1u << n;
                o->holders_changed = true;
            }
            v->srv = up ? raft_server_of(o->w, o->cl, n) : NULL;
        }
        raft_server *s = v->srv;
        if (!s || s->version == v->version) continue;
        if (v->version == UINT64_MAX) check_promise(o, n, s); /* just booted */
        v->version = s->version;
        if (s->promised_term) { /* the newest vote sent: what a reboot must remember */
            v->promised_term = s->promised_term;
            v->promised_to = s->promised_to;
        }
        observe_server(o, n, s);
        changed |= 1u << n;
    }
    if (changed) check_cluster(o, changed);
}

/* One hook runs the six: six hooks would cost six indirect calls an event
 * for one load of raft_cluster.changed. A violation fails the world with
 * the text the World gives a failed invariant of that name, and the six
 * report in their order, as six hooks would. */
static const char *invariants(oxl_world *w, void *arg) {
    raft_oracle *o = arg;
    observe(o);
    for (int k = 0; k < INV_COUNT; k++)
        if (o->why[k]) {
            oxl_world_fail(w, "invariant '%s' violated: %s", invariant_names[k], o->why[k]);
            break;
        }
    return NULL;
}

raft_oracle *raft_oracle_new(oxl_world *w, raft_cluster *cl) {
    raft_oracle *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    o->w = w;
    o->cl = cl;
    for (int i = 0; i < RAFT_MAX_SERVERS; i++) {
        o->v[i].version = UINT64_MAX;
        o->v[i].epoch = cl->epoch[i] - 1; /* the first look reads the world */
    }
    oxl_world_add_invariant(w, "raft", invariants, o);
    return o;
}

void raft_oracle_free(raft_oracle *o) {
    if (!o) return;
    for (int i = 0; i < RAFT_MAX_SERVERS; i++) free(o->v[i].durable);
    free(o->leader_of);
    free(o->pairs);
    free(o->committed_chain);
    free(o->commit_term);
    free(o->applied_hash);
    free(o->applied_by);
    free(o);
}
