/* fmt.c: the natural text form of values, for interpolation and print.
 * Scalars print as the runtime's oxl_sb_* write them; a union prints the
 * member it holds (`none` for None); inside a list, map or struct, strings
 * are quoted. Composite types get one helper function per type,
 * `oxl.fmt.<type id>(oxl_sb *, word, depth)`, made on first use; depth
 * bounds the printing of cyclic structures. */
#include "codegen/cg_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CG_FMT_MAX_DEPTH 16

static LLVMTypeRef sb_ptr(cg_module *m) { return LLVMPointerType(m->t_sb, 0); }

static void lit(cg_module *m, LLVMValueRef sb, const char *s) {
    LLVMTypeRef ps[3] = {sb_ptr(m), m->t_ptr, m->t_i64};
    LLVMValueRef f = cg_runtime_fn(m, "oxl_sb_lit", m->t_void, ps, 3, false);
    size_t n = strlen(s);
    LLVMValueRef args[3] = {sb, cg_cstring(m, s, n), cg_i64(m, (int64_t)n)};
    cg_call(m, f, args, 3);
}

static void rt2(cg_module *m, const char *name, LLVMValueRef sb, LLVMValueRef v, LLVMTypeRef vt, bool zext) {
    LLVMTypeRef ps[2] = {sb_ptr(m), vt};
    LLVMValueRef f = cg_runtime_fn(m, name, m->t_void, ps, 2, false);
    unsigned k = LLVMGetEnumAttributeKindForName("zeroext", 7);
    if (zext) LLVMAddAttributeAtIndex(f, 2, LLVMCreateEnumAttribute(m->ctx, k, 0));
    LLVMValueRef args[2] = {sb, v};
    LLVMValueRef c = cg_call(m, f, args, 2);
    if (zext) LLVMAddCallSiteAttribute(c, 2, LLVMCreateEnumAttribute(m->ctx, k, 0));
}

static LLVMValueRef helper_fn(cg_module *m, const sema_type *t);

/* Appends a value held as a word, of type t, at nesting depth. */
static void append_word(cg_module *m, LLVMValueRef sb, LLVMValueRef w, const sema_type *t, LLVMValueRef depth) {
    switch (t->kind) {
    case TY_INT: rt2(m, "oxl_sb_int", sb, w, m->t_i64, false); return;
    case TY_DURATION: rt2(m, "oxl_sb_dur", sb, w, m->t_i64, false); return;
    case TY_BOOL: rt2(m, "oxl_sb_bool", sb, LLVMBuildTrunc(m->b, w, m->t_i1, ""), m->t_i1, true); return;
    case TY_NONE: {
        LLVMTypeRef ps[1] = {sb_ptr(m)};
        cg_call(m, cg_runtime_fn(m, "oxl_sb_none", m->t_void, ps, 1, false), &sb, 1);
        return;
    }
    case TY_INSTANT: rt2(m, "oxl_sb_instant", sb, w, m->t_i64, false); return;
    default: break;
    }
    LLVMValueRef f = helper_fn(m, t);
    LLVMValueRef args[3] = {sb, w, depth};
    cg_call(m, f, args, 3);
}

static LLVMBasicBlockRef bb(cg_module *m, const char *name) {
    return LLVMAppendBasicBlockInContext(m->ctx, m->fn, name);
}

static void fmt_string(cg_module *m, LLVMValueRef sb, LLVMValueRef w, LLVMValueRef depth, bool bytes) {
    LLVMValueRef s = LLVMBuildIntToPtr(m->b, w, m->t_ptr, "");
    if (bytes) {
        rt2(m, "oxl_sb_bytes", sb, s, m->t_ptr, false);
        return;
    }
    LLVMBasicBlockRef top = bb(m, "top"), quoted = bb(m, "quoted"), done = bb(m, "done");
    LLVMBuildCondBr(m->b, LLVMBuildICmp(m->b, LLVMIntEQ, depth, cg_i64(m, 0), ""), top, quoted);
    LLVMPositionBuilderAtEnd(m->b, top);
    rt2(m, "oxl_sb_str", sb, s, m->t_ptr, false);
    LLVMBuildBr(m->b, done);
    LLVMPositionBuilderAtEnd(m->b, quoted);
    rt2(m, "oxl_sb_quoted", sb, s, m->t_ptr, false);
    LLVMBuildBr(m->b, done);
    LLVMPositionBuilderAtEnd(m->b, done);
}

