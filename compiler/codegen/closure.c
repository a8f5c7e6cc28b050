/* closure.c: bodies of their own with an environment of words: spawn
 * blocks (task.c), function literals and named functions used as values.
 *
 * A body of its own receives the locals it names as words. A `let`, a
 * parameter or a loop variable is copied in when the body's value (the
 * task, the function value) is made: it cannot change. A `var` that some
 * such body names lives in a collected cell from its declaration on, and
 * the environment carries the cell, so both sides share it (Go's capture
 * by reference). A function literal that stays in the function making it
 * (escape.c: it is only called there) has its environment in that
 * function's frame, and a var that only such literals name keeps its
 * alloca: they carry its address instead of a cell's.
 *
 * A value of a function type is one word: a pointer to a closure object
 * whose word 0 is its code, `R code(i8 *self, P...)`, and whose words 1..n
 * are the captures. A literal without captures and a named function are
 * constant objects (a named function's code is a trampoline to it), so
 * where LLVM sees which object is called the call is direct. Calls of
 * named functions keep their own signatures. */
#include "codegen/cg_internal.h"

#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n);
    if (!q) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    return q;
}

/* ---- words ---- */

LLVMValueRef cg_llvm_to_word(cg_module *m, LLVMValueRef v) {
    LLVMTypeRef t = LLVMTypeOf(v);
    const sema_type *member = cg_opt_member_of(m, t);
    if (member) return LLVMBuildPtrToInt(m->b, cg_opt_to_box(m, v, member), m->t_i64, ""); /* an unboxed optional */
    if (LLVMGetTypeKind(t) == LLVMPointerTypeKind) return LLVMBuildPtrToInt(m->b, v, m->t_i64, "");
    if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) < 64)
        return LLVMBuildZExt(m->b, v, m->t_i64, "");
    return v;
}

LLVMValueRef cg_llvm_from_word(cg_module *m, LLVMValueRef w, LLVMTypeRef t) {
    if (cg_opt_member_of(m, t)) return cg_opt_from_box(m, LLVMBuildIntToPtr(m->b, w, m->t_ptr, ""), t);
    if (LLVMGetTypeKind(t) == LLVMPointerTypeKind) return LLVMBuildIntToPtr(m->b, w, t, "");
    if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) < 64) return LLVMBuildTrunc(m->b, w, t, "");
    return w;
}

/* ---- which vars live in cells ---- */

bool cg_boxed(const cg_module *m, const ast_node *decl) { return cg_ptrmap_get(&m->boxed, decl, NULL); }

/* A body of its own whose captured vars must outlive the function that
 * makes it: a spawn block's, or an escaping literal's. A literal that
 * stays (escape.c) is called only while that function runs, so it can
 * share the var's own storage. */
static bool outlives(const cg_module *m, const ast_node *n) {
    return n->kind == AST_SPAWN || (n->kind == AST_FN_LIT && !cg_lit_stays(m, n));
}

/* Every `var` named inside such a body (below n) goes into a cell. */
static void find_captured_vars(cg_module *m, const ast_node *n, bool inside) {
    if (!n) return;
    if (inside && n->kind == AST_IDENT && n->sym) {
        const sema_sym *s = n->sym;
        if (s->kind == SYM_LOCAL && s->is_var && s->decl) cg_ptrmap_put(&m->boxed, s->decl, 1);
    }
    bool own = n->kind == AST_SPAWN || n->kind == AST_FN_LIT; /* n->b is its body */
    find_captured_vars(m, n->a, inside);
    find_captured_vars(m, n->b, inside || (own && outlives(m, n)));
    find_captured_vars(m, n->c, inside);
    for (uint32_t i = 0; i < n->list.len; i++) find_captured_vars(m, n->list.items[i], inside);
}

void cg_task_prepare(cg_module *m, const ast_node *body) {
    cg_escape_scan(m, body);
    find_captured_vars(m, body, false);
}
LLVMValueRef cg_local_storage(cg_module *m, const ast_node *decl, LLVMTypeRef t, const char *name) {
    if (!cg_boxed(m, decl)) return cg_entry_alloca(m, t, name);
    /* a fresh cell at every execution of the declaration (a var declared
     * in a loop body is a new variable in each iteration) */
    LLVMValueRef cell = cg_alloc(m, cg_i64(m, cg_opt_member_of(m, t) ? 16 : 8)); /* an unboxed optional: two words */
    return LLVMBuildBitCast(m->b, cell, LLVMPointerType(t, 0), name);
}

