/* union.c: unions and optionals. A union value is a pointer to an immutable
 * oxl_box { int64_t tag; oxl_word word; } made by oxl_box_new; `none` is the
 * NULL pointer. An optional of a scalar is unboxed instead (optional.c). The tag is the member's sema type id; types are interned, so
 * widening a value keeps its box. Also `==` across unions and `match`. */
#include "codegen/cg_internal.h"

#include <stdio.h>
#include <string.h>

/* The members of t (t itself when it is not a union); *one is the storage
 * for that case. */
static uint32_t members(const sema_type *t, const sema_type **one, const sema_type *const **items) {
    if (t->kind == TY_UNION) {
        *items = (const sema_type *const *)t->items;
        return t->nitems;
    }
    *one = t;
    *items = one;
    return 1;
}

static const sema_type *none_member(const sema_type *t) {
    if (t->kind == TY_NONE) return t;
    if (t->kind != TY_UNION) return NULL;
    for (uint32_t i = 0; i < t->nitems; i++)
        if (t->items[i]->kind == TY_NONE) return t->items[i];
    return NULL;
}

bool cg_is_string_like(const sema_type *t) { return t->kind == TY_STRING || t->kind == TY_BYTES; }

static void put(char *buf, size_t size, size_t *len, const char *s) {
    size_t n = strlen(s);
    if (*len + n >= size) n = size - 1 - *len;
    memcpy(buf + *len, s, n);
    *len += n;
    buf[*len] = 0;
}

static void type_name(const sema_type *t, char *buf, size_t size, size_t *len, int depth) {
    if (depth > 8) {
        put(buf, size, len, "...");
        return;
    }
    char tmp[8];
    switch (t->kind) {
    case TY_ERROR: put(buf, size, len, "?"); return;
    case TY_NEVER: put(buf, size, len, "Never"); return;
    case TY_NONE: put(buf, size, len, "None"); return;
    case TY_INT: put(buf, size, len, "Int"); return;
    case TY_BOOL: put(buf, size, len, "Bool"); return;
    case TY_STRING: put(buf, size, len, "String"); return;
    case TY_BYTES: put(buf, size, len, "Bytes"); return;
    case TY_DURATION: put(buf, size, len, "Duration"); return;
    case TY_INSTANT: put(buf, size, len, "Instant"); return;
    case TY_LIST:
        put(buf, size, len, "[");
        type_name(t->elem, buf, size, len, depth + 1);
        put(buf, size, len, "]");
        return;
    case TY_MAP:
        put(buf, size, len, "Map[");
        type_name(t->key, buf, size, len, depth + 1);
        put(buf, size, len, ", ");
        type_name(t->elem, buf, size, len, depth + 1);
        put(buf, size, len, "]");
        return;
    case TY_CHAN:
    case TY_TASK:
        put(buf, size, len, t->kind == TY_CHAN ? "Chan[" : "Task[");
        type_name(t->elem, buf, size, len, depth + 1);
        put(buf, size, len, "]");
        return;
    case TY_STRUCT: put(buf, size, len, t->name ? t->name : "?"); return;
    case TY_FN:
        put(buf, size, len, "fn(");
        for (uint32_t i = 0; i < t->nitems; i++) {
            if (i) put(buf, size, len, ", ");
            type_name(t->items[i], buf, size, len, depth + 1);
        }
        put(buf, size, len, ")");
        if (t->elem && t->elem->kind != TY_NONE) {
            put(buf, size, len, " -> ");
            type_name(t->elem, buf, size, len, depth + 1);
        }
        return;
    case TY_UNION: {
        const sema_type *nm = none_member(t);
        if (nm && t->nitems == 2) { /* T? */
            const sema_type *o = t->items[0] == nm ? t->items[1] : t->items[0];
            type_name(o, buf, size, len, depth + 1);
            put(buf, size, len, "?");
            return;
        }
        for (uint32_t i = 0; i < t->nitems; i++) {
            if (i) put(buf, size, len, " | ");
            type_name(t->shown ? t->shown[i] : t->items[i], buf, size, len, depth + 1);
        }
        return;
    }
    }
    snprintf(tmp, sizeof tmp, "%d", (int)t->kind);
    put(buf, size, len, tmp);
}

const char *cg_type_name(const sema_type *t, char *buf, size_t size) {
    size_t len = 0;
    buf[0] = 0;
    type_name(t, buf, size, &len, 0);
    return buf;
}

