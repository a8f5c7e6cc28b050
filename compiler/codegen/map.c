/* map.c: Map[K, V]: the runtime's insertion-ordered maps of words (the key
 * kind is chosen at creation: words for Int, Bool, Duration and Instant
 * keys, contents for String and Bytes keys). */
#include "codegen/cg_internal.h"

LLVMValueRef cg_map_new(cg_module *m, const sema_type *t) {
    const sema_type *k = t->key;
    int kind;
    if (k->kind == TY_STRING || k->kind == TY_BYTES) kind = 1;
    else if (k->kind == TY_INT || k->kind == TY_BOOL || k->kind == TY_DURATION || k->kind == TY_INSTANT) kind = 0;
    else {
        cg_unsupported(m, m->at, "maps with keys of this type");
        return NULL;
    }
    LLVMTypeRef ps[1] = {m->t_i32};
    LLVMValueRef f = cg_runtime_fn(m, "oxl_map_new", m->t_ptr, ps, 1, false);
    LLVMValueRef arg = LLVMConstInt(m->t_i32, (unsigned)kind, 0);
    return cg_call(m, f, &arg, 1);
}