/* oxl_alloc(size): collected memory. Declared noalias: the memory is new,
 * so LLVM may forward what is stored into it (a closure's code) to what
 * is loaded from it. */
LLVMValueRef cg_alloc(cg_module *m, LLVMValueRef size) {
    LLVMValueRef f = LLVMGetNamedFunction(m->mod, "oxl_alloc");
    if (!f) {
        LLVMTypeRef ps[1] = {m->t_i64};
        f = cg_runtime_fn(m, "oxl_alloc", m->t_ptr, ps, 1, false);
        unsigned k = LLVMGetEnumAttributeKindForName("noalias", 7);
        LLVMAddAttributeAtIndex(f, LLVMAttributeReturnIndex, LLVMCreateEnumAttribute(m->ctx, k, 0));
    }
    return cg_call(m, f, &size, 1);
}

/* ---- bodies of their own ---- */

void cg_fn_save(cg_module *m, cg_fn_state *st) {
    *st = (cg_fn_state){m->fn, m->fn_decl, m->entry, LLVMGetInsertBlock(m->b), m->locals, m->nlocals, m->cap_locals,
                        m->loop};
    m->locals = NULL;
    m->nlocals = m->cap_locals = 0;
    m->loop = NULL;
}

void cg_fn_restore(cg_module *m, const cg_fn_state *st) {
    free(m->locals);
    m->fn = st->fn;
    m->fn_decl = st->fn_decl;
    m->entry = st->entry;
    m->locals = st->locals;
    m->nlocals = st->nlocals;
    m->cap_locals = st->cap_locals;
    m->loop = st->loop;
    if (st->at) LLVMPositionBuilderAtEnd(m->b, st->at);
}

/* The end of a body that can fall off: nothing, or `none` for a result
 * that includes None (a spawn block that may end without a value). */
void cg_finish_body(cg_module *m) {
    if (cg_terminated(m)) return;
    LLVMTypeRef rt = LLVMGetReturnType(LLVMGetElementType(LLVMTypeOf(m->fn)));
    if (LLVMGetTypeKind(rt) == LLVMVoidTypeKind)
        LLVMBuildRetVoid(m->b);
    else if (LLVMGetTypeKind(rt) == LLVMPointerTypeKind || cg_opt_member_of(m, rt))
        LLVMBuildRet(m->b, LLVMConstNull(rt)); /* none: NULL, or an unboxed optional's */
    else
        LLVMBuildUnreachable(m->b);
}

static void find_captures(cg_module *m, const ast_node *n, cg_captures *out) {
    if (!n) return;
    if (n->kind == AST_IDENT && n->sym) {
        const sema_sym *s = n->sym;
        LLVMValueRef slot = (s->kind == SYM_LOCAL || s->kind == SYM_PARAM) && s->decl ? cg_sym_slot(m, s) : NULL;
        bool second = cg_sym_is_second(s);
        if (slot) {
            bool seen = false;
            for (uint32_t i = 0; i < out->n && !seen; i++)
                seen = out->items[i].decl == s->decl && out->items[i].second == second;
            if (!seen) {
                if (out->n == out->cap) {
                    out->cap = out->cap ? out->cap * 2 : 8;
                    out->items = xrealloc(out->items, out->cap * sizeof *out->items);
                }
                /* a var by reference: a cell (boxed), or the alloca of a var that
                 * only literals staying in this function capture */
                bool byref = cg_boxed(m, s->decl) || s->decl->kind == AST_VAR;
                out->items[out->n++] = (cg_capture){s->decl, slot, second, byref};
            }
        }
    }
    find_captures(m, n->a, out);
    find_captures(m, n->b, out);
    find_captures(m, n->c, out);
    for (uint32_t i = 0; i < n->list.len; i++) find_captures(m, n->list.items[i], out);
}

void cg_captures_find(cg_module *m, const ast_node *body, cg_captures *out) {
    *out = (cg_captures){0};
    find_captures(m, body, out);
}