static LLVMValueRef box_field(cg_module *m, LLVMValueRef box, unsigned idx) {
    LLVMValueRef p = LLVMBuildBitCast(m->b, box, LLVMPointerType(m->t_i64, 0), "");
    if (idx) {
        LLVMValueRef off = LLVMConstInt(m->t_i64, idx, 0);
        p = LLVMBuildInBoundsGEP2(m->b, m->t_i64, p, &off, 1, "");
    }
    return LLVMBuildLoad2(m->b, m->t_i64, p, idx ? "word" : "tag");
}

LLVMValueRef cg_box_word(cg_module *m, LLVMValueRef box) {
    if (LLVMGetTypeKind(LLVMTypeOf(box)) == LLVMStructTypeKind) return cg_opt_word(m, box); /* unboxed */
    return box_field(m, box, 1);
}

LLVMValueRef cg_union_tag(cg_module *m, LLVMValueRef v, const sema_type *t) {
    if (t->kind != TY_UNION) return cg_i64(m, t->id);
    const sema_type *nm = none_member(t), *sm = cg_scalar_opt(t);
    /* a word's box (a list element, say) holds a scalar optional boxed */
    if (sm && LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMStructTypeKind) return LLVMBuildSelect(m->b, cg_opt_present(m, v), cg_i64(m, sm->id), cg_i64(m, nm->id), "tag");
    if (!nm) return box_field(m, v, 0);
    /* none is NULL: read the tag only from a box */
    LLVMBasicBlockRef from = LLVMGetInsertBlock(m->b);
    LLVMBasicBlockRef load = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "tag.box");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "tag.done");
    LLVMValueRef isnull = LLVMBuildIsNull(m->b, v, "");
    LLVMBuildCondBr(m->b, isnull, done, load);
    LLVMPositionBuilderAtEnd(m->b, load);
    LLVMValueRef tag = box_field(m, v, 0);
    LLVMBuildBr(m->b, done);
    LLVMPositionBuilderAtEnd(m->b, done);
    LLVMValueRef phi = LLVMBuildPhi(m->b, m->t_i64, "tag");
    LLVMValueRef vals[2] = {cg_i64(m, nm->id), tag};
    LLVMBasicBlockRef bbs[2] = {from, load};
    LLVMAddIncoming(phi, vals, bbs, 2);
    return phi;
}

LLVMValueRef cg_tag_in(cg_module *m, LLVMValueRef tag, const sema_type *set) {
    if (set->kind == TY_ERROR) return LLVMConstInt(m->t_i1, 1, 0);
    const sema_type *one, *const *items;
    uint32_t n = members(set, &one, &items);
    LLVMValueRef r = NULL;
    for (uint32_t i = 0; i < n; i++) {
        if (items[i]->kind == TY_NEVER) continue;
        LLVMValueRef c = LLVMBuildICmp(m->b, LLVMIntEQ, tag, cg_i64(m, items[i]->id), "");
        r = r ? LLVMBuildOr(m->b, r, c, "") : c;
    }
    return r ? r : LLVMConstInt(m->t_i1, 0, 0);
}

/* Panics unless the tag of v (of union type from) is a member of `to`. */
static void check_tag(cg_module *m, LLVMValueRef v, const sema_type *from, const sema_type *to) {
    LLVMValueRef tag = cg_union_tag(m, v, from);
    LLVMValueRef ok = cg_tag_in(m, tag, to);
    LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "union.mismatch");
    LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "union.ok");
    LLVMBuildCondBr(m->b, ok, cont, fail);
    LLVMPositionBuilderAtEnd(m->b, fail);
    char buf[256];
    cg_type_name(to, buf, sizeof buf);
    LLVMValueRef want = cg_cstring(m, buf, strlen(buf));
    LLVMValueRef got = cg_cstring(m, "?", 1);
    for (uint32_t i = from->nitems; i-- > 0;) {
        const sema_type *mt = from->items[i];
        cg_type_name(mt, buf, sizeof buf);
        LLVMValueRef name = cg_cstring(m, buf, strlen(buf));
        got = LLVMBuildSelect(m->b, LLVMBuildICmp(m->b, LLVMIntEQ, tag, cg_i64(m, mt->id), ""), name, got, "");
    }
    LLVMTypeRef ps[4] = {m->t_ptr, m->t_i32, m->t_ptr, m->t_ptr};
    LLVMValueRef f = cg_runtime_fn(m, "oxl_panic_union", m->t_void, ps, 4, true);
    LLVMValueRef args[4] = {cg_file_ptr(m, m->at), cg_line(m, m->at), want, got};
    cg_call(m, f, args, 4);
    LLVMBuildUnreachable(m->b);
    LLVMPositionBuilderAtEnd(m->b, cont);
}

