/* history.c: operation histories and the linearizability checker for
 * registers.
 *
 * A history records invoke/complete events in call order; the call order is
 * the real-time order. The checker is P-compositional (Herlihy & Wing
 * locality): each key's register is checked on its own, in ascending key
 * order. Per key it runs the Wing & Gong backtracking search with Lowe's
 * memoization: a doubly linked list of call and return entries in event
 * order; a call whose return has not been passed may be linearized next; a
 * configuration (set of linearized ops, register value) already explored is
 * never explored again. Info ops (outcome unknown) have no return entry and
 * may be linearized or left out; the search is done once every completed op
 * is linearized. Because they stay callable forever, info ops can multiply
 * the configurations, so a few dominance prunings (see search_register) cut
 * the variants that can only do less than one already explored.
 *
 * Everything is bounded: ops per history, states per key, memo memory,
 * shrinking effort and report length. Hash tables only answer membership;
 * no result depends on their order.
 *
 * Depends on libc and oxl_sim.h only; no global mutable state.
 */
#include "oxl_sim.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- limits ---------------------------------------------------------------------------- */
#define HISTORY_MAX_OPS (1u << 20)             /* ops per history */
#define HISTORY_NO_OP UINT32_MAX                /* invoke's answer when it refuses */
#define LIN_DEFAULT_BUDGET UINT64_C(1000000)    /* states per key when budget == 0 */
#define MEMO_MAX_BYTES ((size_t)512 << 20)      /* memo memory per search */
#define SHRINK_BUDGET_FACTOR 8                  /* shrinking may spend 8 budgets of work */
#define REPORT_MAX_OPS 200                      /* op lines printed in a report */
#define MISUSE_TEXT_MAX 160                     /* bytes of the first misuse's description */

static_assert(2ull * HISTORY_MAX_OPS + 2 < UINT32_MAX, "event numbers and list nodes fit uint32");

/* ---- the history ------------------------------------------------------------------------ */
typedef enum op_status { OP_PENDING, OP_OK, OP_FAIL, OP_INFO } op_status;

typedef struct op_record {
    uint64_t key;
    int64_t a, b;      /* write: a = value; cas: a = expected, b = new */
    int64_t value;     /* ok: read -> value read; cas -> 1 swapped, 0 failed */
    oxl_time_ns t_invoke, t_done;
    uint32_t invoke_seq; /* position of the invoke event in call order */
    uint32_t done_seq;   /* position of the completion event (if any) */
    int32_t client;
    uint8_t kind;        /* oxl_op_kind */
    uint8_t status;      /* op_status */
} op_record;

struct oxl_history {
    op_record *ops;
    uint32_t count, cap;
    uint32_t next_seq;  /* events so far: invokes and completions */
    uint64_t misuses;   /* misuse calls; any makes the history malformed */
    char first_misuse[MISUSE_TEXT_MAX];
};

static void note_misuse(oxl_history *h, const char *fmt, ...) OXL_PRINTF(2, 3);
static void note_misuse(oxl_history *h, const char *fmt, ...) {
    /* Only the first reason is kept: later ones are often its consequences. */
    if (h->misuses++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(h->first_misuse, sizeof h->first_misuse, fmt, ap);
        va_end(ap);
    }
}

oxl_history *oxl_history_new(void) {
    return calloc(1, sizeof(oxl_history));
}

void oxl_history_free(oxl_history *h) {
    if (!h) return;
    free(h->ops);
    free(h);
}

oxl_op_id oxl_history_invoke(oxl_history *h, int32_t client, uint64_t key,
                             oxl_op_kind kind, int64_t a, int64_t b, oxl_time_ns t) {
    if (!h) return HISTORY_NO_OP;
    if (kind != OXL_OP_READ && kind != OXL_OP_WRITE && kind != OXL_OP_CAS) {
        note_misuse(h, "invoke with invalid op kind %d by client %" PRId32, (int)kind, client);
        return HISTORY_NO_OP;
    }
    if (h->count >= HISTORY_MAX_OPS) {
        note_misuse(h, "more than %u operations invoked", HISTORY_MAX_OPS);
        return HISTORY_NO_OP;
    }
    if (h->count == h->cap) {
        uint32_t cap = h->cap ? h->cap * 2 : 64;
        if (cap > HISTORY_MAX_OPS) cap = HISTORY_MAX_OPS;
        op_record *ops = realloc(h->ops, (size_t)cap * sizeof *ops);
        if (!ops) {
            note_misuse(h, "out of memory recording operation %" PRIu32, h->count);
            return HISTORY_NO_OP;
        }
        h->ops = ops;
        h->cap = cap;
    }
    oxl_op_id id = h->count++;
    op_record *r = &h->ops[id];
    *r = (op_record){
        .key = key,
        .a = kind == OXL_OP_READ ? 0 : a,
        .b = kind == OXL_OP_CAS ? b : 0,
        .t_invoke = t,
        .invoke_seq = h->next_seq++,
        .client = client,
        .kind = (uint8_t)kind,
        .status = OP_PENDING,
    };
    return id;
}

static const char *status_name(uint8_t status) {
    switch (status) {
    case OP_OK: return "ok";
    case OP_FAIL: return "fail";
    case OP_INFO: return "info";
    default: return "pending";
    }
}

