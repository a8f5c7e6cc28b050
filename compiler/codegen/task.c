/* task.c: tasks, channels, select and time. Every value crosses a task or
 * a channel as one 64-bit word (the contract of cg_to_word); the runtime
 * side is oxl_go / oxl_chan_* / oxl_select_words in oxl_sched.h, and the
 * program's main runs as the root task of the scheduler (module.c).
 *
 * A spawn block is a body of its own with an environment of words, as
 * closure.c makes them. */
#include "codegen/cg_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static LLVMValueRef to_word(cg_module *m, LLVMValueRef v) { return cg_llvm_to_word(m, v); }
static LLVMValueRef from_word(cg_module *m, LLVMValueRef w, LLVMTypeRef t) { return cg_llvm_from_word(m, w, t); }

static LLVMValueRef loc(cg_module *m, base_span at, LLVMValueRef *line) {
    *line = cg_line(m, at);
    return cg_file_ptr(m, at);
}

/* The thunk a task runs: env -> the result as a word. */
static LLVMTypeRef thunk_type(cg_module *m) {
    LLVMTypeRef ps[1] = {m->t_ptr};
    return LLVMFunctionType(m->t_i64, ps, 1, 0);
}

static LLVMValueRef go(cg_module *m, LLVMValueRef thunk, LLVMValueRef env, base_span at) {
    LLVMTypeRef ps[4] = {LLVMPointerType(thunk_type(m), 0), m->t_ptr, m->t_ptr, m->t_i32};
    LLVMValueRef f = cg_runtime_fn(m, "oxl_go", m->t_ptr, ps, 4, false);
    LLVMValueRef line;
    LLVMValueRef file = loc(m, at, &line);
    LLVMValueRef args[4] = {thunk, env, file, line};
    return cg_call(m, f, args, 4);
}

static char *spawn_name(cg_module *m, const char *what) {
    char *s = malloc(48);
    if (!s) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    snprintf(s, 48, "oxl.%s.%u", what, m->nspawns++);
    return s;
}

/* spawn { ... } */
static LLVMValueRef spawn_block(cg_module *m, const ast_node *e) {
    const sema_type *task = e->type;
    const sema_type *rt = task && task->kind == TY_TASK ? task->elem : NULL;
    LLVMTypeRef res = m->t_void;
    if (rt && rt->kind != TY_NONE && rt->kind != TY_NEVER) {
        res = cg_type(m, rt, e->span, true);
        if (!res) return NULL;
    }
    cg_captures caps;
    cg_captures_find(m, e->b, &caps);

    /* the environment: cells of shared vars, values of everything else */
    LLVMValueRef words;
    LLVMValueRef env = cg_new_env(m, caps.n, &words);
    cg_captures_store(m, &caps, words, 0);

    /* the body: R body(env) */
    LLVMTypeRef ps[1] = {m->t_ptr};
    LLVMTypeRef body_ty = LLVMFunctionType(res, ps, 1, 0);
    char *name = spawn_name(m, "spawn");
    cg_fn_state st;
    cg_fn_save(m, &st);
    LLVMValueRef body = LLVMAddFunction(m->mod, name, body_ty);
    free(name);
    LLVMSetLinkage(body, LLVMInternalLinkage);
    /* `return e` in the block gives the task's result: statements find the
     * result type through the function's declaration, so the block gets
     * one of its own for as long as it is generated */
    sema_sig sig = {.what = "spawn", .result = (sema_type *)rt};
    sema_sym sym = {.kind = SYM_FN, .name = "spawn", .sig = &sig};
    ast_node decl = {.kind = AST_FN, .span = e->span};
    decl.sym = &sym;
    m->fn = body;
    m->fn_decl = &decl;
    m->entry = LLVMAppendBasicBlockInContext(m->ctx, body, "entry");
    LLVMPositionBuilderAtEnd(m->b, m->entry);
    if (caps.n) {
        LLVMValueRef cw = LLVMBuildBitCast(m->b, LLVMGetParam(body, 0), LLVMPointerType(m->t_i64, 0), "");
        cg_captures_load(m, &caps, cw, 0);
    }
    cg_captures_free(&caps);
    bool ok = cg_block(m, e->b);
    if (ok) cg_finish_body(m);
    cg_fn_restore(m, &st);
    if (!ok) return NULL;

    /* the thunk: the body's result as a word */
    name = spawn_name(m, "thunk");
    LLVMValueRef thunk = LLVMAddFunction(m->mod, name, thunk_type(m));
    free(name);
    LLVMSetLinkage(thunk, LLVMInternalLinkage);
    LLVMBasicBlockRef here = LLVMGetInsertBlock(m->b);
    LLVMPositionBuilderAtEnd(m->b, LLVMAppendBasicBlockInContext(m->ctx, thunk, "entry"));
    LLVMValueRef arg = LLVMGetParam(thunk, 0);
    LLVMValueRef r = cg_call(m, body, &arg, 1);
    LLVMBuildRet(m->b, res == m->t_void ? cg_i64(m, 0) : to_word(m, r));
    LLVMPositionBuilderAtEnd(m->b, here);
    return go(m, thunk, env, e->span);
}

