/* methods.c: the built-in methods of String, Bytes, lists and maps
 * (docs/language.md §10), mostly calls of the core runtime. Arguments may
 * be labelled with the parameter names of the reference. */
#include "codegen/cg_internal.h"

#include <string.h>

bool cg_method_args(cg_module *m, const ast_node *e, const char *const *names, const sema_type *const *types,
                    unsigned n, LLVMValueRef *vals) {
    unsigned pos = 0;
    bool given[4] = {0};
    for (uint32_t i = 0; i < e->list.len; i++) {
        const ast_node *arg = e->list.items[i];
        unsigned k = pos;
        if (arg->name) {
            for (k = 0; k < n && strcmp(names[k], arg->name) != 0; k++) {
            }
        } else {
            pos++;
        }
        if (k >= n || k >= 4) {
            cg_unsupported(m, arg->span, "this method argument");
            return false;
        }
        given[k] = true;
        if (!(vals[k] = cg_value(m, arg->a, types[k]))) return false;
    }
    for (unsigned k = 0; k < n && k < 4; k++)
        if (!given[k]) {
            cg_unsupported(m, e->span, "a method call without one of its arguments");
            return false;
        }
    return true;
}

LLVMValueRef cg_optional(cg_module *m, LLVMValueRef found, LLVMValueRef word, const sema_type *t,
                         const sema_type *opt) {
    if (cg_scalar_opt(opt) == t) /* unboxed: no branch, no box */
        return cg_opt_make(m, cg_opt_type(m, t), LLVMBuildSelect(m->b, found, word, cg_i64(m, 0), ""), found);
    LLVMBasicBlockRef from = LLVMGetInsertBlock(m->b);
    LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "some");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "opt.done");
    LLVMBuildCondBr(m->b, found, yes, done);
    LLVMPositionBuilderAtEnd(m->b, yes);
    LLVMValueRef v = cg_coerce(m, cg_from_word(m, word, t), t, opt);
    LLVMBasicBlockRef yes_end = LLVMGetInsertBlock(m->b);
    LLVMBuildBr(m->b, done);
    LLVMPositionBuilderAtEnd(m->b, done);
    /* a boxed union (none NULL), or an unboxed optional element (none zero) */
    LLVMValueRef phi = LLVMBuildPhi(m->b, LLVMTypeOf(v), "");
    LLVMValueRef vals[2] = {LLVMConstNull(LLVMTypeOf(v)), v};
    LLVMBasicBlockRef bbs[2] = {from, yes_end};
    LLVMAddIncoming(phi, vals, bbs, 2);
    return phi;
}

/* A runtime call `bool f(recv, [arg,] oxl_word *out)` giving a T?. */
static LLVMValueRef try_get(cg_module *m, const char *fn, LLVMValueRef recv, LLVMValueRef arg, const sema_type *t,
                            const sema_type *opt) {
    LLVMValueRef out = cg_entry_alloca(m, m->t_i64, "out");
    LLVMTypeRef ps[3] = {m->t_ptr, m->t_i64, LLVMPointerType(m->t_i64, 0)};
    LLVMValueRef args[3] = {recv, arg, out};
    LLVMValueRef found;
    if (arg) {
        found = cg_rt_bool(m, fn, ps, args, 3);
    } else {
        ps[1] = ps[2];
        args[1] = out;
        found = cg_rt_bool(m, fn, ps, args, 2);
    }
    return cg_optional(m, found, LLVMBuildLoad2(m->b, m->t_i64, out, ""), t, opt);
}

