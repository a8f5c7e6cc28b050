/* check_expr.c: the types of expressions (calls are check_call.c's). Every
 * checked node gets its type in node->type (identifiers also their symbol
 * in node->sym); an expression already reported gets the error type, which
 * is assignable everywhere, so one mistake gives one message. Constant
 * operands are folded as they are checked, which is how constant overflow
 * is found. */
#include "sema/sema_internal.h"

#include <stdlib.h>
#include <string.h>

static base_span name_at(const ast_node *n) { return n->name_span.len ? n->name_span : n->span; }

base_span sema_end_span(base_span s) {
    if (s.len > 0) {
        s.off += s.len - 1;
        s.len = 1;
    }
    return s;
}

/* ---- folded constants, by node (open addressing on the pointer) ---- */
static uint32_t cmap_hash(const ast_node *n, uint32_t cap) {
    uintptr_t p = (uintptr_t)n;
    p ^= p >> 17;
    p *= 0x9E3779B97F4A7C15ull;
    return (uint32_t)(p >> 32) & (cap - 1);
}

void sema_set_const(sema_ctx *c, const ast_node *e, sema_const *v) {
    if ((c->cmap_len + 1) * 2 > c->cmap_cap) {
        uint32_t ncap = c->cmap_cap ? c->cmap_cap * 2 : 256;
        sema_cmap_entry *n = base_alloc(c->arena, sizeof *n * ncap);
        for (uint32_t i = 0; i < c->cmap_cap; i++) {
            if (!c->cmap[i].node)
                continue;
            uint32_t h = cmap_hash(c->cmap[i].node, ncap);
            while (n[h].node)
                h = (h + 1) & (ncap - 1);
            n[h] = c->cmap[i];
        }
        c->cmap = n;
        c->cmap_cap = ncap;
    }
    uint32_t h = cmap_hash(e, c->cmap_cap);
    while (c->cmap[h].node && c->cmap[h].node != e)
        h = (h + 1) & (c->cmap_cap - 1);
    if (!c->cmap[h].node)
        c->cmap_len++;
    c->cmap[h].node = e;
    c->cmap[h].val = v;
}

const sema_const *sema_const_of(const sema_ctx *c, const ast_node *e) {
    if (!c->cmap_cap || !e)
        return NULL;
    uint32_t h = cmap_hash(e, c->cmap_cap);
    while (c->cmap[h].node) {
        if (c->cmap[h].node == e)
            return c->cmap[h].val;
        h = (h + 1) & (c->cmap_cap - 1);
    }
    return NULL;
}

/* Charges n bytes of compile-time string work done for e. Past the budget
 * it reports once (later charges fail quietly) and the caller makes e an
 * error, which stops cascades. */
bool sema_charge_const_work(sema_ctx *c, const ast_node *e, uint64_t n) {
    c->const_work += n;
    if (c->const_work <= SEMA_MAX_CONST_WORK)
        return true;
    if (!c->const_work_reported) {
        c->const_work_reported = true;
        diag_report(c->d, DIAG_ERROR, e->span,
                    "compile-time strings of this program exceed %u MiB (folded strings and each use of a "
                    "String constant count)",
                    SEMA_MAX_CONST_WORK >> 20);
    }
    return false;
}

static bool string_const_fits(sema_ctx *c, const ast_node *e, uint64_t len, const char *what) {
    if (len <= SEMA_MAX_CONST_STRING)
        return true;
    diag_report(c->d, DIAG_ERROR, e->span, "%s of %llu bytes is longer than a String constant may be (%u MiB)", what,
                (unsigned long long)len, SEMA_MAX_CONST_STRING >> 20);
    return false;
}

static void set_int(sema_ctx *c, ast_node *e, int64_t v) {
    sema_const *k = base_alloc(c->arena, sizeof *k);
    k->kind = CV_INT;
    k->i = v;
    sema_set_const(c, e, k);
}

static void set_bool(sema_ctx *c, ast_node *e, bool v) {
    sema_const *k = base_alloc(c->arena, sizeof *k);
    k->kind = CV_BOOL;
    k->i = v;
    sema_set_const(c, e, k);
}

/* ---- coercion ---- */

bool sema_coerce(sema_ctx *c, ast_node *e, sema_type *to, const char *what) {
    sema_type *from = e->type;
    if (ty_assignable(from, to))
        return true;
    const char *hint = "";
    if (from->kind == TY_UNION && ty_has_member(from, c->t_none) && ty_assignable(ty_without(c, from, c->t_none), to))
        hint = " (it may be none: check it with `match`, `is` or `!= none` first)";
    else if (from->kind == TY_UNION && ty_has_member(from, c->t_rpc_error) &&
             ty_assignable(ty_without(c, from, c->t_rpc_error), to))
        hint = " (a remote call can fail: handle RpcError with `match` or `is` first)";
    if (what)
        diag_report(c->d, DIAG_ERROR, e->span, "mismatched types: %s expects %s, found %s%s", what, ty_str(c, to),
                    ty_str(c, from), hint);
    else
        diag_report(c->d, DIAG_ERROR, e->span, "mismatched types: expected %s, found %s%s", ty_str(c, to),
                    ty_str(c, from), hint);
    e->type = c->t_error;
    return false;
}

sema_type *sema_check_value(sema_ctx *c, ast_node *e, sema_type *to, const char *what) {
    sema_check_expr(c, e, to);
    sema_coerce(c, e, to, what);
    return e->type;
}

