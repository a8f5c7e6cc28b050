/* optional.c: optionals of scalars (Int?, Bool?, Duration?, Instant?) held
 * unboxed, as the value { i64 word, i1 present }: none is { 0, false }. Making,
 * testing, passing and returning one allocates nothing; only where a value
 * must fit one word (a list element, a map entry, a struct field, a channel
 * element, a closure's environment, a task's result, the wire) is it boxed
 * as every union is (an oxl_box, none NULL), and unboxed when read back. */
#include "codegen/cg_internal.h"

static int scalar_index(const sema_type *t) {
    switch (t->kind) {
    case TY_INT: return 0;
    case TY_BOOL: return 1;
    case TY_DURATION: return 2;
    case TY_INSTANT: return 3;
    default: return -1;
    }
}

const sema_type *cg_scalar_opt(const sema_type *t) {
    if (!t || t->kind != TY_UNION || t->nitems != 2) return NULL;
    const sema_type *a = t->items[0], *b = t->items[1];
    if (a->kind == TY_NONE && scalar_index(b) >= 0) return b;
    if (b->kind == TY_NONE && scalar_index(a) >= 0) return a;
    return NULL;
}

static const char *const opt_names[CG_SCALAR_KINDS] = {"oxl.opt.Int", "oxl.opt.Bool", "oxl.opt.Duration",
                                                        "oxl.opt.Instant"};

LLVMTypeRef cg_opt_type(cg_module *m, const sema_type *member) {
    int i = scalar_index(member);
    if (!m->t_opt[i]) {
        /* a named type per member, so that a value's LLVM type alone tells
         * which member a box of it gets (cg_llvm_to_word) */
        m->t_opt[i] = LLVMStructCreateNamed(m->ctx, opt_names[i]);
        LLVMTypeRef fields[2] = {m->t_i64, m->t_i1};
        LLVMStructSetBody(m->t_opt[i], fields, 2, 0);
        m->opt_member[i] = member;
    }
    return m->t_opt[i];
}

const sema_type *cg_opt_member_of(const cg_module *m, LLVMTypeRef t) {
    for (int i = 0; i < CG_SCALAR_KINDS; i++)
        if (m->t_opt[i] && m->t_opt[i] == t) return m->opt_member[i];
    return NULL;
}

LLVMValueRef cg_opt_make(cg_module *m, LLVMTypeRef ot, LLVMValueRef word, LLVMValueRef present) {
    LLVMValueRef v = LLVMGetUndef(ot);
    v = LLVMBuildInsertValue(m->b, v, word, 0, "");
    return LLVMBuildInsertValue(m->b, v, present, 1, "opt");
}

LLVMValueRef cg_opt_word(cg_module *m, LLVMValueRef v) { return LLVMBuildExtractValue(m->b, v, 0, "opt.word"); }
LLVMValueRef cg_opt_present(cg_module *m, LLVMValueRef v) { return LLVMBuildExtractValue(m->b, v, 1, "opt.some"); }

/* The function being built into: not always m->fn (a spawn's thunk turns
 * its body's result into a word while m->fn is the spawning function). */
static LLVMValueRef here_fn(cg_module *m) { return LLVMGetBasicBlockParent(LLVMGetInsertBlock(m->b)); }

/* The box of an unboxed optional (NULL for none): where it must be a word. */
LLVMValueRef cg_opt_to_box(cg_module *m, LLVMValueRef v, const sema_type *member) {
    LLVMValueRef present = cg_opt_present(m, v);
    LLVMBasicBlockRef from = LLVMGetInsertBlock(m->b);
    LLVMBasicBlockRef some = LLVMAppendBasicBlockInContext(m->ctx, here_fn(m), "opt.box");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(m->ctx, here_fn(m), "opt.boxed");
    LLVMBuildCondBr(m->b, present, some, done);
    LLVMPositionBuilderAtEnd(m->b, some);
    LLVMTypeRef ps[2] = {m->t_i64, m->t_i64};
    LLVMValueRef f = cg_runtime_fn(m, "oxl_box_new", m->t_ptr, ps, 2, false);
    LLVMValueRef args[2] = {cg_i64(m, member->id), cg_opt_word(m, v)};
    LLVMValueRef box = cg_call(m, f, args, 2);
    LLVMBasicBlockRef some_end = LLVMGetInsertBlock(m->b);
    LLVMBuildBr(m->b, done);
    LLVMPositionBuilderAtEnd(m->b, done);
    LLVMValueRef phi = LLVMBuildPhi(m->b, m->t_ptr, "box");
    LLVMValueRef vals[2] = {LLVMConstNull(m->t_ptr), box};
    LLVMBasicBlockRef bbs[2] = {from, some_end};
    LLVMAddIncoming(phi, vals, bbs, 2);
    return phi;
}

/* The unboxed optional of type ot from a box whose tag is known to be its
 * member's, or NULL. */
LLVMValueRef cg_opt_from_box(cg_module *m, LLVMValueRef box, LLVMTypeRef ot) {
    LLVMValueRef present = LLVMBuildIsNotNull(m->b, box, "");
    LLVMBasicBlockRef from = LLVMGetInsertBlock(m->b);
    LLVMBasicBlockRef some = LLVMAppendBasicBlockInContext(m->ctx, here_fn(m), "opt.unbox");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(m->ctx, here_fn(m), "opt.unboxed");
    LLVMBuildCondBr(m->b, present, some, done);
    LLVMPositionBuilderAtEnd(m->b, some);
    LLVMValueRef word = cg_box_word(m, box);
    LLVMBasicBlockRef some_end = LLVMGetInsertBlock(m->b);
    LLVMBuildBr(m->b, done);
    LLVMPositionBuilderAtEnd(m->b, done);
    LLVMValueRef phi = LLVMBuildPhi(m->b, m->t_i64, "");
    LLVMValueRef vals[2] = {cg_i64(m, 0), word};
    LLVMBasicBlockRef bbs[2] = {from, some_end};
    LLVMAddIncoming(phi, vals, bbs, 2);
    return cg_opt_make(m, ot, phi, present);
}

LLVMValueRef cg_is_none(cg_module *m, LLVMValueRef v, const sema_type *t) {
    if (t->kind == TY_NONE) return LLVMConstInt(m->t_i1, 1, 0);
    if (cg_scalar_opt(t) && LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMStructTypeKind) return LLVMBuildNot(m->b, cg_opt_present(m, v), "opt.none");
    if (t->kind == TY_UNION) return LLVMBuildIsNull(m->b, v, "");
    return LLVMConstInt(m->t_i1, 0, 0);
}
