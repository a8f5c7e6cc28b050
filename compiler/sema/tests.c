/* tests.c: `test` and `test sim` declarations: names (unique in the
 * package, no NUL), seed ranges, `with cluster(nodes:, roles:)` and the
 * default layout (a node per role of the package's first cluster). What
 * each looks up in the package (its test names, the roles of its clusters,
 * its first cluster) is indexed once per package, so checking n tests
 * costs O(n), not O(n * items). */
#include "sema/sema_internal.h"

#include <string.h>

static base_span name_at(const ast_node *n) { return n->name_span.len ? n->name_span : n->span; }

/* ---- a set of interned names: open addressing on the pointer, for
 * lookup only (never iterated, so no order depends on an address) ---- */

static uint32_t ptr_slot(const void *p, uint32_t mask) {
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15u;
    return (uint32_t)(h >> 32) & mask;
}

bool sema_ptrset_add(sema_ctx *c, sema_ptrset *s, const void *p) {
    if ((s->len + 1) * 2 > s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 64;
        const void **slots = base_alloc(c->arena, sizeof *slots * cap);
        for (uint32_t i = 0; i < s->cap; i++) {
            if (!s->slots[i]) continue;
            uint32_t j = ptr_slot(s->slots[i], cap - 1);
            while (slots[j]) j = (j + 1) & (cap - 1);
            slots[j] = s->slots[i];
        }
        s->slots = slots;
        s->cap = cap;
    }
    uint32_t j = ptr_slot(p, s->cap - 1);
    for (; s->slots[j]; j = (j + 1) & (s->cap - 1))
        if (s->slots[j] == p) return false;
    s->slots[j] = p;
    s->len++;
    return true;
}

static bool ptrset_has(const sema_ptrset *s, const void *p) {
    if (!s->cap) return false;
    for (uint32_t j = ptr_slot(p, s->cap - 1); s->slots[j]; j = (j + 1) & (s->cap - 1))
        if (s->slots[j] == p) return true;
    return false;
}

/* The package's clusters, once: the first one (files in name order) and
 * the names of all their roles. */
static void scan_clusters(sema_ctx *c, sema_pkg_tests *seen) {
    if (seen->scanned) return;
    seen->scanned = true;
    for (uint32_t i = 0; i < c->pkg->files.len; i++) {
        ast_node *f = c->pkg->files.items[i];
        for (uint32_t k = 0; k < f->list.len; k++) {
            ast_node *it = f->list.items[k];
            if (it->kind != AST_CLUSTER) continue;
            if (!seen->first_cluster) seen->first_cluster = it;
            for (uint32_t r = 0; r < it->list.len; r++) {
                ast_node *ro = it->list.items[r];
                if (ro->kind == AST_ROLE && ro->name) sema_ptrset_add(c, &seen->roles, ro->name); /* interned */
            }
        }
    }
}

static bool package_has_role(sema_ctx *c, sema_pkg_tests *seen, const char *role, size_t len) {
    scan_clusters(c, seen);
    return ptrset_has(&seen->roles, base_intern(c->names, role, len));
}

static void check_seeds(sema_ctx *c, ast_node *t, sema_test *info) {
    ast_node *r = t->a;
    info->seed_first = 1;
    info->seed_last = 100;
    if (!r)
        return;
    if (t->op != AST_TEST_SIM) {
        diag_report(c->d, DIAG_ERROR, r->span, "only a `test sim` takes seeds");
        return;
    }
    if (r->kind != AST_RANGE) {
        diag_report(c->d, DIAG_ERROR, r->span, "seeds must be a range of integer literals: a..=b or a..b");
        return;
    }
    bool ok = true;
    ast_node *ends[2] = {r->a, r->b};
    for (int i = 0; i < 2; i++) {
        if (!ends[i] || ends[i]->kind != AST_INT) {
            diag_report(c->d, DIAG_ERROR, ends[i] ? ends[i]->span : r->span,
                        "seed range bounds must be non-negative integer literals");
            ok = false;
        }
    }
    if (!ok)
        return;
    int64_t lo = r->a->ival, hi = r->b->ival;
    bool incl = (r->flags & AST_F_INCLUSIVE) != 0;
    r->a->type = c->t_int;
    r->b->type = c->t_int;
    if (lo > hi) {
        diag_report(c->d, DIAG_ERROR, r->span, "seed range %lld..%s%lld is malformed: its start is after its end",
                    (long long)lo, incl ? "=" : "", (long long)hi);
        return;
    }
    if (!incl && lo == hi) {
        diag_report(c->d, DIAG_ERROR, r->span, "seed range %lld..%lld is empty (did you mean %lld..=%lld?)",
                    (long long)lo, (long long)hi, (long long)lo, (long long)hi);
        return;
    }
    info->seed_first = lo;
    info->seed_last = incl ? hi : hi - 1;
}