/* The op a completion refers to, or NULL (and a noted misuse) when it cannot
 * be completed. */
static op_record *completable(oxl_history *h, oxl_op_id op, const char *what) {
    if (op >= h->count) {
        note_misuse(h, "%s on unknown op %" PRIu32 " (%" PRIu32 " invoked)", what, op, h->count);
        return NULL;
    }
    op_record *r = &h->ops[op];
    if (r->status != OP_PENDING) {
        note_misuse(h, "op %" PRIu32 " completed twice (%s after %s)", op, what,
                    status_name(r->status));
        return NULL;
    }
    return r;
}

static void complete(oxl_history *h, op_record *r, op_status status, oxl_time_ns t) {
    r->status = (uint8_t)status;
    r->t_done = t;
    r->done_seq = h->next_seq++;
}

void oxl_history_ok(oxl_history *h, oxl_op_id op, int64_t value, oxl_time_ns t) {
    if (!h) return;
    op_record *r = completable(h, op, "ok");
    if (!r) return;
    if (r->kind == OXL_OP_CAS && value != 0 && value != 1)
        note_misuse(h, "op %" PRIu32 ": cas completed ok with %" PRId64 " (want 1 swapped or 0 failed)",
                    op, value);
    r->value = r->kind == OXL_OP_WRITE ? 0 : value;
    complete(h, r, OP_OK, t);
}

void oxl_history_fail(oxl_history *h, oxl_op_id op, oxl_time_ns t) {
    if (!h) return;
    op_record *r = completable(h, op, "fail");
    if (r) complete(h, r, OP_FAIL, t);
}

void oxl_history_info(oxl_history *h, oxl_op_id op, oxl_time_ns t) {
    if (!h) return;
    op_record *r = completable(h, op, "info");
    if (r) complete(h, r, OP_INFO, t);
}

size_t oxl_history_size(const oxl_history *h) {
    return h ? h->count : 0;
}

/* ---- bitsets of linearized ops --------------------------------------------------------- */
/* The memo stores a set as a canonical window: words below lo are all ones,
 * words from hi on are all zero. Ops are numbered in invoke order, so the
 * window spans only the ops still in flight and memory stays proportional to
 * concurrency, not to history length. */
typedef struct bitset {
    uint64_t *words;
    size_t nwords;
    size_t lo; /* first word that is not all ones */
    size_t hi; /* one past the last nonzero word */
} bitset;

static bool bitset_test(const bitset *s, size_t i) {
    assert(i / 64 < s->nwords);
    return (s->words[i / 64] >> (i % 64)) & 1;
}

static void bitset_set(bitset *s, size_t i) {
    size_t w = i / 64;
    assert(!bitset_test(s, i));
    s->words[w] |= UINT64_C(1) << (i % 64);
    if (w + 1 > s->hi) s->hi = w + 1;
    while (s->lo < s->nwords && s->words[s->lo] == UINT64_MAX) s->lo++;
}

static void bitset_clear(bitset *s, size_t i) {
    size_t w = i / 64;
    assert(bitset_test(s, i));
    s->words[w] &= ~(UINT64_C(1) << (i % 64));
    if (w < s->lo) s->lo = w;
    while (s->hi > 0 && s->words[s->hi - 1] == 0) s->hi--;
}

static size_t bitset_window_len(const bitset *s) {
    /* Word lo-1 is all ones, hence nonzero, so hi >= lo. */
    assert(s->hi >= s->lo);
    return s->hi - s->lo;
}

static uint64_t mix64(uint64_t x) {
    /* splitmix64's finalizer: every input bit affects every output bit. */
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    x ^= x >> 31;
    return x;
}

#define HASH_STEP UINT64_C(0x9e3779b97f4a7c15)

static uint64_t hash_window(uint64_t h, const bitset *s) {
    h = mix64(h ^ (uint64_t)s->lo) + HASH_STEP;
    for (size_t w = s->lo; w < s->hi; w++) h = mix64(h ^ s->words[w]) + HASH_STEP;
    return h;
}

static bool window_equal(const uint64_t *words, uint32_t lo, uint32_t len, const bitset *s) {
    return lo == s->lo && len == bitset_window_len(s) &&
           (len == 0 || memcmp(words, s->words + lo, len * sizeof(uint64_t)) == 0);
}

/* True when the stored window's set is a subset of s. */
static bool window_subset(const uint64_t *words, uint32_t lo, uint32_t len, const bitset *s) {
    if (s->lo < lo) return false; /* s misses a bit below lo, where the stored set is full */
    for (uint32_t i = 0; i < len; i++)
        if (words[i] & ~s->words[lo + i]) return false;
    return true;
}

/* ---- memo: the explored configurations ---------------------------------------------------- */
/* A configuration is (done, used, value): the completed ops linearized, the
 * info ops linearized, the register value. Exact repeats are found through a
 * hash table. Configurations that differ only in `used` form a group: one
 * whose used set contains an explored one's is dominated (it can only do
 * less, as info ops are optional), and is pruned too. Group scans are capped,
 * so dominance prunes most repeats, not necessarily all; exactness of the
 * search never depends on it. */
#define MEMO_GROUP_SCAN 32 /* group members compared per new configuration */

