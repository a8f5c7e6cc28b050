/* items.c: packages and top-level items (imports are imports.c's). A
 * package is checked in four steps: declare every item of every file (so
 * order does not matter) and attach methods to their types, bind each
 * file's `use` imports, resolve signatures, then check bodies.
 * Signatures, constants and type declarations resolve lazily with a
 * busy mark, so a cycle is reported instead of recursing forever. */
#include "sema/sema_internal.h"

#include <string.h>

static const char *intern_str(sema_ctx *c, const char *s) { return base_intern(c->names, s, strlen(s)); }

static base_span name_at(const ast_node *n) { return n->name_span.len ? n->name_span : n->span; }

/* ---- saved checking state, for lazy resolution from anywhere ---- */
typedef struct saved {
    sema_scope *scope;
    sema_pkg *pkg;
    sema_fnctx *fn;
    sema_sym *service;
    bool in_state_init, in_default;
} saved;

static saved save_enter(sema_ctx *c, sema_sym *s) {
    saved v = {c->scope, c->pkg, c->fn, c->service, c->in_state_init, c->in_default};
    c->scope = s->scope;
    c->pkg = s->pkg;
    c->fn = NULL;
    c->service = NULL;
    c->in_state_init = false;
    c->in_default = false;
    return v;
}

static void restore(sema_ctx *c, saved v) {
    c->scope = v.scope;
    c->pkg = v.pkg;
    c->fn = v.fn;
    c->service = v.service;
    c->in_state_init = v.in_state_init;
    c->in_default = v.in_default;
}

/* ---- types written in the source ---- */

/* Resolves a dotted name ("net.Foo") through modules. */
sema_sym *sema_lookup_dotted(sema_ctx *c, const char *dotted, base_span at, bool *reported) {
    const char *p = dotted;
    sema_sym *s = NULL;
    while (*p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        const char *part = base_intern(c->names, p, n);
        if (!s) {
            s = scope_lookup(c->scope, part);
            if (!s)
                return NULL;
        } else {
            if (s->kind != SYM_MODULE) {
                diag_report(c->d, DIAG_ERROR, at, "'%s' is a %s, not a module", s->name, sym_kind_name(s));
                *reported = true;
                return NULL;
            }
            sema_sym *m = scope_find_local(s->members, part);
            if (!m) {
                diag_report(c->d, DIAG_ERROR, at, "module '%s' has no member '%s'", s->name, part);
                *reported = true;
                return NULL;
            }
            s = m;
        }
        s->used = true;
        p = dot ? dot + 1 : p + n;
    }
    return s;
}

