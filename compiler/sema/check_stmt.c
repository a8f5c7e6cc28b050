/* check_stmt.c: statements, blocks and the flow facts sema needs: whether a
 * statement can complete (for "missing return" and "unreachable code"),
 * loops for break/continue, `match` exhaustiveness, and narrowing of a
 * `let` or parameter after `x is T`, `x != none` or `x == none`. */
#include "sema/sema_internal.h"

#include <string.h>

static base_span name_at(const ast_node *n) { return n->name_span.len ? n->name_span : n->span; }

static bool is_expr_kind(int k) { return k >= AST_INT && k <= AST_PAREN; }

/* ---- locals ---- */

static sema_sym *declare_local(sema_ctx *c, const char *name, ast_node *decl, base_span at, sema_type *t, bool is_var) {
    if (!name || name == c->n_underscore)
        return NULL;
    sema_sym *s = sym_new(c, SYM_LOCAL, name, decl, at);
    s->type = t ? t : c->t_error;
    s->is_var = is_var;
    s->state = RS_DONE;
    scope_declare(c, c->scope, s);
    return s;
}

/* A type with a zero value can be declared `var x: T` without a value,
 * as in Go: 0, false, "", empty bytes, 0s, the epoch, none, [] and {}. */
static bool has_zero(const sema_type *t) {
    switch (t->kind) {
    case TY_ERROR: case TY_INT: case TY_BOOL: case TY_STRING: case TY_BYTES: case TY_DURATION: case TY_INSTANT:
    case TY_NONE: case TY_LIST: case TY_MAP:
        return true;
    case TY_UNION:
        for (uint32_t i = 0; i < t->nitems; i++)
            if (t->items[i]->kind == TY_NONE)
                return true;
        return false;
    default:
        return false;
    }
}

/* ---- narrowing ---- */

typedef struct narrow {
    sema_sym *sym;      /* the origin */
    sema_type *then_t;  /* type in the then branch, or NULL */
    sema_type *else_t;  /* type in the else branch, or NULL */
} narrow;

#define MAX_NARROW 8

static sema_sym *narrowable(sema_ctx *c, ast_node *e) {
    if (!e || e->kind != AST_IDENT || !e->name)
        return NULL;
    sema_sym *s = scope_lookup(c->scope, e->name);
    if (!s || s->is_var || (s->kind != SYM_LOCAL && s->kind != SYM_PARAM))
        return NULL;
    return s;
}

static void add_narrow(narrow *n, int *count, sema_sym *s, sema_type *then_t, sema_type *else_t) {
    if (*count >= MAX_NARROW || !s)
        return;
    n[*count].sym = s;
    n[*count].then_t = then_t;
    n[*count].else_t = else_t;
    (*count)++;
}

/* Reads the narrowing facts of an already checked condition. */
static void collect_narrow(sema_ctx *c, ast_node *e, narrow *n, int *count, int depth) {
    if (!e || depth > 16)
        return;
    if (e->kind == AST_PAREN) {
        collect_narrow(c, e->a, n, count, depth + 1);
        return;
    }
    if (e->kind == AST_IS) {
        sema_sym *s = narrowable(c, e->a);
        sema_type *want = e->b ? e->b->type : NULL;
        if (s && want && !ty_is_error(want) && !ty_is_error(s->type) && ty_subset(want, s->type))
            add_narrow(n, count, s, want, ty_without(c, s->type, want));
        return;
    }
    if (e->kind == AST_BINARY && (e->op == AST_OP_EQ || e->op == AST_OP_NE)) {
        ast_node *id = e->a, *other = e->b;
        if (other && other->kind != AST_NONE) {
            id = e->b;
            other = e->a;
        }
        if (!other || other->kind != AST_NONE)
            return;
        sema_sym *s = narrowable(c, id);
        if (!s || ty_is_error(s->type) || !ty_has_member(s->type, c->t_none))
            return;
        sema_type *some = ty_without(c, s->type, c->t_none);
        if (e->op == AST_OP_NE)
            add_narrow(n, count, s, some, c->t_none);
        else
            add_narrow(n, count, s, c->t_none, some);
        return;
    }
    if (e->kind == AST_BINARY && (e->op == AST_OP_AND || e->op == AST_OP_OR)) {
        /* a && b: both hold in the then branch, nothing is known in the
         * else branch; a || b: both fail in the else branch, nothing is
         * known in the then branch. */
        bool and = e->op == AST_OP_AND;
        narrow tmp[MAX_NARROW];
        int k = 0;
        collect_narrow(c, e->a, tmp, &k, depth + 1);
        collect_narrow(c, e->b, tmp, &k, depth + 1);
        for (int i = 0; i < k; i++)
            add_narrow(n, count, tmp[i].sym, and ? tmp[i].then_t : NULL, and ? NULL : tmp[i].else_t);
        return;
    }
    if (e->kind == AST_UNARY && (e->op == '!' || e->op == AST_OP_NOT)) {
        narrow tmp[MAX_NARROW];
        int k = 0;
        collect_narrow(c, e->a, tmp, &k, depth + 1);
        for (int i = 0; i < k; i++)
            add_narrow(n, count, tmp[i].sym, tmp[i].else_t, tmp[i].then_t);
    }
}