typedef struct memo_entry {
    uint64_t hash;       /* of the whole configuration */
    uint64_t group_hash; /* of (done, value) */
    int64_t value;
    size_t off;          /* the done window, then the used window, in the pool */
    uint32_t done_lo, done_len, used_lo, used_len;
    uint32_t group_next; /* the next older member of the group, index + 1; 0 ends */
} memo_entry;

typedef struct memo {
    bool groups;           /* dominance on: the search has info ops */
    uint32_t *slots;       /* configurations: entry index + 1, 0 = empty; linear probing */
    uint32_t *group_slots; /* groups: their newest member, index + 1 */
    size_t slot_cap;       /* a power of two, at least twice the entries */
    memo_entry *entries;
    size_t n_entries, entries_cap;
    uint64_t *pool;
    size_t pool_len, pool_cap;
} memo;

typedef enum memo_answer { MEMO_NEW, MEMO_SEEN, MEMO_FULL } memo_answer;

static size_t memo_bytes(const memo *m, size_t slot_cap, size_t entries_cap, size_t pool_cap) {
    return slot_cap * sizeof(uint32_t) * (m->groups ? 2 : 1) + entries_cap * sizeof(memo_entry) +
           pool_cap * sizeof(uint64_t);
}

static void memo_free(memo *m) {
    free(m->slots);
    free(m->group_slots);
    free(m->entries);
    free(m->pool);
    memset(m, 0, sizeof *m);
}

static bool same_group(const memo *m, const memo_entry *x, const memo_entry *y) {
    return x->group_hash == y->group_hash && x->value == y->value && x->done_lo == y->done_lo &&
           x->done_len == y->done_len &&
           memcmp(m->pool + x->off, m->pool + y->off, x->done_len * sizeof(uint64_t)) == 0;
}

static bool memo_grow_slots(memo *m) {
    size_t cap = m->slot_cap ? m->slot_cap * 2 : 1024;
    if (memo_bytes(m, cap, m->entries_cap, m->pool_cap) > MEMO_MAX_BYTES) return false;
    uint32_t *slots = calloc(cap, sizeof *slots);
    uint32_t *group_slots = m->groups ? calloc(cap, sizeof *group_slots) : NULL;
    if (!slots || (m->groups && !group_slots)) {
        free(slots);
        free(group_slots);
        return false;
    }
    for (size_t e = 0; e < m->n_entries; e++) {
        const memo_entry *x = &m->entries[e];
        size_t i = (size_t)x->hash & (cap - 1);
        while (slots[i]) i = (i + 1) & (cap - 1);
        slots[i] = (uint32_t)(e + 1);
        if (!m->groups) continue;
        /* Entries ascend in age, so the last one placed is the group's newest. */
        for (i = (size_t)x->group_hash & (cap - 1); group_slots[i]; i = (i + 1) & (cap - 1))
            if (same_group(m, &m->entries[group_slots[i] - 1], x)) break;
        group_slots[i] = (uint32_t)(e + 1);
    }
    free(m->slots);
    free(m->group_slots);
    m->slots = slots;
    m->group_slots = group_slots;
    m->slot_cap = cap;
    return true;
}

/* Room for one more entry of `words` pool words. */
static bool memo_reserve(memo *m, size_t words) {
    if (m->n_entries == m->entries_cap) {
        size_t cap = m->entries_cap ? m->entries_cap * 2 : 512;
        if (cap >= UINT32_MAX || memo_bytes(m, m->slot_cap, cap, m->pool_cap) > MEMO_MAX_BYTES) return false;
        memo_entry *e = realloc(m->entries, cap * sizeof *e);
        if (!e) return false;
        m->entries = e;
        m->entries_cap = cap;
    }
    if (m->pool_cap - m->pool_len < words) {
        size_t cap = m->pool_cap ? m->pool_cap : 1024;
        while (cap - m->pool_len < words) cap *= 2;
        if (memo_bytes(m, m->slot_cap, m->entries_cap, cap) > MEMO_MAX_BYTES) return false;
        uint64_t *p = realloc(m->pool, cap * sizeof *p);
        if (!p) return false;
        m->pool = p;
        m->pool_cap = cap;
    }
    if ((m->n_entries + 1) * 2 > m->slot_cap) return memo_grow_slots(m);
    return true;
}