sema_type *sema_resolve_type(sema_ctx *c, ast_node *t) {
    if (!t)
        return c->t_error;
    if (c->depth >= SEMA_MAX_NESTING) {
        diag_report(c->d, DIAG_ERROR, t->span, "type too deeply nested");
        return c->t_error;
    }
    c->depth++;
    sema_type *r = c->t_error;
    switch (t->kind) {
    case AST_TYPE_NAME: {
        bool reported = false;
        sema_sym *s = t->name ? sema_lookup_dotted(c, t->name, t->span, &reported) : NULL;
        if (!s) {
            if (!reported) {
                const char *dot = t->name ? strchr(t->name, '.') : NULL;
                const char *first = dot ? base_intern(c->names, t->name, (size_t)(dot - t->name)) : t->name;
                diag_report(c->d, DIAG_ERROR, t->span, "unknown type '%s'%s", t->name ? t->name : "?",
                            sema_import_hint(c, first));
            }
            break;
        }
        t->sym = s;
        if (s->kind != SYM_TYPE) {
            diag_report(c->d, DIAG_ERROR, t->span, "'%s' is a %s, not a type", t->name, sym_kind_name(s));
            break;
        }
        if (s->type == c->t_never && t != c->never_ok) {
            diag_report(c->d, DIAG_ERROR, t->span,
                        "Never is only a result type, of a function that never returns (fn fail() -> Never)");
            break;
        }
        uint32_t want = s->builtin == GEN_MAP ? 2 : (s->builtin == GEN_CHAN || s->builtin == GEN_TASK) ? 1 : 0;
        if (t->list.len != want) {
            if (want == 0)
                diag_report(c->d, DIAG_ERROR, t->span, "type '%s' takes no type arguments", t->name);
            else
                diag_report(c->d, DIAG_ERROR, t->span, "type '%s' takes %u type argument%s, found %u", t->name,
                            want, want == 1 ? "" : "s", t->list.len);
            break;
        }
        if (s->builtin == GEN_MAP) {
            sema_type *k = sema_resolve_type(c, t->list.items[0]);
            sema_type *v = sema_resolve_type(c, t->list.items[1]);
            if (!ty_is_error(k) && !ty_comparable(k)) {
                ast_node *kn = t->list.items[0];
                diag_report(c->d, DIAG_ERROR, kn->span,
                            "map key type %s is not comparable (use Int, Bool, String, Bytes, Duration or Instant)",
                            ty_str(c, k));
                break;
            }
            r = ty_map(c, k, v);
        } else if (s->builtin == GEN_CHAN) {
            r = ty_chan(c, sema_resolve_type(c, t->list.items[0]));
        } else if (s->builtin == GEN_TASK) {
            r = ty_task(c, sema_resolve_type(c, t->list.items[0]));
        } else if (s->type && s->type->kind == TY_STRUCT) {
            /* nominal: the type exists before its fields resolve, so a
             * struct may refer to itself (type Node { next: Node? }) */
            r = s->type;
        } else {
            if (!sema_resolve_sym(c, s))
                break;
            r = s->type ? s->type : c->t_error;
        }
        break;
    }
    case AST_TYPE_LIST:
        r = ty_list(c, sema_resolve_type(c, t->a));
        break;
    case AST_TYPE_OPTIONAL:
        r = ty_optional(c, sema_resolve_type(c, t->a));
        break;
    case AST_TYPE_UNION: {
        /* the limit counts distinct members: ty_union removes duplicates
         * (`Int | Int | ...` is Int) before it counts */
        sema_type **m = base_alloc(c->arena, sizeof *m * (t->list.len ? t->list.len : 1));
        for (uint32_t i = 0; i < t->list.len; i++)
            m[i] = sema_resolve_type(c, t->list.items[i]);
        r = ty_union(c, m, t->list.len, t->span);
        break;
    }
    case AST_TYPE_FN: {
        if (t->list.len > SEMA_MAX_PARAMS) {
            diag_report(c->d, DIAG_ERROR, t->span, "a function type has at most %d parameters", SEMA_MAX_PARAMS);
            break;
        }
        sema_type *p[SEMA_MAX_PARAMS];
        for (uint32_t i = 0; i < t->list.len; i++)
            p[i] = sema_resolve_type(c, t->list.items[i]);
        c->never_ok = t->a;
        sema_type *res = t->a ? sema_resolve_type(c, t->a) : c->t_none;
        r = ty_fn(c, p, t->list.len, res);
        break;
    }
    default:
        DIAG_INTERNAL(c->d, "sema_resolve_type: node kind %s is not a type", ast_kind_name((ast_kind)t->kind));
        break;
    }
    c->depth--;
    t->type = r;
    return r;
}

/* ---- lazy resolution of declarations ---- */

static bool default_ok(sema_ctx *c, ast_node *dflt) {
    /* A default is a constant; a list or map literal of constants (an
     * empty [] or {} too) is made afresh at each use, as Swift evaluates
     * defaults at the call. */
    if (sema_const_of(c, dflt))
        return true;
    if ((dflt->kind == AST_LIST_LIT || dflt->kind == AST_MAP_LIT) && dflt->list.len == 0)
        return true;
    return ty_is_error(dflt->type);
}

static void resolve_struct(sema_ctx *c, sema_sym *s) {
    ast_node *d = s->decl;
    sema_type *t = s->type;
    t->nfields = d->list.len;
    t->fields = base_alloc(c->arena, sizeof(sema_field) * (d->list.len ? d->list.len : 1));
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->list.len; i++) {
        ast_node *f = d->list.items[i];
        bool dup = false;
        for (uint32_t k = 0; k < n; k++)
            dup = dup || t->fields[k].name == f->name;
        if (dup) {
            diag_report(c->d, DIAG_ERROR, name_at(f), "field '%s' is declared twice in %s", f->name, s->name);
            continue;
        }
        t->fields[n].name = f->name;
        t->fields[n].decl = f;
        t->fields[n].type = c->t_error;
        n++;
    }
    t->nfields = n;
    /* types after all names exist, so a field may refer to its own struct */
    for (uint32_t i = 0; i < n; i++)
        t->fields[i].type = sema_resolve_type(c, t->fields[i].decl->a);
}

