/* expr.c: expressions: Int and Bool arithmetic with overflow and division
 * checks, comparisons, short-circuit logic, locals, calls, print, panic,
 * strings and interpolation (through the runtime's string builder). */
#include "codegen/cg_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cg_panic_call(cg_module *m, const char *rt_fn, base_span at) {
    LLVMTypeRef ps[2] = {m->t_ptr, m->t_i32};
    LLVMValueRef f = cg_runtime_fn(m, rt_fn, m->t_void, ps, 2, true);
    LLVMValueRef args[2] = {cg_file_ptr(m, at), cg_line(m, at)};
    cg_call(m, f, args, 2);
    LLVMBuildUnreachable(m->b);
}

/* Branches to a panic block when bad is true; continues after it. */
static void check(cg_module *m, LLVMValueRef bad, const char *rt_fn, base_span at) {
    LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "panic");
    LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "ok");
    LLVMBuildCondBr(m->b, bad, fail, ok);
    LLVMPositionBuilderAtEnd(m->b, fail);
    cg_panic_call(m, rt_fn, at);
    LLVMPositionBuilderAtEnd(m->b, ok);
}

static LLVMValueRef overflow_op(cg_module *m, const char *intrinsic, LLVMValueRef a, LLVMValueRef b, base_span at) {
    LLVMTypeRef rt[2] = {m->t_i64, m->t_i1};
    LLVMTypeRef res = LLVMStructTypeInContext(m->ctx, rt, 2, 0);
    LLVMTypeRef ps[2] = {m->t_i64, m->t_i64};
    LLVMValueRef f = cg_runtime_fn(m, intrinsic, res, ps, 2, false);
    LLVMValueRef args[2] = {a, b};
    LLVMValueRef r = cg_call(m, f, args, 2);
    check(m, LLVMBuildExtractValue(m->b, r, 1, ""), "oxl_panic_overflow", at);
    return LLVMBuildExtractValue(m->b, r, 0, "");
}

/* e as a value of type want. An expression of type Never (panic(...))
 * ends its block: what follows goes into a dead block and uses undef. */
LLVMValueRef cg_operand(cg_module *m, const ast_node *e, LLVMTypeRef want) {
    LLVMValueRef v = cg_expr(m, e);
    if (!v) return NULL;
    if (cg_terminated(m) || (e->type && e->type->kind == TY_NEVER)) {
        if (cg_terminated(m)) cg_start_dead_block(m);
        return LLVMGetUndef(want);
    }
    return v;
}

LLVMValueRef cg_value(cg_module *m, const ast_node *e, const sema_type *to) {
    LLVMTypeRef want = cg_type(m, to, e->span, false);
    if (!want) return NULL;
    LLVMValueRef v = cg_operand(m, e, want);
    if (!v || LLVMIsUndef(v)) return v;
    base_span save = m->at;
    m->at = e->span;
    v = cg_coerce(m, v, e->type, to);
    m->at = save;
    return v;
}

LLVMValueRef cg_arith(cg_module *m, int op, LLVMValueRef a, LLVMValueRef b, base_span at) {
    switch (op) {
    case AST_OP_ADD: return overflow_op(m, "llvm.sadd.with.overflow.i64", a, b, at);
    case AST_OP_SUB: return overflow_op(m, "llvm.ssub.with.overflow.i64", a, b, at);
    case AST_OP_MUL: return overflow_op(m, "llvm.smul.with.overflow.i64", a, b, at);
    case AST_OP_DIV:
        check(m, LLVMBuildICmp(m->b, LLVMIntEQ, b, cg_i64(m, 0), ""), "oxl_panic_div_zero", at);
        check(m,
              LLVMBuildAnd(m->b, LLVMBuildICmp(m->b, LLVMIntEQ, b, cg_i64(m, -1), ""),
                           LLVMBuildICmp(m->b, LLVMIntEQ, a, cg_i64(m, INT64_MIN), ""), ""),
              "oxl_panic_overflow", at);
        return LLVMBuildSDiv(m->b, a, b, "");
    case AST_OP_MOD: {
        check(m, LLVMBuildICmp(m->b, LLVMIntEQ, b, cg_i64(m, 0), ""), "oxl_panic_div_zero", at);
        /* x % -1 is 0; srem would trap on Int min */
        LLVMValueRef safe = LLVMBuildSelect(m->b, LLVMBuildICmp(m->b, LLVMIntEQ, b, cg_i64(m, -1), ""), cg_i64(m, 1), b, "");
        return LLVMBuildSRem(m->b, a, safe, "");
    }
    default: return NULL;
    }
}

