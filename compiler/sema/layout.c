/* layout.c: clusters, tests, and the simulated nodes of each sim test
 * (docs/language.md §11, §12). Test names, role names and the package's
 * first cluster are looked up through indexes built once per package.
 *
 * A sim test's layout is a list of nodes, each with the roles it serves;
 * the body runs on the first:
 *   with cluster(nodes: N, roles: ["a", ...])  n0..n{N-1}, each serving every listed role
 *   with cluster(roles: {"a": 2, "b": 1})      a-0, a-1, b-0: each serves its own role
 *   a package with a cluster, no clause         <role>-0 per role of its first cluster, and
 *                                               <role>-1 after it when the role's service
 *                                               has an `on start` (background work)
 *   otherwise                                   n0, serving nothing */
#include "sema/sema_internal.h"

#include <stdio.h>
#include <string.h>

#define LAYOUT_MAX_NODES 1024

static base_span name_at(const ast_node *n) { return n->name_span.len ? n->name_span : n->span; }

/* ---- pointer maps (sema_internal.h) ---- */

static uint32_t ptr_slot(const void *p, uint32_t mask) {
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15u;
    return (uint32_t)(h >> 32) & mask;
}

bool sema_ptrmap_add(sema_ctx *c, sema_ptrmap *m, const void *key, void *val) {
    if ((m->len + 1) * 2 > m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 64;
        const void **keys = base_alloc(c->arena, sizeof *keys * cap);
        void **vals = base_alloc(c->arena, sizeof *vals * cap);
        for (uint32_t i = 0; i < m->cap; i++) {
            if (!m->keys[i]) continue;
            uint32_t j = ptr_slot(m->keys[i], cap - 1);
            while (keys[j]) j = (j + 1) & (cap - 1);
            keys[j] = m->keys[i];
            vals[j] = m->vals[i];
        }
        m->keys = keys;
        m->vals = vals;
        m->cap = cap;
    }
    uint32_t j = ptr_slot(key, m->cap - 1);
    for (; m->keys[j]; j = (j + 1) & (m->cap - 1))
        if (m->keys[j] == key) return false;
    m->keys[j] = key;
    m->vals[j] = val;
    m->len++;
    return true;
}

void *sema_ptrmap_get(const sema_ptrmap *m, const void *key) {
    if (!m->cap) return NULL;
    for (uint32_t j = ptr_slot(key, m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1))
        if (m->keys[j] == key) return m->vals[j];
    return NULL;
}

void sema_check_cluster(sema_ctx *c, ast_node *it) {
    sema_ptrmap declared = {0}; /* role names are interned */
    for (uint32_t i = 0; i < it->list.len; i++) {
        ast_node *r = it->list.items[i];
        if (r->kind != AST_ROLE) {
            diag_report(c->d, DIAG_ERROR, r->span, "a cluster holds only `role name: Service` lines");
            continue;
        }
        if (r->name && !sema_ptrmap_add(c, &declared, r->name, r))
            diag_report(c->d, DIAG_ERROR, name_at(r), "role '%s' is declared twice in cluster '%s'", r->name,
                        it->name);
        /* "<role>-<n>" names a simulated node: at most OXL_SIM_NAME_MAX (63) bytes */
        if (r->name && strlen(r->name) > 56)
            diag_report(c->d, DIAG_ERROR, name_at(r),
                        "role name '%.20s...' is too long: a node is named <role>-<n>, at most 63 bytes", r->name);
        ast_node *tn = r->a;
        if (!tn || !tn->name) {
            DIAG_INTERNAL(c->d, "role without a service name");
            continue;
        }
        bool reported = false;
        sema_sym *s = sema_lookup_dotted(c, tn->name, tn->span, &reported);
        if (!s) {
            if (!reported)
                diag_report(c->d, DIAG_ERROR, tn->span, "unknown service '%s'", tn->name);
            continue;
        }
        if (s->kind != SYM_SERVICE) {
            diag_report(c->d, DIAG_ERROR, tn->span, "role '%s' needs a service, but '%s' is a %s", r->name,
                        tn->name, sym_kind_name(s));
            continue;
        }
        r->sym = s;
        tn->sym = s;
    }
}

/* The package's clusters, once: the first one (files in name order) and
 * each role name's first role. */