static void resolve_fn(sema_ctx *c, sema_sym *s) {
    ast_node *d = s->decl;
    sema_sig *sig = base_alloc(c->arena, sizeof *sig);
    sig->what = s->name;
    uint32_t np = d->list.len;
    if (np > SEMA_MAX_PARAMS) {
        diag_report(c->d, DIAG_ERROR, name_at(d), "a function has at most %d parameters", SEMA_MAX_PARAMS);
        np = SEMA_MAX_PARAMS;
    }
    sig->params = base_alloc(c->arena, sizeof(sema_param) * (np ? np : 1));
    sema_type *ptypes[SEMA_MAX_PARAMS];
    for (uint32_t i = 0; i < np; i++) {
        ast_node *p = d->list.items[i];
        for (uint32_t k = 0; k < i; k++)
            if (sig->params[k].name == p->name && p->name)
                diag_report(c->d, DIAG_ERROR, name_at(p), "parameter '%s' is declared twice", p->name);
        sig->params[i].name = p->name;
        sig->params[i].decl = p;
        bool method = (d->flags & AST_F_METHOD) != 0;
        if (method && i == 0 && (p->name != c->n_self || p->a)) {
            diag_report(c->d, DIAG_ERROR, name_at(p), "a method's first parameter is `self`, written alone: fn %s.%s(self, ...)",
                        d->name2, d->name);
            sig->params[i].type = c->t_error;
        } else if (method && i == 0) {
            sig->params[i].type = s->owner ? s->owner->type : c->t_error;
        } else if (!p->a && p->name == c->n_self) {
            diag_report(c->d, DIAG_ERROR, name_at(p),
                        "`self` is the first parameter of a method, declared as fn Type.%s(self, ...)", d->name);
            sig->params[i].type = c->t_error;
        } else if (!p->a) {
            diag_report(c->d, DIAG_ERROR, name_at(p), "parameter '%s' needs a type (%s: Type)", p->name, p->name);
            sig->params[i].type = c->t_error;
        } else {
            sig->params[i].type = sema_resolve_type(c, p->a);
        }
        ptypes[i] = sig->params[i].type;
        p->type = sig->params[i].type;
    }
    sig->nparams = np;
    if ((d->flags & AST_F_METHOD) && np == 0)
        diag_report(c->d, DIAG_ERROR, name_at(d), "a method's first parameter is `self`: fn %s.%s(self, ...)", d->name2,
                    d->name);
    c->never_ok = d->a;
    sig->result = d->a ? sema_resolve_type(c, d->a) : c->t_none;
    s->sig = sig;
    s->type = ty_fn(c, ptypes, np, sig->result);
    /* Defaults are checked after the signature exists, so a default that
     * names the function itself finds it (and is refused as not constant). */
    /* a parameter without a default may follow one with a default: it is
     * then given by label, as in Swift */
    for (uint32_t i = 0; i < np; i++) {
        ast_node *p = d->list.items[i];
        if (!p->b)
            continue;
        c->in_default = true;
        sema_check_value(c, p->b, sig->params[i].type, "default value");
        c->in_default = false;
        if (!default_ok(c, p->b))
            diag_report(c->d, DIAG_ERROR, p->b->span,
                        "a default value must be a constant expression (literals, constants and operators, or a list or map of them)");
        sig->params[i].dflt = p->b;
    }
    bool is_extern = (d->flags & AST_F_EXTERN) != 0;
    if (is_extern) {
        if (d->b)
            diag_report(c->d, DIAG_ERROR, name_at(d), "extern fn '%s' cannot have a body", s->name);
        for (uint32_t i = 0; i < np; i++) {
            ast_node *p = d->list.items[i];
            if (!ty_extern_ok(sig->params[i].type))
                diag_report(c->d, DIAG_ERROR, p->a ? p->a->span : p->span,
                            "type %s cannot cross the extern boundary (use Int, Bool, String, Bytes, Duration, "
                            "Instant or a list of them)",
                            ty_str(c, sig->params[i].type));
        }
        if (sig->result->kind != TY_NONE && !ty_extern_ok(sig->result))
            diag_report(c->d, DIAG_ERROR, d->a->span,
                        "type %s cannot cross the extern boundary (use Int, Bool, String, Bytes, Duration, "
                        "Instant or a list of them)",
                        ty_str(c, sig->result));
    } else if (!d->b) {
        diag_report(c->d, DIAG_ERROR, name_at(d), "fn '%s' has no body (only an extern fn has none)", s->name);
    }
    if (s->is_rpc) {
        for (uint32_t i = 0; i < np; i++) {
            ast_node *p = d->list.items[i];
            if (p->name == c->n_deadline || p->name == c->n_to)
                diag_report(c->d, DIAG_ERROR, name_at(p),
                            "an rpc parameter cannot be named '%s': callers use %s: for the call's %s", p->name,
                            p->name, p->name == c->n_to ? "target node" : "deadline");
            if (!ty_sendable(sig->params[i].type, 0))
                diag_report(c->d, DIAG_ERROR, p->a ? p->a->span : p->span,
                            "rpc parameter type %s cannot be sent between nodes", ty_str(c, sig->params[i].type));
        }
        if (sig->result->kind == TY_NEVER)
            diag_report(c->d, DIAG_ERROR, d->a->span, "an rpc cannot be declared `-> Never`: its caller waits for an answer");
        else if (!ty_sendable(sig->result, 0))
            diag_report(c->d, DIAG_ERROR, d->a->span, "rpc result type %s cannot be sent between nodes",
                        ty_str(c, sig->result));
    }
}