static LLVMValueRef logic(cg_module *m, const ast_node *e) {
    bool is_and = e->op == AST_OP_AND;
    LLVMValueRef l = cg_operand(m, e->a, m->t_i1);
    if (!l) return NULL;
    LLVMBasicBlockRef from = LLVMGetInsertBlock(m->b);
    LLVMBasicBlockRef rhs = LLVMAppendBasicBlockInContext(m->ctx, m->fn, is_and ? "and.rhs" : "or.rhs");
    LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(m->ctx, m->fn, is_and ? "and.end" : "or.end");
    if (is_and) LLVMBuildCondBr(m->b, l, rhs, end);
    else LLVMBuildCondBr(m->b, l, end, rhs);
    LLVMPositionBuilderAtEnd(m->b, rhs);
    LLVMValueRef r = cg_operand(m, e->b, m->t_i1);
    if (!r) return NULL;
    LLVMBasicBlockRef rhs_end = LLVMGetInsertBlock(m->b);
    LLVMBuildBr(m->b, end);
    LLVMPositionBuilderAtEnd(m->b, end);
    LLVMValueRef phi = LLVMBuildPhi(m->b, m->t_i1, "");
    LLVMValueRef vals[2] = {LLVMConstInt(m->t_i1, is_and ? 0 : 1, 0), r};
    LLVMBasicBlockRef bbs[2] = {from, rhs_end};
    LLVMAddIncoming(phi, vals, bbs, 2);
    return phi;
}

static bool is_kind(const ast_node *e, sema_tkind k) { return e->type && e->type->kind == k; }

/* Int and Duration are both i64 words; sema has checked which mixes exist. */
static bool int_like(const ast_node *e) { return is_kind(e, TY_INT) || is_kind(e, TY_DURATION) || is_kind(e, TY_INSTANT); }

/* A runtime predicate returning C bool, declared as i8 and tested != 0. */
/* A runtime predicate over n pointers (strings, bytes). */
static LLVMValueRef rt_bool(cg_module *m, const char *name, LLVMValueRef *args, unsigned n) {
    LLVMTypeRef ps[2] = {m->t_ptr, m->t_ptr};
    return cg_rt_bool(m, name, ps, args, n);
}

static LLVMValueRef string_binary(cg_module *m, const ast_node *e) {
    LLVMValueRef args[2];
    if (!(args[0] = cg_operand(m, e->a, m->t_ptr))) return NULL;
    if (!(args[1] = cg_operand(m, e->b, m->t_ptr))) return NULL;
    LLVMTypeRef ps[2] = {m->t_ptr, m->t_ptr};
    LLVMIntPredicate p;
    switch (e->op) {
    case AST_OP_EQ: return rt_bool(m, "oxl_str_eq", args, 2);
    case AST_OP_NE: return LLVMBuildNot(m->b, rt_bool(m, "oxl_str_eq", args, 2), "");
    case AST_OP_ADD: return cg_call(m, cg_runtime_fn(m, "oxl_str_concat", m->t_ptr, ps, 2, false), args, 2);
    case AST_OP_LT: p = LLVMIntSLT; break;
    case AST_OP_LE: p = LLVMIntSLE; break;
    case AST_OP_GT: p = LLVMIntSGT; break;
    case AST_OP_GE: p = LLVMIntSGE; break;
    default: cg_unsupported(m, e->span, "this operator on strings"); return NULL;
    }
    LLVMValueRef c = cg_call(m, cg_runtime_fn(m, "oxl_str_cmp", m->t_i32, ps, 2, false), args, 2);
    return LLVMBuildICmp(m->b, p, c, LLVMConstInt(m->t_i32, 0, 0), "");
}

/* == and != on unions, optionals, none and Bytes: tags, then values. */
static LLVMValueRef equality(cg_module *m, const ast_node *e) {
    LLVMTypeRef lt = cg_type(m, e->a->type, e->a->span, false), rt = cg_type(m, e->b->type, e->b->span, false);
    if (!lt || !rt) return NULL;
    LLVMValueRef l = cg_operand(m, e->a, lt);
    if (!l) return NULL;
    LLVMValueRef r = cg_operand(m, e->b, rt);
    if (!r) return NULL;
    LLVMValueRef eq = cg_values_eq(m, l, e->a->type, r, e->b->type);
    return e->op == AST_OP_NE ? LLVMBuildNot(m->b, eq, "") : eq;
}

static bool needs_equality(const ast_node *x) {
    return is_kind(x, TY_UNION) || is_kind(x, TY_NONE) || is_kind(x, TY_BYTES) || is_kind(x, TY_LIST) ||
           is_kind(x, TY_MAP) || is_kind(x, TY_STRUCT);
}

/* a ?? b: a's value is tested for none (the NULL box, or an unboxed
 * optional without its value); b is evaluated only when a is none. */