/* ---- names ---- */

sema_type *sema_value_of_sym(sema_ctx *c, ast_node *e, sema_sym *s) {
    e->sym = s;
    s->used = true;
    if (s->owner && s->kind == SYM_LOCAL)
        s->owner->used = true; /* a narrowed view of a local */
    switch (s->kind) {
    case SYM_LOCAL:
    case SYM_PARAM:
        return s->type ? s->type : c->t_error;
    case SYM_STATE:
        sema_resolve_sym(c, s);
        return s->type ? s->type : c->t_error;
    case SYM_CONST:
        if (!sema_resolve_sym(c, s))
            return c->t_error;
        if (s->cval) {
            /* a use in code is emitted; one in a constant is folded (and that is charged) */
            if (sema_emits_uses(c) && s->cval->kind == CV_STRING && !sema_charge_const_work(c, e, s->cval->slen))
                return c->t_error;
            sema_set_const(c, e, s->cval);
        }
        return s->type ? s->type : c->t_error;
    case SYM_FN:
        sema_resolve_sym(c, s);
        return s->type ? s->type : c->t_error;
    case SYM_BUILTIN:
        diag_report(c->d, DIAG_ERROR, e->span, "built-in function '%s' must be called", s->name);
        return c->t_error;
    case SYM_SERVICE:
        diag_report(c->d, DIAG_ERROR, e->span, "'%s' is a service, not a value: call its rpcs as %s.name(...)",
                    s->name, s->name);
        return c->t_error;
    default:
        diag_report(c->d, DIAG_ERROR, e->span, "'%s' is a %s, not a value", s->name, sym_kind_name(s));
        return c->t_error;
    }
}

static sema_type *check_ident(sema_ctx *c, ast_node *e) {
    sema_sym *s = e->name ? scope_lookup(c->scope, e->name) : NULL;
    if (!s) {
        if (e->name == c->n_underscore)
            diag_report(c->d, DIAG_ERROR, e->span, "'_' is not a value");
        else
            diag_report(c->d, DIAG_ERROR, e->span, "unknown name '%s'%s", e->name ? e->name : "?",
                        sema_import_hint(c, e->name));
        return c->t_error;
    }
    return sema_value_of_sym(c, e, s);
}

const char *sema_union_hint(sema_ctx *c, sema_type *t) {
    if (ty_has_member(t, c->t_none))
        return ": it may be none; narrow it with `match`, `is` or `!= none` first";
    return ": narrow it with `match` or `is` first";
}

static sema_type *check_field_access(sema_ctx *c, ast_node *e) {
    bool failed = false;
    sema_sym *p = sema_resolve_path(c, e, &failed);
    if (failed)
        return c->t_error;
    if (p && e->kind == AST_FIELD_ACCESS)
        return sema_value_of_sym(c, e, p);
    if (e->a && (e->a->kind == AST_IDENT || e->a->kind == AST_FIELD_ACCESS)) {
        sema_sym *q = sema_resolve_path(c, e->a, &failed);
        if (failed)
            return c->t_error;
        if (q && q->kind == SYM_SERVICE) {
            q->used = true;
            e->a->sym = q;
            diag_report(c->d, DIAG_ERROR, e->span, "rpc '%s.%s' must be called", q->name, e->name);
            return c->t_error;
        }
        if (q && q->kind == SYM_TYPE) {
            e->a->sym = q;
            diag_report(c->d, DIAG_ERROR, e->span, "'%s.%s' is not a value", q->name, e->name);
            return c->t_error;
        }
    }
    sema_type *t = sema_check_expr(c, e->a, NULL);
    if (ty_is_error(t))
        return c->t_error;
    if (t->kind == TY_STRUCT) {
        sema_field *f = ty_field(t, e->name);
        if (f)
            return f->type;
    }
    if (sema_builtin_method(c, t, e->name, NULL) || sema_user_method(t, e->name)) {
        diag_report(c->d, DIAG_ERROR, name_at(e), "method '%s' of %s must be called", e->name, ty_str(c, t));
        return c->t_error;
    }
    if (t->kind == TY_UNION) {
        diag_report(c->d, DIAG_ERROR, name_at(e), "cannot access '%s' on a value of type %s%s", e->name, ty_str(c, t),
                    sema_union_hint(c, t));
        return c->t_error;
    }
    diag_report(c->d, DIAG_ERROR, name_at(e), "type %s has no field '%s'", ty_str(c, t), e->name);
    return c->t_error;
}

/* ---- operators ---- */

const char *sema_op_text(int op) {
    switch (op) {
    case AST_OP_ADD: return "+";
    case AST_OP_SUB: return "-";
    case AST_OP_MUL: return "*";
    case AST_OP_DIV: return "/";
    case AST_OP_MOD: return "%";
    case AST_OP_EQ: return "==";
    case AST_OP_NE: return "!=";
    case AST_OP_LT: return "<";
    case AST_OP_LE: return "<=";
    case AST_OP_GT: return ">";
    case AST_OP_GE: return ">=";
    case AST_OP_AND: return "&&";
    case AST_OP_OR: return "||";
    case AST_OP_COALESCE: return "??";
    default: return "?";
    }
}

static bool is_kind(const sema_type *t, sema_tkind k) { return t->kind == k; }