/* Puts a narrowed view of each symbol into the current scope. */
static void apply_narrow(sema_ctx *c, const narrow *n, int count, bool then_branch) {
    for (int i = 0; i < count; i++) {
        sema_type *t = then_branch ? n[i].then_t : n[i].else_t;
        if (!t || t->kind == TY_NEVER)
            continue;
        sema_sym *o = n[i].sym;
        sema_sym *v = sym_new(c, SYM_LOCAL, o->name, o->decl, o->span);
        v->type = t;
        v->owner = o->owner ? o->owner : o;
        v->state = RS_DONE;
        v->used = true;
        scope_add(c, c->scope, v);
    }
}

/* Puts what `cond` being `truth` tells about locals into the current
 * scope: used for the right operand of && and ||. */
void sema_push_narrowing(sema_ctx *c, ast_node *cond, bool truth) {
    narrow n[MAX_NARROW];
    int count = 0;
    collect_narrow(c, cond, n, &count, 0);
    apply_narrow(c, n, count, truth);
}

/* ---- blocks ---- */

bool sema_check_block(sema_ctx *c, ast_node *block, bool new_scope) {
    if (!block)
        return false;
    if (block->kind != AST_BLOCK) {
        /* a single statement or expression where a block was expected */
        return sema_check_stmt(c, block);
    }
    if (c->depth >= SEMA_MAX_NESTING) {
        diag_report(c->d, DIAG_ERROR, block->span, "blocks too deeply nested (more than %d levels)", SEMA_MAX_NESTING);
        return false;
    }
    c->depth++;
    if (new_scope)
        scope_push(c);
    bool diverged = false, warned = false;
    for (uint32_t i = 0; i < block->list.len; i++) {
        ast_node *s = block->list.items[i];
        if (diverged && !warned) {
            if (c->opt.warn_unreachable)
                diag_report(c->d, DIAG_WARNING, s->span, "unreachable code");
            warned = true;
        }
        if (sema_check_stmt(c, s))
            diverged = true;
    }
    if (new_scope)
        scope_pop(c);
    c->depth--;
    return diverged;
}

/* ---- bodies ---- */

void sema_check_body(sema_ctx *c, ast_node *body, sema_type *result, sema_sym *service) {
    sema_fnctx f = {.result = result, .service = service};
    sema_fnctx *outer = c->fn;
    c->fn = &f;
    bool div = sema_check_block(c, body, true);
    if (!div && result && result->kind == TY_NEVER)
        diag_report(c->d, DIAG_ERROR, sema_end_span(body->span),
                    "a function declared `-> Never` must not reach its end: it panics or loops for ever");
    else if (!div && result && !ty_is_error(result) && result->kind != TY_NONE)
        diag_report(c->d, DIAG_ERROR, sema_end_span(body->span), "missing return: the body must end by returning %s",
                    ty_str(c, result));
    c->fn = outer;
}

sema_type *sema_check_spawn_block(sema_ctx *c, ast_node *block) {
    sema_fnctx f = {.result = NULL, .service = c->fn ? c->fn->service : NULL};
    sema_fnctx *outer = c->fn;
    c->fn = &f;
    bool div = sema_check_block(c, block, true);
    c->fn = outer;
    sema_type *r = f.inferred;
    if (!div || f.bare_return || !r)
        r = r ? ty_union2(c, r, c->t_none) : c->t_none;
    return r;
}

