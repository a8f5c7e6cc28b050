/* escape.c: which function literals stay in the function that makes them.
 *
 * A literal stays when its value is only ever called, and only by the
 * function that makes it: it is called where it is written
 * (`(fn(x: Int) -> Int { ... })(1)`), or it is the value of a `let` of its
 * own type whose every use is the callee of a call, outside any spawn and
 * inside no function literal that escapes. Any other use lets it escape:
 * stored, passed, returned, printed, bound again, `spawn f(x)`, named in
 * a spawn block or in a literal that escapes. A `var` holding a literal
 * lets it escape too (it could be assigned anything later).
 *
 * Such a literal's environment lives in the frame of the function that
 * makes it (closure.c): no one holds the value once that function has
 * returned, and a `let`'s scope ends before a loop's next iteration makes
 * the literal again, so one slot per literal serves every iteration.
 *
 * One walk of a body finds each such `let` and each use of one. A use
 * inside another literal M (called, so fine by itself) makes the let's
 * literal escape exactly when M escapes: an edge from M, followed once the
 * walk is done, since M's own uses come after its body. The walk is
 * linear in the body's size times the nesting of literals. */
#include "codegen/cg_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct esc_lit {
    const ast_node *lit;
    uint32_t depth; /* own bodies (literals, spawn blocks) around it when it was declared */
    uint32_t deps;  /* its first edge + 1 (0: none): literals that escape when it does */
    bool escapes;
} esc_lit;

typedef struct esc_edge {
    uint32_t to, next; /* next: the next edge of the same literal + 1 (0: none) */
} esc_edge;

typedef struct esc_scan {
    cg_module *m;
    esc_lit *lits;
    uint32_t nlits, cap_lits;
    esc_edge *edges;
    uint32_t nedges, cap_edges;
    const ast_node **stack; /* the own bodies being walked: AST_FN_LIT or AST_SPAWN nodes */
    uint32_t depth, cap_stack;
    cg_ptrmap by_decl; /* a let -> the index of its literal */
    cg_ptrmap by_lit;  /* a literal -> its index */
} esc_scan;

static void *grow(void *p, uint32_t *cap, size_t size) {
    if (*cap > UINT32_MAX / 4) {
        fputs("oxl: too many function literals in one body\n", stderr);
        abort();
    }
    *cap = *cap ? *cap * 2 : 16;
    void *q = realloc(p, (size_t)*cap * size);
    if (!q) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    return q;
}

static const ast_node *strip(const ast_node *e) {
    while (e && e->kind == AST_PAREN) e = e->a;
    return e;
}

/* A literal to decide, bound by the let decl (NULL: called where it is
 * written). One decided by an earlier walk keeps its answer. */
static void add_lit(esc_scan *s, const ast_node *lit, const ast_node *decl) {
    if (cg_ptrmap_get(&s->m->lits, lit, NULL) || cg_ptrmap_get(&s->by_lit, lit, NULL)) return;
    if (s->nlits == s->cap_lits) s->lits = grow(s->lits, &s->cap_lits, sizeof *s->lits);
    s->lits[s->nlits] = (esc_lit){lit, s->depth, 0, false};
    cg_ptrmap_put(&s->by_lit, lit, s->nlits);
    if (decl) cg_ptrmap_put(&s->by_decl, decl, s->nlits);
    s->nlits++;
}

static void add_edge(esc_scan *s, uint32_t from, uint32_t to) {
    if (s->nedges == s->cap_edges) s->edges = grow(s->edges, &s->cap_edges, sizeof *s->edges);
    s->edges[s->nedges] = (esc_edge){to, s->lits[from].deps};
    s->lits[from].deps = ++s->nedges;
}

/* A name: a use of a let whose literal is being decided, as the callee of
 * a call (called) or otherwise. */
