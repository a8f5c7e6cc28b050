/* service.c: services (docs/services.md). Each service becomes the
 * oxl_service table of runtime/include/oxl_rpc.h: its per-node state (a
 * row of words the runtime keeps per node, filled by an init function
 * from the initial values), its `on start`, and a wire entry per rpc that
 * takes the decoded argument words and calls the handler. The values that
 * cross the wire are described by constant type descriptors (oxl_td_kind).
 * A remote call is a call of oxl_rpc_call whose status picks the result
 * or the RpcError of the call's `R | RpcError`. Outside a simulation the
 * process serves every service of the program: oxl.boot boots them before
 * main or a unit test's body. */
#include "codegen/cg_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* oxl_td_kind of oxl_rpc.h (the rpc_wire and codegen tests pin both) */
enum { TD_NONE, TD_INT, TD_BOOL, TD_STRING, TD_BYTES, TD_DURATION, TD_INSTANT, TD_LIST, TD_MAP, TD_STRUCT, TD_UNION };

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    return p;
}

static LLVMTypeRef named_struct(cg_module *m, const char *name, LLVMTypeRef *fields, unsigned n) {
    LLVMTypeRef t = LLVMGetTypeByName2(m->ctx, name);
    if (t) return t;
    t = LLVMStructCreateNamed(m->ctx, name);
    LLVMStructSetBody(t, fields, n, 0);
    return t;
}

/* oxl_type_desc: kind, n, items, tags, name, str_tags, nstr_tags */
static LLVMTypeRef desc_type(cg_module *m) {
    LLVMTypeRef f[7] = {m->t_i64, m->t_i64, m->t_ptr, m->t_ptr, m->t_ptr, m->t_ptr, m->t_i64};
    return named_struct(m, "oxl.type_desc", f, 7);
}

/* oxl_rpc_method: name, entry, nparams, params, result, file, line */
static LLVMTypeRef method_type(cg_module *m) {
    LLVMTypeRef f[7] = {m->t_ptr, m->t_ptr, m->t_i64, m->t_ptr, m->t_ptr, m->t_ptr, m->t_i64};
    return named_struct(m, "oxl.rpc_method", f, 7);
}

/* oxl_service: name, id, nstate, init, start, nmethods, methods */
static LLVMTypeRef service_type(cg_module *m) {
    LLVMTypeRef f[7] = {m->t_ptr, m->t_i64, m->t_i64, m->t_ptr, m->t_ptr, m->t_i64, m->t_ptr};
    return named_struct(m, "oxl.service", f, 7);
}

/* A private constant array of n values of type t, as an i8* (NULL when
 * n is 0). */
static LLVMValueRef const_array(cg_module *m, const char *name, LLVMTypeRef t, LLVMValueRef *vals, unsigned n) {
    if (!n) return LLVMConstNull(m->t_ptr);
    LLVMValueRef init = LLVMConstArray(t, vals, n);
    LLVMValueRef g = LLVMAddGlobal(m->mod, LLVMTypeOf(init), name);
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    return LLVMConstBitCast(g, m->t_ptr);
}

/* ---- type descriptors ---- */