/* ---- statements ---- */

static bool check_let(sema_ctx *c, ast_node *s, bool is_var) {
    sema_type *t = NULL;
    if (s->a)
        t = sema_resolve_type(c, s->a);
    if (s->b) {
        if (t)
            sema_check_value(c, s->b, t, is_var ? "var" : "let");
        else
            t = sema_check_expr(c, s->b, NULL);
        if (!s->a && t->kind == TY_NEVER) {
            sema_sym *v = declare_local(c, s->name, s, name_at(s), c->t_error, is_var);
            if (v)
                v->used = true;
            s->sym = v;
            return true;
        }
    } else if (!t) {
        diag_report(c->d, DIAG_ERROR, name_at(s), "var '%s' needs a type or an initial value", s->name);
        t = c->t_error;
    } else if (!has_zero(t)) {
        diag_report(c->d, DIAG_ERROR, name_at(s), "var '%s' needs an initial value: %s has no zero value", s->name,
                    ty_str(c, t));
    }
    s->type = t;
    s->sym = declare_local(c, s->name, s, name_at(s), t, is_var);
    return false;
}

static bool is_plain_assign(int op) { return op == '=' || op == AST_OP_SET || op == AST_OP_NONE; }

static int compound_op(int op) {
    switch (op) {
    case '+': case AST_OP_ADD: return AST_OP_ADD;
    case '-': case AST_OP_SUB: return AST_OP_SUB;
    case '*': case AST_OP_MUL: return AST_OP_MUL;
    default: return 0;
    }
}

static sema_type *assign_target(sema_ctx *c, ast_node *t, bool reads) {
    switch (t->kind) {
    case AST_IDENT: {
        sema_sym *s = t->name ? scope_lookup(c->scope, t->name) : NULL;
        if (!s) {
            diag_report(c->d, DIAG_ERROR, t->span, "unknown name '%s'", t->name ? t->name : "?");
            return c->t_error;
        }
        t->sym = s;
        if (reads) {
            s->used = true;
            if (s->owner && s->kind == SYM_LOCAL)
                s->owner->used = true;
        }
        if ((s->kind == SYM_LOCAL && s->is_var && !s->owner) || s->kind == SYM_STATE) {
            sema_resolve_sym(c, s);
            t->type = s->type;
            return s->type ? s->type : c->t_error;
        }
        sema_sym *o = s->kind == SYM_LOCAL && s->owner ? s->owner : s;
        if (o->kind == SYM_LOCAL)
            diag_report(c->d, DIAG_ERROR, t->span,
                        "cannot assign to '%s': it is a `let` binding (declare it with `var` to change it)", t->name);
        else if (o->kind == SYM_PARAM)
            diag_report(c->d, DIAG_ERROR, t->span, "cannot assign to parameter '%s'", t->name);
        else
            diag_report(c->d, DIAG_ERROR, t->span, "cannot assign to %s '%s'", sym_kind_name(o), t->name);
        return c->t_error;
    }
    case AST_FIELD_ACCESS: {
        sema_type *ty = sema_check_expr(c, t, NULL);
        if (ty_is_error(ty))
            return ty;
        if (t->sym) {
            sema_sym *s = t->sym;
            diag_report(c->d, DIAG_ERROR, t->span, "cannot assign to %s '%s'", sym_kind_name(s), s->name);
            return c->t_error;
        }
        return ty;
    }
    case AST_INDEX: {
        sema_type *ty = sema_check_expr(c, t, NULL);
        if (ty_is_error(ty))
            return ty;
        sema_type *obj = t->a ? t->a->type : NULL;
        if (obj && obj->kind == TY_BYTES) {
            diag_report(c->d, DIAG_ERROR, t->span, "Bytes are immutable: build new Bytes instead");
            return c->t_error;
        }
        return ty;
    }
    case AST_PAREN:
        return assign_target(c, t->a, reads);
    default:
        sema_check_expr(c, t, NULL);
        diag_report(c->d, DIAG_ERROR, t->span, "cannot assign to this expression");
        return c->t_error;
    }
}