static LLVMValueRef coalesce(cg_module *m, const ast_node *e) {
    const sema_type *rt = e->type;
    LLVMTypeRef t = cg_type(m, rt, e->span, false);
    LLVMTypeRef at = cg_type(m, e->a->type, e->a->span, false);
    if (!t || !at) return NULL;
    LLVMValueRef l = cg_operand(m, e->a, at);
    if (!l) return NULL;
    LLVMBasicBlockRef some = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "qq.some");
    LLVMBasicBlockRef none = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "qq.none");
    LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "qq.end");
    LLVMBuildCondBr(m->b, cg_is_none(m, l, e->a->type), none, some);
    LLVMPositionBuilderAtEnd(m->b, some);
    base_span save = m->at;
    m->at = e->a->span;
    LLVMValueRef lv = cg_coerce(m, l, e->a->type, rt); /* unboxes, or keeps the box of a wider union */
    m->at = save;
    LLVMBasicBlockRef some_end = LLVMGetInsertBlock(m->b);
    LLVMBuildBr(m->b, end);
    LLVMPositionBuilderAtEnd(m->b, none);
    LLVMValueRef rv = cg_value(m, e->b, rt);
    if (!rv) return NULL;
    LLVMBasicBlockRef none_end = LLVMGetInsertBlock(m->b); /* a dead block after `?? panic(...)` */
    unsigned n = 1;
    if (!cg_terminated(m)) {
        LLVMBuildBr(m->b, end);
        n = 2;
    }
    LLVMPositionBuilderAtEnd(m->b, end);
    LLVMValueRef phi = LLVMBuildPhi(m->b, t, "qq");
    LLVMValueRef vals[2] = {lv, rv};
    LLVMBasicBlockRef bbs[2] = {some_end, none_end};
    LLVMAddIncoming(phi, vals, bbs, n);
    return phi;
}

static LLVMValueRef binary(cg_module *m, const ast_node *e) {
    if (e->op == AST_OP_COALESCE) return coalesce(m, e);
    if (e->op == AST_OP_AND || e->op == AST_OP_OR) return logic(m, e);
    const ast_node *a = e->a;
    if ((e->op == AST_OP_EQ || e->op == AST_OP_NE) && (needs_equality(a) || needs_equality(e->b)))
        return equality(m, e);
    if (is_kind(a, TY_STRING) && is_kind(e->b, TY_STRING)) return string_binary(m, e);
    bool ints = int_like(a) && int_like(e->b);
    bool bools = is_kind(a, TY_BOOL) && is_kind(e->b, TY_BOOL);
    if (!ints && !(bools && (e->op == AST_OP_EQ || e->op == AST_OP_NE))) {
        cg_unsupported(m, e->span, "this operator on these types");
        return NULL;
    }
    LLVMTypeRef t = ints ? m->t_i64 : m->t_i1;
    LLVMValueRef l = cg_operand(m, a, t);
    if (!l) return NULL;
    LLVMValueRef r = cg_operand(m, e->b, t);
    if (!r) return NULL;
    LLVMIntPredicate p;
    switch (e->op) {
    case AST_OP_EQ: p = LLVMIntEQ; break;
    case AST_OP_NE: p = LLVMIntNE; break;
    case AST_OP_LT: p = LLVMIntSLT; break;
    case AST_OP_LE: p = LLVMIntSLE; break;
    case AST_OP_GT: p = LLVMIntSGT; break;
    case AST_OP_GE: p = LLVMIntSGE; break;
    default: {
        LLVMValueRef v = cg_arith(m, e->op, l, r, e->span);
        if (!v) cg_unsupported(m, e->span, "this operator");
        return v;
    }
    }
    return LLVMBuildICmp(m->b, p, l, r, "");
}

static LLVMValueRef unary(cg_module *m, const ast_node *e) {
    LLVMValueRef v = cg_operand(m, e->a, is_kind(e->a, TY_BOOL) ? m->t_i1 : m->t_i64);
    if (!v) return NULL;
    if ((e->op == AST_OP_NOT || e->op == '!') && is_kind(e->a, TY_BOOL)) return LLVMBuildNot(m->b, v, "");
    if ((e->op == AST_OP_NEG || e->op == '-') && int_like(e->a)) {
        check(m, LLVMBuildICmp(m->b, LLVMIntEQ, v, cg_i64(m, INT64_MIN), ""), "oxl_panic_overflow", e->span);
        return LLVMBuildNeg(m->b, v, "");
    }
    cg_unsupported(m, e->span, "this operator on this type");
    return NULL;
}

static LLVMValueRef str_lit(cg_module *m, const char *s, int64_t len) {
    LLVMTypeRef ps[2] = {m->t_ptr, m->t_i64};
    LLVMValueRef f = cg_runtime_fn(m, "oxl_str_from_lit", m->t_ptr, ps, 2, false);
    LLVMValueRef args[2] = {cg_cstring(m, s, (size_t)len), cg_i64(m, len)};
    return cg_call(m, f, args, 2);
}

/* Appends the text of e to the builder at sb. */
static bool sb_append(cg_module *m, LLVMValueRef sb, const ast_node *e) {
    LLVMTypeRef ps[3] = {LLVMPointerType(m->t_sb, 0), m->t_ptr, m->t_i64};
    if (e->kind == AST_STRING) {
        LLVMValueRef f = cg_runtime_fn(m, "oxl_sb_lit", m->t_void, ps, 3, false);
        LLVMValueRef args[3] = {sb, cg_cstring(m, e->name ? e->name : "", (size_t)e->ival), cg_i64(m, e->ival)};
        cg_call(m, f, args, 3);
        return true;
    }
    LLVMValueRef v = cg_expr(m, e);
    if (!v) return false;
    if (cg_terminated(m)) { /* "{panic(...)}" */
        cg_start_dead_block(m);
        return true;
    }
    return cg_fmt_append(m, sb, v, e->type, e->span);
}