/* The result type of a binary arithmetic operator, or NULL. */
sema_type *sema_arith_result(sema_ctx *c, int op, sema_type *l, sema_type *r) {
    sema_tkind lk = l->kind, rk = r->kind;
    switch (op) {
    case AST_OP_ADD:
        if (lk == TY_INT && rk == TY_INT) return c->t_int;
        if (lk == TY_STRING && rk == TY_STRING) return c->t_string;
        if (lk == TY_DURATION && rk == TY_DURATION) return c->t_duration;
        if (lk == TY_INSTANT && rk == TY_DURATION) return c->t_instant;
        if (lk == TY_DURATION && rk == TY_INSTANT) return c->t_instant;
        return NULL;
    case AST_OP_SUB:
        if (lk == TY_INT && rk == TY_INT) return c->t_int;
        if (lk == TY_DURATION && rk == TY_DURATION) return c->t_duration;
        if (lk == TY_INSTANT && rk == TY_INSTANT) return c->t_duration;
        if (lk == TY_INSTANT && rk == TY_DURATION) return c->t_instant;
        return NULL;
    case AST_OP_MUL:
        if (lk == TY_INT && rk == TY_INT) return c->t_int;
        if (lk == TY_INT && rk == TY_DURATION) return c->t_duration;
        if (lk == TY_DURATION && rk == TY_INT) return c->t_duration;
        return NULL;
    case AST_OP_DIV:
        if (lk == TY_INT && rk == TY_INT) return c->t_int;
        if (lk == TY_DURATION && rk == TY_INT) return c->t_duration;
        if (lk == TY_DURATION && rk == TY_DURATION) return c->t_int;
        return NULL;
    case AST_OP_MOD:
        if (lk == TY_INT && rk == TY_INT) return c->t_int;
        return NULL;
    default:
        return NULL;
    }
}

static void fold_arith(sema_ctx *c, ast_node *e, int op, const sema_const *l, const sema_const *r) {
    if (!l || !r || l->kind != CV_INT || r->kind != CV_INT)
        return;
    int64_t v = 0;
    bool ovf = false;
    switch (op) {
    case AST_OP_ADD: ovf = __builtin_add_overflow(l->i, r->i, &v); break;
    case AST_OP_SUB: ovf = __builtin_sub_overflow(l->i, r->i, &v); break;
    case AST_OP_MUL: ovf = __builtin_mul_overflow(l->i, r->i, &v); break;
    case AST_OP_DIV:
    case AST_OP_MOD:
        if (r->i == 0)
            return; /* reported by the caller */
        if (l->i == INT64_MIN && r->i == -1) {
            ovf = true;
            break;
        }
        v = op == AST_OP_DIV ? l->i / r->i : l->i % r->i;
        break;
    default:
        return;
    }
    if (ovf) {
        diag_report(c->d, DIAG_ERROR, e->span, "integer overflow in constant expression");
        e->type = c->t_error;
        return;
    }
    set_int(c, e, v);
}

/* False only when the comparison is over the budget (reported). */
static bool fold_compare(sema_ctx *c, ast_node *e, int op, const sema_const *l, const sema_const *r) {
    if (!l || !r || l->kind != r->kind || l->kind == CV_LIST || l->kind == CV_MAP)
        return true;
    int cmp;
    if (l->kind == CV_STRING) {
        size_t n = l->slen < r->slen ? l->slen : r->slen;
        if (!sema_charge_const_work(c, e, n))
            return false;
        cmp = memcmp(l->s, r->s, n);
        if (cmp == 0)
            cmp = l->slen < r->slen ? -1 : l->slen > r->slen ? 1 : 0;
    } else if (l->kind == CV_NONE) {
        cmp = 0;
    } else {
        cmp = l->i < r->i ? -1 : l->i > r->i ? 1 : 0;
    }
    bool v;
    switch (op) {
    case AST_OP_EQ: v = cmp == 0; break;
    case AST_OP_NE: v = cmp != 0; break;
    case AST_OP_LT: v = cmp < 0; break;
    case AST_OP_LE: v = cmp <= 0; break;
    case AST_OP_GT: v = cmp > 0; break;
    case AST_OP_GE: v = cmp >= 0; break;
    default: return true;
    }
    set_bool(c, e, v);
    return true;
}

/* a ?? b: a's value unless it is none, then b (evaluated only then). a
 * must be optional; b goes where a's value would (its type without None)
 * or is itself optional, making the result optional (a ?? b ?? c). */
static sema_type *check_coalesce(sema_ctx *c, ast_node *e) {
    sema_type *l = sema_check_expr(c, e->a, NULL);
    if (ty_is_error(l)) {
        sema_check_expr(c, e->b, NULL);
        return c->t_error;
    }
    if (!ty_has_member(l, c->t_none) || l->kind == TY_NONE) {
        diag_report(c->d, DIAG_ERROR, e->a->span,
                    "`??` needs an optional on its left, found %s%s", ty_str(c, l),
                    l->kind == TY_NONE ? " (always none)" : ", which is never none");
        sema_check_expr(c, e->b, NULL);
        return c->t_error;
    }
    sema_type *some = ty_without(c, l, c->t_none);
    sema_type *r = sema_check_expr(c, e->b, some);
    if (ty_is_error(r))
        return c->t_error;
    if (ty_assignable(r, some))
        return some;
    if (ty_assignable(r, l))
        return l;
    diag_report(c->d, DIAG_ERROR, e->b->span, "mismatched types: the default after `??` must be %s (or %s), found %s",
                ty_str(c, some), ty_str(c, l), ty_str(c, r));
    return c->t_error;
}