LLVMValueRef cg_type_desc(cg_module *m, const sema_type *t) {
    LLVMValueRef known = cg_helper_find(m, 'w', t);
    if (known) return LLVMConstBitCast(known, m->t_ptr);
    char gname[48];
    snprintf(gname, sizeof gname, "oxl.td.%u", t->id);
    LLVMValueRef g = LLVMAddGlobal(m->mod, desc_type(m), gname);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    cg_helper_add(m, 'w', t, g); /* first: a struct may hold itself */

    int64_t kind = TD_NONE;
    unsigned n = 0;
    LLVMValueRef *items = xcalloc(t->nitems + t->nfields + 2, sizeof *items);
    LLVMValueRef *tags = xcalloc(t->nitems + 1, sizeof *tags);
    LLVMValueRef str_tags = LLVMConstNull(m->t_ptr);
    unsigned nstr = 0;
    switch (t->kind) {
    case TY_NONE: kind = TD_NONE; break;
    case TY_INT: kind = TD_INT; break;
    case TY_BOOL: kind = TD_BOOL; break;
    case TY_STRING: kind = TD_STRING; break;
    case TY_BYTES: kind = TD_BYTES; break;
    case TY_DURATION: kind = TD_DURATION; break;
    case TY_INSTANT: kind = TD_INSTANT; break;
    case TY_LIST:
        kind = TD_LIST;
        items[n++] = cg_type_desc(m, t->elem);
        break;
    case TY_MAP:
        kind = TD_MAP;
        items[n++] = cg_type_desc(m, t->key);
        items[n++] = cg_type_desc(m, t->elem);
        if (t->key->kind == TY_UNION && !(str_tags = cg_key_tags(m, t->key, &nstr))) str_tags = LLVMConstNull(m->t_ptr);
        break;
    case TY_STRUCT:
        kind = TD_STRUCT;
        for (uint32_t i = 0; i < t->nfields; i++) items[n++] = cg_type_desc(m, t->fields[i].type);
        break;
    case TY_UNION:
        kind = TD_UNION;
        for (uint32_t i = 0; i < t->nitems; i++) {
            tags[n] = cg_i64(m, t->items[i]->id);
            items[n++] = cg_type_desc(m, t->items[i]);
        }
        break;
    default: { /* sema refuses the others: Chan, Task, fn */
        char buf[128];
        DIAG_INTERNAL(m->d, "type %s has no wire form", cg_type_name(t, buf, sizeof buf));
        m->failed = true;
        break;
    }
    }
    char buf[160], aname[56];
    cg_type_name(t, buf, sizeof buf);
    snprintf(aname, sizeof aname, "oxl.td.%u.items", t->id);
    LLVMValueRef items_arr = const_array(m, aname, m->t_ptr, items, n);
    snprintf(aname, sizeof aname, "oxl.td.%u.tags", t->id);
    LLVMValueRef tags_arr = const_array(m, aname, m->t_i64, tags, t->kind == TY_UNION ? n : 0);
    LLVMValueRef f[7] = {cg_i64(m, kind), cg_i64(m, n), items_arr, tags_arr, cg_cstring(m, buf, strlen(buf)),
                         str_tags, cg_i64(m, nstr)};
    LLVMSetInitializer(g, LLVMConstNamedStruct(desc_type(m), f, 7));
    free(items);
    free(tags);
    return LLVMConstBitCast(g, m->t_ptr);
}

/* ---- the service table ---- */

static char *service_symbol(const sema_sym *svc, const char *suffix) {
    const char *p = svc->pkg && svc->pkg->path ? svc->pkg->path : "main";
    size_t n = strlen(p) + strlen(svc->name) + strlen(suffix) + 16;
    char *s = xcalloc(n, 1);
    snprintf(s, n, "oxl.svc.%s.%s%s", p, svc->name, suffix);
    return s;
}

LLVMValueRef cg_service_ref(cg_module *m, const sema_sym *svc) {
    char *name = service_symbol(svc, "");
    LLVMValueRef g = LLVMGetNamedGlobal(m->mod, name);
    free(name);
    if (!g) {
        DIAG_INTERNAL(m->d, "service '%s' was not declared", svc->name);
        m->failed = true;
        return LLVMConstNull(m->t_ptr);
    }
    return LLVMConstBitCast(g, m->t_ptr);
}

/* The index of member `want` among the members of decl of that kind (rpcs
 * only, when rpc), or -1. */
static int64_t member_index(const ast_node *decl, const ast_node *want, int kind, bool rpc) {
    int64_t k = 0;
    for (uint32_t i = 0; i < decl->list.len; i++) {
        const ast_node *mb = decl->list.items[i];
        if (mb->kind != kind || (rpc && !(mb->flags & AST_F_RPC))) continue;
        if (mb == want) return k;
        k++;
    }
    return -1;
}

