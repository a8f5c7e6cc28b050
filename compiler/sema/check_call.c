/* check_call.c: calls: their arguments (positional, labelled, defaults,
 * a range filling two), named functions and built-ins, function values,
 * rpcs, the generic constructors Chan[T](n) and Map[K, V](), and methods,
 * built-in and declared (fn T.m(self, ...)). */
#include "sema/sema_internal.h"

#include <stdlib.h>
#include <string.h>

static base_span name_at(const ast_node *n) { return n->name_span.len ? n->name_span : n->span; }

/* Checks the arguments of a call that already failed, so errors inside
 * them are still found. */
void sema_check_args_loose(sema_ctx *c, ast_node *call) {
    for (uint32_t i = 0; i < call->list.len; i++) {
        ast_node *a = call->list.items[i];
        if (a->a)
            sema_check_expr(c, a->a, NULL);
        a->type = a->a ? a->a->type : c->t_error;
    }
}

/* A range written as a positional argument, `f(10ms..300ms)`, stands for
 * two positional arguments, its inclusive bounds, when the parameter it
 * lands on and the next one are both Int or both Duration (std.test's
 * net.latency(min, max)). The call is rewritten in place, so code
 * generation sees two plain arguments; `a..b` passes b minus one unit (1 or
 * 1ns). Anywhere else a range stays an error. */
static void spread_range_arg(sema_ctx *c, ast_node *call, uint32_t i, const sema_sig *sig, uint32_t pos) {
    if (pos + 1 >= sig->nparams)
        return;
    sema_type *t = sig->params[pos].type;
    if (t != sig->params[pos + 1].type || (t != c->t_int && t != c->t_duration))
        return;
    ast_node *arg = call->list.items[i];
    ast_node *range = arg->a;
    ast_node *hi = range->b;
    if (!(range->flags & AST_F_INCLUSIVE)) {
        ast_node *one = ast_new(c->arena, t == c->t_int ? AST_INT : AST_DURATION, hi->span);
        one->ival = 1;
        ast_node *minus = ast_new(c->arena, AST_BINARY, hi->span);
        minus->op = AST_OP_SUB;
        minus->a = hi;
        minus->b = one;
        hi = minus;
    }
    ast_node *second = ast_new(c->arena, AST_ARG, hi->span);
    second->a = hi;
    arg->a = range->a;
    base_vec_push(c->arena, &call->list, NULL);
    for (uint32_t k = call->list.len - 1; k > i + 1; k--)
        call->list.items[k] = call->list.items[k - 1];
    call->list.items[i + 1] = second;
}

/* Positional arguments first, then labelled ones in any order; a label
 * names any parameter. `deadline:` and `to:` are the extra labels of
 * remote calls. */
