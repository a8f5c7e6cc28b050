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

/* m->locals holds cap_locals entries, then an open-addressing index of
 * 2 * cap_locals positions + 1 (0: empty) keyed by the declaration's
 * address and `second`: identity lookup only, never iterated. It lives in
 * the same allocation, so saving and restoring m->locals (task.c) keeps it. */
static uint32_t *local_index(const cg_module *m) { return (uint32_t *)(void *)(m->locals + m->cap_locals); }

static uint32_t local_hash(const ast_node *decl, int second, uint32_t mask) {
    uint64_t h = (uint64_t)(uintptr_t)decl * 0x9e3779b97f4a7c15u;
    return (uint32_t)((h >> 32) ^ (uint64_t)second) & mask;
}

/* Points the index at position pos: a newer local of the same key wins. */
static void index_local(cg_module *m, uint32_t pos) {
    uint32_t *index = local_index(m), mask = 2 * m->cap_locals - 1;
    const cg_local *l = &m->locals[pos];
    for (uint32_t i = local_hash(l->decl, l->second, mask);; i = (i + 1) & mask) {
        uint32_t at = index[i];
        if (!at || (m->locals[at - 1].decl == l->decl && m->locals[at - 1].second == l->second)) {
            index[i] = pos + 1;
            return;
        }
    }
}

static void add_local(cg_module *m, const ast_node *decl, LLVMValueRef slot, int second) {
    if (m->nlocals == m->cap_locals) {
        uint32_t cap = m->cap_locals ? m->cap_locals * 2 : CG_MAX_LOCALS_INIT;
        if (cap > UINT32_MAX / 4) {
            fputs("oxl: too many locals in one function\n", stderr);
            abort();
        }
        cg_local *l = malloc(cap * sizeof *l + 2 * (size_t)cap * sizeof(uint32_t));
        if (!l) {
            fputs("oxl: out of memory\n", stderr);
            abort();
        }
        if (m->nlocals) memcpy(l, m->locals, m->nlocals * sizeof *l);
        free(m->locals);
        m->locals = l;
        m->cap_locals = cap;
        memset(local_index(m), 0, 2 * (size_t)cap * sizeof(uint32_t));
        for (uint32_t i = 0; i < m->nlocals; i++) index_local(m, i);
    }
    m->locals[m->nlocals].decl = decl;
    m->locals[m->nlocals].slot = slot;
    m->locals[m->nlocals].second = second;
    index_local(m, m->nlocals);
    m->nlocals++;
    cg_debug_local(m, decl, slot, second != 0);
}

void cg_add_local(cg_module *m, const ast_node *decl, LLVMValueRef slot) { add_local(m, decl, slot, 0); }

void cg_add_local2(cg_module *m, const ast_node *decl, LLVMValueRef slot) { add_local(m, decl, slot, 1); }

static LLVMValueRef find_local(cg_module *m, const ast_node *decl, int second) {
    if (!m->nlocals) return NULL;
    const uint32_t *index = local_index(m), mask = 2 * m->cap_locals - 1;
    for (uint32_t i = local_hash(decl, second, mask);; i = (i + 1) & mask) {
        uint32_t at = index[i];
        if (!at) return NULL;
        if (m->locals[at - 1].decl == decl && m->locals[at - 1].second == second) return m->locals[at - 1].slot;
    }
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

/* LLVM's fast register allocator (-O0) walks every virtual register of a
 * basic block at each call in it, so a block of n calls costs n^2: one
 * function of 40,000 statements, a list literal of 100,000 elements or a
 * string of 50,000 interpolations took 5 to 20 s to emit. Straight-line
 * code is cut into blocks of about CG_BLOCK_UNITS statements and
 * expressions, which keeps emission linear; a value that crosses a cut is
 * spilled like any value live across blocks. Every caller of cg_expr
 * already expects the insertion block to move (an overflow check branches). */
void cg_cut_long_block(cg_module *m) {
    if (++m->since_cut < CG_BLOCK_UNITS) return;
    LLVMBasicBlockRef bb = LLVMGetInsertBlock(m->b);
    if (!bb || LLVMGetBasicBlockTerminator(bb)) return;
    m->since_cut = 0;
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(m->ctx, LLVMGetBasicBlockParent(bb), "cont");
    LLVMMoveBasicBlockAfter(next, bb);
    LLVMBuildBr(m->b, next);
    LLVMPositionBuilderAtEnd(m->b, next);
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
    /* a fresh table (and index) per function */
    free(m->locals);
    m->locals = NULL;
    m->nlocals = m->cap_locals = 0;
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