static void resolve_const(sema_ctx *c, sema_sym *s) {
    ast_node *d = s->decl;
    sema_type *want = d->a ? sema_resolve_type(c, d->a) : NULL;
    sema_type *t = want ? sema_check_value(c, d->b, want, "constant") : sema_check_expr(c, d->b, NULL);
    s->type = want ? want : t;
    if (ty_is_error(t))
        return;
    const sema_const *v = sema_const_of(c, d->b);
    if (!v) {
        diag_report(c->d, DIAG_ERROR, d->b->span, "const '%s' needs a constant expression", s->name);
        return;
    }
    sema_const *copy = base_alloc(c->arena, sizeof *copy);
    *copy = *v;
    s->cval = copy;
}

bool sema_resolve_sym(sema_ctx *c, sema_sym *s) {
    if (s->state == RS_DONE)
        return true;
    if (s->state == RS_BUSY) {
        switch (s->kind) {
        case SYM_TYPE:
            diag_report(c->d, DIAG_ERROR, s->span, "type alias '%s' refers to itself", s->name);
            break;
        case SYM_CONST:
            diag_report(c->d, DIAG_ERROR, s->span, "constant '%s' depends on itself", s->name);
            break;
        default:
            diag_report(c->d, DIAG_ERROR, s->span, "'%s' depends on itself", s->name);
            break;
        }
        if (s->kind != SYM_FN)
            s->type = c->t_error;
        return false;
    }
    s->state = RS_BUSY;
    saved v = save_enter(c, s);
    switch (s->kind) {
    case SYM_TYPE:
        if (s->type && s->type->kind == TY_STRUCT)
            resolve_struct(c, s);
        else if (s->decl)
            s->type = sema_resolve_type(c, s->decl->a);
        break;
    case SYM_FN:
        resolve_fn(c, s);
        break;
    case SYM_CONST:
        resolve_const(c, s);
        break;
    case SYM_STATE:
        s->type = sema_resolve_type(c, s->decl->a);
        break;
    default:
        break;
    }
    restore(c, v);
    s->state = RS_DONE;
    return true;
}

/* ---- declaring items ---- */

static bool is_universe_name(sema_ctx *c, const char *name) { return scope_find_local(c->universe, name) != NULL; }

static void declare(sema_ctx *c, sema_scope *into, sema_sym *s) {
    if (is_universe_name(c, s->name)) {
        diag_report(c->d, DIAG_ERROR, s->span, "'%s' is a built-in name and cannot be redeclared", s->name);
        return;
    }
    scope_declare(c, into, s);
}

static const char *mangle(sema_ctx *c, const char *prefix, const char *name) {
    size_t n = strlen(prefix) + strlen(name) + 2;
    char *buf = base_alloc(c->arena, n);
    snprintf(buf, n, "%s_%s", prefix, name);
    return buf;
}

static void declare_items(sema_ctx *c, base_vec *items, sema_scope *into, const char *prefix, bool in_mod);

static void declare_service(sema_ctx *c, ast_node *it, sema_sym *svc) {
    bool had_start = false;
    for (uint32_t i = 0; i < it->list.len; i++) {
        ast_node *m = it->list.items[i];
        if (m->kind == AST_STATE) {
            sema_sym *s = sym_new(c, SYM_STATE, m->name, m, name_at(m));
            s->scope = svc->scope;
            s->owner = svc;
            s->is_var = true;
            m->sym = s;
            declare(c, svc->members, s);
        } else if (m->kind == AST_FN && (m->flags & AST_F_METHOD)) {
            diag_report(c->d, DIAG_ERROR, name_at(m),
                        "a method is declared beside its type, outside a service (fn %s.%s(self, ...))", m->name2,
                        m->name);
        } else if (m->kind == AST_FN) {
            sema_sym *s = sym_new(c, SYM_FN, m->name, m, name_at(m));
            s->scope = svc->members;
            s->owner = svc;
            s->is_rpc = (m->flags & AST_F_RPC) != 0;
            m->sym = s;
            if (m->flags & AST_F_EXTERN) {
                diag_report(c->d, DIAG_ERROR, name_at(m), "an extern fn must be declared outside a service");
                continue;
            }
            declare(c, svc->members, s);
        } else if (m->kind == AST_ON_START) {
            if (had_start)
                diag_report(c->d, DIAG_ERROR, m->span, "service '%s' has more than one `on start`", svc->name);
            had_start = true;
        } else {
            diag_report(c->d, DIAG_ERROR, m->span, "a service holds only state, on start, rpc and fn declarations");
        }
    }
}

