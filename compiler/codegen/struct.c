/* struct.c: structs. A struct value is a reference: a pointer to GC memory
 * holding one word per field, in declaration order. A literal evaluates the
 * given fields in the order written, then the defaults of the others
 * (afresh, so a `[]` default is a new list each time). */
#include "codegen/cg_internal.h"

#include <string.h>

static int field_index(const sema_type *st, const char *name) {
    for (uint32_t i = 0; i < st->nfields; i++)
        if (st->fields[i].name && name && strcmp(st->fields[i].name, name) == 0) return (int)i;
    return -1;
}

static LLVMValueRef word_ptr(cg_module *m, LLVMValueRef obj, int idx) {
    LLVMValueRef p = LLVMBuildBitCast(m->b, obj, LLVMPointerType(m->t_i64, 0), "");
    LLVMValueRef off = LLVMConstInt(m->t_i64, (unsigned long long)idx, 0);
    return LLVMBuildInBoundsGEP2(m->b, m->t_i64, p, &off, 1, "");
}

LLVMValueRef cg_field_ptr(cg_module *m, LLVMValueRef obj, const sema_type *st, const char *name) {
    int k = field_index(st, name);
    if (k < 0) {
        DIAG_INTERNAL(m->d, "struct %s has no field '%s'", st->name ? st->name : "?", name ? name : "?");
        m->failed = true;
        return NULL;
    }
    return word_ptr(m, obj, k);
}

LLVMValueRef cg_struct_lit(cg_module *m, const ast_node *e) {
    const sema_type *st = e->type;
    if (!st || st->kind != TY_STRUCT) {
        cg_unsupported(m, e->span, "this struct literal");
        return NULL;
    }
    LLVMValueRef obj = cg_alloc(m, LLVMConstInt(m->t_i64, (st->nfields ? st->nfields : 1) * 8, 0));
    bool given[SEMA_MAX_PARAMS + 1] = {0};
    if (st->nfields > SEMA_MAX_PARAMS) {
        cg_unsupported(m, e->span, "structs with this many fields");
        return NULL;
    }
    for (uint32_t i = 0; i < e->list.len; i++) {
        const ast_node *a = e->list.items[i];
        const char *fname = a->name ? a->name : (a->a && a->a->kind == AST_IDENT ? a->a->name : NULL);
        int k = field_index(st, fname);
        if (k < 0) {
            cg_unsupported(m, a->span, "this field");
            return NULL;
        }
        given[k] = true;
        LLVMValueRef v = cg_value(m, a->a, st->fields[k].type);
        if (!v) return NULL;
        LLVMBuildStore(m->b, cg_to_word(m, v, st->fields[k].type), word_ptr(m, obj, k));
    }
    for (uint32_t k = 0; k < st->nfields; k++) {
        if (given[k]) continue;
        const ast_node *d = st->fields[k].decl ? st->fields[k].decl->b : NULL;
        if (!d) {
            cg_unsupported(m, e->span, "a struct literal without one of its fields");
            return NULL;
        }
        LLVMValueRef v = cg_value(m, d, st->fields[k].type);
        if (!v) return NULL;
        LLVMBuildStore(m->b, cg_to_word(m, v, st->fields[k].type), word_ptr(m, obj, (int)k));
    }
    return obj;
}