LLVMValueRef cg_to_string(cg_module *m, const ast_node *e) {
    if (e->kind == AST_STRING) return str_lit(m, e->name ? e->name : "", e->ival);
    if (is_kind(e, TY_STRING) && e->kind != AST_INTERP) return cg_expr(m, e);
    /* a builder per interpolation: parts may hold interpolations of their own */
    LLVMValueRef sb = cg_entry_alloca(m, m->t_sb, "sb");
    LLVMTypeRef ps[1] = {LLVMPointerType(m->t_sb, 0)};
    LLVMValueRef init = cg_runtime_fn(m, "oxl_sb_init", m->t_void, ps, 1, false);
    cg_call(m, init, &sb, 1);
    if (e->kind == AST_INTERP) {
        for (uint32_t i = 0; i < e->list.len; i++)
            if (!sb_append(m, sb, e->list.items[i])) return NULL;
    } else if (!sb_append(m, sb, e)) {
        return NULL;
    }
    LLVMValueRef fin = cg_runtime_fn(m, "oxl_sb_finish", m->t_ptr, ps, 1, false);
    return cg_call(m, fin, &sb, 1);
}

/* ---- lists: struct oxl_list_obj { int64_t len, cap; oxl_word *items; } ---- */

static bool word_is_int(const sema_type *t) {
    return t->kind == TY_INT || t->kind == TY_DURATION || t->kind == TY_INSTANT;
}

LLVMValueRef cg_to_word(cg_module *m, LLVMValueRef v, const sema_type *t) {
    if (t->kind == TY_BOOL) return LLVMBuildZExt(m->b, v, m->t_i64, "");
    if (word_is_int(t)) return v;
    if (cg_scalar_opt(t)) return LLVMBuildPtrToInt(m->b, cg_opt_to_box(m, v, cg_scalar_opt(t)), m->t_i64, "");
    return LLVMBuildPtrToInt(m->b, v, m->t_i64, ""); /* every other value is a pointer */
}

LLVMValueRef cg_from_word(cg_module *m, LLVMValueRef w, const sema_type *t) {
    if (t->kind == TY_BOOL) return LLVMBuildTrunc(m->b, w, m->t_i1, "");
    if (word_is_int(t)) return w;
    if (cg_scalar_opt(t))
        return cg_opt_from_box(m, LLVMBuildIntToPtr(m->b, w, m->t_ptr, ""), cg_opt_type(m, cg_scalar_opt(t)));
    return LLVMBuildIntToPtr(m->b, w, m->t_ptr, "");
}

static LLVMValueRef list_field(cg_module *m, LLVMValueRef list, unsigned idx, LLVMTypeRef t) {
    LLVMValueRef p = LLVMBuildBitCast(m->b, list, LLVMPointerType(m->t_i64, 0), "");
    LLVMValueRef off = LLVMConstInt(m->t_i64, idx, 0);
    p = LLVMBuildInBoundsGEP2(m->b, m->t_i64, p, &off, 1, "");
    if (t != m->t_i64) p = LLVMBuildBitCast(m->b, p, LLVMPointerType(t, 0), "");
    return LLVMBuildLoad2(m->b, t, p, "");
}

LLVMValueRef cg_list_len(cg_module *m, LLVMValueRef list) { return list_field(m, list, 0, m->t_i64); }

/* list[i] with the runtime's "index out of range [i] with length n" panic. */
LLVMValueRef cg_list_at(cg_module *m, LLVMValueRef list, LLVMValueRef i, base_span at) {
    LLVMValueRef len = cg_list_len(m, list);
    LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "index.fail");
    LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "index.ok");
    LLVMBuildCondBr(m->b, LLVMBuildICmp(m->b, LLVMIntULT, i, len, ""), ok, fail);
    LLVMPositionBuilderAtEnd(m->b, fail);
    LLVMTypeRef ps[4] = {m->t_ptr, m->t_i32, m->t_i64, m->t_i64};
    LLVMValueRef f = cg_runtime_fn(m, "oxl_panic_index", m->t_void, ps, 4, true);
    LLVMValueRef args[4] = {cg_file_ptr(m, at), cg_line(m, at), i, len};
    cg_call(m, f, args, 4);
    LLVMBuildUnreachable(m->b);
    LLVMPositionBuilderAtEnd(m->b, ok);
    LLVMValueRef items = list_field(m, list, 2, LLVMPointerType(m->t_i64, 0));
    LLVMValueRef p = LLVMBuildInBoundsGEP2(m->b, m->t_i64, items, &i, 1, "");
    return LLVMBuildLoad2(m->b, m->t_i64, p, "");
}

LLVMValueRef cg_list_push(cg_module *m, LLVMValueRef list, LLVMValueRef w, base_span at) {
    LLVMTypeRef ps[4] = {m->t_ptr, m->t_i64, m->t_ptr, m->t_i32};
    LLVMValueRef f = cg_runtime_fn(m, "oxl_list_push", m->t_void, ps, 4, false);
    LLVMValueRef args[4] = {list, w, cg_file_ptr(m, at), cg_line(m, at)};
    return cg_call(m, f, args, 4);
}