void cg_captures_free(cg_captures *c) {
    free(c->items);
    *c = (cg_captures){0};
}

LLVMValueRef cg_env_slot(cg_module *m, LLVMValueRef words, uint32_t i) {
    LLVMValueRef idx = cg_i64(m, i);
    return LLVMBuildInBoundsGEP2(m->b, m->t_i64, words, &idx, 1, "");
}

LLVMValueRef cg_new_env(cg_module *m, uint32_t n, LLVMValueRef *words) {
    if (n == 0) {
        *words = NULL;
        return LLVMConstNull(m->t_ptr);
    }
    LLVMValueRef env = cg_alloc(m, cg_i64(m, (long long)n * 8));
    *words = LLVMBuildBitCast(m->b, env, LLVMPointerType(m->t_i64, 0), "");
    return env;
}

void cg_captures_store(cg_module *m, const cg_captures *caps, LLVMValueRef words, uint32_t first) {
    for (uint32_t i = 0; i < caps->n; i++) {
        LLVMValueRef v = caps->items[i].slot;
        if (!caps->items[i].byref) v = LLVMBuildLoad2(m->b, LLVMGetElementType(LLVMTypeOf(v)), v, "");
        LLVMBuildStore(m->b, cg_llvm_to_word(m, v), cg_env_slot(m, words, first + i));
    }
}

void cg_captures_load(cg_module *m, const cg_captures *caps, LLVMValueRef words, uint32_t first) {
    for (uint32_t i = 0; i < caps->n; i++) {
        LLVMTypeRef slot_ty = LLVMTypeOf(caps->items[i].slot);
        LLVMValueRef w = LLVMBuildLoad2(m->b, m->t_i64, cg_env_slot(m, words, first + i), "");
        if (caps->items[i].byref) {
            cg_add_sym_local(m, caps->items[i].decl, caps->items[i].second, LLVMBuildIntToPtr(m->b, w, slot_ty, ""));
        } else {
            LLVMTypeRef t = LLVMGetElementType(slot_ty);
            LLVMValueRef slot = cg_entry_alloca(m, t, "");
            LLVMBuildStore(m->b, cg_llvm_from_word(m, w, t), slot);
            cg_add_sym_local(m, caps->items[i].decl, caps->items[i].second, slot);
        }
    }
}

LLVMValueRef cg_body_function(cg_module *m, const char *name, LLVMTypeRef fnty, const ast_node *block,
                              const sema_type *result) {
    (void)result;
    cg_fn_state st;
    cg_fn_save(m, &st);
    LLVMValueRef f = LLVMAddFunction(m->mod, name, fnty);
    LLVMSetLinkage(f, LLVMInternalLinkage);
    m->fn = f;
    m->fn_decl = NULL;
    m->entry = LLVMAppendBasicBlockInContext(m->ctx, f, "entry");
    LLVMPositionBuilderAtEnd(m->b, m->entry);
    cg_task_prepare(m, block);
    bool ok = cg_block(m, block);
    if (ok) cg_finish_body(m);
    cg_fn_restore(m, &st);
    return ok ? f : NULL;
}

/* ---- function values ---- */

/* The code of a value of function type ft: R code(i8 *self, P...). */
LLVMTypeRef cg_fn_type(cg_module *m, const sema_type *ft, base_span at) {
    LLVMTypeRef res = cg_type(m, ft->elem, at, true);
    if (!res) return NULL;
    LLVMTypeRef ps[SEMA_MAX_PARAMS + 2];
    ps[0] = m->t_ptr;
    for (uint32_t i = 0; i < ft->nitems && i <= SEMA_MAX_PARAMS; i++)
        if (!(ps[i + 1] = cg_type(m, ft->items[i], at, false))) return NULL;
    return LLVMFunctionType(res, ps, ft->nitems + 1, 0);
}

/* A constant closure object: a one-word global holding the code. */
static LLVMValueRef const_closure(cg_module *m, const char *name, LLVMValueRef code) {
    LLVMValueRef init = LLVMConstBitCast(code, m->t_ptr);
    LLVMValueRef g = LLVMAddGlobal(m->mod, m->t_ptr, name);
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
    return LLVMConstBitCast(g, m->t_ptr);
}