static sema_type *check_binary(sema_ctx *c, ast_node *e) {
    int op = e->op;
    if (op == AST_OP_COALESCE)
        return check_coalesce(c, e);
    if (op == AST_OP_AND || op == AST_OP_OR) {
        sema_check_value(c, e->a, c->t_bool, op == AST_OP_AND ? "&&" : "||");
        /* `x != none && x.f`: the right operand sees what the left proved */
        scope_push(c);
        sema_push_narrowing(c, e->a, op == AST_OP_AND);
        sema_check_value(c, e->b, c->t_bool, op == AST_OP_AND ? "&&" : "||");
        scope_pop(c);
        const sema_const *l = sema_const_of(c, e->a), *r = sema_const_of(c, e->b);
        if (l && r && l->kind == CV_BOOL && r->kind == CV_BOOL)
            set_bool(c, e, op == AST_OP_AND ? (l->i && r->i) : (l->i || r->i));
        return c->t_bool;
    }
    sema_type *l = sema_check_expr(c, e->a, NULL);
    /* `xs == []`: a literal on the right takes its type from the left */
    sema_type *r = sema_check_expr(c, e->b, op == AST_OP_EQ || op == AST_OP_NE ? l : NULL);
    if (ty_is_error(l) || ty_is_error(r))
        return op >= AST_OP_EQ && op <= AST_OP_GE ? c->t_bool : c->t_error;
    const sema_const *lc = sema_const_of(c, e->a), *rc = sema_const_of(c, e->b);
    if (op == AST_OP_EQ || op == AST_OP_NE) {
        if (!ty_assignable(l, r) && !ty_assignable(r, l)) {
            diag_report(c->d, DIAG_ERROR, e->span, "cannot compare %s with %s", ty_str(c, l), ty_str(c, r));
            return c->t_bool;
        }
        /* a union compares with a value of one of its members: the tag
         * first, then the value (as Swift compares an optional); lists,
         * maps and structs compare structurally */
        bool with_none = l->kind == TY_NONE || r->kind == TY_NONE;
        bool ok = with_none || (ty_equatable(l) && ty_assignable(l, r)) || (ty_equatable(r) && ty_assignable(r, l));
        if (!ok) {
            diag_report(c->d, DIAG_ERROR, e->span,
                        "values of type %s cannot be compared with %s (channels, tasks and functions have no ==, "
                        "nor do values that hold them)",
                        ty_str(c, ty_equatable(l) ? r : l), sema_op_text(op));
            return c->t_bool;
        }
        return fold_compare(c, e, op, lc, rc) ? c->t_bool : c->t_error;
    }
    if (op >= AST_OP_LT && op <= AST_OP_GE) {
        bool ordered = l == r && (is_kind(l, TY_INT) || is_kind(l, TY_DURATION) || is_kind(l, TY_INSTANT) ||
                                  is_kind(l, TY_STRING));
        if (!ordered) {
            diag_report(c->d, DIAG_ERROR, e->span, "operator %s cannot be applied to %s and %s", sema_op_text(op),
                        ty_str(c, l), ty_str(c, r));
            return c->t_bool;
        }
        return fold_compare(c, e, op, lc, rc) ? c->t_bool : c->t_error;
    }
    sema_type *res = sema_arith_result(c, op, l, r);
    if (!res) {
        diag_report(c->d, DIAG_ERROR, e->span, "operator %s cannot be applied to %s and %s", sema_op_text(op),
                    ty_str(c, l), ty_str(c, r));
        return c->t_error;
    }
    if ((op == AST_OP_DIV || op == AST_OP_MOD) && rc && rc->kind == CV_INT && rc->i == 0) {
        diag_report(c->d, DIAG_ERROR, e->b->span, "division by zero");
        return c->t_error;
    }
    e->type = res;
    if (res->kind == TY_STRING) {
        if (lc && rc && lc->kind == CV_STRING && rc->kind == CV_STRING) {
            uint64_t len = (uint64_t)lc->slen + rc->slen;
            if (!string_const_fits(c, e, len, "a folded string") || !sema_charge_const_work(c, e, len))
                return e->type = c->t_error;
            sema_const *k = base_alloc(c->arena, sizeof *k);
            k->kind = CV_STRING;
            k->slen = (size_t)len;
            char *s = base_alloc(c->arena, k->slen + 1);
            memcpy(s, lc->s, lc->slen);
            memcpy(s + lc->slen, rc->s, rc->slen);
            k->s = s;
            sema_set_const(c, e, k);
        }
        return res;
    }
    if (res->kind != TY_INSTANT)
        fold_arith(c, e, op, lc, rc);
    return e->type;
}