static void fmt_union(cg_module *m, LLVMValueRef sb, LLVMValueRef w, const sema_type *t, LLVMValueRef depth) {
    LLVMValueRef u = LLVMBuildIntToPtr(m->b, w, m->t_ptr, "");
    LLVMValueRef tag = cg_union_tag(m, u, t);
    LLVMBasicBlockRef done = bb(m, "done"), other = bb(m, "other");
    LLVMValueRef sw = LLVMBuildSwitch(m->b, tag, other, t->nitems);
    for (uint32_t i = 0; i < t->nitems; i++) {
        const sema_type *mt = t->items[i];
        LLVMBasicBlockRef c = bb(m, "member");
        LLVMAddCase(sw, cg_i64(m, mt->id), c);
        LLVMPositionBuilderAtEnd(m->b, c);
        if (mt->kind == TY_NONE) append_word(m, sb, cg_i64(m, 0), mt, depth);
        else append_word(m, sb, cg_box_word(m, u), mt, depth);
        LLVMBuildBr(m->b, done);
    }
    LLVMPositionBuilderAtEnd(m->b, other);
    LLVMBuildUnreachable(m->b); /* a box always holds a member */
    LLVMPositionBuilderAtEnd(m->b, done);
}

/* Emits `if depth > max { "..." } else { body }`; returns the block where
 * the body goes and leaves *done for the caller to branch to. */
static void too_deep(cg_module *m, LLVMValueRef sb, LLVMValueRef depth, LLVMBasicBlockRef *done) {
    LLVMBasicBlockRef deep = bb(m, "deep"), body = bb(m, "body");
    *done = bb(m, "done");
    LLVMBuildCondBr(m->b, LLVMBuildICmp(m->b, LLVMIntSGT, depth, cg_i64(m, CG_FMT_MAX_DEPTH), ""), deep, body);
    LLVMPositionBuilderAtEnd(m->b, deep);
    lit(m, sb, "...");
    LLVMBuildBr(m->b, *done);
    LLVMPositionBuilderAtEnd(m->b, body);
}

static LLVMValueRef load_word(cg_module *m, LLVMValueRef base, LLVMValueRef idx) {
    LLVMValueRef p = LLVMBuildBitCast(m->b, base, LLVMPointerType(m->t_i64, 0), "");
    p = LLVMBuildInBoundsGEP2(m->b, m->t_i64, p, &idx, 1, "");
    return LLVMBuildLoad2(m->b, m->t_i64, p, "");
}

static void fmt_list(cg_module *m, LLVMValueRef sb, LLVMValueRef w, const sema_type *t, LLVMValueRef depth) {
    LLVMBasicBlockRef done;
    too_deep(m, sb, depth, &done);
    LLVMValueRef l = LLVMBuildIntToPtr(m->b, w, m->t_ptr, "");
    lit(m, sb, "[");
    LLVMValueRef idx = cg_entry_alloca(m, m->t_i64, "i");
    LLVMBuildStore(m->b, cg_i64(m, 0), idx);
    LLVMValueRef d1 = LLVMBuildAdd(m->b, depth, cg_i64(m, 1), "");
    LLVMBasicBlockRef cond = bb(m, "cond"), body = bb(m, "item"), sep = bb(m, "sep"), item = bb(m, "value"),
                      end = bb(m, "end");
    LLVMBuildBr(m->b, cond);
    LLVMPositionBuilderAtEnd(m->b, cond);
    LLVMValueRef i = LLVMBuildLoad2(m->b, m->t_i64, idx, "");
    LLVMValueRef n = cg_list_len(m, l); /* re-read: a cycle cannot grow it, but stay safe */
    LLVMBuildCondBr(m->b, LLVMBuildICmp(m->b, LLVMIntSLT, i, n, ""), body, end);
    LLVMPositionBuilderAtEnd(m->b, body);
    LLVMBuildCondBr(m->b, LLVMBuildICmp(m->b, LLVMIntEQ, i, cg_i64(m, 0), ""), item, sep);
    LLVMPositionBuilderAtEnd(m->b, sep);
    lit(m, sb, ", ");
    LLVMBuildBr(m->b, item);
    LLVMPositionBuilderAtEnd(m->b, item);
    LLVMValueRef items = LLVMBuildIntToPtr(m->b, load_word(m, l, cg_i64(m, 2)), m->t_ptr, "");
    append_word(m, sb, load_word(m, items, i), t->elem, d1);
    LLVMBuildStore(m->b, LLVMBuildAdd(m->b, i, cg_i64(m, 1), ""), idx);
    LLVMBuildBr(m->b, cond);
    LLVMPositionBuilderAtEnd(m->b, end);
    lit(m, sb, "]");
    LLVMBuildBr(m->b, done);
    LLVMPositionBuilderAtEnd(m->b, done);
}

