/* function.c: one OxL function: its entry block, parameters and locals
 * (every local is an alloca in the entry block; mem2reg cleans up at -O2),
 * and the end of its body. */
#include "codegen/cg_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

LLVMValueRef cg_entry_alloca(cg_module *m, LLVMTypeRef t, const char *name) {
    LLVMBuilderRef eb = LLVMCreateBuilderInContext(m->ctx);
    LLVMValueRef first = LLVMGetFirstInstruction(m->entry);
    if (first) LLVMPositionBuilderBefore(eb, first);
    else LLVMPositionBuilderAtEnd(eb, m->entry);
    LLVMValueRef a = LLVMBuildAlloca(eb, t, name);
    LLVMDisposeBuilder(eb);
    return a;
}

static void add_local(cg_module *m, const ast_node *decl, LLVMValueRef slot, int second) {
    if (m->nlocals == m->cap_locals) {
        m->cap_locals = m->cap_locals ? m->cap_locals * 2 : CG_MAX_LOCALS_INIT;
        cg_local *l = realloc(m->locals, m->cap_locals * sizeof *l);
        if (!l) {
            fputs("oxl: out of memory\n", stderr);
            abort();
        }
        m->locals = l;
    }
    m->locals[m->nlocals].decl = decl;
    m->locals[m->nlocals].slot = slot;
    m->locals[m->nlocals].second = second;
    m->nlocals++;
    cg_debug_local(m, decl, slot, second != 0);
}

void cg_add_local(cg_module *m, const ast_node *decl, LLVMValueRef slot) { add_local(m, decl, slot, 0); }

void cg_add_local2(cg_module *m, const ast_node *decl, LLVMValueRef slot) { add_local(m, decl, slot, 1); }

static LLVMValueRef find_local(cg_module *m, const ast_node *decl, int second) {
    for (uint32_t i = m->nlocals; i-- > 0;)
        if (m->locals[i].decl == decl && m->locals[i].second == second) return m->locals[i].slot;
    return NULL;
}

bool cg_sym_is_second(const sema_sym *s) {
    const ast_node *d = s->decl;
    return d && d->kind == AST_FOR && d->name2 && s->name == d->name2 && s->name != d->name;
}

LLVMValueRef cg_sym_slot(cg_module *m, const sema_sym *s) {
    if (!s->decl) return NULL;
    return find_local(m, s->decl, cg_sym_is_second(s));
}

void cg_add_sym_local(cg_module *m, const ast_node *decl, bool second, LLVMValueRef slot) {
    add_local(m, decl, slot, second ? 1 : 0);
}


bool cg_terminated(cg_module *m) {
    LLVMBasicBlockRef bb = LLVMGetInsertBlock(m->b);
    return LLVMGetBasicBlockTerminator(bb) != NULL;
}

/* After return, break, continue or a panic: code that follows goes into a
 * block without predecessors (sema has warned that it is unreachable). */
void cg_start_dead_block(cg_module *m) {
    LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "dead");
    LLVMPositionBuilderAtEnd(m->b, bb);
}

bool cg_function(cg_module *m, const ast_node *fn) {
    const sema_sym *s = fn->sym;
    char *name = cg_fn_symbol(m, fn, s ? s->pkg : NULL);
    m->fn = LLVMGetNamedFunction(m->mod, name);
    free(name);
    if (!m->fn) {
        DIAG_INTERNAL(m->d, "function '%s' was not declared", fn->name);
        return false;
    }
    m->fn_decl = fn;
    m->nlocals = 0;
    m->loop = NULL;
    m->entry = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "entry");
    LLVMPositionBuilderAtEnd(m->b, m->entry);
    cg_debug_function(m, fn);
    cg_task_prepare(m, fn->b);
    const sema_sig *sig = s->sig;
    for (uint32_t i = 0; i < sig->nparams; i++) {
        const ast_node *pd = fn->list.items[i];
        LLVMValueRef p = LLVMGetParam(m->fn, i);
        if (pd->name) LLVMSetValueName2(p, pd->name, strlen(pd->name));
        LLVMValueRef slot = cg_entry_alloca(m, LLVMTypeOf(p), pd->name ? pd->name : "");
        LLVMBuildStore(m->b, p, slot);
        cg_add_local(m, pd, slot);
    }
    if (!cg_block(m, fn->b)) return false;
    if (!cg_terminated(m)) {
        LLVMTypeRef rt = LLVMGetReturnType(LLVMGetElementType(LLVMTypeOf(m->fn)));
        if (sig->result && sig->result->kind == TY_NEVER) LLVMBuildUnreachable(m->b); /* sema: it cannot end */
        else if (LLVMGetTypeKind(rt) == LLVMVoidTypeKind) LLVMBuildRetVoid(m->b);
        else LLVMBuildUnreachable(m->b); /* sema: "missing return" otherwise */
    }
    return true;
}