static sema_type *check_unary(sema_ctx *c, ast_node *e) {
    bool neg = e->op == '-' || e->op == AST_OP_NEG;
    bool not = e->op == '!' || e->op == AST_OP_NOT;
    if (!neg && !not) {
        DIAG_INTERNAL(c->d, "unary operator %d", e->op);
        return c->t_error;
    }
    sema_type *t = sema_check_expr(c, e->a, NULL);
    if (ty_is_error(t))
        return t;
    const sema_const *k = sema_const_of(c, e->a);
    if (not) {
        if (t->kind != TY_BOOL) {
            diag_report(c->d, DIAG_ERROR, e->span, "operator ! needs a Bool, found %s", ty_str(c, t));
            return c->t_error;
        }
        if (k && k->kind == CV_BOOL)
            set_bool(c, e, !k->i);
        return t;
    }
    if (t->kind != TY_INT && t->kind != TY_DURATION) {
        diag_report(c->d, DIAG_ERROR, e->span, "operator - needs an Int or a Duration, found %s", ty_str(c, t));
        return c->t_error;
    }
    if (k && k->kind == CV_INT) {
        if (k->i == INT64_MIN) {
            diag_report(c->d, DIAG_ERROR, e->span, "integer overflow in constant expression");
            return c->t_error;
        }
        set_int(c, e, -k->i);
    }
    return t;
}

static sema_type *check_is(sema_ctx *c, ast_node *e) {
    sema_type *t = sema_check_expr(c, e->a, NULL);
    sema_type *want = sema_resolve_type(c, e->b);
    if (ty_is_error(t) || ty_is_error(want))
        return c->t_bool;
    /* a member that a narrowing ruled out (`assert s is String` then
     * `s is Int`) is a test with a known answer, not a mistake */
    const char *narrowed = NULL;
    sema_type *declared = sema_unnarrowed_type(e->a, &narrowed);
    if (declared && !ty_subset(want, declared))
        diag_report(c->d, DIAG_ERROR, e->b->span, "`is %s` can never be true: %s's declared type is %s (it is %s here)",
                    ty_str(c, ty_without(c, want, declared)), narrowed, ty_str(c, declared), ty_str(c, t));
    else if (!declared && !ty_subset(want, t))
        diag_report(c->d, DIAG_ERROR, e->b->span, "`is %s` can never be true: the value has type %s",
                    ty_str(c, ty_without(c, want, t)), ty_str(c, t));
    return c->t_bool;
}

/* ---- literals ---- */

static sema_type *pick_kind(sema_type *expected, sema_tkind k) {
    if (!expected)
        return NULL;
    if (expected->kind == k)
        return expected;
    if (expected->kind != TY_UNION)
        return NULL;
    sema_type *found = NULL;
    for (uint32_t i = 0; i < expected->nitems; i++) {
        if (expected->items[i]->kind == k) {
            if (found)
                return NULL;
            found = expected->items[i];
        }
    }
    return found;
}

/* Infers one element type from several values: all alike, plus none. */
static sema_type *unify(sema_ctx *c, sema_type *acc, ast_node *el, bool *has_none, const char *what) {
    sema_type *t = el->type;
    if (ty_is_error(t) || t->kind == TY_NEVER)
        return acc;
    if (t->kind == TY_NONE) {
        *has_none = true;
        return acc;
    }
    if (!acc || ty_assignable(t, acc))
        return acc ? acc : t;
    if (ty_assignable(acc, t))
        return t;
    diag_report(c->d, DIAG_ERROR, el->span, "%s have different types: %s and %s (annotate the type to mix them)",
                what, ty_str(c, acc), ty_str(c, t));
    el->type = c->t_error;
    return acc;
}

/* Charges an element of a constant list or map that is a String
 * constant's name: outside a function (`const L = [S, S]`) code generation
 * still emits it, in the constant's own function, where a use in code was
 * charged where it is (sema_value_of_sym) and a default's copies where
 * they are made (sema_charge_default). */
static bool charge_const_element(sema_ctx *c, const ast_node *x) {
    const sema_const *k = sema_const_of(c, x);
    const sema_sym *s = x->sym;
    return sema_emits_uses(c) || c->in_default || !s || s->kind != SYM_CONST || k->kind != CV_STRING || sema_charge_const_work(c, x, k->slen);
}

/* Bytes of String constants that code generation emits for one more copy
 * of the checked constant expression e (a default left out at a use). */
static uint64_t const_string_bytes(const sema_ctx *c, const ast_node *e) {
    const sema_const *k = sema_const_of(c, e);
    if (!k)
        return 0;
    if (k->kind == CV_STRING)
        return k->slen;
    /* a named list or map constant is built by a function of its own,
     * emitted once; a literal is emitted again with its elements */
    if (e->kind != AST_LIST_LIT && e->kind != AST_MAP_LIT)
        return 0;
    uint64_t n = 0;
    for (uint32_t i = 0; i < e->list.len; i++) {
        const ast_node *x = e->list.items[i];
        n += e->kind == AST_MAP_LIT ? const_string_bytes(c, x->a) + const_string_bytes(c, x->b)
                                    : const_string_bytes(c, x);
    }
    return n;
}

bool sema_charge_default(sema_ctx *c, const ast_node *at, const ast_node *dflt) {
    uint64_t n = const_string_bytes(c, dflt);
    return n == 0 || sema_charge_const_work(c, at, n);
}

/* A list or map literal of constants is a constant (`const WORKERS =
 * ["w1", "w2"]`): each use makes the literal afresh. */
static sema_type *mark_const_lit(sema_ctx *c, ast_node *e, sema_type *t) {
    if (ty_is_error(t))
        return t;
    for (uint32_t i = 0; i < e->list.len; i++) {
        const ast_node *x = e->list.items[i];
        if (e->kind == AST_MAP_LIT ? !sema_const_of(c, x->a) || !sema_const_of(c, x->b) : !sema_const_of(c, x))
            return t;
    }
    for (uint32_t i = 0; i < e->list.len; i++) {
        const ast_node *x = e->list.items[i];
        if (e->kind == AST_MAP_LIT ? !charge_const_element(c, x->a) || !charge_const_element(c, x->b)
                                   : !charge_const_element(c, x))
            return e->type = c->t_error;
    }
    sema_const *k = base_alloc(c->arena, sizeof *k);
    k->kind = e->kind == AST_MAP_LIT ? CV_MAP : CV_LIST;
    sema_set_const(c, e, k);
    return t;
}