/* spawn Service.rpc(x, to: n): the arguments, deadline and node are
 * evaluated now, the remote call is made in the new task. */
static LLVMValueRef spawn_remote(cg_module *m, const ast_node *e) {
    const ast_node *c = e->a;
    uint32_t n = ((const sema_sym *)c->a->sym)->sig->nparams;
    LLVMValueRef vals[SEMA_MAX_PARAMS + 3];
    if (!cg_rpc_args(m, c, vals, &vals[n], &vals[n + 1])) return NULL;
    LLVMValueRef words;
    LLVMValueRef env = cg_new_env(m, n + 2, &words);
    for (uint32_t i = 0; i < n + 2; i++) LLVMBuildStore(m->b, to_word(m, vals[i]), cg_env_slot(m, words, i));
    char *name = spawn_name(m, "thunk");
    cg_fn_state st;
    cg_fn_save(m, &st);
    LLVMValueRef thunk = LLVMAddFunction(m->mod, name, thunk_type(m));
    free(name);
    LLVMSetLinkage(thunk, LLVMInternalLinkage);
    m->fn = thunk;
    m->fn_decl = NULL;
    m->entry = LLVMAppendBasicBlockInContext(m->ctx, thunk, "entry");
    LLVMPositionBuilderAtEnd(m->b, m->entry);
    LLVMValueRef cw = LLVMBuildBitCast(m->b, LLVMGetParam(thunk, 0), LLVMPointerType(m->t_i64, 0), "");
    LLVMValueRef args[SEMA_MAX_PARAMS + 3];
    for (uint32_t i = 0; i < n + 2; i++)
        args[i] = from_word(m, LLVMBuildLoad2(m->b, m->t_i64, cg_env_slot(m, cw, i), ""), LLVMTypeOf(vals[i]));
    LLVMValueRef r = cg_rpc_invoke(m, c, args, args[n], args[n + 1]);
    if (r) LLVMBuildRet(m->b, to_word(m, r));
    cg_fn_restore(m, &st);
    return r ? go(m, thunk, env, e->span) : NULL;
}

/* spawn f(x, y): the arguments (positional, labelled, defaults; in the
 * order written) are evaluated now, the call runs in the new task. */
/* spawn f(x) for a value f of function type: f and its arguments are
 * evaluated now, f is called in the new task. */
/* A spawned call's thunk: its n argument words stored in a fresh env,
 * and a new internal thunk function with the builder at its entry, whose
 * first parameter is the env as words (in *cw). The caller loads the
 * arguments, makes the call and returns to *here. */
static LLVMValueRef thunk_begin(cg_module *m, LLVMValueRef *vals, uint32_t n, LLVMValueRef *env, LLVMValueRef *cw,
                                LLVMBasicBlockRef *here) {
    LLVMValueRef words;
    *env = cg_new_env(m, n, &words);
    for (uint32_t i = 0; i < n; i++) LLVMBuildStore(m->b, to_word(m, vals[i]), cg_env_slot(m, words, i));
    char *name = spawn_name(m, "thunk");
    LLVMValueRef thunk = LLVMAddFunction(m->mod, name, thunk_type(m));
    free(name);
    LLVMSetLinkage(thunk, LLVMInternalLinkage);
    *here = LLVMGetInsertBlock(m->b);
    LLVMPositionBuilderAtEnd(m->b, LLVMAppendBasicBlockInContext(m->ctx, thunk, "entry"));
    *cw = LLVMBuildBitCast(m->b, LLVMGetParam(thunk, 0), LLVMPointerType(m->t_i64, 0), "");
    return thunk;
}