sema_type *sema_check_call_args(sema_ctx *c, ast_node *call, const sema_sig *sig, bool allow_deadline,
                                uint32_t first_arg) {
    uint32_t n = sig->nparams;
    ast_node **given = base_alloc(c->arena, sizeof(ast_node *) * (n ? n : 1));
    bool seen_named = false, seen_deadline = false, seen_to = false;
    uint32_t pos = 0;
    char what[160];
    for (uint32_t i = first_arg; i < call->list.len; i++) {
        ast_node *a = call->list.items[i];
        if (!a->a) {
            DIAG_INTERNAL(c->d, "argument without a value");
            continue;
        }
        if (!a->name) {
            if (seen_named) {
                diag_report(c->d, DIAG_ERROR, a->span, "a positional argument cannot follow a labelled one");
                sema_check_expr(c, a->a, NULL);
                a->type = c->t_error;
                continue;
            }
            if (pos >= n) {
                diag_report(c->d, DIAG_ERROR, a->span, "too many arguments to %s: it takes %u", sig->what, n);
                sema_check_expr(c, a->a, NULL);
                a->type = c->t_error;
                pos++;
                continue;
            }
            if (a->a->kind == AST_RANGE)
                spread_range_arg(c, call, i, sig, pos);
            given[pos] = a;
            snprintf(what, sizeof what, "argument '%s' of %s", sig->params[pos].name ? sig->params[pos].name : "_",
                     sig->what);
            a->type = sema_check_value(c, a->a, sig->params[pos].type, what);
            pos++;
            continue;
        }
        seen_named = true;
        uint32_t k = 0;
        while (k < n && sig->params[k].name != a->name)
            k++;
        if (k == n) {
            if (allow_deadline && a->name == c->n_deadline) {
                if (seen_deadline)
                    diag_report(c->d, DIAG_ERROR, name_at(a), "argument 'deadline' is given more than once");
                seen_deadline = true;
                a->type = sema_check_value(c, a->a, c->t_duration, "deadline");
                continue;
            }
            if (allow_deadline && a->name == c->n_to) {
                if (seen_to)
                    diag_report(c->d, DIAG_ERROR, name_at(a), "argument 'to' is given more than once");
                seen_to = true;
                a->type = sema_check_value(c, a->a, c->t_string, "to");
                continue;
            }
            if (a->name == c->n_deadline || a->name == c->n_to)
                diag_report(c->d, DIAG_ERROR, name_at(a),
                            "%s: applies only to a remote rpc call (Service.rpc(...) from outside the service)",
                            a->name);
            else
                diag_report(c->d, DIAG_ERROR, name_at(a), "unknown argument label '%s': %s has no parameter '%s'",
                            a->name, sig->what, a->name);
            sema_check_expr(c, a->a, NULL);
            a->type = c->t_error;
            continue;
        }
        if (given[k]) {
            diag_report(c->d, DIAG_ERROR, name_at(a), "argument '%s' is given more than once", a->name);
            sema_check_expr(c, a->a, NULL);
            a->type = c->t_error;
            continue;
        }
        given[k] = a;
        snprintf(what, sizeof what, "argument '%s' of %s", a->name, sig->what);
        a->type = sema_check_value(c, a->a, sig->params[k].type, what);
    }
    for (uint32_t k = 0; k < n; k++) {
        if (!given[k] && !sig->params[k].dflt)
            diag_report(c->d, DIAG_ERROR, sema_end_span(call->span), "missing argument '%s' in call to %s",
                        sig->params[k].name ? sig->params[k].name : "_", sig->what);
        /* a default is generated at each call that leaves it out */
        if (!given[k] && sig->params[k].dflt && !sema_charge_default(c, call, sig->params[k].dflt))
            return c->t_error;
    }
    return sig->result;
}

/* A call of a function value: positional arguments only. */
static sema_type *call_fn_value(sema_ctx *c, ast_node *call, sema_type *ft) {
    uint32_t n = ft->nitems;
    uint32_t i = 0;
    for (; i < call->list.len; i++) {
        ast_node *a = call->list.items[i];
        if (a->name) {
            diag_report(c->d, DIAG_ERROR, name_at(a), "a function value takes positional arguments only");
            sema_check_expr(c, a->a, NULL);
            continue;
        }
        if (i >= n) {
            diag_report(c->d, DIAG_ERROR, a->span, "too many arguments: the function takes %u", n);
            sema_check_expr(c, a->a, NULL);
            continue;
        }
        a->type = sema_check_value(c, a->a, ft->items[i], "argument");
    }
    if (call->list.len < n)
        diag_report(c->d, DIAG_ERROR, sema_end_span(call->span), "not enough arguments: the function takes %u, found %u",
                    n, call->list.len);
    return ft->elem;
}


/* ---- calls ---- */

static sema_type *check_builtin_call(sema_ctx *c, ast_node *e, sema_sym *s) {
    ast_node *callee = e->a;
    callee->sym = s;
    if (e->list.len != 1 || ((ast_node *)e->list.items[0])->name) {
        diag_report(c->d, DIAG_ERROR, e->span, "%s takes one positional argument", s->name);
        sema_check_args_loose(c, e);
        return s->builtin == BI_PANIC ? c->t_never : c->t_none;
    }
    ast_node *a = e->list.items[0];
    if (s->builtin == BI_PRINT) {
        /* print takes any value and prints it as interpolation would */
        a->type = sema_check_expr(c, a->a, NULL);
        return c->t_none;
    }
    a->type = sema_check_value(c, a->a, c->t_string, "panic");
    return c->t_never;
}