static void fmt_map(cg_module *m, LLVMValueRef sb, LLVMValueRef w, const sema_type *t, LLVMValueRef depth) {
    LLVMBasicBlockRef done;
    too_deep(m, sb, depth, &done);
    LLVMValueRef mp = LLVMBuildIntToPtr(m->b, w, m->t_ptr, "");
    lit(m, sb, "{");
    LLVMValueRef pos = cg_entry_alloca(m, m->t_i64, "pos");
    LLVMValueRef key = cg_entry_alloca(m, m->t_i64, "key");
    LLVMValueRef val = cg_entry_alloca(m, m->t_i64, "val");
    LLVMValueRef first = cg_entry_alloca(m, m->t_i1, "first");
    LLVMBuildStore(m->b, cg_i64(m, 0), pos);
    LLVMBuildStore(m->b, LLVMConstInt(m->t_i1, 1, 0), first);
    LLVMValueRef d1 = LLVMBuildAdd(m->b, depth, cg_i64(m, 1), "");
    LLVMBasicBlockRef cond = bb(m, "cond"), body = bb(m, "entry"), sep = bb(m, "sep"), item = bb(m, "kv"),
                      end = bb(m, "end");
    LLVMBuildBr(m->b, cond);
    LLVMPositionBuilderAtEnd(m->b, cond);
    LLVMTypeRef pi = LLVMPointerType(m->t_i64, 0);
    LLVMTypeRef ps[4] = {m->t_ptr, pi, pi, pi};
    LLVMValueRef nf = cg_runtime_fn(m, "oxl_map_next", m->t_i8, ps, 4, false);
    LLVMValueRef args[4] = {mp, pos, key, val};
    LLVMValueRef more = cg_call(m, nf, args, 4);
    LLVMBuildCondBr(m->b, LLVMBuildICmp(m->b, LLVMIntNE, more, LLVMConstInt(m->t_i8, 0, 0), ""), body, end);
    LLVMPositionBuilderAtEnd(m->b, body);
    LLVMBuildCondBr(m->b, LLVMBuildLoad2(m->b, m->t_i1, first, ""), item, sep);
    LLVMPositionBuilderAtEnd(m->b, sep);
    lit(m, sb, ", ");
    LLVMBuildBr(m->b, item);
    LLVMPositionBuilderAtEnd(m->b, item);
    LLVMBuildStore(m->b, LLVMConstInt(m->t_i1, 0, 0), first);
    append_word(m, sb, LLVMBuildLoad2(m->b, m->t_i64, key, ""), t->key, d1);
    lit(m, sb, ": ");
    append_word(m, sb, LLVMBuildLoad2(m->b, m->t_i64, val, ""), t->elem, d1);
    LLVMBuildBr(m->b, cond);
    LLVMPositionBuilderAtEnd(m->b, end);
    lit(m, sb, "}");
    LLVMBuildBr(m->b, done);
    LLVMPositionBuilderAtEnd(m->b, done);
}

/* Order { id: 1, total: 3 }: the literal that would build it. */
static void fmt_struct(cg_module *m, LLVMValueRef sb, LLVMValueRef w, const sema_type *t, LLVMValueRef depth) {
    LLVMBasicBlockRef done;
    too_deep(m, sb, depth, &done);
    LLVMValueRef o = LLVMBuildIntToPtr(m->b, w, m->t_ptr, "");
    LLVMValueRef d1 = LLVMBuildAdd(m->b, depth, cg_i64(m, 1), "");
    char buf[300];
    snprintf(buf, sizeof buf, "%s {", t->name ? t->name : "?");
    lit(m, sb, buf);
    for (uint32_t i = 0; i < t->nfields; i++) {
        snprintf(buf, sizeof buf, "%s %s: ", i ? "," : "", t->fields[i].name ? t->fields[i].name : "?");
        lit(m, sb, buf);
        append_word(m, sb, load_word(m, o, cg_i64(m, i)), t->fields[i].type, d1);
    }
    lit(m, sb, t->nfields ? " }" : "}");
    LLVMBuildBr(m->b, done);
    LLVMPositionBuilderAtEnd(m->b, done);
}