LLVMValueRef cg_coerce(cg_module *m, LLVMValueRef v, const sema_type *from, const sema_type *to) {
    if (!v || !from || !to || from == to) return v;
    if (from->kind == TY_ERROR || to->kind == TY_ERROR || from->kind == TY_NEVER) return v;
    const sema_type *from_s = cg_scalar_opt(from), *to_s = cg_scalar_opt(to);
    if (to_s) { /* into an unboxed optional */
        LLVMTypeRef ot = cg_opt_type(m, to_s);
        if (from->kind == TY_NONE) return LLVMConstNull(ot);
        if (from->kind != TY_UNION) return cg_opt_make(m, ot, cg_to_word(m, v, from), LLVMConstInt(m->t_i1, 1, 0));
        if (!ty_subset(from, to)) check_tag(m, v, from, to); /* a boxed union narrowed to S? */
        if (from_s) return v;
        return cg_opt_from_box(m, v, ot);
    }
    if (from_s) { /* out of an unboxed optional */
        if (to->kind == TY_UNION) { /* widened (or narrowed) into a boxed union */
            if (!ty_subset(from, to)) check_tag(m, v, from, to);
            return cg_opt_to_box(m, v, from_s);
        }
        check_tag(m, v, from, to);
        if (to->kind == TY_NONE) return LLVMConstNull(m->t_ptr);
        return cg_from_word(m, cg_opt_word(m, v), to);
    }
    if (to->kind == TY_UNION) {
        if (from->kind == TY_UNION) {
            if (!ty_subset(from, to)) check_tag(m, v, from, to);
            return v; /* the same box */
        }
        if (from->kind == TY_NONE) return LLVMConstNull(m->t_ptr);
        LLVMTypeRef ps[2] = {m->t_i64, m->t_i64};
        LLVMValueRef f = cg_runtime_fn(m, "oxl_box_new", m->t_ptr, ps, 2, false);
        LLVMValueRef args[2] = {cg_i64(m, from->id), cg_to_word(m, v, from)};
        return cg_call(m, f, args, 2);
    }
    if (from->kind == TY_UNION) {
        check_tag(m, v, from, to);
        if (to->kind == TY_NONE) return LLVMConstNull(m->t_ptr);
        return cg_from_word(m, cg_box_word(m, v), to);
    }
    return v;
}

/* == on two values of one non-union comparable type. */
static LLVMValueRef scalar_eq(cg_module *m, LLVMValueRef l, LLVMValueRef r, const sema_type *t) {
    if (t->kind == TY_NONE) return LLVMConstInt(m->t_i1, 1, 0);
    if (cg_is_string_like(t)) {
        LLVMTypeRef ps[2] = {m->t_ptr, m->t_ptr};
        LLVMValueRef f = cg_runtime_fn(m, "oxl_str_eq", m->t_i8, ps, 2, false);
        LLVMValueRef args[2] = {l, r};
        return LLVMBuildICmp(m->b, LLVMIntNE, cg_call(m, f, args, 2), LLVMConstInt(m->t_i8, 0, 0), "");
    }
    return LLVMBuildICmp(m->b, LLVMIntEQ, l, r, "");
}

/* A phi of i1 over the blocks that branched to the current one. */
static LLVMValueRef phi2(cg_module *m, LLVMValueRef a, LLVMBasicBlockRef abb, LLVMValueRef b, LLVMBasicBlockRef bbb) {
    LLVMValueRef phi = LLVMBuildPhi(m->b, m->t_i1, "");
    LLVMValueRef vals[2] = {a, b};
    LLVMBasicBlockRef bbs[2] = {abb, bbb};
    LLVMAddIncoming(phi, vals, bbs, 2);
    return phi;
}

/* u (a union) == v (a value of its member type vt). */
static LLVMValueRef member_eq(cg_module *m, LLVMValueRef u, const sema_type *ut, LLVMValueRef v,
                              const sema_type *vt) {
    if (vt->kind == TY_NONE) return cg_is_none(m, u, ut);
    LLVMValueRef same = LLVMBuildICmp(m->b, LLVMIntEQ, cg_union_tag(m, u, ut), cg_i64(m, vt->id), "");
    LLVMBasicBlockRef from = LLVMGetInsertBlock(m->b);
    LLVMBasicBlockRef cmp = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "eq.value");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "eq.done");
    LLVMBuildCondBr(m->b, same, cmp, done);
    LLVMPositionBuilderAtEnd(m->b, cmp);
    LLVMValueRef r = scalar_eq(m, cg_from_word(m, cg_box_word(m, u), vt), v, vt);
    LLVMBasicBlockRef cmp_end = LLVMGetInsertBlock(m->b);
    LLVMBuildBr(m->b, done);
    LLVMPositionBuilderAtEnd(m->b, done);
    return phi2(m, LLVMConstInt(m->t_i1, 0, 0), from, r, cmp_end);
}