/* void init(i64 *words): each state's initial value into its word. */
static LLVMValueRef state_init(cg_module *m, const ast_node *svc, const sema_sym *ss) {
    uint32_t nstate = 0;
    for (uint32_t i = 0; i < svc->list.len; i++) nstate += ((const ast_node *)svc->list.items[i])->kind == AST_STATE;
    if (!nstate) return LLVMConstNull(m->t_ptr);
    char *name = service_symbol(ss, ".init");
    LLVMTypeRef ps[1] = {m->t_ptr};
    cg_fn_state st;
    cg_fn_save(m, &st);
    LLVMValueRef f = LLVMAddFunction(m->mod, name, LLVMFunctionType(m->t_void, ps, 1, 0));
    free(name);
    LLVMSetLinkage(f, LLVMInternalLinkage);
    m->fn = f;
    m->fn_decl = NULL;
    m->entry = LLVMAppendBasicBlockInContext(m->ctx, f, "entry");
    LLVMPositionBuilderAtEnd(m->b, m->entry);
    LLVMValueRef words = LLVMBuildBitCast(m->b, LLVMGetParam(f, 0), LLVMPointerType(m->t_i64, 0), "");
    bool ok = true;
    int64_t k = 0;
    for (uint32_t i = 0; i < svc->list.len && ok; i++) {
        const ast_node *sd = svc->list.items[i];
        if (sd->kind != AST_STATE) continue;
        const sema_type *t = sd->sym ? ((const sema_sym *)sd->sym)->type : NULL;
        if (!t || !sd->b) {
            DIAG_INTERNAL(m->d, "state '%s' has no type or initial value", sd->name);
            ok = false;
            break;
        }
        cg_task_prepare(m, sd->b);
        LLVMValueRef v = cg_value(m, sd->b, t);
        if (!v) {
            ok = false;
            break;
        }
        LLVMValueRef idx = cg_i64(m, k++);
        LLVMBuildStore(m->b, cg_to_word(m, v, t), LLVMBuildInBoundsGEP2(m->b, m->t_i64, words, &idx, 1, ""));
    }
    if (ok && !cg_terminated(m)) LLVMBuildRetVoid(m->b);
    cg_fn_restore(m, &st);
    return ok ? LLVMConstBitCast(f, m->t_ptr) : NULL;
}

/* i64 entry(i64 *args): the handler with the decoded argument words. */
static LLVMValueRef wire_entry(cg_module *m, const ast_node *fn, const sema_sym *ss) {
    const sema_sym *s = fn->sym;
    const sema_sig *sig = s->sig;
    LLVMValueRef handler = cg_fn_of(m, s, fn->span);
    if (!handler) {
        DIAG_INTERNAL(m->d, "rpc '%s' was not declared", fn->name);
        return NULL;
    }
    char suffix[300];
    snprintf(suffix, sizeof suffix, ".%s.entry", fn->name);
    char *name = service_symbol(ss, suffix);
    LLVMTypeRef ps[1] = {m->t_ptr};
    cg_fn_state st;
    cg_fn_save(m, &st);
    LLVMValueRef f = LLVMAddFunction(m->mod, name, LLVMFunctionType(m->t_i64, ps, 1, 0));
    free(name);
    LLVMSetLinkage(f, LLVMInternalLinkage);
    m->fn = f;
    m->fn_decl = NULL;
    m->entry = LLVMAppendBasicBlockInContext(m->ctx, f, "entry");
    LLVMPositionBuilderAtEnd(m->b, m->entry);
    LLVMValueRef words = LLVMBuildBitCast(m->b, LLVMGetParam(f, 0), LLVMPointerType(m->t_i64, 0), "");
    LLVMValueRef args[SEMA_MAX_PARAMS + 1];
    for (uint32_t i = 0; i < sig->nparams && i <= SEMA_MAX_PARAMS; i++) {
        LLVMValueRef idx = cg_i64(m, i);
        LLVMValueRef w = LLVMBuildLoad2(m->b, m->t_i64, LLVMBuildInBoundsGEP2(m->b, m->t_i64, words, &idx, 1, ""), "");
        args[i] = cg_from_word(m, w, sig->params[i].type);
    }
    LLVMValueRef r = cg_call(m, handler, args, sig->nparams);
    bool none = !sig->result || sig->result->kind == TY_NONE || sig->result->kind == TY_NEVER;
    LLVMBuildRet(m->b, none ? cg_i64(m, 0) : cg_to_word(m, r, sig->result));
    cg_fn_restore(m, &st);
    return LLVMConstBitCast(f, m->t_ptr);
}