static sema_type *call_sym(sema_ctx *c, ast_node *e, sema_sym *s) {
    ast_node *callee = e->a;
    callee->sym = s;
    s->used = true;
    switch (s->kind) {
    case SYM_BUILTIN:
        return check_builtin_call(c, e, s);
    case SYM_FN:
        sema_resolve_sym(c, s);
        callee->type = s->type;
        if (!s->sig) {
            sema_check_args_loose(c, e);
            return c->t_error;
        }
        return sema_check_call_args(c, e, s->sig, false, 0);
    case SYM_TYPE:
        if (s->builtin == GEN_CHAN || s->builtin == GEN_MAP)
            diag_report(c->d, DIAG_ERROR, callee->span, "%s needs its type arguments: %s", s->name,
                        s->builtin == GEN_CHAN ? "Chan[T](capacity)" : "Map[K, V]()");
        else if (s->type && s->type->kind == TY_STRUCT)
            diag_report(c->d, DIAG_ERROR, callee->span, "'%s' is a struct: build it with %s { field: value }",
                        s->name, s->name);
        else
            diag_report(c->d, DIAG_ERROR, callee->span, "type '%s' cannot be called", s->name);
        sema_check_args_loose(c, e);
        return c->t_error;
    default: {
        sema_type *t = sema_value_of_sym(c, callee, s);
        callee->type = t;
        if (ty_is_error(t)) {
            sema_check_args_loose(c, e);
            return c->t_error;
        }
        if (t->kind != TY_FN) {
            diag_report(c->d, DIAG_ERROR, callee->span, "'%s' has type %s and cannot be called", s->name,
                        ty_str(c, t));
            sema_check_args_loose(c, e);
            return c->t_error;
        }
        return call_fn_value(c, e, t);
    }
    }
}

static sema_type *call_rpc(sema_ctx *c, ast_node *e, sema_sym *svc) {
    ast_node *callee = e->a;
    callee->a->sym = svc;
    svc->used = true;
    sema_sym *m = scope_find_local(svc->members, callee->name);
    bool inside = c->fn && c->fn->service == svc;
    if (!m || m->kind != SYM_FN || (!m->is_rpc && !inside)) {
        if (m && m->kind == SYM_FN)
            diag_report(c->d, DIAG_ERROR, name_at(callee),
                        "'%s' is a helper of service '%s', not an rpc: only rpcs can be called from outside",
                        callee->name, svc->name);
        else
            diag_report(c->d, DIAG_ERROR, name_at(callee), "service '%s' has no rpc '%s'", svc->name, callee->name);
        sema_check_args_loose(c, e);
        return c->t_error;
    }
    callee->sym = m;
    sema_resolve_sym(c, m);
    if (!m->sig) {
        sema_check_args_loose(c, e);
        return c->t_error;
    }
    callee->type = m->type;
    sema_type *r = sema_check_call_args(c, e, m->sig, !inside, 0);
    if (inside)
        return r; /* a call within the service is a plain local call */
    e->flags |= AST_F_REMOTE;
    return ty_union2(c, r, c->t_rpc_error);
}

/* `Chan[T](cap)` and `Map[K, V]()`: the callee is a generic type applied to
 * type arguments, written as an index expression or a type name. */
static bool type_args_of(sema_ctx *c, ast_node *callee, sema_sym **gen, base_vec *args, base_span *at) {
    if (callee->kind == AST_TYPE_NAME) {
        sema_sym *s = callee->name ? scope_lookup(c->scope, callee->name) : NULL;
        if (!s || s->kind != SYM_TYPE || (s->builtin != GEN_CHAN && s->builtin != GEN_MAP) || !callee->list.len)
            return false;
        *gen = s;
        *args = callee->list;
        *at = callee->span;
        return true;
    }
    if (callee->kind == AST_INDEX && callee->a && callee->a->kind == AST_IDENT) {
        sema_sym *s = scope_lookup(c->scope, callee->a->name);
        if (!s || s->kind != SYM_TYPE || (s->builtin != GEN_CHAN && s->builtin != GEN_MAP))
            return false;
        *gen = s;
        *args = callee->list;
        *at = callee->span;
        return true;
    }
    return false;
}