/* A type whose == is structural: a list, map or struct, or a union with one. */
static bool deep_eq(const sema_type *t) {
    if (t->kind == TY_LIST || t->kind == TY_MAP || t->kind == TY_STRUCT) return true;
    if (t->kind != TY_UNION) return false;
    for (uint32_t i = 0; i < t->nitems; i++)
        if (deep_eq(t->items[i])) return true;
    return false;
}

/* Structural ==: both values as the wider type, compared by the runtime
 * over its type descriptor (oxl_wire_equal). */
static LLVMValueRef structural_eq(cg_module *m, LLVMValueRef l, const sema_type *lt, LLVMValueRef r,
                                  const sema_type *rt) {
    const sema_type *big = rt->kind == TY_UNION && ty_subset(lt, rt) ? rt : lt;
    l = cg_coerce(m, l, lt, big);
    r = cg_coerce(m, r, rt, big);
    LLVMTypeRef ps[3] = {m->t_ptr, m->t_i64, m->t_i64};
    LLVMValueRef args[3] = {cg_type_desc(m, big), cg_to_word(m, l, big), cg_to_word(m, r, big)};
    return cg_rt_bool(m, "oxl_wire_equal", ps, args, 3);
}

LLVMValueRef cg_values_eq(cg_module *m, LLVMValueRef l, const sema_type *lt, LLVMValueRef r, const sema_type *rt) {
    if (lt->kind != TY_NONE && rt->kind != TY_NONE && (deep_eq(lt) || deep_eq(rt)))
        return structural_eq(m, l, lt, r, rt);
    bool lu = lt->kind == TY_UNION, ru = rt->kind == TY_UNION;
    if (!lu && !ru) return scalar_eq(m, l, r, lt);
    if (lu && !ru) return member_eq(m, l, lt, r, rt);
    if (!lu && ru) return member_eq(m, r, rt, l, lt);
    /* both unions: one is a subset of the other, so boxes are comparable */
    const sema_type *big = ty_subset(lt, rt) ? rt : lt;
    LLVMValueRef tl = cg_union_tag(m, l, lt), tr = cg_union_tag(m, r, rt);
    LLVMValueRef same = LLVMBuildICmp(m->b, LLVMIntEQ, tl, tr, "");
    LLVMBasicBlockRef from = LLVMGetInsertBlock(m->b);
    LLVMBasicBlockRef cmp = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "eq.value");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "eq.done");
    LLVMBuildCondBr(m->b, same, cmp, done);
    LLVMPositionBuilderAtEnd(m->b, cmp);
    const sema_type *nm = none_member(big);
    LLVMValueRef res;
    LLVMBasicBlockRef cmp_end;
    {
        /* same tag: none equals none; otherwise compare the words, strings
         * and bytes by content */
        LLVMBasicBlockRef words = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "eq.words");
        LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "eq.join");
        LLVMValueRef isnone = nm ? LLVMBuildICmp(m->b, LLVMIntEQ, tl, cg_i64(m, nm->id), "") : LLVMConstInt(m->t_i1, 0, 0);
        LLVMBasicBlockRef at_cmp = LLVMGetInsertBlock(m->b);
        LLVMBuildCondBr(m->b, isnone, join, words);
        LLVMPositionBuilderAtEnd(m->b, words);
        LLVMValueRef wl = cg_box_word(m, l), wr = cg_box_word(m, r);
        LLVMValueRef isstr = NULL;
        const sema_type *strt = NULL;
        for (uint32_t i = 0; i < big->nitems; i++)
            if (cg_is_string_like(big->items[i])) {
                strt = big->items[i];
                LLVMValueRef c = LLVMBuildICmp(m->b, LLVMIntEQ, tl, cg_i64(m, big->items[i]->id), "");
                isstr = isstr ? LLVMBuildOr(m->b, isstr, c, "") : c;
            }
        LLVMValueRef weq = LLVMBuildICmp(m->b, LLVMIntEQ, wl, wr, "");
        if (isstr) {
            LLVMBasicBlockRef sbb = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "eq.str");
            LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "eq.strdone");
            LLVMBasicBlockRef wbb = LLVMGetInsertBlock(m->b);
            LLVMBuildCondBr(m->b, isstr, sbb, after);
            LLVMPositionBuilderAtEnd(m->b, sbb);
            LLVMValueRef seq = scalar_eq(m, LLVMBuildIntToPtr(m->b, wl, m->t_ptr, ""),
                                         LLVMBuildIntToPtr(m->b, wr, m->t_ptr, ""), strt);
            LLVMBasicBlockRef send = LLVMGetInsertBlock(m->b);
            LLVMBuildBr(m->b, after);
            LLVMPositionBuilderAtEnd(m->b, after);
            weq = phi2(m, weq, wbb, seq, send);
        }
        LLVMBasicBlockRef words_end = LLVMGetInsertBlock(m->b);
        LLVMBuildBr(m->b, join);
        LLVMPositionBuilderAtEnd(m->b, join);
        res = phi2(m, LLVMConstInt(m->t_i1, 1, 0), at_cmp, weq, words_end);
        cmp_end = LLVMGetInsertBlock(m->b);
    }
    LLVMBuildBr(m->b, done);
    LLVMPositionBuilderAtEnd(m->b, done);
    return phi2(m, LLVMConstInt(m->t_i1, 0, 0), from, res, cmp_end);
}