static LLVMValueRef list_lit(cg_module *m, const ast_node *e) {
    LLVMTypeRef lt = cg_type(m, e->type, e->span, false);
    if (!lt) return NULL;
    LLVMTypeRef ps[1] = {m->t_i64};
    LLVMValueRef n = cg_i64(m, (long long)e->list.len);
    LLVMValueRef list = cg_call(m, cg_runtime_fn(m, "oxl_list_new", m->t_ptr, ps, 1, false), &n, 1);
    const sema_type *et = e->type->elem;
    LLVMTypeRef elt = cg_type(m, et, e->span, false);
    if (!elt) return NULL;
    for (uint32_t i = 0; i < e->list.len; i++) {
        const ast_node *x = e->list.items[i];
        LLVMValueRef v = cg_value(m, x, et);
        if (!v) return NULL;
        cg_list_push(m, list, cg_to_word(m, v, et), x->span);
    }
    return list;
}

static LLVMValueRef index_expr(cg_module *m, const ast_node *e) {
    if (is_kind(e->a, TY_MAP) && e->list.len == 1) {
        const sema_type *mt = e->a->type;
        LLVMValueRef map = cg_operand(m, e->a, m->t_ptr);
        if (!map) return NULL;
        LLVMValueRef k = cg_value(m, e->list.items[0], mt->key);
        if (!k) return NULL;
        return cg_from_word(m, cg_map_at(m, map, cg_to_word(m, k, mt->key), e->span), mt->elem);
    }
    if (is_kind(e->a, TY_BYTES) && e->list.len == 1) {
        LLVMValueRef b = cg_operand(m, e->a, m->t_ptr);
        if (!b) return NULL;
        LLVMValueRef i = cg_operand(m, e->list.items[0], m->t_i64);
        if (!i) return NULL;
        LLVMTypeRef ps[4] = {m->t_ptr, m->t_i64, m->t_ptr, m->t_i32};
        LLVMValueRef f = cg_runtime_fn(m, "oxl_bytes_at", m->t_i64, ps, 4, false);
        LLVMValueRef args[4] = {b, i, cg_file_ptr(m, e->span), cg_line(m, e->span)};
        return cg_call(m, f, args, 4);
    }
    if (!is_kind(e->a, TY_LIST) || e->list.len != 1) {
        cg_unsupported(m, e->span, "indexing this type");
        return NULL;
    }
    LLVMValueRef list = cg_operand(m, e->a, m->t_ptr);
    if (!list || !cg_type(m, e->a->type, e->a->span, false)) return NULL;
    LLVMValueRef i = cg_operand(m, e->list.items[0], m->t_i64);
    if (!i) return NULL;
    return cg_from_word(m, cg_list_at(m, list, i, e->span), e->a->type->elem);
}

/* The arguments of a call in parameter order: positional ones, then
 * labelled ones, evaluated in the order written; then the defaults of the
 * parameters left out, evaluated afresh at each call. */
static bool call_args(cg_module *m, const ast_node *e, const sema_sig *sig, LLVMValueRef *vals,
                      const ast_node **deadline, const ast_node **to) {
    const ast_node *given[SEMA_MAX_PARAMS + 1] = {0};
    uint32_t pos = 0;
    for (uint32_t i = 0; i < e->list.len; i++) {
        const ast_node *arg = e->list.items[i];
        uint32_t k = pos;
        if (arg->name && deadline && strcmp(arg->name, "deadline") == 0) {
            *deadline = arg;
            continue;
        }
        if (arg->name && to && strcmp(arg->name, "to") == 0) {
            *to = arg;
            continue;
        }
        if (arg->name) {
            for (k = 0; k < sig->nparams && strcmp(sig->params[k].name ? sig->params[k].name : "", arg->name); k++) {
            }
        } else {
            pos++;
        }
        if (k >= sig->nparams || k > SEMA_MAX_PARAMS) {
            cg_unsupported(m, arg->span, "this argument");
            return false;
        }
        given[k] = arg;
        if (!(vals[k] = cg_value(m, arg->a, sig->params[k].type))) return false;
    }
    for (uint32_t k = 0; k < sig->nparams && k <= SEMA_MAX_PARAMS; k++) {
        if (given[k]) continue;
        const ast_node *d = sig->params[k].dflt;
        if (!d) {
            cg_unsupported(m, e->span, "a call without one of its arguments");
            return false;
        }
        if (!(vals[k] = cg_value(m, d, sig->params[k].type))) return false;
    }
    return true;
}

bool cg_call_args(cg_module *m, const ast_node *e, const sema_sig *sig, LLVMValueRef *vals) {
    return call_args(m, e, sig, vals, NULL, NULL);
}

bool cg_call_args_remote(cg_module *m, const ast_node *e, const sema_sig *sig, LLVMValueRef *vals,
                         const ast_node **deadline, const ast_node **to) {
    *deadline = *to = NULL;
    return call_args(m, e, sig, vals, deadline, to);
}

static void add_zext(cg_module *m, LLVMValueRef f, LLVMValueRef call, unsigned idx) {
    unsigned k = LLVMGetEnumAttributeKindForName("zeroext", 7);
    if (f) LLVMAddAttributeAtIndex(f, idx, LLVMCreateEnumAttribute(m->ctx, k, 0));
    if (call) LLVMAddCallSiteAttribute(call, idx, LLVMCreateEnumAttribute(m->ctx, k, 0));
}