static void check_assign(sema_ctx *c, ast_node *s) {
    if (is_plain_assign(s->op)) {
        sema_type *tt = assign_target(c, s->a, false);
        if (ty_is_error(tt))
            sema_check_expr(c, s->b, NULL);
        else
            sema_check_value(c, s->b, tt, "assignment");
        return;
    }
    int op = compound_op(s->op);
    if (!op) {
        DIAG_INTERNAL(c->d, "assignment operator %d", s->op);
        return;
    }
    sema_type *tt = assign_target(c, s->a, true);
    sema_type *vt = sema_check_expr(c, s->b, NULL);
    if (ty_is_error(tt) || ty_is_error(vt))
        return;
    sema_type *r = sema_arith_result(c, op, tt, vt);
    if (!r) {
        diag_report(c->d, DIAG_ERROR, s->span, "operator %s= cannot be applied to %s and %s", sema_op_text(op),
                    ty_str(c, tt), ty_str(c, vt));
        return;
    }
    if (!ty_assignable(r, tt))
        diag_report(c->d, DIAG_ERROR, s->span, "operator %s= gives %s, which cannot be stored in %s",
                    sema_op_text(op), ty_str(c, r), ty_str(c, tt));
}

static bool check_if(sema_ctx *c, ast_node *s) {
    sema_check_value(c, s->a, c->t_bool, "if condition");
    narrow n[MAX_NARROW];
    int count = 0;
    collect_narrow(c, s->a, n, &count, 0);
    scope_push(c);
    apply_narrow(c, n, count, true);
    bool then_div = sema_check_block(c, s->b, true);
    scope_pop(c);
    bool else_div = false;
    if (s->c) {
        scope_push(c);
        apply_narrow(c, n, count, false);
        else_div = s->c->kind == AST_IF ? sema_check_stmt(c, s->c) : sema_check_block(c, s->c, true);
        scope_pop(c);
    } else if (then_div) {
        /* `if x == none { return }`: x is narrowed for the rest of the block */
        apply_narrow(c, n, count, false);
    }
    return s->c && then_div && else_div;
}

/* Checks a loop's body with break and continue bound to it; true when the
 * body can break out. */
static bool check_loop_body(sema_ctx *c, ast_node *body) {
    sema_loop loop = {.outer = c->fn ? c->fn->loop : NULL};
    if (c->fn)
        c->fn->loop = &loop;
    sema_check_block(c, body, true);
    if (c->fn)
        c->fn->loop = loop.outer;
    return loop.had_break;
}

static bool check_while(sema_ctx *c, ast_node *s) {
    sema_check_value(c, s->a, c->t_bool, "while condition");
    const sema_const *k = sema_const_of(c, s->a);
    bool had_break = check_loop_body(c, s->b);
    /* `while true` without break never completes, like Go's `for {}` */
    return k && k->kind == CV_BOOL && k->i && !had_break;
}

static bool check_for(sema_ctx *c, ast_node *s) {
    scope_push(c);
    sema_type *t1 = c->t_error, *t2 = NULL;
    ast_node *it = s->a;
    if (it && it->kind == AST_RANGE) {
        sema_check_value(c, it->a, c->t_int, "range start");
        sema_check_value(c, it->b, c->t_int, "range end");
        it->type = c->t_int;
        t1 = c->t_int;
        if (s->name2)
            diag_report(c->d, DIAG_ERROR, s->span, "a range gives one loop variable, not two");
    } else if (it) {
        sema_type *t = sema_check_expr(c, it, NULL);
        if (ty_is_error(t)) {
            t1 = t2 = c->t_error;
        } else if (t->kind == TY_LIST) {
            if (s->name2) {
                t1 = c->t_int; /* for i, x in list: index and element, as in Go */
                t2 = t->elem;
            } else {
                t1 = t->elem;
            }
        } else if (t->kind == TY_MAP) {
            t1 = t->key;
            t2 = t->elem;
        } else if (t->kind == TY_CHAN) {
            t1 = t->elem;
            if (s->name2)
                diag_report(c->d, DIAG_ERROR, s->span, "a channel gives one loop variable, not two");
        } else {
            diag_report(c->d, DIAG_ERROR, it->span,
                        "cannot iterate over a value of type %s (use a range, a list, a map or a channel)",
                        ty_str(c, t));
            t1 = t2 = c->t_error;
        }
    }
    /* loop variables are exempt from the unused warning */
    sema_sym *v1 = declare_local(c, s->name, s, name_at(s), t1, false);
    if (v1)
        v1->used = true;
    if (s->name2) {
        if (s->name2 == s->name && s->name != c->n_underscore)
            diag_report(c->d, DIAG_ERROR, s->span, "both loop variables are named '%s'", s->name);
        else {
            sema_sym *v2 = declare_local(c, s->name2, s, s->span, t2 ? t2 : c->t_error, false);
            if (v2)
                v2->used = true;
        }
    }
    s->sym = v1;
    s->type = t1;
    check_loop_body(c, s->b);
    scope_pop(c);
    return false;
}