static LLVMValueRef method_row(cg_module *m, const ast_node *fn, const sema_sym *ss) {
    const sema_sig *sig = ((const sema_sym *)fn->sym)->sig;
    LLVMValueRef entry = wire_entry(m, fn, ss);
    if (!entry) return NULL;
    LLVMValueRef params[SEMA_MAX_PARAMS + 1];
    for (uint32_t i = 0; i < sig->nparams && i <= SEMA_MAX_PARAMS; i++) params[i] = cg_type_desc(m, sig->params[i].type);
    char suffix[300];
    snprintf(suffix, sizeof suffix, ".%s.params", fn->name);
    char *pname = service_symbol(ss, suffix);
    LLVMValueRef parr = const_array(m, pname, m->t_ptr, params, sig->nparams);
    free(pname);
    const base_source *src = diag_source(m->d, fn->span.file);
    const char *file = src ? src->path : "?";
    LLVMValueRef f[7] = {cg_cstring(m, fn->name, strlen(fn->name)),
                         entry,
                         cg_i64(m, sig->nparams),
                         parr,
                         cg_type_desc(m, sig->result),
                         cg_cstring(m, file, strlen(file)),
                         cg_i64(m, diag_position(m->d, fn->name_span.len ? fn->name_span : fn->span).line)};
    return LLVMConstNamedStruct(method_type(m), f, 7);
}

/* Pass 0 declares the table (so calls and layouts can name it), pass 1
 * fills it. The service's fns are generated with the package's (module.c). */
bool cg_service(cg_module *m, const ast_node *svc, int pass) {
    const sema_sym *ss = svc->sym;
    if (!ss) return true; /* reported by sema */
    char *name = service_symbol(ss, "");
    if (pass == 0) {
        LLVMValueRef g = LLVMAddGlobal(m->mod, service_type(m), name);
        LLVMSetGlobalConstant(g, 1);
        LLVMSetLinkage(g, LLVMPrivateLinkage);
        free(name);
        if (m->nservices == m->cap_services) {
            m->cap_services = m->cap_services ? m->cap_services * 2 : 8;
            m->services = realloc(m->services, m->cap_services * sizeof *m->services);
            if (!m->services) {
                fputs("oxl: out of memory\n", stderr);
                abort();
            }
        }
        m->services[m->nservices++] = svc; /* its id: the index */
        return true;
    }
    LLVMValueRef g = LLVMGetNamedGlobal(m->mod, name);
    free(name);
    int64_t id = -1;
    for (uint32_t i = 0; i < m->nservices; i++)
        if (m->services[i] == svc) id = i;
    if (!g || id < 0) {
        DIAG_INTERNAL(m->d, "service '%s' was not declared", svc->name);
        return false;
    }
    LLVMValueRef init = state_init(m, svc, ss);
    if (!init) return false;
    LLVMValueRef start = LLVMConstNull(m->t_ptr);
    LLVMValueRef *rows = xcalloc(svc->list.len, sizeof *rows);
    unsigned nrows = 0, nstate = 0;
    bool ok = true;
    for (uint32_t i = 0; i < svc->list.len && ok; i++) {
        const ast_node *mb = svc->list.items[i];
        if (mb->kind == AST_STATE) {
            nstate++;
        } else if (mb->kind == AST_ON_START && mb->a) {
            char *sname = service_symbol(ss, ".start");
            LLVMValueRef sf = cg_body_function(m, sname, LLVMFunctionType(m->t_void, NULL, 0, 0), mb->a, NULL);
            free(sname);
            if (!sf) ok = false;
            else start = LLVMConstBitCast(sf, m->t_ptr);
        } else if (mb->kind == AST_FN && (mb->flags & AST_F_RPC) && mb->sym) {
            if (!(rows[nrows++] = method_row(m, mb, ss))) ok = false;
        }
    }
    if (ok) {
        char *aname = service_symbol(ss, ".methods");
        LLVMValueRef methods = const_array(m, aname, method_type(m), rows, nrows);
        free(aname);
        LLVMValueRef f[7] = {cg_cstring(m, ss->name, strlen(ss->name)), cg_i64(m, id), cg_i64(m, nstate), init,
                             start, cg_i64(m, nrows), methods};
        LLVMSetInitializer(g, LLVMConstNamedStruct(service_type(m), f, 7));
    }
    free(rows);
    return ok;
}