static char *closure_name(cg_module *m, const char *what) {
    char *s = malloc(48);
    if (!s) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    snprintf(s, 48, "oxl.%s.%u", what, m->nspawns++);
    return s;
}

/* fn(params) -> R { body }: its code, and the closure object holding its
 * captures (a constant one when it captures nothing). */
LLVMValueRef cg_fn_lit(cg_module *m, const ast_node *e) {
    const sema_type *ft = e->type;
    if (!ft || ft->kind != TY_FN) {
        cg_unsupported(m, e->span, "this function literal");
        return NULL;
    }
    LLVMTypeRef code_ty = cg_fn_type(m, ft, e->span);
    if (!code_ty) return NULL;
    cg_captures caps;
    cg_captures_find(m, e->b, &caps);

    /* the code: its parameters and captures as locals, then the body */
    const sema_sym *outer = m->fn_decl ? m->fn_decl->sym : NULL;
    sema_sig sig = {.what = "fn", .result = ft->elem};
    sema_sym sym = {.kind = SYM_FN, .name = "fn", .sig = &sig, .pkg = outer ? outer->pkg : NULL};
    ast_node decl = {.kind = AST_FN, .span = e->span, .list = e->list};
    decl.sym = &sym;
    char *name = closure_name(m, "fn");
    cg_fn_state st;
    cg_fn_save(m, &st);
    LLVMValueRef code = LLVMAddFunction(m->mod, name, code_ty);
    LLVMSetLinkage(code, LLVMInternalLinkage);
    m->fn = code;
    m->fn_decl = &decl; /* `return e` finds the result type here */
    m->entry = LLVMAppendBasicBlockInContext(m->ctx, code, "entry");
    LLVMPositionBuilderAtEnd(m->b, m->entry);
    cg_debug_loc(m, e->span);
    if (caps.n) {
        LLVMValueRef self = LLVMBuildBitCast(m->b, LLVMGetParam(code, 0), LLVMPointerType(m->t_i64, 0), "");
        cg_captures_load(m, &caps, self, 1);
    }
    for (uint32_t i = 0; i < e->list.len; i++) {
        const ast_node *pd = e->list.items[i];
        LLVMValueRef p = LLVMGetParam(code, i + 1);
        if (pd->name) LLVMSetValueName2(p, pd->name, strlen(pd->name));
        LLVMValueRef slot = cg_entry_alloca(m, LLVMTypeOf(p), pd->name ? pd->name : "");
        LLVMBuildStore(m->b, p, slot);
        cg_add_local(m, pd, slot);
    }
    bool ok = cg_block(m, e->b);
    if (ok && !cg_terminated(m)) {
        if (ft->elem->kind == TY_NEVER) LLVMBuildUnreachable(m->b);
        else cg_finish_body(m);
    }
    cg_fn_restore(m, &st);
    cg_debug_loc(m, e->span);
    if (!ok) {
        free(name);
        cg_captures_free(&caps);
        return NULL;
    }

    /* the value */
    LLVMValueRef obj;
    if (!caps.n) {
        char gname[64];
        snprintf(gname, sizeof gname, "%s.value", name);
        obj = const_closure(m, gname, code);
    } else {
        /* a literal that stays gets its environment in this function's frame
         * (an entry alloca, one per literal, so a loop does not grow the
         * stack; the collector scans stacks, so what it holds stays alive);
         * one that escapes, collected memory */
        LLVMValueRef words;
        if (cg_lit_stays(m, e)) {
            LLVMValueRef env = cg_entry_alloca(m, LLVMArrayType(m->t_i64, caps.n + 1), "env");
            words = LLVMBuildBitCast(m->b, env, LLVMPointerType(m->t_i64, 0), "");
            obj = LLVMBuildBitCast(m->b, env, m->t_ptr, "");
        } else {
            for (uint32_t i = 0; i < caps.n; i++) /* find_captured_vars put each var it names in a cell */
                assert(!caps.items[i].byref || cg_boxed(m, caps.items[i].decl));
            obj = cg_new_env(m, caps.n + 1, &words);
        }
        LLVMBuildStore(m->b, LLVMBuildPtrToInt(m->b, code, m->t_i64, ""), cg_env_slot(m, words, 0));
        cg_captures_store(m, &caps, words, 1);
    }
    free(name);
    cg_captures_free(&caps);
    return obj;
}