static void fmt_body(cg_module *m, LLVMValueRef sb, LLVMValueRef w, const sema_type *t, LLVMValueRef depth) {
    char buf[256];
    switch (t->kind) {
    case TY_STRING: fmt_string(m, sb, w, depth, false); return;
    case TY_BYTES: fmt_string(m, sb, w, depth, true); return;
    case TY_UNION: fmt_union(m, sb, w, t, depth); return;
    case TY_LIST: fmt_list(m, sb, w, t, depth); return;
    case TY_MAP: fmt_map(m, sb, w, t, depth); return;
    case TY_STRUCT: fmt_struct(m, sb, w, t, depth); return;
    case TY_INT:
    case TY_BOOL:
    case TY_DURATION:
    case TY_INSTANT:
    case TY_NONE: append_word(m, sb, w, t, depth); return;
    default: /* channels, tasks, functions: their type */
        buf[0] = '<';
        cg_type_name(t, buf + 1, sizeof buf - 2);
        strcat(buf, ">");
        lit(m, sb, buf);
        return;
    }
}

static LLVMValueRef helper_fn(cg_module *m, const sema_type *t) {
    LLVMValueRef known = cg_helper_find(m, 'f', t);
    if (known) return known;
    char name[48];
    snprintf(name, sizeof name, "oxl.fmt.%u", t->id);
    LLVMTypeRef ps[3] = {sb_ptr(m), m->t_i64, m->t_i64};
    LLVMValueRef f = LLVMAddFunction(m->mod, name, LLVMFunctionType(m->t_void, ps, 3, 0));
    LLVMSetLinkage(f, LLVMInternalLinkage);
    cg_helper_add(m, 'f', t, f);
    /* define it now, then return to the function being generated */
    LLVMValueRef save_fn = m->fn;
    LLVMBasicBlockRef save_entry = m->entry, save_bb = LLVMGetInsertBlock(m->b);
    m->fn = f;
    m->entry = LLVMAppendBasicBlockInContext(m->ctx, f, "entry");
    LLVMPositionBuilderAtEnd(m->b, m->entry);
    fmt_body(m, LLVMGetParam(f, 0), LLVMGetParam(f, 1), t, LLVMGetParam(f, 2));
    LLVMBuildRetVoid(m->b);
    m->fn = save_fn;
    m->entry = save_entry;
    if (save_bb) LLVMPositionBuilderAtEnd(m->b, save_bb);
    return f;
}

bool cg_fmt_append(cg_module *m, LLVMValueRef sb, LLVMValueRef v, const sema_type *t, base_span at) {
    if (!t || t->kind == TY_ERROR || t->kind == TY_NEVER) {
        cg_unsupported(m, at, "interpolating values of this type");
        return false;
    }
    switch (t->kind) {
    case TY_STRING: rt2(m, "oxl_sb_str", sb, v, m->t_ptr, false); return true;
    case TY_BOOL: rt2(m, "oxl_sb_bool", sb, v, m->t_i1, true); return true;
    default: break;
    }
    const sema_type *member = cg_scalar_opt(t);
    if (member) { /* an unboxed optional: its value or none, without a box */
        const sema_type *nm = t->items[0] == member ? t->items[1] : t->items[0];
        LLVMBasicBlockRef some = bb(m, "some"), none = bb(m, "none"), done = bb(m, "done");
        LLVMBuildCondBr(m->b, cg_opt_present(m, v), some, none);
        LLVMPositionBuilderAtEnd(m->b, some);
        append_word(m, sb, cg_opt_word(m, v), member, cg_i64(m, 0));
        LLVMBuildBr(m->b, done);
        LLVMPositionBuilderAtEnd(m->b, none);
        append_word(m, sb, cg_i64(m, 0), nm, cg_i64(m, 0));
        LLVMBuildBr(m->b, done);
        LLVMPositionBuilderAtEnd(m->b, done);
        return true;
    }
    append_word(m, sb, cg_to_word(m, v, t), t, cg_i64(m, 0));
    return true;
}