/* ---- state ---- */

LLVMValueRef cg_state_slot(cg_module *m, const sema_sym *st, base_span at) {
    const sema_sym *svc = st->owner;
    int64_t idx = svc && svc->decl ? member_index(svc->decl, st->decl, AST_STATE, false) : -1;
    if (idx < 0) {
        DIAG_INTERNAL(m->d, "state '%s' is not a member of its service", st->name);
        m->failed = true;
        return NULL;
    }
    LLVMTypeRef ps[3] = {m->t_ptr, m->t_ptr, m->t_i32};
    LLVMValueRef args[3] = {cg_service_ref(m, svc), cg_file_ptr(m, at), cg_line(m, at)};
    LLVMValueRef words = cg_rt(m, "oxl_service_state", m->t_ptr, ps, args, 3);
    words = LLVMBuildBitCast(m->b, words, LLVMPointerType(m->t_i64, 0), "");
    LLVMValueRef i = cg_i64(m, idx);
    return LLVMBuildInBoundsGEP2(m->b, m->t_i64, words, &i, 1, st->name);
}

/* ---- remote calls ---- */

/* The built-in RpcError among the members of a remote call's type. */
static const sema_type *rpc_error_of(const sema_type *t) {
    for (uint32_t i = 0; t && t->kind == TY_UNION && i < t->nitems; i++) {
        const sema_type *mt = t->items[i];
        if (mt->kind == TY_STRUCT && mt->name && strcmp(mt->name, "RpcError") == 0 && mt->sym && !mt->sym->decl)
            return mt;
    }
    return NULL;
}

bool cg_rpc_args(cg_module *m, const ast_node *e, LLVMValueRef *vals, LLVMValueRef *deadline, LLVMValueRef *to) {
    const sema_sym *s = e->a->sym;
    const ast_node *dl = NULL, *target = NULL;
    if (!cg_call_args_remote(m, e, s->sig, vals, &dl, &target)) return false;
    *deadline = cg_i64(m, INT64_MIN); /* OXL_RPC_NO_DEADLINE */
    if (dl && !(*deadline = cg_value(m, dl->a, dl->a->type))) return false;
    *to = LLVMConstNull(m->t_ptr);
    if (target && !(*to = cg_value(m, target->a, target->a->type))) return false;
    return true;
}

LLVMValueRef cg_rpc_call(cg_module *m, const ast_node *e) {
    LLVMValueRef vals[SEMA_MAX_PARAMS + 1], dl, to;
    if (!cg_rpc_args(m, e, vals, &dl, &to)) return NULL;
    return cg_rpc_invoke(m, e, vals, dl, to);
}