/* A named function as a value: the constant closure of a trampoline that
 * calls it (made once per function). */
LLVMValueRef cg_fn_value(cg_module *m, const sema_sym *s, base_span at) {
    LLVMValueRef f = cg_fn_of(m, s, at);
    if (!f || !s->type || s->type->kind != TY_FN) return NULL;
    size_t len;
    const char *fname = LLVMGetValueName2(f, &len);
    size_t n = len + 16;
    char *name = malloc(n);
    if (!name) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    snprintf(name, n, "%s.value", fname);
    LLVMValueRef g = LLVMGetNamedGlobal(m->mod, name);
    if (g) {
        free(name);
        return LLVMConstBitCast(g, m->t_ptr);
    }
    LLVMTypeRef code_ty = cg_fn_type(m, s->type, at);
    if (!code_ty) {
        free(name);
        return NULL;
    }
    char *tname = malloc(n + 8);
    if (!tname) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    snprintf(tname, n + 8, "%s.tramp", fname);
    LLVMBasicBlockRef here = LLVMGetInsertBlock(m->b);
    LLVMValueRef tramp = LLVMAddFunction(m->mod, tname, code_ty);
    LLVMSetLinkage(tramp, LLVMInternalLinkage);
    LLVMPositionBuilderAtEnd(m->b, LLVMAppendBasicBlockInContext(m->ctx, tramp, "entry"));
    LLVMSetCurrentDebugLocation2(m->b, NULL); /* no source of its own */
    unsigned np = s->type->nitems;
    LLVMValueRef args[SEMA_MAX_PARAMS + 1];
    for (unsigned i = 0; i < np && i <= SEMA_MAX_PARAMS; i++) args[i] = LLVMGetParam(tramp, i + 1);
    LLVMValueRef r = cg_call(m, f, args, np);
    if (s->is_extern) cg_extern_call_attrs(m, s, r);
    if (s->type->elem->kind == TY_NEVER) LLVMBuildUnreachable(m->b);
    else if (LLVMGetTypeKind(LLVMGetReturnType(code_ty)) == LLVMVoidTypeKind) LLVMBuildRetVoid(m->b);
    else LLVMBuildRet(m->b, r);
    LLVMPositionBuilderAtEnd(m->b, here);
    cg_debug_loc(m, m->at);
    LLVMValueRef obj = const_closure(m, name, tramp);
    free(tname);
    free(name);
    return obj;
}

/* f(args) for a value f of function type: its code, called with the
 * closure object first; positional arguments only. */
LLVMValueRef cg_call_value(cg_module *m, const ast_node *e, const ast_node *callee) {
    const sema_type *ft = callee->type;
    LLVMTypeRef code_ty = cg_fn_type(m, ft, e->span);
    if (!code_ty) return NULL;
    LLVMValueRef fv = cg_operand(m, callee, m->t_ptr);
    if (!fv) return NULL;
    LLVMValueRef args[SEMA_MAX_PARAMS + 2];
    args[0] = fv;
    for (uint32_t i = 0; i < e->list.len && i < ft->nitems && i <= SEMA_MAX_PARAMS; i++) {
        const ast_node *arg = e->list.items[i];
        if (!(args[i + 1] = cg_value(m, arg->a, ft->items[i]))) return NULL;
    }
    LLVMTypeRef code_ptr = LLVMPointerType(code_ty, 0);
    LLVMValueRef slot = LLVMBuildBitCast(m->b, fv, LLVMPointerType(code_ptr, 0), "");
    LLVMValueRef code = LLVMBuildLoad2(m->b, code_ptr, slot, "code");
    LLVMValueRef r = LLVMBuildCall2(m->b, code_ty, code, args, ft->nitems + 1, "");
    if (ft->elem->kind == TY_NEVER) LLVMBuildUnreachable(m->b);
    if (LLVMGetTypeKind(LLVMTypeOf(r)) == LLVMVoidTypeKind) return LLVMConstNull(m->t_ptr);
    return r;
}