/* An extern fn: the runtime's C function, with the C ABI of its types
 * (Bool is a zero-extended i1, as clang passes a C bool). */
static LLVMValueRef extern_fn(cg_module *m, const sema_sym *s, base_span at) {
    /* sema mangled it: oxl_ + package path + mods + name, joined by _ */
    const char *buf = s->cname ? s->cname : s->name;
    LLVMValueRef f = LLVMGetNamedFunction(m->mod, buf);
    if (f) return f;
    const sema_sig *sig = s->sig;
    LLVMTypeRef res = cg_type(m, sig->result, at, true);
    if (!res) return NULL;
    LLVMTypeRef ps[SEMA_MAX_PARAMS + 1];
    for (uint32_t i = 0; i < sig->nparams && i <= SEMA_MAX_PARAMS; i++)
        if (!(ps[i] = cg_type(m, sig->params[i].type, at, false))) return NULL;
    f = LLVMAddFunction(m->mod, buf, LLVMFunctionType(res, ps, sig->nparams, 0));
    for (uint32_t i = 0; i < sig->nparams; i++)
        if (sig->params[i].type->kind == TY_BOOL) add_zext(m, f, NULL, i + 1);
    if (sig->result && sig->result->kind == TY_BOOL) add_zext(m, f, NULL, LLVMAttributeReturnIndex);
    return f;
}

/* The value of a call whose LLVM result may be void: none. A call of a
 * function declared `-> Never` ends its block. */
static LLVMValueRef call_result(cg_module *m, LLVMValueRef r, const sema_type *result) {
    if (result && result->kind == TY_NEVER) LLVMBuildUnreachable(m->b);
    if (LLVMGetTypeKind(LLVMTypeOf(r)) == LLVMVoidTypeKind) return LLVMConstNull(m->t_ptr);
    return r;
}

/* Stores the call's file and line in the runtime's oxl_extern_site, after
 * the arguments are evaluated (they may call externs too), so the C
 * function behind the extern reports panics and blocks at this line. */
static void set_extern_site(cg_module *m, base_span at) {
    LLVMValueRef site = LLVMGetNamedGlobal(m->mod, "oxl_extern_site");
    if (!site) {
        LLVMTypeRef fields[2] = {m->t_ptr, m->t_i32};
        site = LLVMAddGlobal(m->mod, LLVMStructTypeInContext(m->ctx, fields, 2, 0), "oxl_extern_site");
        LLVMSetLinkage(site, LLVMExternalLinkage);
    }
    LLVMTypeRef t = LLVMGlobalGetValueType(site);
    LLVMBuildStore(m->b, cg_file_ptr(m, at), LLVMBuildStructGEP2(m->b, t, site, 0, ""));
    LLVMBuildStore(m->b, cg_line(m, at), LLVMBuildStructGEP2(m->b, t, site, 1, ""));
}

/* The LLVM function of a named OxL function: its declaration for an
 * extern, the generated definition otherwise (NULL when there is none). */
LLVMValueRef cg_fn_of(cg_module *m, const sema_sym *s, base_span at) {
    if (s->is_extern) return extern_fn(m, s, at);
    char *name = cg_fn_symbol(m, s->decl, s->pkg);
    LLVMValueRef f = LLVMGetNamedFunction(m->mod, name);
    free(name);
    return f;
}

static bool in_std(const sema_pkg *p) { return p && p->path && strncmp(p->path, "std.", 4) == 0; }

/* Whose line a runtime panic names: an extern call stores its own site,
 * except inside the standard library, whose wrappers (std.store's put over
 * its externs) report at the user's call into std: that call stores the
 * site, and std code calling its own externs leaves it (language.md §5). */
static bool stores_site(const cg_module *m, const sema_sym *callee) {
    const sema_sym *fn = m->fn_decl ? m->fn_decl->sym : NULL;
    if (fn && in_std(fn->pkg)) return false;
    return callee->is_extern || in_std(callee->pkg);
}

bool cg_is_method(const sema_sym *s) {
    return s && s->kind == SYM_FN && s->owner && s->owner->kind == SYM_TYPE && s->decl &&
           (s->decl->flags & AST_F_METHOD);
}

bool cg_fn_args(cg_module *m, const ast_node *e, const sema_sym *s, LLVMValueRef *vals) {
    if (!cg_is_method(s)) return cg_call_args(m, e, s->sig, vals);
    /* x.m(args): x is `self`, evaluated first */
    const ast_node *recv = e->a->a;
    if (!(vals[0] = cg_value(m, recv, s->sig->params[0].type))) return false;
    sema_sig rest = *s->sig;
    rest.params++;
    rest.nparams--;
    return cg_call_args(m, e, &rest, vals + 1);
}

static LLVMValueRef call_fn(cg_module *m, const ast_node *e, const sema_sym *s) {
    LLVMValueRef f = cg_fn_of(m, s, e->span);
    if (!f) {
        if (!m->failed) cg_unsupported(m, e->span, "calls to this function");
        return NULL;
    }
    LLVMValueRef args[SEMA_MAX_PARAMS + 1];
    if (!cg_fn_args(m, e, s, args)) return NULL;
    if (stores_site(m, s)) set_extern_site(m, e->span);
    LLVMValueRef r = cg_call(m, f, args, s->sig->nparams);
    if (s->is_extern) cg_extern_call_attrs(m, s, r);
    return call_result(m, r, s->sig->result);
}