/* Adds the configuration unless it, or one that dominates it, is there. */
static memo_answer memo_insert(memo *m, const bitset *done, const bitset *used, int64_t value) {
    size_t done_len = bitset_window_len(done), used_len = bitset_window_len(used);
    if (!memo_reserve(m, done_len + used_len)) return MEMO_FULL;
    uint64_t group_hash = hash_window(mix64((uint64_t)value ^ HASH_STEP), done);
    uint64_t hash = hash_window(group_hash, used);
    size_t mask = m->slot_cap - 1;

    size_t i = (size_t)hash & mask;
    for (; m->slots[i]; i = (i + 1) & mask) {
        const memo_entry *e = &m->entries[m->slots[i] - 1];
        const uint64_t *w = m->pool + e->off;
        if (e->hash == hash && e->value == value && window_equal(w, e->done_lo, e->done_len, done) &&
            window_equal(w + e->done_len, e->used_lo, e->used_len, used))
            return MEMO_SEEN;
    }

    size_t g = 0;
    uint32_t newest = 0;
    if (m->groups) {
        for (g = (size_t)group_hash & mask; m->group_slots[g]; g = (g + 1) & mask) {
            const memo_entry *e = &m->entries[m->group_slots[g] - 1];
            if (e->group_hash == group_hash && e->value == value &&
                window_equal(m->pool + e->off, e->done_lo, e->done_len, done)) {
                newest = m->group_slots[g];
                break;
            }
        }
        uint32_t x = newest;
        for (int scanned = 0; x && scanned < MEMO_GROUP_SCAN; scanned++) {
            const memo_entry *e = &m->entries[x - 1];
            if (window_subset(m->pool + e->off + e->done_len, e->used_lo, e->used_len, used))
                return MEMO_SEEN;
            x = e->group_next;
        }
    }

    memo_entry *e = &m->entries[m->n_entries];
    *e = (memo_entry){.hash = hash, .group_hash = group_hash, .value = value, .off = m->pool_len,
                      .done_lo = (uint32_t)done->lo, .done_len = (uint32_t)done_len,
                      .used_lo = (uint32_t)used->lo, .used_len = (uint32_t)used_len,
                      .group_next = newest};
    if (done_len) memcpy(m->pool + m->pool_len, done->words + done->lo, done_len * sizeof(uint64_t));
    m->pool_len += done_len;
    if (used_len) memcpy(m->pool + m->pool_len, used->words + used->lo, used_len * sizeof(uint64_t));
    m->pool_len += used_len;
    m->n_entries++;
    m->slots[i] = (uint32_t)m->n_entries;
    if (m->groups) m->group_slots[g] = (uint32_t)m->n_entries;
    return MEMO_NEW;
}

/* ---- the per-key search ------------------------------------------------------------------ */
typedef struct lin_op {
    int64_t a, b, out;
    uint32_t invoke_seq, done_seq;
    uint8_t kind;
    bool completed; /* ok: has a return entry and an output to match */
} lin_op;

typedef enum search_outcome { SEARCH_OK, SEARCH_VIOLATION, SEARCH_BUDGET, SEARCH_MEMORY } search_outcome;

/* The register model: applies op to cur; false when op's output disagrees.
 * An op without output (info, never completed) accepts any outcome. */
static bool lin_step(const lin_op *op, int64_t cur, int64_t *next) {
    switch (op->kind) {
    case OXL_OP_READ:
        *next = cur;
        return !op->completed || op->out == cur;
    case OXL_OP_WRITE:
        *next = op->a;
        return true;
    case OXL_OP_CAS: {
        bool swap = cur == op->a;
        *next = swap ? op->b : cur;
        return !op->completed || op->out == (swap ? 1 : 0);
    }
    default:
        assert(!"unknown op kind");
        return false;
    }
}

typedef struct list_node {
    uint32_t prev, next;
    uint32_t op;    /* the lin_op this entry belongs to */
    uint32_t match; /* call entry: its return entry, 0 when it has none */
    uint32_t seq;   /* event position, for ordering */
    bool is_call;
} list_node;

typedef struct frame {
    uint32_t call; /* the call entry linearized */
    int64_t state;  /* the register value before it */
} frame;

static int cmp_node_seq(const void *x, const void *y) {
    uint32_t a = ((const list_node *)x)->seq, b = ((const list_node *)y)->seq;
    return (a > b) - (a < b);
}

static void list_unlink(list_node *n, uint32_t x) {
    n[n[x].prev].next = n[x].next;
    n[n[x].next].prev = n[x].prev;
}

static void list_relink(list_node *n, uint32_t x) {
    n[n[x].prev].next = x;
    n[n[x].next].prev = x;
}

static void lift(list_node *n, uint32_t call) {
    list_unlink(n, call);
    if (n[call].match) list_unlink(n, n[call].match);
}

static void unlift(list_node *n, uint32_t call) {
    /* Dancing links: restore in the reverse order of lift. */
    if (n[call].match) list_relink(n, n[call].match);
    list_relink(n, call);
}

/* Info ops stay callable forever, so two of them with the same kind and
 * arguments are interchangeable once both are invoked. twin[i] is the
 * previous info op identical to info op i, or NO_TWIN. */
#define NO_TWIN UINT32_MAX

typedef struct twin_key {
    int64_t a, b;
    uint32_t op;
    uint8_t kind;
} twin_key;

static int cmp_twin_key(const void *x, const void *y) {
    const twin_key *p = x, *q = y;
    if (p->kind != q->kind) return (p->kind > q->kind) - (p->kind < q->kind);
    if (p->a != q->a) return (p->a > q->a) - (p->a < q->a);
    if (p->b != q->b) return (p->b > q->b) - (p->b < q->b);
    return (p->op > q->op) - (p->op < q->op);
}

static bool find_twins(const lin_op *ops, size_t n, uint32_t *twin) {
    twin_key *keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys) return false;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        twin[i] = NO_TWIN;
        if (!ops[i].completed)
            keys[m++] = (twin_key){.a = ops[i].a, .b = ops[i].b, .op = (uint32_t)i, .kind = ops[i].kind};
    }
    qsort(keys, m, sizeof *keys, cmp_twin_key);
    for (size_t j = 1; j < m; j++)
        if (keys[j].kind == keys[j - 1].kind && keys[j].a == keys[j - 1].a && keys[j].b == keys[j - 1].b)
            twin[keys[j].op] = keys[j - 1].op;
    free(keys);
    return true;
}