static void declare_item(sema_ctx *c, ast_node *it, sema_scope *into, const char *prefix, bool in_mod) {
    sema_sym *s = NULL;
    switch (it->kind) {
    case AST_USE:
        if (in_mod)
            diag_report(c->d, DIAG_ERROR, it->span, "`use` belongs at the top level of a file");
        return;
    case AST_FN:
        s = sym_new(c, SYM_FN, it->name, it, name_at(it));
        s->is_extern = (it->flags & AST_F_EXTERN) != 0;
        if (it->flags & AST_F_METHOD) { /* not a name of the scope: attached to its type after step 1 */
            s->scope = c->scope;
            it->sym = s;
            base_vec_push(c->arena, &c->methods, s);
            return;
        }
        if (it->flags & AST_F_RPC) {
            diag_report(c->d, DIAG_ERROR, name_at(it), "an rpc must be declared inside a service");
            return;
        }
        if (s->is_extern)
            s->cname = mangle(c, prefix, it->name);
        break;
    case AST_TYPE_DECL:
        s = sym_new(c, SYM_TYPE, it->name, it, name_at(it));
        if (!it->a)
            s->type = ty_struct(c, it->name, s);
        break;
    case AST_CONST:
        s = sym_new(c, SYM_CONST, it->name, it, name_at(it));
        break;
    case AST_MOD:
        s = sym_new(c, SYM_MODULE, it->name, it, name_at(it));
        s->members = scope_new(c, c->scope);
        s->members->owner = s;
        s->scope = s->members;
        s->state = RS_DONE;
        it->sym = s;
        declare(c, into, s);
        {
            sema_scope *saved_scope = c->scope;
            c->scope = s->members;
            declare_items(c, &it->list, s->members, mangle(c, prefix, it->name), true);
            c->scope = saved_scope;
        }
        return;
    case AST_SERVICE:
    case AST_CLUSTER:
    case AST_TEST:
        if (in_mod) {
            diag_report(c->d, DIAG_ERROR, it->span, "a %s must be declared at the top level of a package",
                        it->kind == AST_SERVICE ? "service" : it->kind == AST_CLUSTER ? "cluster" : "test");
            return;
        }
        if (it->kind == AST_TEST)
            return;
        s = sym_new(c, it->kind == AST_SERVICE ? SYM_SERVICE : SYM_CLUSTER, it->name, it, name_at(it));
        s->state = RS_DONE;
        if (it->kind == AST_SERVICE) {
            s->scope = c->scope;
            s->members = scope_new(c, c->scope);
            s->members->owner = s;
            declare_service(c, it, s);
        }
        break;
    case AST_VAR:
        diag_report(c->d, DIAG_ERROR, it->span, "no mutable globals: keep per-node state in a service's state");
        return;
    case AST_LET:
        diag_report(c->d, DIAG_ERROR, it->span, "a top-level `let` is not allowed: use `const` for a constant");
        return;
    default:
        diag_report(c->d, DIAG_ERROR, it->span, "a statement cannot appear at the top level");
        return;
    }
    if (!s->scope)
        s->scope = c->scope;
    it->sym = s;
    declare(c, into, s);
}

static void declare_items(sema_ctx *c, base_vec *items, sema_scope *into, const char *prefix, bool in_mod) {
    for (uint32_t i = 0; i < items->len; i++)
        declare_item(c, items->items[i], into, prefix, in_mod);
}

/* fn T.m(self, ...): m goes into T's methods. T is a struct declared in
 * the method's package, found from where the method is written (its mod,
 * its file, then the package). The file's imports are bound by then, so a
 * type imported from another package is named as such, not as unknown. */
static void attach_method(sema_ctx *c, sema_sym *m) {
    ast_node *d = m->decl;
    base_span at = d->c ? d->c->span : name_at(d);
    sema_sym *t = d->name2 ? scope_lookup(m->scope, d->name2) : NULL;
    if (!t) {
        diag_report(c->d, DIAG_ERROR, at, "unknown type '%s': a method is declared beside its struct type, in its package",
                    d->name2 ? d->name2 : "?");
        return;
    }
    if (t->kind == SYM_TYPE && t->decl && t->pkg && t->pkg != c->pkg) {
        diag_report(c->d, DIAG_ERROR, at,
                    "'%s' belongs to package %s: methods are declared beside their type, in its package (here, "
                    "write a function taking a %s)",
                    d->name2, t->pkg->path, d->name2);
        return;
    }
    if (t->kind != SYM_TYPE || !t->type || t->type->kind != TY_STRUCT || t->pkg != c->pkg || !t->decl) {
        diag_report(c->d, DIAG_ERROR, at, "methods belong to struct types declared in this package, and '%s' is %s",
                    d->name2,
                    t->kind != SYM_TYPE ? "not a type"
                    : !t->decl          ? "a built-in type"
                    : t->pkg != c->pkg  ? "another package's type"
                                        : "not a struct type");
        return;
    }
    if (d->c)
        d->c->sym = t;
    m->owner = t;
    if (!t->members)
        t->members = scope_new(c, NULL);
    sema_sym *prev = scope_find_local(t->members, d->name);
    if (prev) {
        diag_report(c->d, DIAG_ERROR, name_at(d), "method '%s' is declared twice for %s", d->name, t->name);
        diag_report(c->d, DIAG_NOTE, prev->span, "'%s' was declared here", d->name);
        return;
    }
    scope_add(c, t->members, m);
}