static void use(esc_scan *s, const ast_node *id, bool called) {
    const sema_sym *sym = id->sym;
    uint32_t i;
    if (!sym || !sym->decl || !cg_ptrmap_get(&s->by_decl, sym->decl, &i)) return;
    if (!called) {
        s->lits[i].escapes = true;
        return;
    }
    for (uint32_t k = s->lits[i].depth; k < s->depth; k++) {
        uint32_t j;
        if (s->stack[k]->kind == AST_FN_LIT && cg_ptrmap_get(&s->by_lit, s->stack[k], &j)) {
            add_edge(s, j, i);
        } else { /* a spawn block, or a literal that escapes anyway */
            s->lits[i].escapes = true;
            return;
        }
    }
}

static void walk(esc_scan *s, const ast_node *n);

static void walk_list(esc_scan *s, const ast_node *n) {
    for (uint32_t i = 0; i < n->list.len; i++) walk(s, n->list.items[i]);
}

/* A call, made here or (spawned) in a new task, which receives the callee
 * as a value. */
static void walk_call(esc_scan *s, const ast_node *call, bool spawned) {
    const ast_node *callee = strip(call->a);
    if (callee && callee->kind == AST_IDENT) {
        use(s, callee, !spawned);
    } else {
        if (!spawned && callee && callee->kind == AST_FN_LIT) add_lit(s, callee, NULL);
        walk(s, call->a);
    }
    walk(s, call->b);
    walk(s, call->c);
    walk_list(s, call);
}

/* A body of its own (a literal's, a spawn block's), with its node on the stack. */
static void walk_own(esc_scan *s, const ast_node *owner, const ast_node *body) {
    if (s->depth == s->cap_stack) s->stack = grow(s->stack, &s->cap_stack, sizeof *s->stack);
    s->stack[s->depth++] = owner;
    walk(s, body);
    s->depth--;
}

static void walk(esc_scan *s, const ast_node *n) {
    if (!n) return;
    switch (n->kind) {
    case AST_IDENT: use(s, n, false); return;
    case AST_CALL: walk_call(s, n, false); return;
    case AST_BLOCK:
        for (uint32_t i = 0; i < n->list.len; i++) {
            const ast_node *it = n->list.items[i];
            const ast_node *lit = it && it->kind == AST_LET ? strip(it->b) : NULL;
            if (lit && lit->kind == AST_FN_LIT && lit->type && lit->type->kind == TY_FN && it->type == lit->type)
                add_lit(s, lit, it);
            walk(s, it);
        }
        return;
    case AST_FN_LIT:
        walk(s, n->a);
        walk_list(s, n);
        walk_own(s, n, n->b);
        return;
    case AST_SPAWN:
        walk(s, n->c);
        if (n->a && n->a->kind == AST_CALL) walk_call(s, n->a, true);
        else walk(s, n->a);
        walk_own(s, n, n->b);
        return;
    default:
        walk(s, n->a);
        walk(s, n->b);
        walk(s, n->c);
        walk_list(s, n);
        return;
    }
}

void cg_escape_scan(cg_module *m, const ast_node *body) {
    esc_scan s = {.m = m};
    walk(&s, body);
    /* spread the escapes along the edges: each literal enters the work list once */
    uint32_t *work = malloc(((size_t)s.nlits + 1) * sizeof *work);
    if (!work) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    uint32_t nwork = 0;
    for (uint32_t i = 0; i < s.nlits; i++)
        if (s.lits[i].escapes) work[nwork++] = i;
    while (nwork) {
        uint32_t i = work[--nwork];
        for (uint32_t e = s.lits[i].deps; e; e = s.edges[e - 1].next) {
            esc_lit *to = &s.lits[s.edges[e - 1].to];
            if (to->escapes) continue;
            to->escapes = true;
            work[nwork++] = s.edges[e - 1].to;
        }
    }
    for (uint32_t i = 0; i < s.nlits; i++) cg_ptrmap_put(&m->lits, s.lits[i].lit, s.lits[i].escapes ? 0 : 1);
    free(work);
    free(s.lits);
    free(s.edges);
    free(s.stack);
    cg_ptrmap_free(&s.by_decl);
    cg_ptrmap_free(&s.by_lit);
}

bool cg_lit_stays(const cg_module *m, const ast_node *lit) {
    uint32_t v = 0;
    return cg_ptrmap_get(&m->lits, lit, &v) && v == 1;
}