/* xs.contains(x) for union elements: a loop comparing with ==. */
static LLVMValueRef contains_loop(cg_module *m, LLVMValueRef list, LLVMValueRef x, const sema_type *et,
                                  base_span at) {
    LLVMValueRef idx = cg_entry_alloca(m, m->t_i64, "i");
    LLVMValueRef res = cg_entry_alloca(m, m->t_i1, "found");
    LLVMBuildStore(m->b, cg_i64(m, 0), idx);
    LLVMBuildStore(m->b, LLVMConstInt(m->t_i1, 0, 0), res);
    LLVMBasicBlockRef cond = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "contains.cond");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "contains.body");
    LLVMBasicBlockRef hit = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "contains.hit");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "contains.next");
    LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "contains.end");
    LLVMBuildBr(m->b, cond);
    LLVMPositionBuilderAtEnd(m->b, cond);
    LLVMValueRef i = LLVMBuildLoad2(m->b, m->t_i64, idx, "");
    LLVMBuildCondBr(m->b, LLVMBuildICmp(m->b, LLVMIntSLT, i, cg_list_len(m, list), ""), body, end);
    LLVMPositionBuilderAtEnd(m->b, body);
    LLVMValueRef el = cg_from_word(m, cg_list_at(m, list, i, at), et);
    LLVMBuildCondBr(m->b, cg_values_eq(m, el, et, x, et), hit, next);
    LLVMPositionBuilderAtEnd(m->b, hit);
    LLVMBuildStore(m->b, LLVMConstInt(m->t_i1, 1, 0), res);
    LLVMBuildBr(m->b, end);
    LLVMPositionBuilderAtEnd(m->b, next);
    LLVMBuildStore(m->b, LLVMBuildAdd(m->b, i, cg_i64(m, 1), ""), idx);
    LLVMBuildBr(m->b, cond);
    LLVMPositionBuilderAtEnd(m->b, end);
    return LLVMBuildLoad2(m->b, m->t_i1, res, "");
}

static LLVMValueRef list_method(cg_module *m, const ast_node *e, sema_method id, LLVMValueRef l,
                                const sema_type *lt, const sema_type *int_t) {
    const sema_type *et = lt->elem;
    LLVMValueRef file = cg_file_ptr(m, e->span), line = cg_line(m, e->span);
    LLVMValueRef v[2];
    switch (id) {
    case SM_LIST_LEN: return cg_list_len(m, l);
    case SM_LIST_PUSH: {
        static const char *const n[] = {"x"};
        const sema_type *ty[] = {et};
        if (!cg_method_args(m, e, n, ty, 1, v)) return NULL;
        cg_list_push(m, l, cg_to_word(m, v[0], et), e->span);
        return LLVMConstNull(m->t_ptr);
    }
    case SM_LIST_POP: return try_get(m, "oxl_list_try_pop", l, NULL, et, e->type);
    case SM_LIST_GET: {
        static const char *const n[] = {"i"};
        const sema_type *ty[] = {int_t};
        if (!cg_method_args(m, e, n, ty, 1, v)) return NULL;
        return try_get(m, "oxl_list_get", l, v[0], et, e->type);
    }
    case SM_LIST_CONTAINS: {
        static const char *const n[] = {"x"};
        const sema_type *ty[] = {et};
        if (!cg_method_args(m, e, n, ty, 1, v)) return NULL;
        LLVMTypeRef ps[2] = {m->t_ptr, m->t_i64};
        LLVMValueRef args[2] = {l, cg_to_word(m, v[0], et)};
        if (cg_is_string_like(et)) {
            ps[1] = m->t_ptr;
            args[1] = v[0];
            return cg_rt_bool(m, "oxl_list_contains_str", ps, args, 2);
        }
        if (et->kind == TY_UNION || et->kind == TY_LIST || et->kind == TY_MAP || et->kind == TY_STRUCT)
            return contains_loop(m, l, v[0], et, e->span); /* by == */
        return cg_rt_bool(m, "oxl_list_contains", ps, args, 2);
    }
    case SM_LIST_INSERT: {
        static const char *const n[] = {"i", "x"};
        const sema_type *ty[] = {int_t, et};
        if (!cg_method_args(m, e, n, ty, 2, v)) return NULL;
        LLVMTypeRef ps[5] = {m->t_ptr, m->t_i64, m->t_i64, m->t_ptr, m->t_i32};
        LLVMValueRef args[5] = {l, v[0], cg_to_word(m, v[1], et), file, line};
        cg_rt(m, "oxl_list_insert", m->t_void, ps, args, 5);
        return LLVMConstNull(m->t_ptr);
    }
    case SM_LIST_REMOVE: {
        static const char *const n[] = {"i"};
        const sema_type *ty[] = {int_t};
        if (!cg_method_args(m, e, n, ty, 1, v)) return NULL;
        LLVMTypeRef ps[4] = {m->t_ptr, m->t_i64, m->t_ptr, m->t_i32};
        LLVMValueRef args[4] = {l, v[0], file, line};
        return cg_from_word(m, cg_rt(m, "oxl_list_remove", m->t_i64, ps, args, 4), et);
    }
    case SM_LIST_SLICE: {
        static const char *const n[] = {"from", "to"};
        const sema_type *ty[] = {int_t, int_t};
        if (!cg_method_args(m, e, n, ty, 2, v)) return NULL;
        LLVMTypeRef ps[5] = {m->t_ptr, m->t_i64, m->t_i64, m->t_ptr, m->t_i32};
        LLVMValueRef args[5] = {l, v[0], v[1], file, line};
        return cg_rt(m, "oxl_list_slice", m->t_ptr, ps, args, 5);
    }
    default: cg_unsupported(m, e->span, "this list method"); return NULL;
    }
}