static sema_type *check_list_lit_parts(sema_ctx *c, ast_node *e, sema_type *expected);
static sema_type *check_map_lit_parts(sema_ctx *c, ast_node *e, sema_type *expected);

static sema_type *check_list_lit(sema_ctx *c, ast_node *e, sema_type *expected) {
    return mark_const_lit(c, e, check_list_lit_parts(c, e, expected));
}

static sema_type *check_map_lit(sema_ctx *c, ast_node *e, sema_type *expected) {
    return mark_const_lit(c, e, check_map_lit_parts(c, e, expected));
}

static sema_type *check_list_lit_parts(sema_ctx *c, ast_node *e, sema_type *expected) {
    if (expected && ty_is_error(expected)) {
        /* the annotation was already reported: check the parts quietly */
        for (uint32_t i = 0; i < e->list.len; i++)
            sema_check_expr(c, e->list.items[i], NULL);
        return c->t_error;
    }
    sema_type *lt = pick_kind(expected, TY_LIST);
    if (lt) {
        for (uint32_t i = 0; i < e->list.len; i++)
            sema_check_value(c, e->list.items[i], lt->elem, "list element");
        return lt;
    }
    if (e->list.len == 0) {
        diag_report(c->d, DIAG_ERROR, e->span,
                    "cannot infer the element type of an empty list: write its type, as in `let xs: [Int] = []`");
        return c->t_error;
    }
    sema_type *acc = NULL;
    bool has_none = false;
    for (uint32_t i = 0; i < e->list.len; i++) {
        ast_node *el = e->list.items[i];
        sema_check_expr(c, el, NULL);
        acc = unify(c, acc, el, &has_none, "list elements");
    }
    if (!acc)
        acc = has_none ? c->t_none : c->t_error;
    else if (has_none)
        acc = ty_optional(c, acc);
    return ty_list(c, acc);
}

static sema_type *check_map_lit_parts(sema_ctx *c, ast_node *e, sema_type *expected) {
    if (expected && ty_is_error(expected)) {
        for (uint32_t i = 0; i < e->list.len; i++) {
            ast_node *en = e->list.items[i];
            sema_check_expr(c, en->a, NULL);
            sema_check_expr(c, en->b, NULL);
        }
        return c->t_error;
    }
    sema_type *mt = pick_kind(expected, TY_MAP);
    if (mt) {
        for (uint32_t i = 0; i < e->list.len; i++) {
            ast_node *en = e->list.items[i];
            sema_check_value(c, en->a, mt->key, "map key");
            sema_check_value(c, en->b, mt->elem, "map value");
            en->type = mt;
        }
        return mt;
    }
    if (e->list.len == 0) {
        diag_report(c->d, DIAG_ERROR, e->span,
                    "cannot infer the type of an empty map: write its type, as in `var m: Map[String, Int] = {}`");
        return c->t_error;
    }
    sema_type *kacc = NULL, *vacc = NULL;
    bool knone = false, vnone = false;
    for (uint32_t i = 0; i < e->list.len; i++) {
        ast_node *en = e->list.items[i];
        sema_check_expr(c, en->a, NULL);
        sema_check_expr(c, en->b, NULL);
        kacc = unify(c, kacc, en->a, &knone, "map keys");
        vacc = unify(c, vacc, en->b, &vnone, "map values");
    }
    if (!kacc)
        kacc = knone ? c->t_none : c->t_error;
    else if (knone)
        kacc = ty_optional(c, kacc);
    if (!vacc)
        vacc = vnone ? c->t_none : c->t_error;
    else if (vnone)
        vacc = ty_optional(c, vacc);
    if (!ty_is_error(kacc) && !ty_comparable(kacc)) {
        diag_report(c->d, DIAG_ERROR, ((ast_node *)e->list.items[0])->a->span, "map key type %s is not comparable",
                    ty_str(c, kacc));
        return c->t_error;
    }
    sema_type *t = ty_map(c, kacc, vacc);
    for (uint32_t i = 0; i < e->list.len; i++)
        ((ast_node *)e->list.items[i])->type = t;
    return t;
}