static LLVMValueRef spawn_value(cg_module *m, const ast_node *e) {
    const ast_node *c = e->a;
    const sema_type *ft = c->a->type;
    LLVMTypeRef code_ty = cg_fn_type(m, ft, e->span);
    if (!code_ty || ft->nitems > SEMA_MAX_PARAMS) return NULL;
    uint32_t n = ft->nitems + 1;
    LLVMValueRef vals[SEMA_MAX_PARAMS + 2];
    if (!(vals[0] = cg_operand(m, c->a, m->t_ptr))) return NULL;
    for (uint32_t i = 0; i + 1 < n && i < c->list.len; i++)
        if (!(vals[i + 1] = cg_value(m, ((const ast_node *)c->list.items[i])->a, ft->items[i]))) return NULL;
    LLVMValueRef env, cw;
    LLVMBasicBlockRef here;
    LLVMValueRef thunk = thunk_begin(m, vals, n, &env, &cw, &here);
    LLVMValueRef args[SEMA_MAX_PARAMS + 2];
    for (uint32_t i = 0; i < n; i++)
        args[i] = from_word(m, LLVMBuildLoad2(m->b, m->t_i64, cg_env_slot(m, cw, i), ""), LLVMTypeOf(vals[i]));
    LLVMTypeRef code_ptr = LLVMPointerType(code_ty, 0);
    LLVMValueRef code = LLVMBuildLoad2(m->b, code_ptr, LLVMBuildBitCast(m->b, args[0], LLVMPointerType(code_ptr, 0), ""), "");
    LLVMValueRef r = LLVMBuildCall2(m->b, code_ty, code, args, n, "");
    LLVMBuildRet(m->b, LLVMGetTypeKind(LLVMTypeOf(r)) == LLVMVoidTypeKind ? cg_i64(m, 0) : to_word(m, r));
    LLVMPositionBuilderAtEnd(m->b, here);
    return go(m, thunk, env, e->span);
}

/* The receiver of a built-in method call (xs in xs.push(1)), which a
 * spawn evaluates now; NULL for a module's member (sim.note) or a type. */
static const ast_node *value_receiver(const ast_node *callee) {
    if (callee->kind != AST_FIELD_ACCESS || callee->sym || !callee->a || !callee->a->type) return NULL;
    const sema_sym *s = callee->a->sym;
    if (s && (s->kind == SYM_MODULE || s->kind == SYM_TYPE || s->kind == SYM_SERVICE)) return NULL;
    return callee->a;
}

/* One operand of a spawned call, as the call generated again sees it: a
 * local (decl, sym) read by a name (id), and the argument that holds it. */
typedef struct standin {
    ast_node decl, id, arg;
    sema_sym sym;
} standin;

/* spawn of any other call sema accepts: print(x), panic(m), a built-in
 * method (xs.push(1), c.send(v), t.join()), an extern (net.heal()),
 * Chan[T](n). As for `spawn f(x)`, the receiver and the arguments are
 * evaluated now, in the order written, and the call is made in the new
 * task: the thunk is a body of its own in which the call is generated
 * again, each operand replaced by a local of the thunk that holds its
 * value (read from the environment). The stand-in nodes and symbols are
 * used only while the thunk is generated. */