static bool check_return(sema_ctx *c, ast_node *s) {
    sema_fnctx *f = c->fn;
    if (!f) {
        /* every body is checked with a function context */
        DIAG_INTERNAL(c->d, "return outside a function body");
        return true;
    }
    if (!f->result) {
        /* a spawn block: its task's type is what it returns */
        if (s->a) {
            sema_type *t = sema_check_expr(c, s->a, NULL);
            f->inferred = f->inferred ? ty_union2(c, f->inferred, t) : t;
        } else {
            f->bare_return = true;
        }
        return true;
    }
    if (f->result->kind == TY_NEVER) {
        if (s->a)
            sema_check_expr(c, s->a, NULL);
        diag_report(c->d, DIAG_ERROR, s->span, "a function declared `-> Never` cannot return");
        return true;
    }
    if (s->a) {
        if (f->result->kind == TY_NONE) {
            sema_check_expr(c, s->a, NULL);
            if (s->a->type && s->a->type->kind != TY_NONE && !ty_is_error(s->a->type))
                diag_report(c->d, DIAG_ERROR, s->a->span,
                            "this function has no result type, so `return` takes no value (found %s)",
                            ty_str(c, s->a->type));
        } else {
            sema_check_value(c, s->a, f->result, "return value");
        }
    } else if (f->result->kind != TY_NONE && !ty_is_error(f->result)) {
        diag_report(c->d, DIAG_ERROR, s->span, "return needs a value of type %s", ty_str(c, f->result));
    }
    return true;
}

/* ---- match ---- */

static const char *members_list(sema_ctx *c, sema_type *t) {
    char buf[400];
    size_t len = 0;
    buf[0] = 0;
    uint32_t n = t->kind == TY_UNION ? t->nitems : 1;
    for (uint32_t i = 0; i < n; i++) {
        sema_type *m = t->kind == TY_UNION ? (t->shown ? t->shown[i] : t->items[i]) : t;
        const char *s = ty_str(c, m);
        int w = snprintf(buf + len, sizeof buf - len, "%s%s", i ? ", " : "", s);
        if (w < 0 || (size_t)w >= sizeof buf - len)
            break;
        len += (size_t)w;
    }
    return base_strndup(c->arena, buf, len);
}

/* The declared type of a subject that is a narrowed name (`if v == none {
 * continue }` then `match v`), or NULL: an arm for a member the narrowing
 * ruled out is a warning, not an error. */
sema_type *sema_unnarrowed_type(const ast_node *e, const char **name) {
    while (e && e->kind == AST_PAREN)
        e = e->a;
    const sema_sym *s = e && e->kind == AST_IDENT ? e->sym : NULL;
    if (!s || s->kind != SYM_LOCAL || !s->owner || (s->owner->kind != SYM_LOCAL && s->owner->kind != SYM_PARAM))
        return NULL;
    if (name)
        *name = e->name;
    return s->owner->type;
}