LLVMValueRef cg_rpc_invoke(cg_module *m, const ast_node *e, const LLVMValueRef *vals, LLVMValueRef dl,
                           LLVMValueRef target) {
    const sema_sym *s = e->a->sym;
    const sema_sym *svc = s ? s->owner : NULL;
    const sema_type *rt = e->type, *err_t = rpc_error_of(rt);
    int64_t method = svc && svc->decl ? member_index(svc->decl, s->decl, AST_FN, true) : -1;
    if (!svc || !err_t || method < 0) {
        DIAG_INTERNAL(m->d, "remote call without its service, method or RpcError");
        m->failed = true;
        return NULL;
    }
    const sema_sig *sig = s->sig;
    unsigned n = sig->nparams;
    LLVMValueRef words = cg_entry_alloca(m, LLVMArrayType(m->t_i64, n ? n : 1), "rpc.args");
    LLVMValueRef wp = LLVMBuildBitCast(m->b, words, LLVMPointerType(m->t_i64, 0), "");
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef idx = cg_i64(m, i);
        LLVMBuildStore(m->b, cg_to_word(m, vals[i], sig->params[i].type),
                       LLVMBuildInBoundsGEP2(m->b, m->t_i64, wp, &idx, 1, ""));
    }
    LLVMValueRef out = cg_entry_alloca(m, m->t_i64, "rpc.out");
    LLVMTypeRef ps[8] = {m->t_ptr, m->t_i64, m->t_ptr, m->t_i64, m->t_ptr, m->t_ptr, m->t_ptr, m->t_i32};
    LLVMValueRef args[8] = {cg_service_ref(m, svc), cg_i64(m, method),
                            LLVMBuildBitCast(m->b, words, m->t_ptr, ""), dl, target,
                            LLVMBuildBitCast(m->b, out, m->t_ptr, ""), cg_file_ptr(m, e->span), cg_line(m, e->span)};
    LLVMValueRef status = cg_rt(m, "oxl_rpc_call", m->t_i64, ps, args, 8);

    /* status 0: the result as R, else the RpcError, each into R | RpcError */
    LLVMBasicBlockRef ok_bb = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "rpc.ok");
    LLVMBasicBlockRef err_bb = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "rpc.err");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(m->ctx, m->fn, "rpc.done");
    LLVMBuildCondBr(m->b, LLVMBuildICmp(m->b, LLVMIntEQ, status, cg_i64(m, 0), ""), ok_bb, err_bb);
    LLVMPositionBuilderAtEnd(m->b, ok_bb);
    const sema_type *r = sig->result;
    LLVMValueRef w = LLVMBuildLoad2(m->b, m->t_i64, out, "");
    LLVMValueRef okv = !r || r->kind == TY_NONE ? LLVMConstNull(m->t_ptr) : cg_from_word(m, w, r);
    okv = r ? cg_coerce(m, okv, r, rt) : okv;
    LLVMBasicBlockRef ok_end = LLVMGetInsertBlock(m->b);
    LLVMBuildBr(m->b, done);
    LLVMPositionBuilderAtEnd(m->b, err_bb);
    LLVMValueRef ev = cg_coerce(m, LLVMBuildIntToPtr(m->b, LLVMBuildLoad2(m->b, m->t_i64, out, ""), m->t_ptr, ""),
                                err_t, rt);
    LLVMBasicBlockRef err_end = LLVMGetInsertBlock(m->b);
    LLVMBuildBr(m->b, done);
    LLVMPositionBuilderAtEnd(m->b, done);
    LLVMValueRef phi = LLVMBuildPhi(m->b, m->t_ptr, "rpc.result");
    LLVMValueRef incoming[2] = {okv, ev};
    LLVMBasicBlockRef from[2] = {ok_end, err_end};
    LLVMAddIncoming(phi, incoming, from, 2);
    return phi;
}

/* ---- outside a simulation ---- */

LLVMValueRef cg_boot_services(cg_module *m) {
    LLVMValueRef f = LLVMGetNamedFunction(m->mod, "oxl.boot");
    if (f) return f;
    cg_fn_state st;
    cg_fn_save(m, &st);
    f = LLVMAddFunction(m->mod, "oxl.boot", LLVMFunctionType(m->t_void, NULL, 0, 0));
    LLVMSetLinkage(f, LLVMInternalLinkage);
    m->fn = f;
    m->fn_decl = NULL;
    m->entry = LLVMAppendBasicBlockInContext(m->ctx, f, "entry");
    LLVMPositionBuilderAtEnd(m->b, m->entry);
    LLVMTypeRef ps[1] = {m->t_ptr};
    for (uint32_t i = 0; i < m->nservices; i++) { /* every package's, in the order they were generated */
        const sema_sym *ss = m->services[i]->sym;
        if (!ss) continue;
        LLVMValueRef svc = cg_service_ref(m, ss);
        cg_rt(m, "oxl_service_boot", m->t_void, ps, &svc, 1);
    }
    /* the `on start` tasks go first, until they wait (FIFO outside a simulation) */
    LLVMTypeRef yps[2] = {m->t_ptr, m->t_i32};
    LLVMValueRef yargs[2] = {cg_cstring(m, "(boot)", 6), LLVMConstInt(m->t_i32, 0, 0)};
    cg_rt(m, "oxl_yield_at", m->t_void, yps, yargs, 2);
    LLVMBuildRetVoid(m->b);
    cg_fn_restore(m, &st);
    return f;
}