static LLVMValueRef spawn_general(cg_module *m, const ast_node *e) {
    const ast_node *c = e->a;
    const ast_node *recv = value_receiver(c->a);
    uint32_t nargs = c->list.len, n = nargs + (recv ? 1 : 0);
    if (n > SEMA_MAX_PARAMS) {
        cg_unsupported(m, e->span, "spawn of a call with this many arguments");
        return NULL;
    }
    const ast_node *operand[SEMA_MAX_PARAMS];
    LLVMValueRef vals[SEMA_MAX_PARAMS];
    LLVMTypeRef types[SEMA_MAX_PARAMS];
    if (recv) operand[0] = recv;
    for (uint32_t i = 0; i < nargs; i++) operand[n - nargs + i] = ((const ast_node *)c->list.items[i])->a;
    for (uint32_t i = 0; i < n; i++) {
        const sema_type *t = operand[i]->type;
        if (t && t->kind == TY_NEVER) { /* spawn print(panic("x")): panics here, spawns nothing */
            if (!cg_expr(m, operand[i])) return NULL;
            if (!cg_terminated(m)) LLVMBuildUnreachable(m->b);
            cg_start_dead_block(m);
            return LLVMGetUndef(m->t_ptr);
        }
        if (!t || !(types[i] = cg_type(m, t, operand[i]->span, false))) return NULL;
        if (!(vals[i] = cg_operand(m, operand[i], types[i]))) return NULL;
        if (LLVMTypeOf(vals[i]) != types[i]) {
            cg_unsupported(m, operand[i]->span, "spawn of a call with this argument");
            return NULL;
        }
    }

    /* the call again, over stand-ins: x.m(a, b) becomes x'.m(a', b')
     * (on the heap: an argument may hold another spawn, and so on) */
    standin *sv = calloc(n ? n : 1, sizeof *sv);
    if (!sv) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    for (uint32_t i = 0; i < n; i++) {
        /* no place in the source: the stand-in is no local of the debugger's */
        sv[i].decl = (ast_node){.kind = AST_LET, .span = {BASE_NO_FILE, 0, 0}, .type = operand[i]->type};
        sv[i].sym = (sema_sym){.kind = SYM_LOCAL, .decl = &sv[i].decl, .type = operand[i]->type, .state = RS_DONE};
        sv[i].id = (ast_node){.kind = AST_IDENT, .span = operand[i]->span, .type = operand[i]->type, .sym = &sv[i].sym};
    }
    ast_node callee = *c->a;
    if (recv) callee.a = &sv[0].id;
    for (uint32_t i = 0; i < nargs; i++) {
        standin *a = &sv[n - nargs + i];
        a->arg = *(const ast_node *)c->list.items[i];
        a->arg.a = &a->id;
    }
    ast_node call = *c;
    call.a = &callee;
    void **items = calloc(nargs ? nargs : 1, sizeof *items);
    if (!items) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    for (uint32_t i = 0; i < nargs; i++) items[i] = &sv[n - nargs + i].arg;
    call.list = (base_vec){.items = items, .len = nargs, .cap = nargs};

    LLVMValueRef env, cw;
    LLVMBasicBlockRef here;
    LLVMValueRef thunk = thunk_begin(m, vals, n, &env, &cw, &here);
    cg_fn_state st;
    cg_fn_save(m, &st);
    m->fn = thunk;
    m->entry = LLVMGetInsertBlock(m->b);
    for (uint32_t i = 0; i < n; i++) {
        LLVMValueRef slot = cg_entry_alloca(m, types[i], "");
        LLVMBuildStore(m->b, from_word(m, LLVMBuildLoad2(m->b, m->t_i64, cg_env_slot(m, cw, i), ""), types[i]), slot);
        cg_add_local(m, &sv[i].decl, slot);
    }
    LLVMValueRef r = cg_expr(m, &call);
    const sema_type *rt = e->type->elem;
    if (r && !cg_terminated(m))
        LLVMBuildRet(m->b, !rt || rt->kind == TY_NONE || rt->kind == TY_NEVER ? cg_i64(m, 0) : to_word(m, r));
    cg_fn_restore(m, &st); /* the thunk's locals (which name the stand-ins) go with it */
    free(items);
    free(sv);
    LLVMPositionBuilderAtEnd(m->b, here);
    return r ? go(m, thunk, env, e->span) : NULL;
}