/* Decides whether ops (in invoke order) are linearizable from `initial`.
 * visited counts the new configurations explored.
 *
 * Info ops are optional and callable forever, which multiplies the
 * configurations. Besides memo dominance, two prunings skip a child only when
 * a configuration explored anyway dominates it (can do all it can):
 *  - an info op that would not change the value is never linearized: the
 *    current configuration, where it is still available, dominates;
 *  - an info op whose twin (an earlier identical info op) is still
 *    unlinearized is skipped: the walk already tried the twin at this
 *    configuration, and the twin is callable whenever this one is. */
static search_outcome search_register(const lin_op *ops, size_t n, int64_t initial, uint64_t budget,
                                      uint64_t *visited) {
    *visited = 0;
    size_t completed = 0;
    for (size_t i = 0; i < n; i++) completed += ops[i].completed;
    if (completed == 0) return SEARCH_OK; /* every op may be left out */
    size_t n_info = n - completed;

    size_t n_entries = n + completed;
    uint32_t tail = (uint32_t)n_entries + 1;
    list_node *nodes = calloc(n_entries + 2, sizeof *nodes);
    frame *stack = malloc(n * sizeof *stack);
    /* done numbers the completed ops, used the info ops, each in invoke order. */
    bitset done = {.nwords = (completed + 63) / 64}, used = {.nwords = (n_info + 63) / 64};
    done.words = calloc(done.nwords, sizeof(uint64_t));
    used.words = calloc(used.nwords ? used.nwords : 1, sizeof(uint64_t));
    memo seen = {.groups = n_info > 0};
    uint32_t *call_of = malloc(n * sizeof *call_of);
    uint32_t *bit_of = malloc(n * sizeof *bit_of);
    uint32_t *twin = malloc(n * sizeof *twin);
    search_outcome outcome = SEARCH_MEMORY;
    if (!nodes || !stack || !done.words || !used.words || !call_of || !bit_of || !twin ||
        !find_twins(ops, n, twin))
        goto finish;

    /* Entries 1..n_entries in event order; 0 is the head, tail the end. */
    size_t k = 1, n_done = 0, n_used = 0;
    for (size_t i = 0; i < n; i++) {
        bit_of[i] = (uint32_t)(ops[i].completed ? n_done++ : n_used++);
        nodes[k++] = (list_node){.op = (uint32_t)i, .is_call = true, .seq = ops[i].invoke_seq};
        if (ops[i].completed) {
            assert(ops[i].done_seq > ops[i].invoke_seq);
            nodes[k++] = (list_node){.op = (uint32_t)i, .is_call = false, .seq = ops[i].done_seq};
        }
    }
    assert(k == n_entries + 1 && n_done == completed && n_used == n_info);
    qsort(nodes + 1, n_entries, sizeof *nodes, cmp_node_seq);
    for (uint32_t x = 1; x <= n_entries; x++) {
        nodes[x].prev = x - 1;
        nodes[x].next = x + 1;
        if (nodes[x].is_call) {
            call_of[nodes[x].op] = x;
        } else {
            assert(nodes[call_of[nodes[x].op]].is_call);
            nodes[call_of[nodes[x].op]].match = x;
        }
    }
    nodes[0].next = 1;
    nodes[tail].prev = tail - 1;

    /* Each configuration is walked twice up to the first listed return:
     * completed calls first, then info calls. Trying the required ops first
     * reaches every (done, value) with few info ops used, so the dominance
     * check prunes the variants that spend more of them. */
    size_t remaining = completed; /* return entries still in the list */
    size_t depth = 0;
    int64_t state = initial;
    uint32_t e = nodes[0].next;
    bool info_pass = false;
    while (remaining > 0) {
        /* A return entry is still listed, so the walk meets it before the end. */
        assert(e != tail && e != 0);
        list_node *nd = &nodes[e];
        if (!nd->is_call) {
            if (!info_pass && n_info > 0) {
                info_pass = true;
                e = nodes[0].next;
                continue;
            }
            /* An op returned before we linearized it: undo the last choice. */
            if (depth == 0) {
                outcome = SEARCH_VIOLATION;
                goto finish;
            }
            frame f = stack[--depth];
            uint32_t op = nodes[f.call].op;
            bitset_clear(ops[op].completed ? &done : &used, bit_of[op]);
            state = f.state;
            unlift(nodes, f.call);
            if (nodes[f.call].match) remaining++;
            e = nodes[f.call].next;
            info_pass = !ops[op].completed;
            continue;
        }
        const lin_op *op = &ops[nd->op];
        if (op->completed == info_pass) { /* not this pass's kind of call */
            e = nd->next;
            continue;
        }
        bool dominated = false;
        if (info_pass) {
            dominated = twin[nd->op] != NO_TWIN && !bitset_test(&used, bit_of[twin[nd->op]]);
            /* An info write right after an info op erases that op's effect. */
            if (op->kind == OXL_OP_WRITE && depth > 0 && !ops[nodes[stack[depth - 1].call].op].completed)
                dominated = true;
        }
        int64_t next;
        if (!dominated && lin_step(op, state, &next) && (op->completed || next != state)) {
            bitset *bits = op->completed ? &done : &used;
            bitset_set(bits, bit_of[nd->op]);
            memo_answer m = memo_insert(&seen, &done, &used, next);
            if (m == MEMO_NEW) {
                if (*visited == budget) { /* this would be one state too many */
                    outcome = SEARCH_BUDGET;
                    goto finish;
                }
                ++*visited;
                assert(depth < n);
                stack[depth++] = (frame){.call = e, .state = state};
                state = next;
                lift(nodes, e);
                if (nd->match) remaining--;
                e = nodes[0].next;
                info_pass = false;
                continue;
            }
            if (m == MEMO_FULL) goto finish;
            bitset_clear(bits, bit_of[nd->op]);
        }
        e = nd->next;
    }
    outcome = SEARCH_OK;

finish:
    memo_free(&seen);
    free(done.words);
    free(used.words);
    free(call_of);
    free(bit_of);
    free(twin);
    free(stack);
    free(nodes);
    return outcome;
}