sema_type *sema_check_match(sema_ctx *c, ast_node *m, bool as_expr, bool *diverges) {
    sema_type *t = sema_check_expr(c, m->a, NULL);
    bool err = ty_is_error(t);
    const char *narrowed = NULL;
    sema_type *declared = err ? NULL : sema_unnarrowed_type(m->a, &narrowed);
    sema_type *remaining = t;
    bool wild = false, all_div = m->list.len > 0;
    sema_type *result = NULL;
    for (uint32_t i = 0; i < m->list.len; i++) {
        ast_node *arm = m->list.items[i];
        if (arm->kind != AST_ARM) {
            DIAG_INTERNAL(c->d, "match arm of kind %s", ast_kind_name((ast_kind)arm->kind));
            continue;
        }
        sema_type *pt = NULL;
        if (wild && c->opt.warn_unreachable)
            diag_report(c->d, DIAG_WARNING, arm->span, "unreachable match arm: `_` above matches everything");
        if (!arm->a) {
            if (!wild && !err && remaining->kind == TY_NEVER && c->opt.warn_unreachable)
                diag_report(c->d, DIAG_WARNING, arm->span, "unreachable match arm: every case is already handled");
            wild = true;
            pt = err ? c->t_error : remaining;
        } else {
            pt = sema_resolve_type(c, arm->a);
            if (!err && !ty_is_error(pt) && !ty_subset(pt, t) && declared && ty_subset(pt, declared)) {
                /* the narrowing removed (some of) these members */
                sema_type *left = ty_without(c, pt, ty_without(c, pt, t));
                if (left->kind == TY_NEVER) {
                    if (c->opt.warn_unreachable)
                        diag_report(c->d, DIAG_WARNING, arm->span, "unreachable match arm: %s is %s here",
                                    m->a->kind == AST_IDENT ? m->a->name : "the value", ty_str(c, t));
                    arm->flags |= AST_F_DEAD;
                } else {
                    pt = left;
                }
            }
            if (arm->flags & AST_F_DEAD) {
                /* checked below with its binding typed as written, never run */
            } else if (!err && !ty_is_error(pt)) {
                if (!ty_subset(pt, t) && declared) {
                    /* outside the declared type too: that is the one to name */
                    diag_report(c->d, DIAG_ERROR, arm->a->span, "%s is not a member of %s's declared type %s (it is %s here)",
                                ty_str(c, ty_without(c, pt, declared)), narrowed, ty_str(c, declared), ty_str(c, t));
                    pt = c->t_error;
                } else if (!ty_subset(pt, t)) {
                    diag_report(c->d, DIAG_ERROR, arm->a->span, "%s is not a member of %s",
                                ty_str(c, ty_without(c, pt, t)), ty_str(c, t));
                    pt = c->t_error;
                } else if (ty_without(c, pt, remaining) == pt) {
                    if (c->opt.warn_unreachable && !wild)
                        diag_report(c->d, DIAG_WARNING, arm->span, "unreachable match arm: %s is already handled",
                                ty_str(c, pt));
                } else {
                    remaining = ty_without(c, remaining, pt);
                }
            }
        }
        arm->type = pt;
        scope_push(c);
        if (arm->name && arm->name != c->n_underscore) {
            sema_sym *b = declare_local(c, arm->name, arm, name_at(arm), pt ? pt : c->t_error, false);
            arm->sym = b;
        }
        bool div;
        sema_type *at = c->t_none;
        if (arm->b && arm->b->kind == AST_BLOCK) {
            div = sema_check_block(c, arm->b, true);
        } else if (arm->b && is_expr_kind(arm->b->kind)) {
            at = sema_check_expr(c, arm->b, NULL);
            div = at->kind == TY_NEVER;
        } else {
            div = arm->b ? sema_check_stmt(c, arm->b) : false;
        }
        scope_pop(c);
        if (arm->flags & AST_F_DEAD)
            continue; /* never runs: it neither ends nor gives the match's value */
        all_div = all_div && div;
        if (!div)
            result = result ? ty_union2(c, result, at) : at;
    }
    if (!wild && !err && remaining->kind != TY_NEVER) {
        diag_report(c->d, DIAG_ERROR, m->a->span, "match is not exhaustive: missing %s (add an arm or `_`)",
                    members_list(c, remaining));
        all_div = false;
    }
    *diverges = all_div;
    if (!as_expr)
        return c->t_none;
    if (!result)
        result = all_div ? c->t_never : c->t_none;
    return result;
}

/* ---- select ---- */