static LLVMValueRef spawn_call(cg_module *m, const ast_node *e) {
    const ast_node *c = e->a;
    const sema_sym *s = c->a ? c->a->sym : NULL;
    if (s && s->kind == SYM_FN && s->is_rpc && s->sig && (c->flags & AST_F_REMOTE)) return spawn_remote(m, e);
    if (c->a && c->a->type && c->a->type->kind == TY_FN && (!s || s->kind != SYM_FN)) return spawn_value(m, e);
    if (!c->a) {
        cg_unsupported(m, e->span, "spawn of this call");
        return NULL;
    }
    if (!s || s->kind != SYM_FN || s->is_extern || !s->sig || !s->decl) return spawn_general(m, e);
    const sema_sig *sig = s->sig;
    LLVMValueRef f = cg_fn_of(m, s, e->span);
    if (!f || sig->nparams > SEMA_MAX_PARAMS) {
        cg_unsupported(m, e->span, "spawn of this call");
        return NULL;
    }
    uint32_t n = sig->nparams;
    LLVMValueRef vals[SEMA_MAX_PARAMS + 1];
    if (!cg_fn_args(m, c, s, vals)) return NULL;
    LLVMValueRef env, cw;
    LLVMBasicBlockRef here;
    LLVMValueRef thunk = thunk_begin(m, vals, n, &env, &cw, &here);
    LLVMValueRef args[SEMA_MAX_PARAMS + 1];
    for (uint32_t i = 0; i < n; i++)
        args[i] = from_word(m, LLVMBuildLoad2(m->b, m->t_i64, cg_env_slot(m, cw, i), ""), LLVMTypeOf(LLVMGetParam(f, i)));
    LLVMValueRef r = cg_call(m, f, args, n);
    LLVMBuildRet(m->b, LLVMGetTypeKind(LLVMTypeOf(r)) == LLVMVoidTypeKind ? cg_i64(m, 0) : to_word(m, r));
    LLVMPositionBuilderAtEnd(m->b, here);
    return go(m, thunk, env, e->span);
}

LLVMValueRef cg_spawn(cg_module *m, const ast_node *e) {
    if (!e->type || e->type->kind != TY_TASK) {
        cg_unsupported(m, e->span, "this spawn");
        return NULL;
    }
    /* spawn(name: n): n first, then the call's arguments, then the task
     * is named before anything else runs (it has not started yet) */
    LLVMValueRef name = NULL;
    if (e->c && !(name = cg_operand(m, e->c, m->t_ptr))) return NULL;
    LLVMValueRef h = e->b ? spawn_block(m, e) : spawn_call(m, e);
    if (h && name) {
        LLVMTypeRef ps[4] = {m->t_ptr, m->t_ptr, m->t_ptr, m->t_i32};
        LLVMValueRef line;
        LLVMValueRef file = loc(m, e->c->span, &line);
        LLVMValueRef args[4] = {h, name, file, line};
        cg_call(m, cg_runtime_fn(m, "oxl_go_name", m->t_void, ps, 4, false), args, 4);
    }
    return h;
}

/* ---- channels ---- */

/* ok = oxl_chan_recv_word(c, &w); the word slot is an entry alloca. */
static LLVMValueRef recv_word(cg_module *m, LLVMValueRef chan, LLVMValueRef slot, base_span at) {
    LLVMTypeRef ps[4] = {m->t_ptr, LLVMPointerType(m->t_i64, 0), m->t_ptr, m->t_i32};
    LLVMValueRef f = cg_runtime_fn(m, "oxl_chan_recv_word", m->t_i8, ps, 4, false);
    LLVMValueRef line;
    LLVMValueRef file = loc(m, at, &line);
    LLVMValueRef args[4] = {chan, slot, file, line};
    LLVMValueRef r = cg_call(m, f, args, 4);
    return LLVMBuildICmp(m->b, LLVMIntNE, r, LLVMConstInt(m->t_i8, 0, 0), "");
}

static bool no_labels(cg_module *m, const ast_node *e) {
    for (uint32_t i = 0; i < e->list.len; i++) {
        const ast_node *arg = e->list.items[i];
        if (arg->name) {
            cg_unsupported(m, arg->span, "named arguments to this method");
            return false;
        }
    }
    return true;
}

