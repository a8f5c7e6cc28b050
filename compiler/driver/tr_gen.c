/* tr_gen.c: the order of a batch's processes: the unit tests, or one sim
 * test's seeds (the remembered ones first, then its range or --seeds
 * without them), in this shard by the frozen shard hash. */
#include "tr_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

unsigned long long tr_shard_hash(const char *name, bool has_seed, unsigned long long seed) {
    uint64_t h = tr_fnv1a64(TR_FNV_OFFSET, name, strlen(name) + 1); /* the name and its NUL */
    char num[24];
    if (has_seed) snprintf(num, sizeof num, "%llu", seed);
    else snprintf(num, sizeof num, "-");
    h = tr_fnv1a64(h, num, strlen(num));
    /* FNV-1a's low bits follow the last byte (mod 2 it is the parity of
     * the seed's last digit): MurmurHash3's 64-bit finalizer mixes every
     * bit into every other before the modulus */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

bool tr_in_shard(const tr_runner *r, const tr_test *t, uint64_t seed) {
    if (!r->sharded) return true;
    return tr_shard_hash(t->name, t->sim, seed) % r->shard_total == r->shard_index;
}

static bool in_pre(const tr_gen *g, uint64_t s) {
    for (size_t i = 0; i < g->npre; i++)
        if (g->pre[i] == s) return true;
    return false;
}

void tr_gen_give_back(tr_gen *g, const tr_item *it) {
    if (g->backpos == g->nback) g->backpos = g->nback = 0;
    if (g->nback == g->back_cap) {
        g->back_cap = g->back_cap ? g->back_cap * 2 : 16;
        g->back = tr_xrealloc(g->back, g->back_cap * sizeof *g->back);
    }
    tr_item *b = &g->back[g->nback++];
    memset(b, 0, sizeof *b);
    b->test = it->test;
    b->seed = it->seed;
    b->replay = it->replay;
}

bool tr_gen_next(const tr_runner *r, tr_gen *g, tr_item *it) {
    memset(it, 0, sizeof *it);
    if (g->backpos < g->nback) {
        *it = g->back[g->backpos++];
        return true;
    }
    if (g->units) {
        while (g->upos < g->nunits) {
            const tr_test *t = g->units[g->upos++];
            if (g->all_shards || tr_in_shard(r, t, 0)) {
                it->test = t;
                return true;
            }
        }
        return false;
    }
    it->test = g->test;
    while (g->prepos < g->npre) {
        uint64_t s = g->pre[g->prepos++];
        if (g->all_shards || tr_in_shard(r, g->test, s)) {
            it->seed = s;
            it->replay = g->pre_replayed;
            return true;
        }
    }
    while (g->range && !g->range_done) {
        uint64_t s = g->cur;
        if (g->cur == g->hi) g->range_done = true;
        else g->cur++;
        if (in_pre(g, s) || !(g->all_shards || tr_in_shard(r, g->test, s))) continue;
        it->seed = s;
        return true;
    }
    return false;
}

uint64_t tr_gen_count(const tr_runner *r, const tr_gen *g0) {
    if (!r->sharded && !g0->units) {
        uint64_t n = g0->npre;
        if (g0->range) {
            n += g0->hi - g0->lo + 1;
            for (size_t i = 0; i < g0->npre; i++)
                if (g0->pre[i] >= g0->lo && g0->pre[i] <= g0->hi) n--;
        }
        return n;
    }
    tr_gen g = *g0;
    tr_item it;
    uint64_t n = 0;
    while (tr_gen_next(r, &g, &it)) n++;
    return n;
}

void tr_sim_gen(tr_runner *r, const tr_test *t, tr_gen *g) {
    memset(g, 0, sizeof *g);
    g->test = t;
    if (r->o.has_seed) {
        g->pre = tr_xmalloc(sizeof *g->pre);
        g->pre[0] = r->o.seed;
        g->npre = 1;
        return;
    }
    for (size_t i = 0; i < r->nfails; i++) {
        if (r->fails[i].drop || strcmp(r->fails[i].name, t->name) != 0) continue;
        if (in_pre(g, r->fails[i].seed)) continue;
        g->pre = tr_xrealloc(g->pre, (g->npre + 1) * sizeof *g->pre);
        g->pre[g->npre++] = r->fails[i].seed;
    }
    g->pre_replayed = true;
    g->range = true;
    g->lo = g->cur = r->o.has_seeds ? r->o.seeds_lo : t->first;
    g->hi = r->o.has_seeds ? r->o.seeds_hi : t->last;
}