static sema_type *chan_of_call(sema_ctx *c, ast_node *call, const char *method) {
    if (!call || call->kind != AST_CALL || !call->a || call->a->kind != AST_FIELD_ACCESS ||
        strcmp(call->a->name ? call->a->name : "", method) != 0) {
        diag_report(c->d, DIAG_ERROR, call ? call->span : (base_span){0, 0, 0},
                    "this select arm needs a channel operation: c.%s(...)", method);
        if (call)
            sema_check_expr(c, call, NULL);
        return NULL;
    }
    sema_type *t = sema_check_expr(c, call, NULL);
    sema_type *ch = call->a->a ? call->a->a->type : NULL;
    if (ty_is_error(t) || !ch || ty_is_error(ch))
        return c->t_error;
    /* only a Chan has recv and send, so the call's check settled the rest */
    return t;
}

static bool check_select(sema_ctx *c, ast_node *s) {
    bool all_div = s->list.len > 0, had_after = false;
    if (s->list.len == 0)
        diag_report(c->d, DIAG_ERROR, s->span, "a select needs at least one arm");
    for (uint32_t i = 0; i < s->list.len; i++) {
        ast_node *arm = s->list.items[i];
        scope_push(c);
        switch (arm->op) {
        case AST_SEL_RECV: {
            sema_type *t = chan_of_call(c, arm->a, "recv");
            if (arm->name && t) {
                sema_sym *b = declare_local(c, arm->name, arm, name_at(arm), t, false);
                arm->sym = b;
            }
            break;
        }
        case AST_SEL_SEND:
            chan_of_call(c, arm->a, "send");
            break;
        case AST_SEL_AFTER:
            if (had_after)
                diag_report(c->d, DIAG_ERROR, arm->span, "a select has at most one `after` arm");
            had_after = true;
            sema_check_value(c, arm->a, c->t_duration, "after");
            break;
        default:
            DIAG_INTERNAL(c->d, "select arm kind %d", arm->op);
            break;
        }
        bool div = sema_check_block(c, arm->b, true);
        all_div = all_div && div;
        scope_pop(c);
    }
    return all_div;
}

bool sema_check_stmt(sema_ctx *c, ast_node *s) {
    if (!s) {
        DIAG_INTERNAL(c->d, "missing statement");
        return false;
    }
    switch (s->kind) {
    case AST_BLOCK:
        return sema_check_block(c, s, true);
    case AST_LET:
        return check_let(c, s, false);
    case AST_VAR:
        return check_let(c, s, true);
    case AST_ASSIGN:
        check_assign(c, s);
        return false;
    case AST_EXPR_STMT: {
        sema_type *t = sema_check_expr(c, s->a, NULL);
        s->type = t;
        return t->kind == TY_NEVER;
    }
    case AST_IF:
        return check_if(c, s);
    case AST_WHILE:
        return check_while(c, s);
    case AST_FOR:
        return check_for(c, s);
    case AST_BREAK:
    case AST_CONTINUE:
        if (!c->fn || !c->fn->loop) {
            diag_report(c->d, DIAG_ERROR, s->span, "`%s` outside a loop", s->kind == AST_BREAK ? "break" : "continue");
            return false;
        }
        if (s->kind == AST_BREAK)
            c->fn->loop->had_break = true;
        return true;
    case AST_RETURN:
        return check_return(c, s);
    case AST_ASSERT: {
        sema_check_value(c, s->a, c->t_bool, "assert");
        if (s->b)
            sema_check_value(c, s->b, c->t_string, "assert message");
        /* what the condition proves holds after it, as after
         * `if !c { panic(...) }` (the message sees none of it) */
        narrow n[MAX_NARROW];
        int count = 0;
        collect_narrow(c, s->a, n, &count, 0);
        apply_narrow(c, n, count, true);
        return false;
    }
    case AST_MATCH: {
        bool div = false;
        s->type = sema_check_match(c, s, false, &div);
        return div;
    }
    case AST_SELECT:
        return check_select(c, s);
    case AST_FN: case AST_TYPE_DECL: case AST_CONST: case AST_MOD: case AST_SERVICE: case AST_CLUSTER:
    case AST_TEST: case AST_USE:
        diag_report(c->d, DIAG_ERROR, s->span, "this declaration belongs at the top level, not inside a body");
        return false;
    default:
        if (is_expr_kind(s->kind)) {
            sema_type *t = sema_check_expr(c, s, NULL);
            return t->kind == TY_NEVER;
        }
        DIAG_INTERNAL(c->d, "sema_check_stmt: unexpected node %s", ast_kind_name((ast_kind)s->kind));
        return false;
    }
}