static LLVMValueRef chan_method(cg_module *m, const ast_node *e, const ast_node *recv_expr, sema_method id) {
    const sema_type *ct = recv_expr->type;
    if (!no_labels(m, e)) return NULL;
    LLVMValueRef c = cg_operand(m, recv_expr, m->t_ptr);
    if (!c) return NULL;
    LLVMValueRef line;
    LLVMValueRef file = loc(m, e->span, &line);
    if (id == SM_CHAN_SEND && e->list.len == 1) {
        if (!cg_type(m, ct->elem, e->span, false)) return NULL;
        const ast_node *arg = e->list.items[0];
        LLVMValueRef v = cg_value(m, arg->a, ct->elem); /* boxed into a union element */
        if (!v) return NULL;
        LLVMTypeRef ps[4] = {m->t_ptr, m->t_i64, m->t_ptr, m->t_i32};
        LLVMValueRef args[4] = {c, to_word(m, v), file, line};
        cg_call(m, cg_runtime_fn(m, "oxl_chan_send_word", m->t_void, ps, 4, false), args, 4);
        return LLVMConstNull(m->t_ptr); /* none */
    }
    if (id == SM_CHAN_RECV && e->list.len == 0) {
        LLVMValueRef slot = cg_entry_alloca(m, m->t_i64, "recv");
        LLVMValueRef ok = recv_word(m, c, slot, e->span);
        return cg_optional(m, ok, LLVMBuildLoad2(m->b, m->t_i64, slot, ""), ct->elem, e->type);
    }
    if (id == SM_CHAN_CLOSE && e->list.len == 0) {
        LLVMTypeRef ps[3] = {m->t_ptr, m->t_ptr, m->t_i32};
        LLVMValueRef args[3] = {c, file, line};
        cg_call(m, cg_runtime_fn(m, "oxl_chan_close_at", m->t_void, ps, 3, false), args, 3);
        return LLVMConstNull(m->t_ptr); /* none */
    }
    if (id == SM_CHAN_LEN && e->list.len == 0) {
        LLVMTypeRef ps[1] = {m->t_ptr};
        return cg_call(m, cg_runtime_fn(m, "oxl_chan_count", m->t_i64, ps, 1, false), &c, 1);
    }
    cg_unsupported(m, e->span, "this channel method");
    return NULL;
}

/* t.join() and t.cancel(). A Task[None] joins through oxl_go_join_none:
 * one cancelled by t.cancel() has no result to miss. */
static LLVMValueRef task_method(cg_module *m, const ast_node *e, const ast_node *recv_expr, sema_method id) {
    bool join = id == SM_TASK_JOIN, cancel = id == SM_TASK_CANCEL;
    if ((!join && !cancel) || e->list.len != 0) {
        cg_unsupported(m, e->span, "this task method");
        return NULL;
    }
    const sema_type *rt = recv_expr->type->elem;
    LLVMTypeRef t = NULL;
    if (join && rt && rt->kind != TY_NONE && rt->kind != TY_NEVER && !(t = cg_type(m, rt, e->span, false)))
        return NULL;
    LLVMValueRef h = cg_operand(m, recv_expr, m->t_ptr);
    if (!h) return NULL;
    LLVMValueRef line;
    LLVMValueRef file = loc(m, e->span, &line);
    LLVMTypeRef ps[3] = {m->t_ptr, m->t_ptr, m->t_i32};
    LLVMValueRef args[3] = {h, file, line};
    if (cancel || !t) {
        cg_call(m, cg_runtime_fn(m, cancel ? "oxl_go_cancel" : "oxl_go_join_none", m->t_void, ps, 3, false), args, 3);
        return LLVMConstNull(m->t_ptr); /* none */
    }
    LLVMValueRef w = cg_call(m, cg_runtime_fn(m, "oxl_go_join", m->t_i64, ps, 3, false), args, 3);
    return from_word(m, w, t);
}

static bool is_type_named(const ast_node *n, sema_tkind kind) {
    const sema_sym *s = n && n->kind == AST_IDENT ? n->sym : NULL;
    return s && s->kind == SYM_TYPE && s->type && s->type->kind == kind;
}

bool cg_task_call(cg_module *m, const ast_node *e, LLVMValueRef *out) {
    const ast_node *callee = e->a;
    const sema_sym *s = callee->sym;
    *out = NULL;
    /* Chan[T](cap) */
    if (e->type && e->type->kind == TY_CHAN && (callee->kind == AST_INDEX || callee->kind == AST_TYPE_NAME)) {
        LLVMValueRef cap = cg_i64(m, 0);
        if (e->list.len == 1 && !(cap = cg_operand(m, ((const ast_node *)e->list.items[0])->a, m->t_i64))) return true;
        LLVMValueRef line;
        LLVMValueRef file = loc(m, e->span, &line);
        LLVMTypeRef ps[3] = {m->t_i64, m->t_ptr, m->t_i32};
        LLVMValueRef args[3] = {cap, file, line};
        *out = cg_call(m, cg_runtime_fn(m, "oxl_chan_make", m->t_ptr, ps, 3, false), args, 3);
        return true;
    }
    /* Instant.now() is std.time's now() (extern fns are calls of expr.c) */
    if (callee->kind == AST_FIELD_ACCESS && callee->name && strcmp(callee->name, "now") == 0 &&
        is_type_named(callee->a, TY_INSTANT)) {
        *out = cg_call(m, cg_runtime_fn(m, "oxl_std_time_now", m->t_i64, NULL, 0, false), NULL, 0);
        return true;
    }
    /* methods of Chan[T] and Task[T] */
    if (callee->kind == AST_FIELD_ACCESS && !s && callee->a && callee->a->type) {
        if (callee->a->type->kind == TY_CHAN) {
            *out = chan_method(m, e, callee->a, (sema_method)callee->ival);
            return true;
        }
        if (callee->a->type->kind == TY_TASK) {
            *out = task_method(m, e, callee->a, (sema_method)callee->ival);
            return true;
        }
    }
    return false;
}

