/* map.c: Map[K, V]: the runtime's insertion-ordered maps of words (the key
 * kind is chosen at creation: words for Int, Bool, Duration and Instant
 * keys, contents for String and Bytes keys). */
#include "codegen/cg_internal.h"

#include <stdio.h>
#include <string.h>

static bool word_key(const sema_type *k) {
    return k->kind == TY_INT || k->kind == TY_BOOL || k->kind == TY_DURATION || k->kind == TY_INSTANT ||
           k->kind == TY_NONE;
}

/* Union keys: the runtime compares boxes by tag and value; it gets the tags
 * of the String and Bytes members (compared by content) as a constant. */
LLVMValueRef cg_key_tags(cg_module *m, const sema_type *k, unsigned *count) {
    LLVMValueRef tags[SEMA_MAX_UNION];
    unsigned n = 0;
    for (uint32_t i = 0; i < k->nitems && n < SEMA_MAX_UNION; i++) {
        const sema_type *mt = k->items[i];
        if (cg_is_string_like(mt)) tags[n++] = LLVMConstInt(m->t_i64, mt->id, 0);
        else if (!word_key(mt)) {
            cg_unsupported(m, m->at, "maps with keys of this type");
            return NULL;
        }
    }
    *count = n;
    LLVMValueRef arr = LLVMConstNull(m->t_ptr);
    if (n) {
        LLVMValueRef init = LLVMConstArray(m->t_i64, tags, n);
        char name[48];
        snprintf(name, sizeof name, ".keytags.%u", k->id);
        LLVMValueRef g = LLVMGetNamedGlobal(m->mod, name);
        if (!g) {
            g = LLVMAddGlobal(m->mod, LLVMTypeOf(init), name);
            LLVMSetInitializer(g, init);
            LLVMSetGlobalConstant(g, 1);
            LLVMSetLinkage(g, LLVMPrivateLinkage);
        }
        arr = LLVMConstBitCast(g, m->t_ptr);
    }
    return arr;
}

static LLVMValueRef union_key_map(cg_module *m, const sema_type *k) {
    unsigned n = 0;
    LLVMValueRef arr = cg_key_tags(m, k, &n);
    if (!arr) return NULL;
    LLVMTypeRef ps[2] = {m->t_ptr, m->t_i64};
    LLVMValueRef f = cg_runtime_fn(m, "oxl_map_new_union", m->t_ptr, ps, 2, false);
    LLVMValueRef args[2] = {arr, LLVMConstInt(m->t_i64, n, 0)};
    return cg_call(m, f, args, 2);
}

LLVMValueRef cg_map_new(cg_module *m, const sema_type *t) {
    const sema_type *k = t->key;
    int kind; /* oxl_key_kind */
    if (k->kind == TY_UNION) return union_key_map(m, k);
    switch (k->kind) {
    case TY_INT: kind = 0; break;
    case TY_STRING: kind = 1; break;
    case TY_BOOL: kind = 3; break;
    case TY_DURATION: kind = 4; break;
    case TY_INSTANT: kind = 5; break;
    case TY_BYTES: kind = 6; break;
    case TY_NONE: kind = 0; break;
    default: kind = -1; break;
    }
    if (kind < 0) {
        cg_unsupported(m, m->at, "maps with keys of this type");
        return NULL;
    }
    LLVMTypeRef ps[1] = {m->t_i32};
    LLVMValueRef f = cg_runtime_fn(m, "oxl_map_new", m->t_ptr, ps, 1, false);
    LLVMValueRef arg = LLVMConstInt(m->t_i32, (unsigned)kind, 0);
    return cg_call(m, f, &arg, 1);
}

/* m[k]: panics "key not found: <key>" at `at`. */
LLVMValueRef cg_map_at(cg_module *m, LLVMValueRef map, LLVMValueRef key_word, base_span at) {
    LLVMTypeRef ps[4] = {m->t_ptr, m->t_i64, m->t_ptr, m->t_i32};
    LLVMValueRef args[4] = {map, key_word, cg_file_ptr(m, at), cg_line(m, at)};
    return cg_rt(m, "oxl_map_at", m->t_i64, ps, args, 4);
}

void cg_map_set(cg_module *m, LLVMValueRef map, LLVMValueRef key_word, LLVMValueRef val_word, base_span at) {
    LLVMTypeRef ps[5] = {m->t_ptr, m->t_i64, m->t_i64, m->t_ptr, m->t_i32};
    LLVMValueRef args[5] = {map, key_word, val_word, cg_file_ptr(m, at), cg_line(m, at)};
    cg_rt(m, "oxl_map_set", m->t_void, ps, args, 5);
}

/* {k: v, ...}: entries set in the order written (a repeated key keeps its
 * first position and its last value). */
LLVMValueRef cg_map_lit(cg_module *m, const ast_node *e) {
    const sema_type *mt = e->type;
    if (!mt || mt->kind != TY_MAP) {
        cg_unsupported(m, e->span, "this map literal");
        return NULL;
    }
    LLVMValueRef map = cg_map_new(m, mt);
    if (!map) return NULL;
    for (uint32_t i = 0; i < e->list.len; i++) {
        const ast_node *en = e->list.items[i];
        LLVMValueRef k = cg_value(m, en->a, mt->key);
        if (!k) return NULL;
        LLVMValueRef v = cg_value(m, en->b, mt->elem);
        if (!v) return NULL;
        cg_map_set(m, map, cg_to_word(m, k, mt->key), cg_to_word(m, v, mt->elem), en->span);
    }
    return map;
}