static void scan_clusters(sema_ctx *c, sema_pkg_tests *seen) {
    if (seen->scanned)
        return;
    seen->scanned = true;
    for (uint32_t i = 0; i < c->pkg->files.len; i++) {
        ast_node *f = c->pkg->files.items[i];
        for (uint32_t k = 0; k < f->list.len; k++) {
            ast_node *it = f->list.items[k];
            if (it->kind != AST_CLUSTER)
                continue;
            if (!seen->first_cluster)
                seen->first_cluster = it;
            for (uint32_t r = 0; r < it->list.len; r++) {
                ast_node *ro = it->list.items[r];
                if (ro->kind == AST_ROLE && ro->name)
                    sema_ptrmap_add(c, &seen->roles, ro->name, ro); /* interned; the first stays */
            }
        }
    }
}

/* The role of that name in the package's clusters (the first in file
 * order), or NULL. */
static ast_node *find_role(sema_ctx *c, sema_pkg_tests *seen, const char *role, size_t len) {
    scan_clusters(c, seen);
    return sema_ptrmap_get(&seen->roles, base_intern(c->names, role, len));
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

/* ---- building the layout ---- */

static sema_node *add_node(sema_ctx *c, sema_test *info, const char *name) {
    sema_node *n = base_alloc(c->arena, sizeof *n);
    memset(n, 0, sizeof *n);
    n->name = base_intern(c->names, name, strlen(name));
    base_vec_push(c->arena, &info->layout, n);
    return n;
}

/* `name-i`, for i in 0..count. */
static void add_role_nodes(sema_ctx *c, sema_test *info, ast_node *role, int64_t count) {
    for (int64_t i = 0; i < count; i++) {
        char name[96];
        snprintf(name, sizeof name, "%s-%lld", role->name, (long long)i);
        base_vec_push(c->arena, &add_node(c, info, name)->roles, role);
    }
}

static bool service_has_start(const ast_node *role) {
    const sema_sym *svc = role->sym;
    const ast_node *d = svc ? svc->decl : NULL;
    for (uint32_t i = 0; d && i < d->list.len; i++)
        if (((const ast_node *)d->list.items[i])->kind == AST_ON_START)
            return true;
    return false;
}

/* A role named by a string literal of roles:, or NULL (reported); listed
 * holds the roles listed before it. */
static ast_node *role_literal(sema_ctx *c, ast_node *e, sema_pkg_tests *seen, sema_ptrmap *listed) {
    if (e->kind != AST_STRING) {
        diag_report(c->d, DIAG_ERROR, e->span, "roles: needs string literals naming roles");
        return NULL;
    }
    e->type = c->t_string;
    size_t len = (size_t)e->ival;
    ast_node *role = e->name ? find_role(c, seen, e->name, len) : NULL;
    if (!role) {
        diag_report(c->d, DIAG_ERROR, e->span, "no cluster of this package has a role \"%.*s\"", (int)len,
                    e->name ? e->name : "");
        return NULL;
    }
    if (!sema_ptrmap_add(c, listed, role, role)) {
        diag_report(c->d, DIAG_ERROR, e->span, "role \"%.*s\" is listed twice", (int)len, e->name);
        return NULL;
    }
    return role;
}

/* roles: {"broker": 1, "worker": 3}: counted nodes of each role. */
static void counted_roles(sema_ctx *c, ast_node *v, sema_test *info, sema_pkg_tests *seen) {
    v->type = ty_map(c, c->t_string, c->t_int);
    sema_ptrmap listed = {0};
    int64_t total = 0;
    for (uint32_t k = 0; k < v->list.len; k++) {
        ast_node *entry = v->list.items[k], *key = entry->a, *count = entry->b;
        if (!key || !count)
            continue;
        ast_node *role = role_literal(c, key, seen, &listed);
        if (!role)
            continue;
        if (count->kind != AST_INT || count->ival <= 0) {
            diag_report(c->d, DIAG_ERROR, count->span, "the node count of a role must be a positive integer literal");
            continue;
        }
        count->type = c->t_int;
        total += count->ival;
        if (total > LAYOUT_MAX_NODES) {
            diag_report(c->d, DIAG_ERROR, count->span, "a simulated cluster has at most %d nodes", LAYOUT_MAX_NODES);
            return;
        }
        add_role_nodes(c, info, role, count->ival);
    }
}

static void check_cluster_args(sema_ctx *c, ast_node *t, sema_test *info, sema_pkg_tests *seen) {
    base_span where = t->list.len ? ((ast_node *)t->list.items[0])->span : name_at(t);
    if (t->op != AST_TEST_SIM) {
        diag_report(c->d, DIAG_ERROR, where, "only a `test sim` can run `with cluster(...)`");
        return;
    }
    ast_node *nodes = NULL, *roles = NULL;
    for (uint32_t i = 0; i < t->list.len; i++) {
        ast_node *arg = t->list.items[i];
        if (!arg->name) {
            diag_report(c->d, DIAG_ERROR, arg->span, "cluster arguments are labelled: nodes: and roles:");
            continue;
        }
        base_span lat = name_at(arg);
        if (arg->name != c->n_nodes && arg->name != c->n_roles) {
            diag_report(c->d, DIAG_ERROR, lat, "unknown cluster argument '%s' (expected nodes: or roles:)",
                        arg->name);
            continue;
        }
        ast_node **slot = arg->name == c->n_nodes ? &nodes : &roles;
        if (*slot) {
            diag_report(c->d, DIAG_ERROR, lat, "cluster argument '%s' is given twice", arg->name);
            continue;
        }
        *slot = arg->a ? arg->a : arg;
    }
    if (roles && roles->kind == AST_MAP_LIT) {
        if (nodes)
            diag_report(c->d, DIAG_ERROR, nodes->span,
                        "roles: {...} counts the nodes of each role: leave nodes: out");
        else
            counted_roles(c, roles, info, seen);
        return;
    }
    if (!nodes) {
        diag_report(c->d, DIAG_ERROR, where,
                    "with cluster(...) needs nodes: N, or roles: {\"role\": count, ...} to count nodes per role");
        return;
    }
    if (nodes->kind != AST_INT || nodes->ival <= 0) {
        diag_report(c->d, DIAG_ERROR, nodes->span, "nodes: needs a positive integer literal");
        return;
    }
    if (nodes->ival > LAYOUT_MAX_NODES) {
        diag_report(c->d, DIAG_ERROR, nodes->span, "a simulated cluster has at most %d nodes", LAYOUT_MAX_NODES);
        return;
    }
    nodes->type = c->t_int;
    base_vec listed = {0};
    sema_ptrmap listed_set = {0};
    if (roles) {
        if (roles->kind != AST_LIST_LIT) {
            diag_report(c->d, DIAG_ERROR, roles->span,
                        "roles: needs a list of string literals naming roles, or a map of role names to counts");
            return;
        }
        roles->type = ty_list(c, c->t_string);
        for (uint32_t k = 0; k < roles->list.len; k++) {
            ast_node *role = role_literal(c, roles->list.items[k], seen, &listed_set);
            if (role)
                base_vec_push(c->arena, &listed, role);
        }
    }
    for (int64_t i = 0; i < nodes->ival; i++) {
        char name[32];
        snprintf(name, sizeof name, "n%lld", (long long)i);
        sema_node *n = add_node(c, info, name);
        for (uint32_t k = 0; k < listed.len; k++)
            base_vec_push(c->arena, &n->roles, listed.items[k]);
    }
}

/* Without `with cluster(...)`: the first cluster's roles (files in name
 * order), a second node for the roles that run background work. */
static void default_layout(sema_ctx *c, sema_test *info, sema_pkg_tests *seen) {
    scan_clusters(c, seen);
    ast_node *it = seen->first_cluster;
    if (!it) {
        add_node(c, info, "n0");
        return;
    }
    for (uint32_t r = 0; r < it->list.len; r++) {
        ast_node *ro = it->list.items[r];
        if (ro->kind == AST_ROLE && ro->name) add_role_nodes(c, info, ro, service_has_start(ro) ? 2 : 1);
    }
}

void sema_check_test(sema_ctx *c, ast_node *t, sema_pkg_tests *seen) {
    sema_test *info = base_alloc(c->arena, sizeof *info);
    memset(info, 0, sizeof *info);
    info->decl = t;
    info->sim = t->op == AST_TEST_SIM;
    t->sym = NULL;
    if (t->name) {
        size_t len = t->ival > 0 ? (size_t)t->ival : 0;
        if (memchr(t->name, '\0', len)) {
            /* it could not be named on a command line (--exact), nor kept
             * whole by the C strings of the test table and the reports */
            diag_report(c->d, DIAG_ERROR, name_at(t), "a test name cannot contain a NUL character (\\0)");
        } else if (!sema_ptrmap_add(c, &seen->names, base_intern(c->names, t->name, len), t)) {
            diag_report(c->d, DIAG_ERROR, name_at(t), "a test named \"%s\" already exists in this package", t->name);
        }
    }
    check_seeds(c, t, info);
    if (t->flags & AST_F_CLUSTER)
        check_cluster_args(c, t, info, seen);
    else if (info->sim)
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