static void check_cluster_args(sema_ctx *c, ast_node *t, sema_test *info, sema_pkg_tests *seen) {
    if (!(t->flags & AST_F_CLUSTER))
        return;
    base_span where = t->list.len ? ((ast_node *)t->list.items[0])->span : name_at(t);
    if (t->op != AST_TEST_SIM) {
        diag_report(c->d, DIAG_ERROR, where, "only a `test sim` can run `with cluster(...)`");
        return;
    }
    bool seen_nodes = false, seen_roles = false;
    for (uint32_t i = 0; i < t->list.len; i++) {
        ast_node *arg = t->list.items[i];
        ast_node *v = arg->a;
        if (!arg->name) {
            diag_report(c->d, DIAG_ERROR, arg->span, "cluster arguments are labelled: nodes: and roles:");
            continue;
        }
        base_span lat = name_at(arg);
        if (arg->name == c->n_nodes) {
            if (seen_nodes) {
                diag_report(c->d, DIAG_ERROR, lat, "cluster argument 'nodes' is given twice");
                continue;
            }
            seen_nodes = true;
            if (!v || v->kind != AST_INT || v->ival <= 0) {
                diag_report(c->d, DIAG_ERROR, v ? v->span : arg->span, "nodes: needs a positive integer literal");
                continue;
            }
            if (v->ival > 1024) {
                diag_report(c->d, DIAG_ERROR, v->span, "a simulated cluster has at most 1024 nodes");
                continue;
            }
            v->type = c->t_int;
            info->nodes = v->ival;
        } else if (arg->name == c->n_roles) {
            if (seen_roles) {
                diag_report(c->d, DIAG_ERROR, lat, "cluster argument 'roles' is given twice");
                continue;
            }
            seen_roles = true;
            if (!v || v->kind != AST_LIST_LIT) {
                diag_report(c->d, DIAG_ERROR, v ? v->span : arg->span,
                            "roles: needs a list of string literals naming roles");
                continue;
            }
            sema_ptrset listed = {0}; /* interned role names of this list */
            v->type = ty_list(c, c->t_string);
            for (uint32_t k = 0; k < v->list.len; k++) {
                ast_node *e = v->list.items[k];
                if (e->kind != AST_STRING) {
                    diag_report(c->d, DIAG_ERROR, e->span, "roles: needs string literals");
                    continue;
                }
                e->type = c->t_string;
                size_t len = (size_t)e->ival;
                if (!e->name || !package_has_role(c, seen, e->name, len)) {
                    diag_report(c->d, DIAG_ERROR, e->span, "no cluster of this package has a role \"%.*s\"",
                                (int)len, e->name ? e->name : "");
                    continue;
                }
                if (!sema_ptrset_add(c, &listed, base_intern(c->names, e->name, len))) {
                    diag_report(c->d, DIAG_ERROR, e->span, "role \"%.*s\" is listed twice", (int)len, e->name);
                    continue;
                }
                base_vec_push(c->arena, &info->roles, e);
            }
        } else {
            diag_report(c->d, DIAG_ERROR, lat, "unknown cluster argument '%s' (expected nodes: or roles:)",
                        arg->name);
        }
    }
    if (!seen_nodes)
        diag_report(c->d, DIAG_ERROR, where, "with cluster(...) needs nodes: N");
}

/* Without `with cluster(...)`, a sim test of a package that declares a
 * cluster gets one node per role of its first cluster (files in name
 * order), named <role>-0: the roles, as AST_ROLE nodes, with nodes 0. */
static void default_layout(sema_ctx *c, sema_test *info, sema_pkg_tests *seen) {
    scan_clusters(c, seen);
    ast_node *it = seen->first_cluster;
    if (!it) return;
    for (uint32_t r = 0; r < it->list.len; r++) {
        ast_node *ro = it->list.items[r];
        if (ro->kind == AST_ROLE && ro->name) base_vec_push(c->arena, &info->roles, ro);
    }
}

void sema_check_test(sema_ctx *c, ast_node *t, sema_pkg_tests *seen) {
    sema_test *info = base_alloc(c->arena, sizeof *info);
    info->decl = t;
    info->sim = t->op == AST_TEST_SIM;
    t->sym = NULL;
    if (t->name) {
        size_t len = t->ival > 0 ? (size_t)t->ival : 0;
        if (memchr(t->name, '\0', len)) {
            /* it could not be named on a command line (--exact), nor kept
             * whole by the C strings of the test table and the reports */
            diag_report(c->d, DIAG_ERROR, name_at(t), "a test name cannot contain a NUL character (\\0)");
        } else if (!sema_ptrset_add(c, &seen->names, base_intern(c->names, t->name, len))) {
            diag_report(c->d, DIAG_ERROR, name_at(t), "a test named \"%s\" already exists in this package", t->name);
        }
    }
    check_seeds(c, t, info);
    check_cluster_args(c, t, info, seen);
    if (info->sim && info->nodes == 0 && info->roles.len == 0)
        default_layout(c, info, seen);
    if (t->b) {
        sema_scope *saved_scope = c->scope;
        c->scope = scope_new(c, c->scope);
        sema_check_body(c, t->b, c->t_none, NULL);
        c->scope = saved_scope;
    }
    if (c->pkg->is_root)
        base_vec_push(c->arena, &c->prog->tests, info);
}