/* An expression written where a type is meant (inside Chan[...]) read as
 * the type it spells. */
static sema_type *expr_as_type(sema_ctx *c, ast_node *x) {
    switch (x->kind) {
    case AST_TYPE_NAME: case AST_TYPE_LIST: case AST_TYPE_OPTIONAL: case AST_TYPE_UNION: case AST_TYPE_FN:
        return sema_resolve_type(c, x);
    case AST_IDENT: {
        ast_node tmp = *x;
        tmp.kind = AST_TYPE_NAME;
        tmp.list = (base_vec){0};
        sema_type *t = sema_resolve_type(c, &tmp);
        x->type = t;
        x->sym = tmp.sym;
        return t;
    }
    case AST_INDEX:
        if (x->a && x->a->kind == AST_IDENT) {
            ast_node tmp = *x->a;
            tmp.kind = AST_TYPE_NAME;
            tmp.span = x->span;
            base_vec conv = {0};
            for (uint32_t i = 0; i < x->list.len; i++) {
                ast_node *arg = x->list.items[i];
                sema_type *at = expr_as_type(c, arg);
                (void)at;
                base_vec_push(c->arena, &conv, arg);
            }
            /* resolve the generic by name with pre-resolved arguments */
            sema_sym *s = scope_lookup(c->scope, tmp.name);
            if (s && s->kind == SYM_TYPE && s->builtin == GEN_MAP && conv.len == 2)
                return ty_map(c, ((ast_node *)conv.items[0])->type, ((ast_node *)conv.items[1])->type);
            if (s && s->kind == SYM_TYPE && s->builtin == GEN_CHAN && conv.len == 1)
                return ty_chan(c, ((ast_node *)conv.items[0])->type);
            if (s && s->kind == SYM_TYPE && s->builtin == GEN_TASK && conv.len == 1)
                return ty_task(c, ((ast_node *)conv.items[0])->type);
        }
        break;
    case AST_LIST_LIT:
        if (x->list.len == 1) {
            sema_type *t = ty_list(c, expr_as_type(c, x->list.items[0]));
            x->type = t;
            return t;
        }
        break;
    default:
        break;
    }
    diag_report(c->d, DIAG_ERROR, x->span, "expected a type");
    return c->t_error;
}

static sema_type *call_constructor(sema_ctx *c, ast_node *e, sema_sym *gen, base_vec args, base_span at) {
    uint32_t want = gen->builtin == GEN_MAP ? 2 : 1;
    if (args.len != want) {
        diag_report(c->d, DIAG_ERROR, at, "%s takes %u type argument%s", gen->name, want, want == 1 ? "" : "s");
        sema_check_args_loose(c, e);
        return c->t_error;
    }
    sema_type *ta[2];
    for (uint32_t i = 0; i < want; i++) {
        ast_node *x = args.items[i];
        ta[i] = x->kind >= AST_TYPE_NAME && x->kind <= AST_TYPE_FN ? sema_resolve_type(c, x) : expr_as_type(c, x);
    }
    e->a->type = NULL;
    if (gen->builtin == GEN_MAP) {
        if (!ty_is_error(ta[0]) && !ty_comparable(ta[0])) {
            diag_report(c->d, DIAG_ERROR, at, "map key type %s is not comparable", ty_str(c, ta[0]));
            return c->t_error;
        }
        if (e->list.len) {
            diag_report(c->d, DIAG_ERROR, ((ast_node *)e->list.items[0])->span, "Map[K, V]() takes no arguments");
            sema_check_args_loose(c, e);
        }
        return ty_map(c, ta[0], ta[1]);
    }
    /* Chan[T](capacity): capacity 0 (the default) is unbuffered */
    sema_param cap = {.name = c->n_cap, .type = c->t_int, .dflt = NULL};
    ast_node zero = {0};
    cap.dflt = &zero;
    sema_sig sig = {.what = "Chan", .params = &cap, .nparams = 1, .result = ty_chan(c, ta[0])};
    sema_check_call_args(c, e, &sig, false, 0);
    for (uint32_t i = 0; i < e->list.len; i++) {
        ast_node *a = e->list.items[i];
        const sema_const *k = a->a ? sema_const_of(c, a->a) : NULL;
        if (k && k->kind == CV_INT && k->i < 0)
            diag_report(c->d, DIAG_ERROR, a->span, "a channel's capacity cannot be negative");
    }
    return sig.result;
}