void cg_extern_call_attrs(cg_module *m, const sema_sym *s, LLVMValueRef call) {
    for (uint32_t i = 0; i < s->sig->nparams; i++)
        if (s->sig->params[i].type->kind == TY_BOOL) add_zext(m, NULL, call, i + 1);
    if (s->sig->result && s->sig->result->kind == TY_BOOL) add_zext(m, NULL, call, LLVMAttributeReturnIndex);
}

static LLVMValueRef call_value(cg_module *m, const ast_node *e, const ast_node *callee) {
    return cg_call_value(m, e, callee);
}

static LLVMValueRef call(cg_module *m, const ast_node *e) {
    const ast_node *callee = e->a;
    const sema_sym *s = callee->sym;
    LLVMValueRef handled;
    if (cg_task_call(m, e, &handled)) return handled;
    if (callee->kind == AST_FIELD_ACCESS && !s && callee->a &&
        (is_kind(callee->a, TY_STRING) || is_kind(callee->a, TY_BYTES) || is_kind(callee->a, TY_LIST) ||
         is_kind(callee->a, TY_MAP)))
        return cg_method(m, e);
    if (e->type && e->type->kind == TY_MAP && (callee->kind == AST_INDEX || callee->kind == AST_TYPE_NAME))
        return cg_map_new(m, e->type); /* Map[K, V]() */
    if (callee->kind == AST_FIELD_ACCESS && !s && callee->a && is_kind(callee->a, TY_STRUCT) && callee->type &&
        callee->type->kind == TY_FN)
        return call_value(m, e, callee);
    if (!s) {
        if (callee->type && callee->type->kind == TY_FN) return call_value(m, e, callee);
        cg_unsupported(m, e->span, "this kind of call");
        return NULL;
    }
    if (s->kind == SYM_BUILTIN) {
        const ast_node *arg = e->list.items[0];
        LLVMValueRef str = cg_to_string(m, arg->a);
        if (!str) return NULL;
        if (s->builtin == BI_PRINT) {
            LLVMTypeRef ps[1] = {m->t_ptr};
            cg_call(m, cg_runtime_fn(m, "oxl_print", m->t_void, ps, 1, false), &str, 1);
            return LLVMConstNull(m->t_ptr);
        }
        LLVMTypeRef ps[3] = {m->t_ptr, m->t_i32, m->t_ptr};
        LLVMValueRef f = cg_runtime_fn(m, "oxl_panic_msg", m->t_void, ps, 3, true);
        LLVMValueRef args[3] = {cg_file_ptr(m, e->span), cg_line(m, e->span), str};
        cg_call(m, f, args, 3);
        LLVMBuildUnreachable(m->b);
        return LLVMConstNull(m->t_ptr);
    }
    if (s->kind == SYM_FN && s->is_rpc && (e->flags & AST_F_REMOTE)) return cg_rpc_call(m, e);
    if (s->kind == SYM_FN && s->sig) return call_fn(m, e, s); /* an rpc inside its service: a plain call */
    if ((s->kind == SYM_LOCAL || s->kind == SYM_PARAM) && callee->type && callee->type->kind == TY_FN)
        return call_value(m, e, callee);
    cg_unsupported(m, e->span, "calls to this function");
    return NULL;
}

/* A list or map constant: a function of its own builds the literal afresh
 * at each use (changing one changes no other), with its locations in its
 * own subprogram. */
static LLVMValueRef const_literal(cg_module *m, const sema_sym *s) {
    char *sym = cg_fn_symbol(m, s->decl, s->pkg); /* "oxl.<pkg>.<mods>.<name>" */
    size_t n = strlen(sym) + 8;
    char *name = malloc(n);
    if (!name) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    snprintf(name, n, "oxl.const%s", sym + 3);
    free(sym);
    LLVMValueRef f = LLVMGetNamedFunction(m->mod, name);
    if (!f) {
        cg_fn_state st;
        cg_fn_save(m, &st);
        f = LLVMAddFunction(m->mod, name, LLVMFunctionType(m->t_ptr, NULL, 0, 0));
        LLVMSetLinkage(f, LLVMInternalLinkage);
        m->fn = f;
        m->fn_decl = NULL;
        m->entry = LLVMAppendBasicBlockInContext(m->ctx, f, "entry");
        LLVMPositionBuilderAtEnd(m->b, m->entry);
        LLVMValueRef v = cg_value(m, s->decl->b, s->type);
        if (v) LLVMBuildRet(m->b, v);
        cg_fn_restore(m, &st);
        if (!v) f = NULL;
    }
    free(name);
    if (!f) return NULL;
    cg_debug_loc(m, m->at); /* the call is at the use */
    return cg_call(m, f, NULL, 0);
}