static sema_type *check_struct_lit(sema_ctx *c, ast_node *e) {
    sema_type *t = e->a ? sema_resolve_type(c, e->a) : c->t_error;
    if (!ty_is_error(t) && t->kind != TY_STRUCT) {
        diag_report(c->d, DIAG_ERROR, e->a->span, "%s is not a struct type", ty_str(c, t));
        t = c->t_error;
    }
    if (ty_is_error(t)) {
        sema_check_args_loose(c, e);
        return c->t_error;
    }
    if (t->sym)
        sema_resolve_sym(c, t->sym);
    bool *given = base_alloc(c->arena, sizeof(bool) * (t->nfields ? t->nfields : 1));
    char what[160];
    for (uint32_t i = 0; i < e->list.len; i++) {
        ast_node *a = e->list.items[i];
        const char *fname = a->name;
        if (!fname && a->a && a->a->kind == AST_IDENT)
            fname = a->a->name; /* shorthand `Point { x, y }` */
        if (!fname) {
            diag_report(c->d, DIAG_ERROR, a->span, "a struct literal names its fields: %s { field: value }", t->name);
            sema_check_expr(c, a->a, NULL);
            continue;
        }
        uint32_t k = 0;
        while (k < t->nfields && t->fields[k].name != fname)
            k++;
        if (k == t->nfields) {
            diag_report(c->d, DIAG_ERROR, name_at(a), "struct %s has no field '%s'", t->name, fname);
            sema_check_expr(c, a->a, NULL);
            continue;
        }
        if (given[k]) {
            diag_report(c->d, DIAG_ERROR, name_at(a), "field '%s' is given more than once", fname);
            sema_check_expr(c, a->a, NULL);
            continue;
        }
        given[k] = true;
        snprintf(what, sizeof what, "field '%s' of %s", fname, t->name);
        a->type = sema_check_value(c, a->a, t->fields[k].type, what);
    }
    for (uint32_t k = 0; k < t->nfields; k++) {
        if (given[k])
            continue;
        const ast_node *d = t->fields[k].decl ? t->fields[k].decl->b : NULL;
        if (!d) {
            diag_report(c->d, DIAG_ERROR, e->a->span, "missing field '%s' in %s literal", t->fields[k].name, t->name);
            continue;
        }
        if (t->sym)
            sema_check_field_defaults(c, t->sym);
        if (!sema_charge_default(c, e, d))
            return c->t_error;
    }
    return t;
}

static sema_type *check_index(sema_ctx *c, ast_node *e) {
    if (e->a && e->a->kind == AST_IDENT) {
        sema_sym *s = scope_lookup(c->scope, e->a->name);
        if (s && s->kind == SYM_TYPE) {
            diag_report(c->d, DIAG_ERROR, e->span, "'%s[...]' is a type, not a value", s->name);
            return c->t_error;
        }
    }
    sema_type *t = sema_check_expr(c, e->a, NULL);
    if (e->list.len != 1) {
        diag_report(c->d, DIAG_ERROR, e->span, "an index expression takes exactly one index");
        for (uint32_t i = 0; i < e->list.len; i++)
            sema_check_expr(c, e->list.items[i], NULL);
        return c->t_error;
    }
    ast_node *ix = e->list.items[0];
    if (ty_is_error(t)) {
        sema_check_expr(c, ix, NULL);
        return c->t_error;
    }
    switch (t->kind) {
    case TY_LIST:
        sema_check_value(c, ix, c->t_int, "list index");
        return t->elem;
    case TY_BYTES:
        sema_check_value(c, ix, c->t_int, "index");
        return c->t_int;
    case TY_MAP:
        sema_check_value(c, ix, t->key, "map key");
        return t->elem;
    default:
        sema_check_expr(c, ix, NULL);
        if (t->kind == TY_UNION)
            diag_report(c->d, DIAG_ERROR, e->span, "cannot index a value of type %s%s", ty_str(c, t),
                        sema_union_hint(c, t));
        else if (t->kind == TY_STRING)
            diag_report(c->d, DIAG_ERROR, e->span, "a String cannot be indexed: use s.bytes()[i] or s.split(...)");
        else
            diag_report(c->d, DIAG_ERROR, e->span, "a value of type %s cannot be indexed", ty_str(c, t));
        return c->t_error;
    }
}

static sema_type *check_spawn(sema_ctx *c, ast_node *e) {
    if (e->c) /* spawn(name: ...): evaluated before the call's arguments */
        sema_check_value(c, e->c, c->t_string, "a task's name");
    if (e->b)
        return ty_task(c, sema_check_spawn_block(c, e->b));
    if (!e->a || e->a->kind != AST_CALL) {
        diag_report(c->d, DIAG_ERROR, e->span, "spawn needs a call, as in `spawn f(x)`, or a block");
        if (e->a)
            sema_check_expr(c, e->a, NULL);
        return c->t_error;
    }
    sema_type *t = sema_check_expr(c, e->a, NULL);
    if (ty_is_error(t))
        return c->t_error;
    return ty_task(c, t->kind == TY_NEVER ? c->t_none : t);
}

/* fn(x: Int) -> Int { ... }: a function value whose body sees the
 * enclosing locals (a `var` is shared, as a spawn block shares it). Its
 * parameters need types and take no defaults (a function value is called
 * with positional arguments); without `-> T` it returns None. */