/* Checks the ops of one key, given by their ids in invoke order. */
static search_outcome check_ops(const oxl_history *h, const uint32_t *ids, size_t n, int64_t initial,
                                uint64_t budget, uint64_t *visited) {
    *visited = 0;
    lin_op *ops = malloc((n ? n : 1) * sizeof *ops);
    if (!ops) return SEARCH_MEMORY;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const op_record *r = &h->ops[ids[i]];
        assert(r->status != OP_FAIL);
        assert(i == 0 || ids[i - 1] < ids[i]);
        /* A read without an answer constrains nothing: leave it out. */
        if (r->kind == OXL_OP_READ && r->status != OP_OK) continue;
        ops[m++] = (lin_op){
            .a = r->a,
            .b = r->b,
            .out = r->value,
            .invoke_seq = r->invoke_seq,
            .done_seq = r->done_seq,
            .kind = r->kind,
            .completed = r->status == OP_OK,
        };
    }
    search_outcome out = search_register(ops, m, initial, budget, visited);
    free(ops);
    return out;
}

/* ---- shrinking ----------------------------------------------------------------------------- */
/* Shrinking removes ops while the rest still fails. Removing a write alone
 * would often "succeed" by leaving a read of its value unexplained: a
 * minimal but useless history (just "read() -> 5"). So a removal must not
 * orphan an observation: a read of v, or a cas that swapped from v, whose v
 * was written by an op still present (or is the initial value) must keep a
 * writer of v. An observation unexplained in the full history stays a valid
 * (one-op) answer. */
typedef struct shrinker {
    const oxl_history *h;
    int64_t initial;
    uint64_t budget;      /* states per check */
    uint64_t spent, limit; /* work so far (states plus ops per check) and its cap */
    uint32_t *trial;
    int64_t *sources_cur, *sources_trial; /* sorted values written by the ops */
} shrinker;

static int cmp_i64(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Sorts the values ids may have written into out; returns how many. */
static size_t collect_sources(const oxl_history *h, const uint32_t *ids, size_t n, int64_t *out) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const op_record *r = &h->ops[ids[i]];
        if (r->kind == OXL_OP_WRITE)
            out[m++] = r->a;
        else if (r->kind == OXL_OP_CAS && !(r->status == OP_OK && r->value == 0))
            out[m++] = r->b; /* a cas that surely failed wrote nothing */
    }
    qsort(out, m, sizeof *out, cmp_i64);
    return m;
}

/* True when op observes a value: *v is set to it. */
static bool observed_value(const op_record *r, int64_t *v) {
    if (r->status != OP_OK) return false;
    if (r->kind == OXL_OP_READ) {
        *v = r->value;
        return true;
    }
    if (r->kind == OXL_OP_CAS && r->value == 1) {
        *v = r->a;
        return true;
    }
    return false;
}

static bool orphans_observation(shrinker *s, const uint32_t *cur, size_t n, const uint32_t *trial, size_t m) {
    size_t n_cur = collect_sources(s->h, cur, n, s->sources_cur);
    size_t n_trial = collect_sources(s->h, trial, m, s->sources_trial);
    for (size_t i = 0; i < m; i++) {
        int64_t v;
        if (!observed_value(&s->h->ops[trial[i]], &v) || v == s->initial) continue;
        if (bsearch(&v, s->sources_trial, n_trial, sizeof v, cmp_i64)) continue;
        if (bsearch(&v, s->sources_cur, n_cur, sizeof v, cmp_i64)) return true;
    }
    return false;
}

/* True when ids without [at, at+len) still fails; then removes them. */
static bool try_remove(shrinker *s, uint32_t *ids, size_t *n, size_t at, size_t len) {
    assert(at + len <= *n);
    size_t m = 0;
    for (size_t i = 0; i < *n; i++)
        if (i < at || i >= at + len) s->trial[m++] = ids[i];
    /* Every trial costs at least its length, so the limit bounds the work. */
    s->spent += *n;
    if (orphans_observation(s, ids, *n, s->trial, m)) return false;
    uint64_t visited = 0;
    search_outcome out = check_ops(s->h, s->trial, m, s->initial, s->budget, &visited);
    s->spent += visited;
    if (out != SEARCH_VIOLATION) return false;
    memcpy(ids, s->trial, m * sizeof *ids);
    *n = m;
    return true;
}