/* The method `name` of a struct type (fn T.name(self, ...)), or NULL. */
sema_sym *sema_user_method(const sema_type *t, const char *name) {
    if (!t || t->kind != TY_STRUCT || !t->sym || !t->sym->members || !name)
        return NULL;
    return scope_find_local(t->sym->members, name);
}

/* "deposit, withdraw": a struct's methods, in declaration order. */
static const char *user_methods_of(sema_ctx *c, const sema_type *t) {
    if (!t || t->kind != TY_STRUCT || !t->sym || !t->sym->members || !t->sym->members->syms.len)
        return NULL;
    char buf[400];
    base_text b;
    base_text_init(&b, buf, sizeof buf);
    const base_vec *v = &t->sym->members->syms;
    for (uint32_t i = 0; i < v->len; i++) {
        if (i)
            base_text_add(&b, ", ");
        base_text_add(&b, ((const sema_sym *)v->items[i])->name);
    }
    return base_strndup(c->arena, b.buf, b.len);
}

/* x.m(args) for a method of x's struct type: x is argument 0 (`self`),
 * the call's arguments fill the other parameters. */
static sema_type *call_user_method(sema_ctx *c, ast_node *e, sema_sym *m) {
    ast_node *callee = e->a;
    callee->sym = m;
    m->used = true;
    sema_resolve_sym(c, m);
    callee->type = m->type;
    if (!m->sig || m->sig->nparams == 0) {
        sema_check_args_loose(c, e);
        return c->t_error;
    }
    sema_sig *rest = base_alloc(c->arena, sizeof *rest);
    *rest = *m->sig;
    rest->params++;
    rest->nparams--;
    size_t n = strlen(m->name) + strlen(m->owner->name) + 2;
    char *what = base_alloc(c->arena, n);
    snprintf(what, n, "%s.%s", m->owner->name, m->name);
    rest->what = what;
    return sema_check_call_args(c, e, rest, false, 0);
}

static sema_type *check_method_call(sema_ctx *c, ast_node *e, sema_type *t) {
    ast_node *callee = e->a;
    sema_sym *um = sema_user_method(t, callee->name);
    if (um)
        return call_user_method(c, e, um);
    if (t->kind == TY_STRUCT) {
        sema_field *f = ty_field(t, callee->name);
        if (f) {
            callee->type = f->type;
            if (f->type->kind == TY_FN)
                return call_fn_value(c, e, f->type);
            if (ty_is_error(f->type)) {
                sema_check_args_loose(c, e);
                return c->t_error;
            }
            diag_report(c->d, DIAG_ERROR, name_at(callee), "field '%s' has type %s and cannot be called", callee->name,
                        ty_str(c, f->type));
            sema_check_args_loose(c, e);
            return c->t_error;
        }
    }
    sema_method id = SM_NONE;
    sema_sig *sig = sema_builtin_method(c, t, callee->name, &id);
    if (!sig) {
        const char *list = t->kind == TY_STRUCT ? user_methods_of(c, t) : sema_builtin_methods_of(t);
        if (t->kind == TY_UNION)
            diag_report(c->d, DIAG_ERROR, name_at(callee), "cannot call '%s' on a value of type %s%s", callee->name,
                        ty_str(c, t), sema_union_hint(c, t));
        else if (list)
            diag_report(c->d, DIAG_ERROR, name_at(callee), "type %s has no method '%s' (its methods: %s)",
                        ty_str(c, t), callee->name, list);
        else
            diag_report(c->d, DIAG_ERROR, name_at(callee), "type %s has no method '%s'", ty_str(c, t), callee->name);
        sema_check_args_loose(c, e);
        return c->t_error;
    }
    if (id == SM_LIST_CONTAINS && !ty_equatable(t->elem)) {
        diag_report(c->d, DIAG_ERROR, name_at(callee), "contains needs elements that == compares, not %s",
                    ty_str(c, t->elem));
        sema_check_args_loose(c, e);
        return c->t_bool;
    }
    callee->ival = id; /* codegen switches on it */
    return sema_check_call_args(c, e, sig, false, 0);
}