LLVMValueRef cg_map_method_on(cg_module *m, const ast_node *e, sema_method id, LLVMValueRef map,
                              const sema_type *mt) {
    LLVMValueRef v[2];
    static const char *const kn[] = {"k", "v"};
    const sema_type *kt[] = {mt->key, mt->elem};
    LLVMTypeRef ps[3] = {m->t_ptr, m->t_i64, LLVMPointerType(m->t_i64, 0)};
    switch (id) {
    case SM_MAP_LEN: return cg_rt(m, "oxl_map_len", m->t_i64, ps, &map, 1);
    case SM_MAP_KEYS: return cg_rt(m, "oxl_map_keys", m->t_ptr, ps, &map, 1);
    case SM_MAP_VALUES: return cg_rt(m, "oxl_map_values", m->t_ptr, ps, &map, 1);
    case SM_MAP_SET:
        if (!cg_method_args(m, e, kn, kt, 2, v)) return NULL;
        cg_map_set(m, map, cg_to_word(m, v[0], mt->key), cg_to_word(m, v[1], mt->elem), e->span);
        return LLVMConstNull(m->t_ptr);
    case SM_MAP_HAS: {
        if (!cg_method_args(m, e, kn, kt, 1, v)) return NULL;
        LLVMValueRef args[2] = {map, cg_to_word(m, v[0], mt->key)};
        return cg_rt_bool(m, "oxl_map_has", ps, args, 2);
    }
    case SM_MAP_GET:
    case SM_MAP_REMOVE: {
        if (!cg_method_args(m, e, kn, kt, 1, v)) return NULL;
        LLVMValueRef out = cg_entry_alloca(m, m->t_i64, "out");
        LLVMValueRef args[3] = {map, cg_to_word(m, v[0], mt->key), out};
        LLVMValueRef found = cg_rt_bool(m, id == SM_MAP_GET ? "oxl_map_get" : "oxl_map_remove", ps, args, 3);
        return cg_optional(m, found, LLVMBuildLoad2(m->b, m->t_i64, out, ""), mt->elem, e->type);
    }
    default: cg_unsupported(m, e->span, "this map method"); return NULL;
    }
}

/* for k in m / for k, v in m: over a snapshot of the keys taken at the
 * start, in insertion order; a key removed by the body before it is reached
 * is skipped, keys the body adds are not visited. */
bool cg_for_map(cg_module *m, const ast_node *s) {
    const sema_type *mt = s->a->type;
    LLVMTypeRef kt = cg_type(m, mt->key, s->name_span, false), vt = cg_type(m, mt->elem, s->name_span, false);
    if (!kt || !vt) return false;
    LLVMValueRef map = cg_operand(m, s->a, m->t_ptr);
    if (!map) return false;
    LLVMTypeRef ps[3] = {m->t_ptr, m->t_i64, LLVMPointerType(m->t_i64, 0)};
    LLVMValueRef keys = cg_rt(m, "oxl_map_keys", m->t_ptr, ps, &map, 1);
    LLVMValueRef n = cg_list_len(m, keys);
    LLVMValueRef idx = cg_entry_alloca(m, m->t_i64, "idx");
    LLVMValueRef out = cg_entry_alloca(m, m->t_i64, "val");
    LLVMValueRef kslot = cg_entry_alloca(m, kt, s->name ? s->name : "k");
    LLVMValueRef vslot = s->name2 ? cg_entry_alloca(m, vt, s->name2) : NULL;
    LLVMBuildStore(m->b, cg_i64(m, 0), idx);
    cg_add_local(m, s, kslot);
    if (vslot) cg_add_local2(m, s, vslot);
    LLVMBasicBlockRef cond = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "formap.cond");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "formap.body");
    LLVMBasicBlockRef live = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "formap.live");
    LLVMBasicBlockRef step = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "formap.step");
    LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "formap.end");
    LLVMBuildBr(m->b, cond);
    LLVMPositionBuilderAtEnd(m->b, cond);
    LLVMValueRef i = LLVMBuildLoad2(m->b, m->t_i64, idx, "");
    LLVMBuildCondBr(m->b, LLVMBuildICmp(m->b, LLVMIntSLT, i, n, ""), body, end);
    LLVMPositionBuilderAtEnd(m->b, body);
    LLVMValueRef kw = cg_list_at(m, keys, i, s->a->span);
    LLVMValueRef args[3] = {map, kw, out};
    LLVMBuildCondBr(m->b, cg_rt_bool(m, "oxl_map_get", ps, args, 3), live, step);
    LLVMPositionBuilderAtEnd(m->b, live);
    LLVMBuildStore(m->b, cg_from_word(m, kw, mt->key), kslot);
    if (vslot) LLVMBuildStore(m->b, cg_from_word(m, LLVMBuildLoad2(m->b, m->t_i64, out, ""), mt->elem), vslot);
    if (!cg_loop_body(m, s->b, end, step)) return false;
    LLVMPositionBuilderAtEnd(m->b, step);
    i = LLVMBuildLoad2(m->b, m->t_i64, idx, "");
    LLVMBuildStore(m->b, LLVMBuildAdd(m->b, i, cg_i64(m, 1), ""), idx);
    LLVMBuildBr(m->b, cond);
    LLVMPositionBuilderAtEnd(m->b, end);
    return true;
}