/* Shrinks the failing ids to a history from which no single op can be
 * removed while it still fails (without orphaning an observation): chunks
 * first (cheap on long histories), then single ops in order until a whole
 * pass removes nothing. Returns false when the effort limit stopped it. */
static bool shrink(shrinker *s, uint32_t *ids, size_t *n) {
    for (size_t chunk = *n / 2; chunk >= 2; chunk /= 2) {
        for (size_t at = 0; at + chunk <= *n;) {
            if (s->spent > s->limit) return false;
            if (!try_remove(s, ids, n, at, chunk)) at += chunk;
        }
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t at = 0; at < *n;) {
            if (s->spent > s->limit) return false;
            if (try_remove(s, ids, n, at, 1))
                changed = true;
            else
                at++;
        }
    }
    return true;
}

/* ---- reports ------------------------------------------------------------------------------ */
typedef struct strbuf {
    char *text;
    size_t len, cap;
    bool failed; /* an allocation failed: the text is dropped */
} strbuf;

static void sb_printf(strbuf *b, const char *fmt, ...) OXL_PRINTF(2, 3);
static void sb_printf(strbuf *b, const char *fmt, ...) {
    if (b->failed) return;
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0) {
        b->failed = true;
        return;
    }
    if (b->len + (size_t)need + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (b->len + (size_t)need + 1 > cap) cap *= 2;
        char *t = realloc(b->text, cap);
        if (!t) {
            b->failed = true;
            return;
        }
        b->text = t;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->text + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)need;
}

static char *sb_take(strbuf *b) {
    if (b->failed) {
        free(b->text);
        return NULL;
    }
    return b->text;
}

/* Virtual ns as milliseconds with microsecond digits, e.g. 12.345ms. */
static void format_time(char *buf, size_t cap, oxl_time_ns t) {
    uint64_t mag = t < 0 ? 0 - (uint64_t)t : (uint64_t)t;
    snprintf(buf, cap, "%s%" PRIu64 ".%03" PRIu64 "ms", t < 0 ? "-" : "", mag / 1000000,
             mag % 1000000 / 1000);
}

static void format_op(char *buf, size_t cap, const op_record *r) {
    bool ok = r->status == OP_OK;
    switch (r->kind) {
    case OXL_OP_READ:
        if (ok)
            snprintf(buf, cap, "read() -> %" PRId64, r->value);
        else
            snprintf(buf, cap, "read()");
        break;
    case OXL_OP_WRITE:
        snprintf(buf, cap, "write(%" PRId64 ")", r->a);
        break;
    default:
        snprintf(buf, cap, "cas(%" PRId64 ", %" PRId64 ")%s", r->a, r->b,
                 !ok ? "" : r->value ? " -> swapped" : " -> failed");
        break;
    }
}

static void report_op(strbuf *b, const op_record *r) {
    char op[96], t_inv[32], t_done[32];
    format_op(op, sizeof op, r);
    format_time(t_inv, sizeof t_inv, r->t_invoke);
    format_time(t_done, sizeof t_done, r->t_done);
    sb_printf(b, "  client %-3" PRId32 "%-24s invoke @%s  ", r->client, op, t_inv);
    switch (r->status) {
    case OP_OK: sb_printf(b, "ok @%s\n", t_done); break;
    case OP_INFO: sb_printf(b, "info (outcome unknown) @%s\n", t_done); break;
    default: sb_printf(b, "never completed (outcome unknown)\n"); break;
    }
}

static char *report_text(const char *fmt, ...) OXL_PRINTF(1, 2);
static char *report_text(const char *fmt, ...) {
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    strbuf b = {0};
    sb_printf(&b, "%s", line);
    return sb_take(&b);
}

/* ---- the checker -------------------------------------------------------------------------- */
typedef struct key_ref {
    uint64_t key;
    uint32_t id;
} key_ref;

static int cmp_key_ref(const void *x, const void *y) {
    const key_ref *a = x, *b = y;
    if (a->key != b->key) return (a->key > b->key) - (a->key < b->key);
    return (a->id > b->id) - (a->id < b->id);
}

static const char *plural(size_t n) {
    return n == 1 ? "" : "s";
}

static oxl_lin_result unknown_result(uint64_t key, uint64_t explored, char *report) {
    return (oxl_lin_result){.verdict = OXL_LIN_UNKNOWN, .key = key, .explored = explored, .report = report};
}