/* String and Bytes methods: runtime calls, one table line each. */
static LLVMValueRef string_method(cg_module *m, const ast_node *e, sema_method id, LLVMValueRef s,
                                  const sema_type *st) {
    static const struct {
        sema_method id;
        const char *rt, *param;
        char res; /* 'B' C bool, 'S' a String or list pointer */
    } methods[] = {
        {SM_STR_CONTAINS, "oxl_str_contains", "s", 'B'},       {SM_STR_STARTS_WITH, "oxl_str_starts_with", "prefix", 'B'},
        {SM_STR_ENDS_WITH, "oxl_str_ends_with", "suffix", 'B'}, {SM_STR_SPLIT, "oxl_str_split", "sep", 'S'},
        {SM_STR_TRIM, "oxl_str_trim", NULL, 'S'},              {SM_STR_TO_UPPER, "oxl_str_to_upper", NULL, 'S'},
        {SM_STR_TO_LOWER, "oxl_str_to_lower", NULL, 'S'},      {SM_STR_BYTES, "oxl_str_bytes", NULL, 'S'},
    };
    if (id == SM_STR_LEN || id == SM_BYTES_LEN) /* struct oxl_str_obj starts with its int64_t len (also Bytes) */
        return LLVMBuildLoad2(m->b, m->t_i64, LLVMBuildBitCast(m->b, s, LLVMPointerType(m->t_i64, 0), ""), "");
    for (size_t k = 0; st->kind == TY_STRING && k < sizeof methods / sizeof methods[0]; k++) {
        if (methods[k].id != id) continue;
        LLVMValueRef args[2] = {s, NULL};
        LLVMTypeRef ps[2] = {m->t_ptr, m->t_ptr};
        unsigned n = 1;
        if (methods[k].param) {
            const char *const names[] = {methods[k].param};
            const sema_type *ty[] = {st};
            if (!cg_method_args(m, e, names, ty, 1, args + 1)) return NULL;
            n = 2;
        }
        if (methods[k].res == 'B') return cg_rt_bool(m, methods[k].rt, ps, args, n);
        return cg_rt(m, methods[k].rt, m->t_ptr, ps, args, n);
    }
    cg_unsupported(m, e->span, st->kind == TY_STRING ? "this String method" : "this Bytes method");
    return NULL;
}

/* The Int type, found where sema put it: list.get's and remove's index. */
static const sema_type *int_type_of(const ast_node *e) {
    for (uint32_t i = 0; i < e->list.len; i++) {
        const ast_node *a = e->list.items[i];
        if (a->a && a->a->type && a->a->type->kind == TY_INT) return a->a->type;
    }
    return NULL;
}

LLVMValueRef cg_method(cg_module *m, const ast_node *e) {
    const ast_node *callee = e->a;
    sema_method id = (sema_method)callee->ival; /* sema's */
    const sema_type *rt_ = callee->a->type;
    if (!cg_type(m, rt_, callee->a->span, false)) return NULL;
    LLVMValueRef recv = cg_operand(m, callee->a, m->t_ptr);
    if (!recv || LLVMIsUndef(recv)) return recv;
    switch (rt_->kind) {
    case TY_STRING:
    case TY_BYTES: return string_method(m, e, id, recv, rt_);
    case TY_LIST: {
        const sema_type *int_t = int_type_of(e);
        if (!int_t && (id == SM_LIST_GET || id == SM_LIST_INSERT || id == SM_LIST_REMOVE || id == SM_LIST_SLICE)) {
            /* every index argument is an Int expression: its type is Int */
            cg_unsupported(m, e->span, "this list method call");
            return NULL;
        }
        return list_method(m, e, id, recv, rt_, int_t);
    }
    case TY_MAP: return cg_map_method_on(m, e, id, recv, rt_);
    default: cg_unsupported(m, e->span, "this method"); return NULL;
    }
}