/* ---- bodies ---- */

static void check_fn_body(sema_ctx *c, sema_sym *s) {
    ast_node *d = s->decl;
    if (!d->b || !s->sig)
        return;
    sema_scope *saved_scope = c->scope;
    c->scope = scope_new(c, s->scope);
    for (uint32_t i = 0; i < s->sig->nparams; i++) {
        ast_node *p = d->list.items[i];
        if (!p->name || p->name == c->n_underscore)
            continue;
        sema_sym *ps = sym_new(c, SYM_PARAM, p->name, p, name_at(p));
        ps->type = s->sig->params[i].type;
        p->sym = ps;
        if (!scope_find_local(c->scope, p->name))
            scope_add(c, c->scope, ps);
    }
    sema_check_body(c, d->b, s->sig->result, s->owner && s->owner->kind == SYM_SERVICE ? s->owner : NULL);
    c->scope = saved_scope;
}

/* Checked from a struct literal too (lazily, in a constant's context: a
 * default is made afresh at each literal that leaves it out, which is
 * charged there). */
void sema_check_field_defaults(sema_ctx *c, sema_sym *s) {
    sema_type *t = s->type;
    if (!t || t->kind != TY_STRUCT || t->defaults_checked)
        return;
    t->defaults_checked = true;
    saved v = save_enter(c, s);
    for (uint32_t i = 0; i < t->nfields; i++) {
        ast_node *f = t->fields[i].decl;
        if (!f->b)
            continue;
        c->in_default = true;
        sema_check_value(c, f->b, t->fields[i].type, "default value");
        c->in_default = false;
        if (!default_ok(c, f->b))
            diag_report(c->d, DIAG_ERROR, f->b->span,
                        "a default value must be a constant expression (literals, constants and operators, or a list or map of them)");
    }
    restore(c, v);
}

static void check_service(sema_ctx *c, ast_node *it, sema_sym *svc) {
    for (uint32_t i = 0; i < it->list.len; i++) {
        ast_node *m = it->list.items[i];
        if (m->kind == AST_STATE && m->sym) {
            sema_sym *st = m->sym;
            sema_resolve_sym(c, st);
            m->type = st->type;
            if (m->b) {
                /* per-node initial values see package items, not the service */
                sema_scope *saved_scope = c->scope;
                c->scope = svc->scope;
                c->in_state_init = true;
                sema_check_value(c, m->b, st->type, "state initial value");
                c->in_state_init = false;
                c->scope = saved_scope;
            } else {
                diag_report(c->d, DIAG_ERROR, name_at(m), "state '%s' needs an initial value", m->name);
            }
        } else if (m->kind == AST_FN && m->sym) {
            sema_sym *f = m->sym;
            sema_resolve_sym(c, f);
            check_fn_body(c, f);
        } else if (m->kind == AST_ON_START && m->a) {
            sema_scope *saved_scope = c->scope;
            c->scope = scope_new(c, svc->members);
            sema_check_body(c, m->a, c->t_none, svc);
            c->scope = saved_scope;
        }
    }
}

static void check_items(sema_ctx *c, base_vec *items, sema_pkg_tests *tests_seen) {
    for (uint32_t i = 0; i < items->len; i++) {
        ast_node *it = items->items[i];
        sema_sym *s = it->sym;
        switch (it->kind) {
        case AST_FN:
            if (s) {
                sema_resolve_sym(c, s);
                if (s->owner && s->owner->kind == SYM_TYPE && ty_field(s->owner->type, s->name))
                    diag_report(c->d, DIAG_ERROR, name_at(it),
                                "%s has a field '%s': a method cannot have the same name as a field", s->owner->name,
                                s->name);
                check_fn_body(c, s);
            }
            break;
        case AST_CONST:
            if (s) {
                sema_resolve_sym(c, s);
                it->type = s->type;
            }
            break;
        case AST_TYPE_DECL:
            if (s) {
                sema_resolve_sym(c, s);
                sema_check_field_defaults(c, s);
                it->type = s->type;
            }
            break;
        case AST_MOD:
            if (s) {
                sema_scope *saved_scope = c->scope;
                c->scope = s->members;
                check_items(c, &it->list, tests_seen);
                c->scope = saved_scope;
            }
            break;
        case AST_SERVICE:
            if (s)
                check_service(c, it, s);
            break;
        case AST_CLUSTER:
            sema_check_cluster(c, it);
            break;
        case AST_TEST:
            sema_check_test(c, it, tests_seen);
            break;
        default:
            break;
        }
    }
}