/* Shrinks the failing key's ops and describes them. Consumes ids. */
static char *violation_report(const oxl_history *h, uint64_t key, uint32_t *ids, size_t n, int64_t initial,
                              uint64_t budget, size_t other_failing, size_t undecided) {
    size_t total = n;
    uint64_t limit = budget > UINT64_MAX / SHRINK_BUDGET_FACTOR ? UINT64_MAX : budget * SHRINK_BUDGET_FACTOR;
    shrinker s = {.h = h, .initial = initial, .budget = budget, .limit = limit,
                  .trial = malloc(n * sizeof(uint32_t)),
                  .sources_cur = malloc(n * sizeof(int64_t)),
                  .sources_trial = malloc(n * sizeof(int64_t))};
    /* Without memory to shrink, report the key's whole history. */
    bool minimal = s.trial && s.sources_cur && s.sources_trial && shrink(&s, ids, &n);
    free(s.trial);
    free(s.sources_cur);
    free(s.sources_trial);
    size_t failed = 0;
    for (uint32_t i = 0; i < h->count; i++) failed += h->ops[i].key == key && h->ops[i].status == OP_FAIL;

    strbuf b = {0};
    sb_printf(&b, "not linearizable: key %" PRIu64 " (register starting at %" PRId64 "), ", key, initial);
    sb_printf(&b, "%zu of %zu operations form a %s:\n", n, total,
              minimal ? "minimal failing history"
                      : "failing history (shrinking stopped at its limit; may not be minimal)");
    for (size_t i = 0; i < n && i < REPORT_MAX_OPS; i++) report_op(&b, &h->ops[ids[i]]);
    if (n > REPORT_MAX_OPS) sb_printf(&b, "  ... %zu more operations\n", n - REPORT_MAX_OPS);
    if (failed)
        sb_printf(&b, "  (%zu failed operation%s on this key left out: no effect)\n", failed, plural(failed));
    if (other_failing || undecided)
        sb_printf(&b, "  (also: %zu other key%s not linearizable, %zu key%s undecided)\n", other_failing,
                  plural(other_failing), undecided, plural(undecided));
    return sb_take(&b);
}

oxl_lin_result oxl_check_register(const oxl_history *h, int64_t initial, uint64_t budget) {
    if (!h) return unknown_result(0, 0, report_text("history is malformed: NULL history"));
    if (h->misuses)
        return unknown_result(0, 0, report_text("history is malformed: %s (%" PRIu64 " misuse%s in all)",
                                                h->first_misuse, h->misuses, plural(h->misuses)));
    if (budget == 0) budget = LIN_DEFAULT_BUDGET;

    /* Group the ops that may have had an effect by key, in invoke order. */
    key_ref *refs = malloc((h->count ? h->count : 1) * sizeof *refs);
    uint32_t *ids = malloc((h->count ? h->count : 1) * sizeof *ids);
    if (!refs || !ids) {
        free(refs);
        free(ids);
        return unknown_result(0, 0, report_text("out of memory checking %" PRIu32 " operations", h->count));
    }
    size_t n_refs = 0;
    for (uint32_t i = 0; i < h->count; i++)
        if (h->ops[i].status != OP_FAIL) refs[n_refs++] = (key_ref){.key = h->ops[i].key, .id = i};
    qsort(refs, n_refs, sizeof *refs, cmp_key_ref);

    uint64_t explored = 0;
    size_t n_failing = 0, n_undecided = 0;
    bool have_fail = false, have_undecided = false;
    uint64_t fail_key = 0, undecided_key = 0;
    size_t fail_size = 0, fail_start = 0, undecided_size = 0;
    search_outcome undecided_why = SEARCH_BUDGET;
    for (size_t start = 0; start < n_refs;) {
        size_t end = start;
        uint64_t key = refs[start].key;
        while (end < n_refs && refs[end].key == key) {
            ids[end] = refs[end].id;
            end++;
        }
        size_t size = end - start;
        uint64_t visited = 0;
        search_outcome out = check_ops(h, ids + start, size, initial, budget, &visited);
        explored += visited;
        if (out == SEARCH_VIOLATION) {
            n_failing++;
            /* Keys ascend, so strict < keeps the smallest key among equal sizes. */
            if (!have_fail || size < fail_size) {
                have_fail = true;
                fail_key = key;
                fail_size = size;
                fail_start = start;
            }
        } else if (out != SEARCH_OK) {
            n_undecided++;
            if (!have_undecided) {
                have_undecided = true;
                undecided_key = key;
                undecided_size = size;
                undecided_why = out;
            }
        }
        start = end;
    }
    free(refs);

    oxl_lin_result res = {.verdict = OXL_LIN_OK, .key = 0, .explored = explored, .report = NULL};
    if (have_fail) {
        res.verdict = OXL_LIN_VIOLATION;
        res.key = fail_key;
        res.report = violation_report(h, fail_key, ids + fail_start, fail_size, initial, budget,
                                      n_failing - 1, n_undecided);
    } else if (have_undecided) {
        char others[64] = "";
        if (n_undecided > 1)
            snprintf(others, sizeof others, "; %zu other key%s undecided too", n_undecided - 1,
                     plural(n_undecided - 1));
        char why[96];
        if (undecided_why == SEARCH_BUDGET)
            snprintf(why, sizeof why, "budget of %" PRIu64 " states ran out", budget);
        else
            snprintf(why, sizeof why, "ran out of memory (limit %zu MiB)", (size_t)MEMO_MAX_BYTES >> 20);
        res = unknown_result(undecided_key, explored,
                             report_text("undecided: key %" PRIu64 " (register starting at %" PRId64
                                         "): the search %s on its %zu operations%s",
                                         undecided_key, initial, why, undecided_size, others));
    }
    free(ids);
    return res;
}

void oxl_lin_result_free(oxl_lin_result *r) {
    if (!r) return;
    free(r->report);
    r->report = NULL;
}