static bool is_expr_kind(int k) { return k >= AST_INT && k <= AST_PAREN; }

LLVMValueRef cg_match(cg_module *m, const ast_node *s, bool as_expr) {
    const sema_type *st = s->a->type;
    LLVMTypeRef stt = cg_type(m, st, s->a->span, false);
    if (!stt) return NULL;
    LLVMValueRef subj = cg_operand(m, s->a, stt);
    if (!subj) return NULL;
    m->at = s->a->span;
    LLVMValueRef tag = st->kind == TY_UNION ? cg_union_tag(m, subj, st) : NULL;
    const sema_type *rt = as_expr ? s->type : NULL;
    LLVMValueRef res = NULL;
    if (rt && rt->kind != TY_NONE && rt->kind != TY_NEVER) {
        LLVMTypeRef t = cg_type(m, rt, s->span, false);
        if (!t) return NULL;
        res = cg_entry_alloca(m, t, "match");
    }
    LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "match.end");
    for (uint32_t i = 0; i < s->list.len; i++) {
        const ast_node *arm = s->list.items[i];
        if (arm->flags & AST_F_DEAD) continue; /* a narrowing ruled it out (sema warned) */
        const sema_type *pt = arm->type ? arm->type : st;
        LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "arm");
        LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "arm.next");
        LLVMValueRef cond = !arm->a || !tag ? LLVMConstInt(m->t_i1, 1, 0) : cg_tag_in(m, tag, pt);
        LLVMBuildCondBr(m->b, cond, body, next);
        LLVMPositionBuilderAtEnd(m->b, body);
        if (arm->sym && pt->kind != TY_NEVER) {
            LLVMTypeRef bt = cg_type(m, pt, arm->name_span, false);
            if (!bt) return NULL;
            LLVMValueRef slot = cg_entry_alloca(m, bt, arm->name ? arm->name : "");
            m->at = arm->span;
            LLVMBuildStore(m->b, cg_coerce(m, subj, st, pt), slot);
            cg_add_local(m, arm, slot);
        }
        const ast_node *b = arm->b;
        if (b && is_expr_kind(b->kind)) {
            LLVMValueRef v = cg_expr(m, b);
            if (!v) return NULL;
            if (!cg_terminated(m) && res && b->type && b->type->kind != TY_NEVER) {
                m->at = b->span;
                LLVMBuildStore(m->b, cg_coerce(m, v, b->type, rt), res);
            }
        } else if (b && !(b->kind == AST_BLOCK ? cg_block(m, b) : cg_stmt(m, b))) {
            return NULL;
        }
        if (!cg_terminated(m)) LLVMBuildBr(m->b, end);
        LLVMPositionBuilderAtEnd(m->b, next);
    }
    /* sema proved the arms exhaustive */
    LLVMBuildUnreachable(m->b);
    LLVMPositionBuilderAtEnd(m->b, end);
    if (res) return LLVMBuildLoad2(m->b, LLVMGetAllocatedType(res), res, "");
    return LLVMConstNull(m->t_ptr);
}