static sema_type *check_fn_lit(sema_ctx *c, ast_node *e) {
    uint32_t np = e->list.len;
    if (np > SEMA_MAX_PARAMS) {
        diag_report(c->d, DIAG_ERROR, e->span, "a function has at most %d parameters", SEMA_MAX_PARAMS);
        return c->t_error;
    }
    sema_type *ptypes[SEMA_MAX_PARAMS];
    bool bad = false;
    for (uint32_t i = 0; i < np; i++) {
        ast_node *p = e->list.items[i];
        for (uint32_t k = 0; k < i; k++)
            if (p->name && ((ast_node *)e->list.items[k])->name == p->name)
                diag_report(c->d, DIAG_ERROR, name_at(p), "parameter '%s' is declared twice", p->name);
        if (!p->a) {
            diag_report(c->d, DIAG_ERROR, name_at(p), "parameter '%s' needs a type (%s: Type)", p->name, p->name);
            ptypes[i] = c->t_error;
        } else {
            ptypes[i] = sema_resolve_type(c, p->a);
        }
        if (p->b) {
            diag_report(c->d, DIAG_ERROR, p->b->span,
                        "a function literal's parameters take no defaults: a function value is called with positional "
                        "arguments");
            sema_check_expr(c, p->b, ptypes[i]);
        }
        p->type = ptypes[i];
        bad = bad || ty_is_error(ptypes[i]);
    }
    c->never_ok = e->a;
    sema_type *result = e->a ? sema_resolve_type(c, e->a) : c->t_none;
    sema_scope *saved = c->scope;
    c->scope = scope_new(c, c->scope);
    for (uint32_t i = 0; i < np; i++) {
        ast_node *p = e->list.items[i];
        if (!p->name || p->name == c->n_underscore)
            continue;
        sema_sym *ps = sym_new(c, SYM_PARAM, p->name, p, name_at(p));
        ps->type = ptypes[i];
        p->sym = ps;
        if (!scope_find_local(c->scope, p->name))
            scope_add(c, c->scope, ps);
    }
    sema_check_body(c, e->b, result, c->fn ? c->fn->service : NULL);
    c->scope = saved;
    if (bad || ty_is_error(result))
        return c->t_error;
    return ty_fn(c, ptypes, np, result);
}

sema_type *sema_check_expr(sema_ctx *c, ast_node *e, sema_type *expected) {
    if (!e) {
        DIAG_INTERNAL(c->d, "missing expression");
        return c->t_error;
    }
    if (c->depth >= SEMA_MAX_NESTING) {
        diag_report(c->d, DIAG_ERROR, e->span, "expression too deeply nested (more than %d levels)", SEMA_MAX_NESTING);
        e->type = c->t_error;
        return c->t_error;
    }
    c->depth++;
    sema_type *t = c->t_error;
    switch (e->kind) {
    case AST_INT:
        t = c->t_int;
        set_int(c, e, e->ival);
        break;
    case AST_DURATION:
        t = c->t_duration;
        set_int(c, e, e->ival);
        break;
    case AST_BOOL:
        t = c->t_bool;
        set_bool(c, e, e->ival != 0);
        break;
    case AST_STRING: {
        t = c->t_string;
        sema_const *k = base_alloc(c->arena, sizeof *k);
        k->kind = CV_STRING;
        k->s = e->name ? e->name : "";
        k->slen = e->name ? (size_t)e->ival : 0;
        if (e->name && e->ival == 0)
            k->slen = strlen(e->name);
        if (!string_const_fits(c, e, k->slen, "a string literal")) {
            t = c->t_error;
            break;
        }
        sema_set_const(c, e, k);
        break;
    }
    case AST_NONE: {
        t = c->t_none;
        sema_const *k = base_alloc(c->arena, sizeof *k);
        k->kind = CV_NONE;
        sema_set_const(c, e, k);
        break;
    }
    case AST_INTERP:
        /* any value interpolates, in its natural form */
        for (uint32_t i = 0; i < e->list.len; i++)
            sema_check_expr(c, e->list.items[i], NULL);
        t = c->t_string;
        break;
    case AST_IDENT:
        t = check_ident(c, e);
        break;
    case AST_FIELD_ACCESS:
        t = check_field_access(c, e);
        break;
    case AST_CALL:
        t = sema_check_call(c, e);
        break;
    case AST_INDEX:
        t = check_index(c, e);
        break;
    case AST_UNARY:
        t = check_unary(c, e);
        break;
    case AST_BINARY:
        t = check_binary(c, e);
        break;
    case AST_IS:
        t = check_is(c, e);
        break;
    case AST_RANGE:
        diag_report(c->d, DIAG_ERROR, e->span, "a range is only allowed in a `for` loop or a test's seeds");
        if (e->a)
            sema_check_expr(c, e->a, NULL);
        if (e->b)
            sema_check_expr(c, e->b, NULL);
        break;
    case AST_LIST_LIT:
        t = check_list_lit(c, e, expected);
        break;
    case AST_MAP_LIT:
        t = check_map_lit(c, e, expected);
        break;
    case AST_STRUCT_LIT:
        t = check_struct_lit(c, e);
        break;
    case AST_SPAWN:
        t = check_spawn(c, e);
        break;
    case AST_FN_LIT:
        t = check_fn_lit(c, e);
        break;
    case AST_PAREN: {
        t = sema_check_expr(c, e->a, expected);
        const sema_const *k = sema_const_of(c, e->a);
        if (k)
            sema_set_const(c, e, (sema_const *)k);
        break;
    }
    case AST_MATCH: {
        bool div = false;
        t = sema_check_match(c, e, true, &div);
        break;
    }
    case AST_TYPE_NAME:
    case AST_TYPE_LIST:
    case AST_TYPE_OPTIONAL:
    case AST_TYPE_UNION:
    case AST_TYPE_FN:
        diag_report(c->d, DIAG_ERROR, e->span, "a type is not a value");
        break;
    default:
        DIAG_INTERNAL(c->d, "sema_check_expr: unexpected node %s", ast_kind_name((ast_kind)e->kind));
        break;
    }
    c->depth--;
    /* an error set while folding wins over the computed type */
    if (e->type && ty_is_error(e->type) && e->kind == AST_BINARY)
        t = c->t_error;
    e->type = t;
    return t;
}