sema_type *sema_check_call(sema_ctx *c, ast_node *e) {
    ast_node *callee = e->a;
    if (!callee) {
        DIAG_INTERNAL(c->d, "call without a callee");
        return c->t_error;
    }
    sema_sym *gen = NULL;
    base_vec targs;
    base_span tat;
    if (type_args_of(c, callee, &gen, &targs, &tat))
        return call_constructor(c, e, gen, targs, tat);
    if (callee->kind == AST_IDENT || callee->kind == AST_FIELD_ACCESS) {
        bool failed = false;
        sema_sym *p = sema_resolve_path(c, callee, &failed);
        if (failed) {
            sema_check_args_loose(c, e);
            return c->t_error;
        }
        if (p)
            return call_sym(c, e, p);
        if (callee->kind == AST_IDENT) {
            diag_report(c->d, DIAG_ERROR, callee->span, "unknown name '%s'%s", callee->name ? callee->name : "?",
                        sema_import_hint(c, callee->name));
            sema_check_args_loose(c, e);
            return c->t_error;
        }
        if (callee->a->kind == AST_IDENT || callee->a->kind == AST_FIELD_ACCESS) {
            sema_sym *q = sema_resolve_path(c, callee->a, &failed);
            if (failed) {
                sema_check_args_loose(c, e);
                return c->t_error;
            }
            if (q && q->kind == SYM_SERVICE)
                return call_rpc(c, e, q);
            if (q && q->kind == SYM_TYPE) {
                callee->a->sym = q;
                if (q->type == c->t_instant && callee->name == c->n_now) {
                    if (e->list.len)
                        diag_report(c->d, DIAG_ERROR, ((ast_node *)e->list.items[0])->span,
                                    "Instant.now() takes no arguments");
                    sema_check_args_loose(c, e);
                    return c->t_instant;
                }
                diag_report(c->d, DIAG_ERROR, name_at(callee), "type '%s' has no function '%s'", q->name,
                            callee->name);
                sema_check_args_loose(c, e);
                return c->t_error;
            }
            if (q && (q->kind == SYM_CLUSTER || q->kind == SYM_BUILTIN || q->kind == SYM_TEST)) {
                diag_report(c->d, DIAG_ERROR, callee->a->span, "'%s' is a %s and has no members", q->name,
                            sym_kind_name(q));
                sema_check_args_loose(c, e);
                return c->t_error;
            }
        }
        sema_type *t = sema_check_expr(c, callee->a, NULL);
        if (ty_is_error(t)) {
            sema_check_args_loose(c, e);
            return c->t_error;
        }
        return check_method_call(c, e, t);
    }
    sema_type *t = sema_check_expr(c, callee, NULL);
    if (ty_is_error(t)) {
        sema_check_args_loose(c, e);
        return c->t_error;
    }
    if (t->kind != TY_FN) {
        diag_report(c->d, DIAG_ERROR, callee->span, "a value of type %s cannot be called", ty_str(c, t));
        sema_check_args_loose(c, e);
        return c->t_error;
    }
    return call_fn_value(c, e, t);
}