/* ---- for v in c ---- */

bool cg_for_chan(cg_module *m, const ast_node *s) {
    const sema_type *ct = s->a->type;
    if (s->name2) {
        cg_unsupported(m, s->span, "two loop variables over a channel");
        return false;
    }
    LLVMTypeRef et = cg_type(m, ct->elem, s->name_span, false);
    if (!et) return false;
    LLVMValueRef c = cg_operand(m, s->a, m->t_ptr);
    if (!c) return false;
    LLVMValueRef word = cg_entry_alloca(m, m->t_i64, "recv");
    LLVMValueRef slot = cg_entry_alloca(m, et, s->name ? s->name : "v");
    cg_add_local(m, s, slot);
    LLVMBasicBlockRef cond = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "chan.recv");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "chan.body");
    LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "chan.end");
    LLVMBuildBr(m->b, cond);
    LLVMPositionBuilderAtEnd(m->b, cond);
    LLVMValueRef ok = recv_word(m, c, word, s->a->span);
    LLVMBuildCondBr(m->b, ok, body, end);
    LLVMPositionBuilderAtEnd(m->b, body);
    LLVMBuildStore(m->b, from_word(m, LLVMBuildLoad2(m->b, m->t_i64, word, ""), et), slot);
    if (!cg_loop_body(m, s->b, end, cond)) return false;
    LLVMPositionBuilderAtEnd(m->b, end);
    return true;
}

/* ---- select ---- */

/* The channel operation of an arm: `c.recv()` or `c.send(x)`. */
static const ast_node *arm_chan(const ast_node *arm) {
    const ast_node *call = arm->a;
    return call && call->kind == AST_CALL && call->a && call->a->kind == AST_FIELD_ACCESS ? call->a->a : NULL;
}