static void resolve_types(sema_ctx *c, base_vec *items) {
    for (uint32_t i = 0; i < items->len; i++) {
        ast_node *it = items->items[i];
        if (it->kind == AST_TYPE_DECL && it->sym)
            sema_resolve_sym(c, it->sym);
        else if (it->kind == AST_MOD && it->sym)
            resolve_types(c, &it->list);
    }
}

void sema_check_pkg(sema_ctx *c, sema_pkg *p) {
    sema_pkg *outer_pkg = c->pkg;
    sema_scope *outer_scope = c->scope;
    p->state = RS_BUSY;
    c->pkg = p;
    p->scope = scope_new(c, c->universe);
    uint32_t methods_from = c->methods.len;
    /* 1: every item of every file, into the package scope */
    for (uint32_t i = 0; i < p->files.len; i++) {
        ast_node *f = p->files.items[i];
        sema_scope *fs = scope_new(c, p->scope);
        base_vec_push(c->arena, &p->file_scopes, fs);
        if (!f || f->kind != AST_FILE) {
            DIAG_INTERNAL(c->d, "package '%s': file %u is not an AST_FILE", p->path, i);
            continue;
        }
        c->scope = fs;
        char prefix[256];
        snprintf(prefix, sizeof prefix, "oxl_%s", p->path);
        for (char *q = prefix; *q; q++)
            if (*q == '.')
                *q = '_';
        declare_items(c, &f->list, p->scope, base_strndup(c->arena, prefix, strlen(prefix)), false);
    }
    /* 2: imports, per file (as in Go: a `use` binds names in its own file) */
    for (uint32_t i = 0; i < p->files.len; i++) {
        ast_node *f = p->files.items[i];
        if (!f || f->kind != AST_FILE)
            continue;
        c->scope = p->file_scopes.items[i];
        for (uint32_t k = 0; k < f->list.len; k++) {
            ast_node *it = f->list.items[k];
            if (it->kind == AST_USE)
                sema_bind_use(c, it, c->scope);
        }
    }
    /* 2b: methods, onto their types (an imported package is checked
     * whole while its `use` is bound, so none of its bodies waits for these) */
    for (uint32_t i = methods_from; i < c->methods.len; i++)
        attach_method(c, c->methods.items[i]);
    c->methods.len = methods_from;
    /* 3: type declarations first, so every struct has its fields before
     * any body looks at them; other signatures resolve on demand */
    for (uint32_t i = 0; i < p->files.len; i++) {
        ast_node *f = p->files.items[i];
        if (!f || f->kind != AST_FILE)
            continue;
        c->scope = p->file_scopes.items[i];
        resolve_types(c, &f->list);
    }
    /* 4: bodies */
    sema_pkg_tests tests_seen = {0};
    for (uint32_t i = 0; i < p->files.len; i++) {
        ast_node *f = p->files.items[i];
        if (!f || f->kind != AST_FILE)
            continue;
        c->scope = p->file_scopes.items[i];
        check_items(c, &f->list, &tests_seen);
    }
    sema_warn_unused_imports(c, p);
    p->state = RS_DONE;
    c->pkg = outer_pkg;
    c->scope = outer_scope;
}

/* ---- the universe: names in scope everywhere ---- */

static void universe_type(sema_ctx *c, const char *name, sema_type *t, int generic) {
    sema_sym *s = sym_new(c, SYM_TYPE, intern_str(c, name), NULL, (base_span){0, 0, 0});
    s->type = t;
    s->builtin = generic;
    s->state = RS_DONE;
    base_vec_push(c->arena, &c->universe->syms, s);
}