static LLVMValueRef ident(cg_module *m, const ast_node *e) {
    const sema_sym *s = e->sym;
    if (s && (s->kind == SYM_LOCAL || s->kind == SYM_PARAM)) {
        LLVMValueRef slot = cg_sym_slot(m, s);
        /* a narrowed view (docs/language.md 7.7) reads its origin's slot
         * and unboxes or re-checks the member */
        const sema_type *held = s->owner ? s->owner->type : s->type;
        LLVMTypeRef t = cg_type(m, held, e->span, false);
        if (!t) return NULL;
        if (slot) {
            LLVMValueRef v = LLVMBuildLoad2(m->b, t, slot, e->name ? e->name : "");
            return s->owner ? cg_coerce(m, v, held, s->type) : v;
        }
    }
    if (s && s->kind == SYM_STATE) { /* a service's state: a word of the node's state */
        LLVMValueRef slot = cg_state_slot(m, s, e->span);
        if (!slot) return NULL;
        return cg_from_word(m, LLVMBuildLoad2(m->b, m->t_i64, slot, e->name ? e->name : ""), s->type);
    }
    if (s && s->kind == SYM_FN && s->sig) {
        /* a named function as a value (an rpc too: sema allows that only in its service, where it
         * is a plain function): the constant closure of its trampoline */
        LLVMValueRef v = cg_fn_value(m, s, e->span);
        if (v) return v;
    }
    if (s && s->kind == SYM_CONST && s->cval) {
        if (s->cval->kind == CV_NONE) return LLVMConstNull(m->t_ptr);
        if (s->cval->kind == CV_INT) return cg_i64(m, s->cval->i);
        if (s->cval->kind == CV_BOOL) return LLVMConstInt(m->t_i1, s->cval->i != 0, 0);
        if (s->cval->kind == CV_STRING) return str_lit(m, s->cval->s ? s->cval->s : "", (int64_t)s->cval->slen);
        if ((s->cval->kind == CV_LIST || s->cval->kind == CV_MAP) && s->decl && s->decl->b) return const_literal(m, s);
    }
    cg_unsupported(m, e->span, "this kind of name");
    return NULL;
}

LLVMValueRef cg_field_access(cg_module *m, const ast_node *e) {
    if (e->sym) return ident(m, e); /* a module's member: m.f, m.C */
    const sema_type *ot = e->a ? e->a->type : NULL;
    if (!ot || ot->kind != TY_STRUCT || !e->type) {
        cg_unsupported(m, e->span, "this field access");
        return NULL;
    }
    LLVMValueRef o = cg_operand(m, e->a, m->t_ptr);
    if (!o || LLVMIsUndef(o)) return o;
    LLVMValueRef p = cg_field_ptr(m, o, ot, e->name);
    if (!p) return NULL;
    return cg_from_word(m, LLVMBuildLoad2(m->b, m->t_i64, p, e->name ? e->name : ""), e->type);
}

static LLVMValueRef is_test(cg_module *m, const ast_node *e) {
    const sema_type *t = e->a->type;
    LLVMTypeRef lt = cg_type(m, t, e->a->span, false);
    if (!lt) return NULL;
    LLVMValueRef v = cg_operand(m, e->a, lt);
    if (!v) return NULL;
    if (!e->b || !e->b->type) {
        cg_unsupported(m, e->span, "this 'is' test");
        return NULL;
    }
    return cg_tag_in(m, cg_union_tag(m, v, t), e->b->type);
}

static LLVMValueRef expr(cg_module *m, const ast_node *e);

LLVMValueRef cg_expr(cg_module *m, const ast_node *e) {
    cg_cut_long_block(m);
    base_span save = m->at;
    m->at = e->span;
    cg_debug_loc(m, e->span);
    LLVMValueRef v = expr(m, e);
    m->at = save;
    cg_debug_loc(m, save); /* what the parent emits next is the parent's */
    return v;
}

static LLVMValueRef expr(cg_module *m, const ast_node *e) {
    switch (e->kind) {
    case AST_INT: return cg_i64(m, e->ival);
    case AST_BOOL: return LLVMConstInt(m->t_i1, e->ival != 0, 0);
    case AST_PAREN: return cg_expr(m, e->a);
    case AST_STRING:
    case AST_INTERP: return cg_to_string(m, e);
    case AST_IDENT: return ident(m, e);
    case AST_BINARY: return binary(m, e);
    case AST_UNARY: return unary(m, e);
    case AST_CALL: return call(m, e);
    case AST_DURATION: return cg_i64(m, e->ival);
    case AST_LIST_LIT: return list_lit(m, e);
    case AST_MAP_LIT: return cg_map_lit(m, e);
    case AST_STRUCT_LIT: return cg_struct_lit(m, e);
    case AST_SPAWN: return cg_spawn(m, e);
    case AST_FN_LIT: return cg_fn_lit(m, e);
    case AST_NONE: return LLVMConstNull(m->t_ptr);
    case AST_IS: return is_test(m, e);
    case AST_MATCH: return cg_match(m, e, true);
    case AST_INDEX: return index_expr(m, e);
    case AST_FIELD_ACCESS: return cg_field_access(m, e);
    default: cg_unsupported(m, e->span, "this expression"); return NULL;
    }
}