bool cg_select(cg_module *m, const ast_node *s) {
    uint32_t n = s->list.len, nch = 0;
    const ast_node *after = NULL;
    for (uint32_t i = 0; i < n; i++) {
        const ast_node *arm = s->list.items[i];
        if (arm->op == AST_SEL_AFTER) {
            after = arm;
            continue;
        }
        const ast_node *ch = arm_chan(arm);
        if (!ch || !ch->type || ch->type->kind != TY_CHAN) {
            cg_unsupported(m, arm->span, "this select arm");
            return false;
        }
        nch++;
    }
    LLVMTypeRef arr_p = LLVMArrayType(m->t_ptr, nch ? nch : 1);
    LLVMTypeRef arr_w = LLVMArrayType(m->t_i64, nch ? nch : 1);
    LLVMValueRef chans = cg_entry_alloca(m, arr_p, "sel.chans");
    LLVMValueRef sends = cg_entry_alloca(m, arr_w, "sel.sends");
    LLVMValueRef words = cg_entry_alloca(m, arr_w, "sel.words");
    LLVMValueRef closed = cg_entry_alloca(m, m->t_i32, "sel.closed");
    LLVMValueRef zero = LLVMConstInt(m->t_i32, 0, 0);

    /* every channel and sent value, in source order, before waiting (Go) */
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        const ast_node *arm = s->list.items[i];
        if (arm->op == AST_SEL_AFTER) continue;
        const ast_node *ch = arm_chan(arm);
        LLVMValueRef c = cg_operand(m, ch, m->t_ptr);
        if (!c) return false;
        LLVMValueRef idx[2] = {zero, LLVMConstInt(m->t_i32, k, 0)};
        LLVMBuildStore(m->b, c, LLVMBuildInBoundsGEP2(m->b, arr_p, chans, idx, 2, ""));
        bool send = arm->op == AST_SEL_SEND;
        LLVMBuildStore(m->b, cg_i64(m, send), LLVMBuildInBoundsGEP2(m->b, arr_w, sends, idx, 2, ""));
        LLVMValueRef w = cg_i64(m, 0);
        if (send) {
            const ast_node *call = arm->a;
            if (call->list.len != 1) {
                cg_unsupported(m, arm->span, "this send arm");
                return false;
            }
            if (!cg_type(m, ch->type->elem, arm->span, false)) return false;
            LLVMValueRef v = cg_value(m, ((const ast_node *)call->list.items[0])->a, ch->type->elem);
            if (!v) return false;
            w = to_word(m, v);
        }
        LLVMBuildStore(m->b, w, LLVMBuildInBoundsGEP2(m->b, arr_w, words, idx, 2, ""));
        k++;
    }
    LLVMValueRef timeout = cg_i64(m, -1);
    if (after) {
        LLVMValueRef d = cg_operand(m, after->a, m->t_i64);
        if (!d) return false;
        /* a negative wait is no wait */
        timeout = LLVMBuildSelect(m->b, LLVMBuildICmp(m->b, LLVMIntSLT, d, cg_i64(m, 0), ""), cg_i64(m, 0), d, "");
    }
    LLVMValueRef line;
    LLVMValueRef file = loc(m, s->span, &line);
    LLVMValueRef idx0[2] = {zero, zero};
    LLVMTypeRef ps[8] = {m->t_i64, LLVMPointerType(m->t_ptr, 0), LLVMPointerType(m->t_i64, 0),
                         LLVMPointerType(m->t_i64, 0), m->t_i64, LLVMPointerType(m->t_i32, 0), m->t_ptr, m->t_i32};
    LLVMValueRef args[8] = {cg_i64(m, nch),
                            LLVMBuildInBoundsGEP2(m->b, arr_p, chans, idx0, 2, ""),
                            LLVMBuildInBoundsGEP2(m->b, arr_w, sends, idx0, 2, ""),
                            LLVMBuildInBoundsGEP2(m->b, arr_w, words, idx0, 2, ""),
                            timeout,
                            closed,
                            file,
                            line};
    LLVMValueRef taken = cg_call(m, cg_runtime_fn(m, "oxl_select_words", m->t_i64, ps, 8, false), args, 8);

    LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "sel.end");
    LLVMBasicBlockRef none_bb = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "sel.none");
    LLVMValueRef sw = LLVMBuildSwitch(m->b, taken, none_bb, n);
    LLVMPositionBuilderAtEnd(m->b, none_bb);
    LLVMBuildUnreachable(m->b); /* the runtime returns an arm or the timeout */
    k = 0;
    for (uint32_t i = 0; i < n; i++) {
        const ast_node *arm = s->list.items[i];
        LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "sel.arm");
        LLVMAddCase(sw, cg_i64(m, arm->op == AST_SEL_AFTER ? (long long)nch : (long long)k), bb);
        LLVMPositionBuilderAtEnd(m->b, bb);
        if (arm->op == AST_SEL_RECV && arm->name && arm->sym) {
            const ast_node *ch = arm_chan(arm);
            LLVMValueRef idx[2] = {zero, LLVMConstInt(m->t_i32, k, 0)};
            LLVMValueRef w = LLVMBuildLoad2(m->b, m->t_i64, LLVMBuildInBoundsGEP2(m->b, arr_w, words, idx, 2, ""), "");
            LLVMValueRef ok = LLVMBuildICmp(m->b, LLVMIntEQ, LLVMBuildLoad2(m->b, m->t_i32, closed, ""), zero, "");
            const sema_type *vt = ((const sema_sym *)arm->sym)->type;
            LLVMTypeRef vlt = cg_type(m, vt, arm->name_span, false);
            if (!vlt) return false;
            LLVMValueRef v = cg_optional(m, ok, w, ch->type->elem, vt);
            LLVMValueRef slot = cg_local_storage(m, arm, vlt, arm->name);
            LLVMBuildStore(m->b, v, slot);
            cg_add_local(m, arm, slot);
        }
        if (arm->op != AST_SEL_AFTER) k++;
        if (!cg_arm_body(m, arm->b)) return false;
        if (!cg_terminated(m)) LLVMBuildBr(m->b, end);
    }
    LLVMPositionBuilderAtEnd(m->b, end);
    return true;
}