static void universe_init(sema_ctx *c) {
    c->universe = scope_new(c, NULL);
    universe_type(c, "Int", c->t_int, GEN_NONE);
    universe_type(c, "Bool", c->t_bool, GEN_NONE);
    universe_type(c, "String", c->t_string, GEN_NONE);
    universe_type(c, "Bytes", c->t_bytes, GEN_NONE);
    universe_type(c, "Duration", c->t_duration, GEN_NONE);
    universe_type(c, "Instant", c->t_instant, GEN_NONE);
    universe_type(c, "None", c->t_none, GEN_NONE);
    universe_type(c, "Never", c->t_never, GEN_NONE); /* the result of a function that never returns */
    universe_type(c, "Map", NULL, GEN_MAP);
    universe_type(c, "Chan", NULL, GEN_CHAN);
    universe_type(c, "Task", NULL, GEN_TASK);
    /* RpcError: what a remote call gives when the request or answer is lost */
    sema_sym *rpc = sym_new(c, SYM_TYPE, intern_str(c, "RpcError"), NULL, (base_span){0, 0, 0});
    rpc->state = RS_DONE;
    sema_type *rt = ty_struct(c, rpc->name, rpc);
    rt->nfields = 2;
    rt->fields = base_alloc(c->arena, sizeof(sema_field) * 2);
    rt->fields[0].name = intern_str(c, "kind");
    rt->fields[0].type = c->t_string;
    rt->fields[1].name = intern_str(c, "message");
    rt->fields[1].type = c->t_string;
    rpc->type = rt;
    c->t_rpc_error = rt;
    base_vec_push(c->arena, &c->universe->syms, rpc);
    sema_sym *pr = sym_new(c, SYM_BUILTIN, intern_str(c, "print"), NULL, (base_span){0, 0, 0});
    pr->builtin = BI_PRINT;
    pr->state = RS_DONE;
    base_vec_push(c->arena, &c->universe->syms, pr);
    sema_sym *pa = sym_new(c, SYM_BUILTIN, intern_str(c, "panic"), NULL, (base_span){0, 0, 0});
    pa->builtin = BI_PANIC;
    pa->state = RS_DONE;
    base_vec_push(c->arena, &c->universe->syms, pa);
}

sema_program *sema_check_package(base_arena *arena, base_names *names, diag_sink *diags, const base_vec *files,
                                 const sema_loader *loader, const sema_options *opt) {
    if (!arena || !names || !diags || !files)
        return NULL;
    sema_ctx *c = base_alloc(arena, sizeof *c);
    c->arena = arena;
    c->names = names;
    c->d = diags;
    c->loader = loader;
    c->opt = opt ? *opt : (sema_options){.warn_unused = true, .warn_unreachable = true};
    c->prog = base_alloc(arena, sizeof *c->prog);
    c->n_underscore = intern_str(c, "_");
    c->n_deadline = intern_str(c, "deadline");
    c->n_to = intern_str(c, "to");
    c->n_nodes = intern_str(c, "nodes");
    c->n_roles = intern_str(c, "roles");
    c->n_now = intern_str(c, "now");
    c->n_cap = intern_str(c, "cap");
    c->n_main = intern_str(c, "main");
    c->n_self = intern_str(c, "self");
    sema_types_init(c);
    universe_init(c);

    sema_pkg *root = base_alloc(arena, sizeof *root);
    root->is_root = true;
    root->path = c->n_main;
    ast_node *named = NULL;
    for (uint32_t i = 0; i < files->len; i++) {
        ast_node *f = files->items[i];
        base_vec_push(arena, &root->files, f);
        if (!f || !f->name)
            continue;
        if (!named) {
            named = f;
            root->path = intern_str(c, f->name);
        } else if (strcmp(named->name, f->name) != 0) {
            diag_report(diags, DIAG_ERROR, name_at(f), "this file says `package %s`, but another file says `package %s`",
                        f->name, named->name);
        }
    }
    c->prog->root = root;
    base_vec_push(arena, &c->prog->packages, root);
    sema_check_pkg(c, root);
    return c->prog;
}

/* Resolves an identifier or a dotted access through modules to the symbol
 * it names, or NULL when the expression is a value (then the caller
 * checks it as one). *failed is set when an error was reported. */
sema_sym *sema_resolve_path(sema_ctx *c, ast_node *e, bool *failed) {
    if (e->kind == AST_IDENT) {
        return e->name ? scope_lookup(c->scope, e->name) : NULL;
    }
    if (e->kind != AST_FIELD_ACCESS || !e->a)
        return NULL;
    if (e->a->kind != AST_IDENT && e->a->kind != AST_FIELD_ACCESS)
        return NULL;
    sema_sym *base = sema_resolve_path(c, e->a, failed);
    if (!base || *failed)
        return NULL;
    if (base->kind != SYM_MODULE)
        return NULL;
    base->used = true;
    e->a->sym = base;
    sema_sym *m = scope_find_local(base->members, e->name);
    if (!m) {
        diag_report(c->d, DIAG_ERROR, name_at(e), "module '%s' has no member '%s'", base->name, e->name);
        *failed = true;
        return NULL;
    }
    return m;
}
