/* lin_search.c: whether the operations of one register key are
 * linearizable.
 *
 * The Wing & Gong backtracking search with Lowe's memoization: a doubly
 * linked list of call and return entries in event order; a call whose return
 * has not been passed may be linearized next; a configuration (set of
 * linearized ops, register value) already explored is never explored again.
 * Info ops (outcome unknown) have no return entry and may be linearized or
 * left out; the search is done once every completed op is linearized.
 * Because they stay callable forever, info ops can multiply the
 * configurations, so a few dominance prunings (see search_register) cut the
 * variants that can only do less than one already explored.
 *
 * Everything is bounded: states per search and memo memory. Hash tables only
 * answer membership; no result depends on their order. */
#include "history_internal.h"
#include "sim_sort.h"

#include <stdlib.h>
#include <string.h>

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

static inline bool node_seq_less(const list_node *a, const list_node *b) { return a->seq < b->seq; }
SIM_SORT_DEFINE(sort_nodes_by_seq, list_node, node_seq_less)

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

static inline bool twin_key_less(const twin_key *p, const twin_key *q) {
    if (p->kind != q->kind) return p->kind < q->kind;
    if (p->a != q->a) return p->a < q->a;
    if (p->b != q->b) return p->b < q->b;
    return p->op < q->op;
}
SIM_SORT_DEFINE(sort_twin_keys, twin_key, twin_key_less)

static bool find_twins(const lin_op *ops, size_t n, uint32_t *twin) {
    twin_key *keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys) return false;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        twin[i] = NO_TWIN;
        if (!ops[i].completed)
            keys[m++] = (twin_key){.a = ops[i].a, .b = ops[i].b, .op = (uint32_t)i, .kind = ops[i].kind};
    }
    sort_twin_keys(keys, m);
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
static sim_lin_outcome search_register(const lin_op *ops, size_t n, int64_t initial, uint64_t budget,
                                      uint64_t *visited) {
    *visited = 0;
    size_t completed = 0;
    for (size_t i = 0; i < n; i++) completed += ops[i].completed;
    if (completed == 0) return SIM_LIN_OK; /* every op may be left out */
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
    sim_lin_outcome outcome = SIM_LIN_MEMORY;
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
    sort_nodes_by_seq(nodes + 1, n_entries);
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
                outcome = SIM_LIN_VIOLATION;
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
                    outcome = SIM_LIN_BUDGET;
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
    outcome = SIM_LIN_OK;

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

/* ---- one key's ops at a cut ---------------------------------------------------------------------- */
static inline bool i64_less(const int64_t *a, const int64_t *b) { return *a < *b; }
SIM_SORT_DEFINE(sort_i64, int64_t, i64_less)

/* The starting values worth trying when any will do: the register's value
 * matters only through comparisons with what reads returned and what cas
 * ops expected, so those values and one value unlike all of them cover
 * every case. Sorted, distinct; returns how many (at most n + 1). */
static size_t starting_values(const lin_op *ops, size_t n, int64_t *out) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (ops[i].kind == OXL_OP_READ && ops[i].completed) out[m++] = ops[i].out;
        if (ops[i].kind == OXL_OP_CAS) out[m++] = ops[i].a;
    }
    sort_i64(out, m);
    size_t k = 0;
    for (size_t i = 0; i < m; i++)
        if (k == 0 || out[k - 1] != out[i]) out[k++] = out[i];
    /* The smallest value missing from the sorted list. */
    int64_t fresh = INT64_MIN;
    for (size_t i = 0; i < k && out[i] == fresh; i++) fresh++;
    out[k++] = fresh;
    return k;
}

sim_lin_outcome sim_lin_check(const oxl_history *h, const uint32_t *ids, size_t n, uint32_t cut,
                              const int64_t *initial, uint64_t budget, uint64_t *visited) {
    *visited = 0;
    lin_op *ops = malloc((n ? n : 1) * sizeof *ops);
    if (!ops) return SIM_LIN_MEMORY;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const op_record *r = &h->ops[ids[i]];
        assert(r->status != OP_FAIL);
        assert(i == 0 || ids[i - 1] < ids[i]);
        if (r->invoke_seq > cut) continue; /* not invoked yet at the cut */
        bool completed = r->status == OP_OK && r->done_seq <= cut;
        /* A read without an answer constrains nothing: leave it out. */
        if (r->kind == OXL_OP_READ && !completed) continue;
        ops[m++] = (lin_op){
            .a = r->a,
            .b = r->b,
            .out = r->value,
            .invoke_seq = r->invoke_seq,
            .done_seq = r->done_seq,
            .kind = r->kind,
            .completed = completed,
        };
    }
    sim_lin_outcome out;
    if (initial) {
        out = search_register(ops, m, *initial, budget, visited);
    } else {
        int64_t *starts = malloc((m + 1) * sizeof *starts);
        if (!starts) {
            free(ops);
            return SIM_LIN_MEMORY;
        }
        size_t n_starts = starting_values(ops, m, starts);
        out = SIM_LIN_VIOLATION;
        for (size_t i = 0; i < n_starts && out == SIM_LIN_VIOLATION; i++) {
            uint64_t spent = 0;
            out = search_register(ops, m, starts[i], budget - *visited, &spent);
            *visited += spent;
        }
        free(starts);
    }
    free(ops);
    return out;
}
